#!/usr/bin/python3
"""Regenerates the ONNX test models of tests/data/onnx/ from torchvision and torch.nn.

    /usr/bin/python3 scripts/dev/export_onnx_models.py [--out tests/data/onnx]

Needs Debian's python3-torch, python3-torchvision and python3-onnx (scripts/setup.sh does not
install torch: only this script needs it, and CI never runs it). Models are built with random
weights (nothing is downloaded), exported at batch 1 with static shapes, and then stripped of
their weight data: initializers keep their names, types and dims, so the committed files carry
every shape kapla's importer reads in a few kilobytes.
"""
from __future__ import annotations

import argparse
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import kapla_python  # noqa: E402

kapla_python.require("torch", "torchvision", "onnx")

import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402

OPSET = 17  # LayerNormalization is an op from opset 17 on; torch 1.13 exports up to 17


def strip_weights(model: onnx.ModelProto) -> None:
    for init in model.graph.initializer:
        # Small integer tensors are shapes, indices and axes that shape inference reads.
        elements = 1
        for d in init.dims:
            elements *= d
        if init.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32) and elements <= 64:
            continue
        init.ClearField("raw_data")
        for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            init.ClearField(field)
        # ONNX tensors with dims but no data: readers of shapes need nothing more.


def export(module: torch.nn.Module, example: torch.Tensor, path: str) -> None:
    module.eval()
    buffer = io.BytesIO()
    torch.onnx.export(module, example, buffer, opset_version=OPSET, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    model = onnx.load_from_string(buffer.getvalue())
    strip_weights(model)
    onnx.save(model, path)
    print(f"{path}: {os.path.getsize(path)} bytes, {len(model.graph.node)} nodes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "tests", "data", "onnx"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    image = torch.zeros(1, 3, 224, 224)
    for name in ("resnet50", "mobilenet_v2", "vgg16", "alexnet", "vit_b_16"):
        model = getattr(torchvision.models, name)(weights=None)
        export(model, image, os.path.join(args.out, f"torchvision_{name}.onnx"))
    encoder = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                               batch_first=True)
    export(encoder, torch.zeros(1, 128, 768),
           os.path.join(args.out, "torch_transformer_encoder_layer.onnx"))
    export_unsupported(os.path.join(args.out, "unsupported_topk.onnx"))


def export_unsupported(path: str) -> None:
    """A conv followed by an op kapla does not import (TopK): the one-line error's test."""
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w"], ["y"], name="conv", kernel_shape=[3, 3]),
         helper.make_node("TopK", ["y", "k"], ["values", "indices"], name="head/TopK", axis=1)],
        "unsupported",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 10, 10])],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, None)],
        [helper.make_tensor("w", TensorProto.FLOAT, [8, 3, 3, 3], [0.0] * 216),
         helper.make_tensor("k", TensorProto.INT64, [1], [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    strip_weights(model)
    onnx.save(model, path)
    print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
