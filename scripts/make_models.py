#!/usr/bin/python3
"""Builds the example ONNX models of data/models/ (docs/import.md, "Example models") and the
rule graphs of data/models/rules/ (one per mapping rule and per refusal of the importer, checked
by tests/import_test.cc).

Run with Debian's python3-onnx: /usr/bin/python3 scripts/make_models.py [OUT_DIR]

The graphs are written node by node with onnx.helper in the shapes a PyTorch 1.13 export
(opset 17) produces for the same modules: nn.Linear on a 3-D input as MatMul + Add, on a
2-D input as Gemm with transB=1; exact GELU as Div/Erf/Add/Mul/Mul; SiLU as Sigmoid/Mul;
LayerNorm as LayerNormalization; attention heads as Reshape + Transpose; masked_fill as Where.
Weights are float16 from a fixed seed, so the files are byte-identical on every run.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Builder:
    def __init__(self, name, seed):
        self.name = name
        self.nodes = []
        self.inits = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def weight(self, name, shape):
        data = (self.rng.standard_normal(shape) * 0.02).astype(np.float16)
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def const(self, name, value, dtype=np.float16):
        self.inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    def node(self, op, inputs, name, **attrs):
        out = name + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def linear3d(self, x, d_in, d_out, name, bias=True):
        """nn.Linear on [B, S, D]: MatMul by the transposed weight, then Add of the bias."""
        w = self.weight(name + ".weight_t", [d_in, d_out])
        y = self.node("MatMul", [x, w], name + "/MatMul")
        if bias:
            y = self.node("Add", [y, self.weight(name + ".bias", [d_out])], name + "/Add")
        return y

    def gelu(self, x, name):
        """torch.nn.GELU() (exact) as exported: x * 0.5 * (1 + erf(x / sqrt(2)))."""
        d = self.node("Div", [x, self.const(name + ".sqrt2", 1.4142135)], name + "/Div")
        e = self.node("Erf", [d], name + "/Erf")
        a = self.node("Add", [e, self.const(name + ".one", 1.0)], name + "/Add")
        m = self.node("Mul", [x, a], name + "/Mul")
        return self.node("Mul", [m, self.const(name + ".half", 0.5)], name + "/Mul_1")

    def silu(self, x, name):
        s = self.node("Sigmoid", [x], name + "/Sigmoid")
        return self.node("Mul", [x, s], name + "/Mul")

    def layer_norm(self, x, d, name):
        return self.node("LayerNormalization",
                         [x, self.weight(name + ".weight", [d]), self.weight(name + ".bias", [d])],
                         name + "/LayerNormalization", axis=-1, epsilon=1e-5)

    def model(self, inputs, outputs, opset=OPSET):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tilesched scripts/make_models.py")
        m.ir_version = 8
        if opset <= 17:  # python3-onnx 1.12 knows operator schemas up to opset 17
            onnx.checker.check_model(m)
        return m

    def ints(self, name, values):
        return self.const(name, values, np.int64)

    def out(self, op, inputs, name, outputs=1, **attrs):
        """A node with several outputs (Split)."""
        outs = [name + "_out" + str(i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs


def mlp(seq=128, d=128, hidden=512):
    """Two-layer MLP on [seq, d] (2-D input: nn.Linear exports Gemm with transB=1), GELU."""
    b = Builder("mlp", seed=1)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [seq, d])
    w1 = b.weight("fc1.weight", [hidden, d])  # PyTorch layout [out, in]
    h = b.node("Gemm", ["x", w1, b.weight("fc1.bias", [hidden])], "fc1/Gemm", transB=1)
    h = b.gelu(h, "act")
    h = b.node("Dropout", [h], "drop/Dropout")
    w2 = b.weight("fc2.weight", [d, hidden])
    y = b.node("Gemm", [h, w2, b.weight("fc2.bias", [d])], "fc2/Gemm", transB=1)
    b.nodes[-1].output[0] = "y"
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT16, [seq, d])
    return b.model([x], [out])


def swiglu_mlp(seq=128, d=128, hidden=384):
    """LLaMA-style SwiGLU MLP on [1, seq, d]: down(silu(gate(x)) * up(x))."""
    b = Builder("swiglu_mlp", seed=2)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, seq, d])
    gate = b.linear3d("x", d, hidden, "gate_proj", bias=False)
    up = b.linear3d("x", d, hidden, "up_proj", bias=False)
    act = b.silu(gate, "act")
    prod = b.node("Mul", [act, up], "mul/Mul")
    y = b.linear3d(prod, hidden, d, "down_proj", bias=False)
    b.nodes[-1].output[0] = "y"
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, seq, d])
    return b.model([x], [out])


def gpt_block(seq=128, d=128, heads=4, hidden=512):
    """Pre-LayerNorm GPT block on [1, seq, d]: causal multi-head attention, GELU MLP, residuals."""
    dh = d // heads
    b = Builder("gpt_block", seed=3)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, seq, d])
    h = b.layer_norm("x", d, "ln_1")
    split = b.const("heads_shape", [1, seq, heads, dh], np.int64)
    q = b.linear3d(h, d, d, "attn.q_proj")
    k = b.linear3d(h, d, d, "attn.k_proj")
    v = b.linear3d(h, d, d, "attn.v_proj")
    q = b.node("Reshape", [q, split], "attn/Reshape_q")
    q = b.node("Transpose", [q], "attn/Transpose_q", perm=[0, 2, 1, 3])
    k = b.node("Reshape", [k, split], "attn/Reshape_k")
    k = b.node("Transpose", [k], "attn/Transpose_k", perm=[0, 2, 1, 3])
    kt = b.node("Transpose", [k], "attn/Transpose_kt", perm=[0, 1, 3, 2])
    v = b.node("Reshape", [v, split], "attn/Reshape_v")
    v = b.node("Transpose", [v], "attn/Transpose_v", perm=[0, 2, 1, 3])
    s = b.node("MatMul", [q, kt], "attn/MatMul_qk")
    s = b.node("Div", [s, b.const("attn.scale", float(np.sqrt(dh)))], "attn/Div")
    mask = np.triu(np.ones((1, 1, seq, seq), dtype=bool), k=1)
    b.inits.append(numpy_helper.from_array(mask, "attn.causal_mask"))
    s = b.node("Where", ["attn.causal_mask", b.const("attn.neg_inf", -65504.0), s], "attn/Where")
    p = b.node("Softmax", [s], "attn/Softmax", axis=-1)
    c = b.node("MatMul", [p, v], "attn/MatMul_pv")
    c = b.node("Transpose", [c], "attn/Transpose_ctx", perm=[0, 2, 1, 3])
    c = b.node("Reshape", [c, b.const("model_shape", [1, seq, d], np.int64)], "attn/Reshape_ctx")
    a = b.linear3d(c, d, d, "attn.o_proj")
    r1 = b.node("Add", ["x", a], "residual_1/Add")
    h2 = b.layer_norm(r1, d, "ln_2")
    m = b.linear3d(h2, d, hidden, "mlp.fc1")
    m = b.gelu(m, "mlp.act")
    m = b.linear3d(m, hidden, d, "mlp.fc2")
    b.node("Add", [r1, m], "residual_2/Add")
    b.nodes[-1].output[0] = "y"
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, seq, d])
    return b.model([x], [out])


# Rule graphs (data/models/rules/): small, in the shapes the exporters write; F = float input.
def f_in(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def f_out(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def rule_constant_folding():
    """Shape arithmetic (Shape, Slice, Concat, Reshape targets) and a mask built from Range,
    Less, Not, Cast, CumSum, ConstantOfShape, Expand, Equal, Where, Abs, Log: all constants;
    the mask is broadcast into the Add, folded into its cost."""
    b = Builder("constant_folding", seed=10)
    s = b.node("Shape", ["x"], "shape")
    lead = b.node("Slice", [s, b.ints("zero", [0]), b.ints("two", [2])], "lead")
    split = b.node("Concat", [lead, b.ints("heads", [4, 8])], "split_shape", axis=0)
    h = b.node("Reshape", ["x", split], "to_heads")
    merge = b.node("Concat", [lead, b.ints("width", [32])], "merge_shape", axis=0)
    h = b.node("Reshape", [h, merge], "from_heads")
    y = b.node("MatMul", [h, b.weight("w", [32, 8])], "proj")
    r = b.node("Range", [b.ints("r0", 0), b.ints("r16", 16), b.ints("r1", 1)], "rows")
    r = b.node("Unsqueeze", [r, b.ints("axis1", [1])], "rows_col")
    c = b.node("Range", [b.ints("c0", 0), b.ints("c8", 8), b.ints("c1", 1)], "cols")
    m = b.node("Less", [c, r], "less")
    m = b.node("Not", [m], "not")
    m = b.node("Cast", [m], "cast", to=TensorProto.FLOAT)
    m = b.node("CumSum", [m, b.ints("cum_axis", 1)], "cumsum")
    ones = b.node("ConstantOfShape", [b.ints("mask_shape", [16, 8])], "ones",
                  value=numpy_helper.from_array(np.array([1.0], dtype=np.float32)))
    m = b.node("Mul", [m, b.node("Expand", [ones, b.ints("expand_shape", [16, 8])], "expand")], "mask_mul")
    eq = b.node("Equal", [m, b.const("zero_f", 0.0, np.float32)], "equal")
    m = b.node("Where", [eq, b.const("neg", -1e4, np.float32), m], "where")
    m = b.node("Log", [b.node("Abs", [m], "abs")], "log")
    b.node("Add", [y, m], "masked")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 16, 8])])


def rule_embedding_sum():
    """Token embedding by the input ids plus position embedding by constant positions."""
    b = Builder("embedding_sum", seed=11)
    tok = b.node("Gather", [b.weight("wte", [50, 32]), "ids"], "wte_lookup", axis=0)
    pos = b.node("Gather", [b.weight("wpe", [16, 32]), b.ints("positions", [list(range(16))])], "wpe_lookup", axis=0)
    e = b.node("Add", [tok, pos], "embed_sum")
    b.node("MatMul", [e, b.weight("w", [32, 8])], "proj")
    b.nodes[-1].output[0] = "y"
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 16])
    return b.model([ids], [f_out("y", [1, 16, 8])])


def rule_split_qkv():
    """GPT-2's fused qkv projection split in three (opset 18: Split with num_outputs)."""
    b = Builder("split_qkv", seed=12)
    qkv = b.node("MatMul", ["x", b.weight("c_attn", [32, 96])], "c_attn")
    q, k, v = b.out("Split", [qkv], "split", outputs=3, axis=2, num_outputs=3)
    b.node("Add", [q, b.node("Mul", [k, v], "kv")], "sum")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 16, 32])], opset=18)


def rule_gather_stacked():
    """q and k picked out of a stacked projection by Gather with a constant index
    (nn.MultiheadAttention's in-projection as torch.onnx exports it)."""
    b = Builder("gather_stacked", seed=13)
    p = b.node("MatMul", ["x", b.weight("in_proj", [32, 96])], "in_proj")
    p = b.node("Reshape", [p, b.ints("stack_shape", [16, 3, 32])], "stack")
    p = b.node("Transpose", [p], "stack_first", perm=[1, 0, 2])
    q = b.node("Gather", [p, b.ints("i0", 0)], "select_q", axis=0)
    k = b.node("Gather", [p, b.ints("i1", 1)], "select_k", axis=0)
    b.node("Add", [q, k], "sum")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [16, 32])], [f_out("y", [16, 32])])


def rule_rotary():
    """Rotary embedding as Hugging Face writes it: q * cos + cat(-q[..., 8:], q[..., :8]) * sin,
    two heads of 16, cos and sin constant tables broadcast over the heads (opset 18)."""
    b = Builder("rotary", seed=14)
    q = b.node("MatMul", ["x", b.weight("wq", [32, 32])], "q_proj")
    q = b.node("Reshape", [q, b.ints("heads", [1, 16, 2, 16])], "to_heads")
    q = b.node("Transpose", [q], "heads_first", perm=[0, 2, 1, 3])
    one = b.ints("one", [1])
    three = b.ints("last", [3])
    first = b.node("Slice", [q, b.ints("s0", [0]), b.ints("s8", [8]), three, one], "first_half")
    second = b.node("Slice", [q, b.ints("t8", [8]), b.ints("end", [2**63 - 1]), three, one], "second_half")
    rot = b.node("Concat", [b.node("Neg", [second], "neg"), first], "rotate_half", axis=-1)
    cos = b.weight("cos", [1, 1, 16, 16])
    sin = b.weight("sin", [1, 1, 16, 16])
    y = b.node("Add", [b.node("Mul", [q, cos], "q_cos"), b.node("Mul", [rot, sin], "rot_sin")], "rotary")
    y = b.node("Transpose", [y], "heads_back", perm=[0, 2, 1, 3])
    b.node("Reshape", [y, b.ints("merge", [1, 16, 32])], "merge_heads")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 16, 32])], opset=18)


def rule_gqa_expand():
    """Grouped-query attention: 2 kv heads repeated for 4 query heads by Unsqueeze, Expand and
    Reshape (Hugging Face's repeat_kv); scores q k^T per head."""
    b = Builder("gqa_expand", seed=15)
    q = b.node("MatMul", ["x", b.weight("wq", [32, 32])], "q_proj")
    q = b.node("Transpose", [b.node("Reshape", [q, b.ints("q_heads", [1, 16, 4, 8])], "q_split")], "q_first",
               perm=[0, 2, 1, 3])
    k = b.node("MatMul", ["x", b.weight("wk", [32, 16])], "k_proj")
    k = b.node("Transpose", [b.node("Reshape", [k, b.ints("k_heads", [1, 16, 2, 8])], "k_split")], "k_first",
               perm=[0, 2, 1, 3])
    k = b.node("Unsqueeze", [k, b.ints("axis2", [2])], "k_unsqueeze")
    k = b.node("Expand", [k, b.ints("repeat", [1, 2, 2, 16, 8])], "repeat_kv")
    k = b.node("Reshape", [k, b.ints("kv_heads", [1, 4, 16, 8])], "k_merge")
    kt = b.node("Transpose", [k], "k_t", perm=[0, 1, 3, 2])
    b.node("MatMul", [q, kt], "scores")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 4, 16, 16])], opset=18)


def rule_rmsnorm():
    """RMSNorm as Llama exports it at opset 18 (ReduceMean's axes an input), then a projection."""
    b = Builder("rmsnorm", seed=16)
    p = b.node("Pow", ["x", b.const("two", 2.0, np.float32)], "pow")
    m = b.node("ReduceMean", [p, b.ints("axes", [-1])], "mean", keepdims=1)
    m = b.node("Add", [m, b.const("eps", 1e-6, np.float32)], "add_eps")
    m = b.node("Reciprocal", [b.node("Sqrt", [m], "sqrt")], "rsqrt")
    n = b.node("Mul", ["x", m], "normalize")
    n = b.node("Mul", [b.weight("weight", [32]), n], "scale")
    b.node("MatMul", [n, b.weight("w", [32, 8])], "proj")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 16, 8])], opset=18)


def rule_layernorm_decomposed():
    """LayerNorm written out (mean and variance chains; opset 17, axes an attribute)."""
    b = Builder("layernorm_decomposed", seed=17)
    mean = b.node("ReduceMean", ["x"], "mean", axes=[-1], keepdims=1)
    d = b.node("Sub", ["x", mean], "center")
    var = b.node("ReduceMean", [b.node("Pow", [d, b.const("two", 2.0, np.float32)], "square")], "var",
                 axes=[-1], keepdims=1)
    s = b.node("Sqrt", [b.node("Add", [var, b.const("eps", 1e-5, np.float32)], "add_eps")], "std")
    n = b.node("Div", [d, s], "normalize")
    n = b.node("Add", [b.node("Mul", [n, b.weight("gamma", [32])], "scale"), b.weight("beta", [32])], "shift")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, 16, 32])], [f_out("y", [1, 16, 32])])


def rule_gelu_tanh():
    """GPT-2's GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    b = Builder("gelu_tanh", seed=18)
    h = b.node("MatMul", ["x", b.weight("c_fc", [32, 64])], "c_fc")
    half = b.node("Mul", [h, b.const("half", 0.5, np.float32)], "half_x")
    cube = b.node("Pow", [h, b.const("three", 3.0, np.float32)], "cube")
    inner = b.node("Add", [h, b.node("Mul", [cube, b.const("c", 0.044715, np.float32)], "scale_cube")], "inner")
    t = b.node("Tanh", [b.node("Mul", [inner, b.const("k", 0.7978845834732056, np.float32)], "scale_inner")], "tanh")
    g = b.node("Mul", [half, b.node("Add", [t, b.const("one", 1.0, np.float32)], "one_plus")], "gelu")
    b.node("MatMul", [g, b.weight("c_proj", [64, 32])], "c_proj")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [16, 32])], [f_out("y", [16, 32])])


def rule_masked_softmax():
    """Scaled, causally masked attention probabilities: (q k^T) * scale + mask, Softmax."""
    b = Builder("masked_softmax", seed=19)
    s = b.node("MatMul", ["q", "kt"], "scores")
    s = b.node("Mul", [s, b.const("scale", 0.25, np.float32)], "scale")
    mask = np.where(np.triu(np.ones((1, 1, 16, 16), dtype=bool), k=1), -3.4e38, 0).astype(np.float32)
    b.inits.append(numpy_helper.from_array(mask, "causal_mask"))
    s = b.node("Add", [s, "causal_mask"], "masked")
    b.node("Softmax", [s], "softmax", axis=-1)
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("q", [1, 2, 16, 8]), f_in("kt", [1, 2, 8, 16])], [f_out("y", [1, 2, 16, 16])])


def rule_patch_embedding():
    """ViT's patch embedding: Conv with kernel = stride = 8 over a 3x32x32 image, bias,
    Flatten(2), Transpose to [1, patches, width], then a projection."""
    b = Builder("patch_embedding", seed=20)
    c = b.node("Conv", ["pixels", b.weight("patch.weight", [16, 3, 8, 8]), b.weight("patch.bias", [16])], "patch",
               kernel_shape=[8, 8], strides=[8, 8])
    c = b.node("Flatten", [c], "flatten", axis=2)
    c = b.node("Reshape", [c, b.ints("seq", [1, 16, 16])], "to_seq")
    c = b.node("Transpose", [c], "patches_first", perm=[0, 2, 1])
    b.node("MatMul", [c, b.weight("w", [16, 8])], "proj")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("pixels", [1, 3, 32, 32])], [f_out("y", [1, 16, 8])])


def refuse_conv_overlap():
    b = Builder("refuse_conv_overlap", seed=21)
    b.node("Conv", ["pixels", b.weight("k", [4, 3, 3, 3])], "conv3x3", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("pixels", [1, 3, 8, 8])], [f_out("y", [1, 4, 8, 8])])


def refuse_dynamic():
    b = Builder("refuse_dynamic", seed=22)
    b.node("MatMul", ["x", b.weight("w", [32, 8])], "proj")
    b.nodes[-1].output[0] = "y"
    return b.model([f_in("x", [1, "seq", 32])], [f_out("y", [1, "seq", 8])])


def refuse_gather_runtime():
    b = Builder("refuse_gather_runtime", seed=23)
    h = b.node("MatMul", ["x", b.weight("w", [32, 32])], "proj")
    b.node("Gather", [h, "rows"], "pick_rows", axis=0)
    b.nodes[-1].output[0] = "y"
    rows = helper.make_tensor_value_info("rows", TensorProto.INT64, [4])
    return b.model([f_in("x", [16, 32]), rows], [f_out("y", [4, 32])])


RULES = [rule_constant_folding, rule_embedding_sum, rule_split_qkv, rule_gather_stacked, rule_rotary,
         rule_gqa_expand, rule_rmsnorm, rule_layernorm_decomposed, rule_gelu_tanh, rule_masked_softmax,
         rule_patch_embedding, refuse_conv_overlap, refuse_dynamic, refuse_gather_runtime]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "models")
    os.makedirs(os.path.join(out_dir, "rules"), exist_ok=True)
    for name, make in (("mlp", mlp), ("swiglu_mlp", swiglu_mlp), ("gpt_block", gpt_block)):
        path = os.path.join(out_dir, name + ".onnx")
        onnx.save(make(), path)
        print(path, os.path.getsize(path), "bytes")
    for make in RULES:
        name = make.__name__[len("rule_"):] if make.__name__.startswith("rule_") else make.__name__
        path = os.path.join(out_dir, "rules", name + ".onnx")
        onnx.save(make(), path)
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
