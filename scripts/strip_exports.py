#!/usr/bin/python3
"""Makes the committed copies of the PyTorch / Hugging Face exports (data/models/exports/).

Run with Debian's python3-onnx on the unpacked pytorch-exports.tgz (data/models/README.md):
    /usr/bin/python3 scripts/strip_exports.py UNPACKED_DIR [OUT_DIR]

Each export is rewritten with every initializer larger than 1 KiB moved to ONNX external data
(location "<model>.weights"), and only the .onnx file is kept: the weights file is deleted.
The graph, the exporter's value_info shapes and its node metadata (module paths) are kept
byte for byte; small initializers (shape constants, scalars) stay inside. The copies are tens
of KB, and importing them exercises the "external data absent" path: the importer needs shapes,
never weights.
"""
import os
import shutil
import sys
import tempfile

import onnx

MODELS = ["torch_mlp", "torch_encoder_layer", "hf_gpt2", "hf_bert", "hf_bert_legacy17", "hf_llama", "gpt2_small_real"]


def strip(src, dst):
    model = onnx.load(src, load_external_data=False)
    name = os.path.splitext(os.path.basename(dst))[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, os.path.basename(dst))
        onnx.save_model(model, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name + ".weights", size_threshold=1024)
        shutil.copyfile(out, dst)  # the .weights file stays behind and is deleted with tmp


def main():
    src_dir = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "data", "models",
                                                                  "exports")
    os.makedirs(out_dir, exist_ok=True)
    for name in MODELS:
        dst = os.path.join(out_dir, name + ".onnx")
        strip(os.path.join(src_dir, name + ".onnx"), dst)
        print(dst, os.path.getsize(dst), "bytes")


if __name__ == "__main__":
    main()
