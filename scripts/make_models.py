#!/usr/bin/python3
"""Builds the example ONNX models of data/models/ (docs/import.md, "Example models").

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

    def model(self, inputs, outputs):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="tilesched scripts/make_models.py")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


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


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "models")
    os.makedirs(out_dir, exist_ok=True)
    for name, make in (("mlp", mlp), ("swiglu_mlp", swiglu_mlp), ("gpt_block", gpt_block)):
        path = os.path.join(out_dir, name + ".onnx")
        onnx.save(make(), path)
        print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
