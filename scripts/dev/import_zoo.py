#!/usr/bin/env python3
"""Developer tool: regenerate data/networks/*.json from the reference zoo tables.

Reads nn_zoo.json (upstream nn_dataflow) and nn_zoo_kapla.json (the KAPLA fork: MobileNet and
the *_bp training networks) and writes one kapla network file per network in the format of
docs/formats.md. The generated files are committed and are the source of truth: a user's clone
has no copy of the tables, so this script only runs in a development checkout that has them
(by default ../shared/spec next to the repository). Python 3 standard library only.

    python3 scripts/dev/import_zoo.py [--spec-dir DIR] [--out-dir DIR] [--check]

--check compares instead of writing and exits 1 when a file would change.
"""

import argparse
import json
import os
import sys

# The paper each network comes from. The reference tables have a citation only for the fork's
# networks, and only as the module's docstring, so every citation is written out here.
CITATIONS = {
    "alex_net": "AlexNet: Krizhevsky, Sutskever, Hinton, NIPS 2012",
    "zfnet": "ZFNet: Zeiler, Fergus, ECCV 2014 (arXiv 2013)",
    "vgg_net": "VGGNet-16: Simonyan, Zisserman, ICLR 2015 (arXiv 2014)",
    "vgg19_net": "VGGNet-19: Simonyan, Zisserman, ICLR 2015 (arXiv 2014)",
    "googlenet": "GoogLeNet: Szegedy et al., CVPR 2015 (ILSVRC 2014)",
    "resnet50": "ResNet-50: He, Zhang, Ren, Sun, CVPR 2016 (arXiv 2015)",
    "resnet152": "ResNet-152: He, Zhang, Ren, Sun, CVPR 2016 (arXiv 2015)",
    "mobilenet": "MobileNet (v1): Howard et al., arXiv 2017",
    "mlp_s": "MLP-S: Chi et al. (PRIME), ISCA 2016",
    "mlp_m": "MLP-M: Chi et al. (PRIME), ISCA 2016",
    "mlp_l": "MLP-L: Chi et al. (PRIME), ISCA 2016",
    "lstm_gnmt": "LSTM (GNMT, 4 cells of 1000): Sutskever, Vinyals, Le, NIPS 2014",
    "lstm_phoneme": "LSTM for phoneme classification: Graves, Schmidhuber, Neural Networks 2005",
    "lstm_showtell": "LSTM from Show and Tell: Vinyals et al., CVPR 2015",
}
TRAINING_NOTE = "; training (back-propagation) network as built by the KAPLA fork of nn_dataflow"

UPSTREAM = ["alex_net", "zfnet", "vgg_net", "vgg19_net", "googlenet", "resnet50", "resnet152",
            "mlp_s", "mlp_m", "mlp_l", "lstm_gnmt", "lstm_phoneme", "lstm_showtell"]
FORK = ["mobilenet", "alex_net_bp", "vgg_net_bp", "googlenet_bp", "resnet50_bp", "mobilenet_bp",
        "mlp_l_bp", "lstm_gnmt_bp", "zfnet_bp"]

# Constructor parameters per layer type, in output order, and their defaults (None = required).
# "strd=sreg" marks the pooling default (stride equals the window).
FILTER = [("nifm", None), ("nofm", None), ("sofm", None), ("sfil", None), ("strd", [1, 1])]
FC = [("nifm", None), ("nofm", None), ("sfil", [1, 1])]
DEPTHWISE = [("nofm", None), ("sofm", None), ("sfil", None), ("strd", [1, 1])]
REGION = [("nofm", None), ("sofm", None), ("nreg", None), ("sreg", None), ("ntrd", 1),
          ("strd", [1, 1])]
POOLING = [("nofm", None), ("sofm", None), ("sreg", None), ("strd", "sreg")]
ELTWISE = [("nofm", None), ("sofm", None), ("nreg", None)]
PARAMS = {
    "Conv": FILTER, "ConvBackAct": FILTER, "ConvBackWeight": FILTER,
    "FC": FC, "FCBackAct": FC, "FCBackWeight": FC,
    "DWConv": DEPTHWISE, "DWConvBackAct": DEPTHWISE, "DWConvBackWeight": DEPTHWISE,
    "LocalRegion": REGION, "LocalRegionBack": REGION,
    "Pooling": POOLING, "PoolingBack": POOLING,
    "Eltwise": ELTWISE, "EltwiseBack": ELTWISE,
}


def implied_fields(layer):
    """Table fields fixed by the constructor and not written to the file; checked, not lost."""
    t = layer["type"]
    implied = {}
    if t in ("FC", "FCBackAct", "FCBackWeight"):
        implied["strd"] = [1, 1]
        implied["sofm"] = [1, 1] if t == "FC" else layer["sfil"]
    if t in ("Pooling", "PoolingBack"):
        implied.update(nreg=1, ntrd=1)
    if t in ("Eltwise", "EltwiseBack"):
        implied.update(sreg=[1, 1], ntrd=layer["nreg"], strd=[1, 1])
    if t.startswith("DWConv"):
        implied["nifm"] = layer["nofm"]
    if layer.get("crop", False):
        raise SystemExit(f"{layer['name']}: crop layers are not supported")
    return implied


def dim(value):
    """A square size as one integer, anything else as [h, w]."""
    return value[0] if value[0] == value[1] else list(value)


def convert_layer(layer, default_prevs):
    for key, want in implied_fields(layer).items():
        if layer[key] != want:
            raise SystemExit(f"{layer['name']}: {key} {layer[key]} is not the implied {want}")
    out = {"name": layer["name"], "type": layer["type"]}
    for key, default in PARAMS[layer["type"]]:
        value = layer[key]
        if default == "sreg":
            default = layer["sreg"]
        if default is not None and value == default:
            continue
        out[key] = dim(value) if isinstance(value, list) else value
    prevs = layer["prevs"]
    if prevs != default_prevs:
        out["prevs"] = None if prevs == [None] else prevs
    return out


def convert_network(name, record):
    layers = []
    previous = None
    for layer in record["layers"]:
        layers.append(convert_layer(layer, [previous]))
        previous = layer["name"]
    source = CITATIONS.get(name)
    if source is None:
        source = CITATIONS[name[:-len("_bp")]] + TRAINING_NOTE
    return {
        "name": name,
        "source": source,
        "input": {"nofm": record["input"]["nofm"], "sofm": dim(record["input"]["sofm"])},
        "externals": [{"name": e["name"], "nofm": e["nofm"], "sofm": dim(e["sofm"])}
                      for e in record["ext_layers"]],
        "layers": layers,
    }


def render(network):
    """Top-level keys one per line, one line per layer and external: diffs stay readable."""
    def one_line(obj):
        return json.dumps(obj, separators=(", ", ": "))

    lines = ["{"]
    lines.append(f'  "name": {json.dumps(network["name"])},')
    lines.append(f'  "source": {json.dumps(network["source"])},')
    lines.append(f'  "input": {one_line(network["input"])},')
    if network["externals"]:
        lines.append('  "externals": [')
        ext = [f"    {one_line(e)}" for e in network["externals"]]
        lines.append(",\n".join(ext))
        lines.append("  ],")
    else:
        lines.append('  "externals": [],')
    lines.append('  "layers": [')
    lines.append(",\n".join(f"    {one_line(layer)}" for layer in network["layers"]))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec-dir", default=os.path.join(repo, "..", "shared", "spec"))
    parser.add_argument("--out-dir", default=os.path.join(repo, "data", "networks"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    tables = []
    for table in ("nn_zoo.json", "nn_zoo_kapla.json"):
        path = os.path.join(args.spec_dir, table)
        if not os.path.exists(path):
            print(f"{path}: not found (this developer tool needs the reference tables; "
                  "pass --spec-dir)", file=sys.stderr)
            return 2
        with open(path) as f:
            tables.append(json.load(f)["networks"])
    upstream, fork = tables
    records = {name: upstream[name] for name in UPSTREAM}
    records.update({name: fork[name] for name in FORK})

    os.makedirs(args.out_dir, exist_ok=True)
    stale = []
    for name, record in sorted(records.items()):
        text = render(convert_network(name, record))
        path = os.path.join(args.out_dir, name + ".json")
        if args.check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
            continue
        with open(path, "w") as f:
            f.write(text)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    print(f"{'checked' if args.check else 'wrote'} {len(records)} networks in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
