"""Padding, the alternative to imperfect factorisation (Ruby; docs/imperfect.md): write a copy of
a network whose layer dimensions are rounded up to multiples, to be scheduled with
`imperfect: none`. The padded layer is a larger layer: its padded MACs, words and cycles are
all priced, which is the cost of padding.

  python3 scripts/pad_network.py IN.json OUT_DIR [--multiple DIM=M ...] [--suffix S] [--split]

DIM is one of nifm, nofm (channels), hofm, wofm (ofmap height and width; the input fmap follows
from the padded ofmap, stride and filter). A dimension smaller than its multiple is left as it is
(padding 3 input channels to 16 would be a different layer, not an alignment). Only layers that
read the network input or externals can be padded (padding a layer that feeds another would
change that one's input too): the one-layer networks and the independent-layer networks
(data/networks/deepbench_*.json) qualify; another layer is refused with one line.

Writes OUT_DIR/<network>S.json, or with --split one network per layer, OUT_DIR/<layer>S.json,
each reading its own input (so a layer that fits nowhere does not fail the others). Prints one
line per layer: name, MACs before and after, ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

DIMS = ("nifm", "nofm", "hofm", "wofm")


def _hw(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def _dim(h, w):
    return h if h == w else [h, w]


def _round(n: int, m: int) -> int:
    return n if n < m else -(-n // m) * m


def _macs(layer) -> int:
    oh, ow = _hw(layer.get("sofm", 1))
    r, s = _hw(layer.get("sfil", 1))
    return layer["nifm"] * layer["nofm"] * oh * ow * r * s


def pad_layer(layer, multiples):
    """The padded copy of a Conv or FC layer and the input (channels, size) it reads."""
    if layer["type"] not in ("Conv", "FC"):
        raise ValueError(f"'{layer['name']}': only Conv and FC layers are padded, "
                         f"got {layer['type']}")
    out = dict(layer)
    out["nifm"] = _round(layer["nifm"], multiples.get("nifm", 1))
    out["nofm"] = _round(layer["nofm"], multiples.get("nofm", 1))
    if layer["type"] == "FC":  # a 1x1 output; its input is the filter (formats.md)
        return out, (out["nifm"], layer.get("sfil", 1))
    oh, ow = _hw(layer["sofm"])
    oh, ow = _round(oh, multiples.get("hofm", 1)), _round(ow, multiples.get("wofm", 1))
    out["sofm"] = _dim(oh, ow)
    r, s = _hw(layer.get("sfil", 1))
    sh, sw = _hw(layer.get("strd", 1))
    return out, (out["nifm"], _dim((oh - 1) * sh + r, (ow - 1) * sw + s))


def _load(path):
    """The network file as a dict, or None after one error line on stderr."""
    try:
        with open(path, encoding="utf-8") as f:
            net = json.load(f)
    except OSError as e:
        print(f"error: {path}: cannot read: {e.strerror}", file=sys.stderr)
        return None
    except ValueError as e:  # malformed JSON or not UTF-8
        print(f"error: {path}: not valid JSON: {e}", file=sys.stderr)
        return None
    if not isinstance(net, dict) or not isinstance(net.get("layers"), list) or \
            not net["layers"] or not isinstance(net.get("name"), str):
        print(f"error: {path}: not a kapla network file (a JSON object with a name and a "
              "non-empty list of layers)", file=sys.stderr)
        return None
    return net


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("network")
    ap.add_argument("out_dir")
    ap.add_argument("--multiple", action="append", default=[], metavar="DIM=M")
    ap.add_argument("--suffix", default="")
    ap.add_argument("--split", action="store_true")
    a = ap.parse_args(argv)
    multiples = {}
    for item in a.multiple:
        dim, _, m = item.partition("=")
        if dim not in DIMS or not m.isdigit() or int(m) < 1:
            print(f"error: --multiple {item}: must be DIM=M with DIM one of {', '.join(DIMS)} "
                  "and M a positive integer", file=sys.stderr)
            return 1
        multiples[dim] = int(m)
    net = _load(a.network)
    if net is None:
        return 1
    try:
        sources = {e["name"] for e in net.get("externals", [])}
    except (KeyError, TypeError) as e:
        print(f"error: {a.network}: externals: each needs a name (got {e!r})", file=sys.stderr)
        return 1
    padded, inputs = [], {}
    for i, layer in enumerate(net["layers"]):
        if not isinstance(layer, dict) or not isinstance(layer.get("name"), str):
            print(f"error: {a.network}: layers[{i}]: must be an object with a name",
                  file=sys.stderr)
            return 1
        prevs = layer.get("prevs", "omitted")
        reads = [None] if prevs is None or (prevs == "omitted" and i == 0) else prevs
        if reads == "omitted" or any(p is not None and p not in sources for p in reads) \
                or len(reads) != 1 or reads[0] in (v[0] for v in inputs.values()):
            print(f"error: {a.network}: layers[{i}] ('{layer['name']}'): reads another layer or "
                  "shares its input; only layers reading the network input or an external of "
                  "their own can be padded",
                  file=sys.stderr)
            return 1
        try:
            p, (nifm, sifm) = pad_layer(layer, multiples)
            before, after = _macs(layer), _macs(p)
        except ValueError as e:
            print(f"error: {a.network}: layers[{i}]: {e}", file=sys.stderr)
            return 1
        except (KeyError, TypeError, IndexError) as e:
            print(f"error: {a.network}: layers[{i}] ('{layer['name']}'): a missing or malformed "
                  f"field ({e!r}); the layer fields are in docs/formats.md", file=sys.stderr)
            return 1
        padded.append(p)
        inputs[p["name"]] = (reads[0], {"nofm": nifm, "sofm": sifm})
        print(f"{layer['name']}: MACs {before} -> {after} ({after / before:.4f})")
    os.makedirs(a.out_dir, exist_ok=True)
    source = f"{net.get('source', a.network)}; padded by scripts/pad_network.py " + \
        (" ".join(f"{d}={m}" for d, m in multiples.items()) or "(no multiple)")
    if a.split:
        for p in padded:
            one = {"name": p["name"] + a.suffix, "source": source, "input": inputs[p["name"]][1],
                   "externals": [], "layers": [dict(p, prevs=None)]}
            with open(os.path.join(a.out_dir, p["name"] + a.suffix + ".json"), "w") as f:
                json.dump(one, f, indent=1)
                f.write("\n")
        return 0
    out = dict(net, name=net["name"] + a.suffix, source=source, layers=padded)
    exts = {e["name"]: dict(e) for e in net.get("externals", [])}
    for p in padded:
        src, shape = inputs[p["name"]]
        if src is None:
            out["input"] = shape
        else:
            exts[src].update(shape)
    out["externals"] = list(exts.values())
    with open(os.path.join(a.out_dir, net["name"] + a.suffix + ".json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
