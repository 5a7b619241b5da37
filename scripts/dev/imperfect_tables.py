"""Tables of issue 18 part 3 (docs/imperfect.md): imperfect none / spatial / full side by side.

  sweep NONE.h5 SPATIAL.h5 FULL.h5
      per PE array and strategy: EDP, energy, time, evaluations and CPU s of each mode, the
      PE utilisation (MACs / (PEs x cycles)), and the area-EDP Pareto front of each mode
  fronts LABEL=FILE.h5:LETTER ...
      the area-EDP Pareto front of each (results file, strategy letter), and at every design's
      area the best EDP of each run over the first run's (how far a new front lies below)
  geometry KAPLA BASE_HW NETWORK OPTIONS H W [H W ...]
      per PE array, B and K with imperfect none: how many MAC layers fold the ofmap rows or
      filter rows in time with a last fold that is not full (the fold count does not divide
      the rows), how many leave PEs idle in their replicas over channels (ceil), and the PE
      utilisation; read from `kapla schedule`'s text (the mapping it prints per layer)
  layers-h5 DIR NETS_DIR
      the tables of scripts/dev/imperfect_layers.sh: per hardware, strategy and layer (the
      one-layer networks of NETS_DIR, in file order), EDP of none and the ratios of spatial,
      full and the padded copies to it, the padding's MACs, evaluations and CPU s

Run with /usr/bin/python3 (h5py, pandas). Prints Markdown.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import kapla_codesign as kc  # noqa: E402
import kapla_results as kr  # noqa: E402

MODES = ("none", "spatial", "full")


def _g(x: float) -> str:
    return f"{x:.4g}"


def sweep(paths):
    rows = {}
    for mode, path in zip(MODES, paths):
        t = kr.table(path, "tuples")
        t = t[t["status"] == "ok"]
        for _, r in t.iterrows():
            pe = (int(r["design_pe_h"]), int(r["design_pe_w"]))
            rows.setdefault((r["letter"], pe), {})[mode] = r
    for letter in ("B", "K"):
        print(f"\n{letter}: EDP (J x cycles) none, spatial / none, full / none; energy (J) and time "
              "(cycles) of none and full; evaluations none -> full; CPU s none / spatial / full; "
              "PE utilisation none -> full\n")
        print("| PE array | area mm² | EDP none | spatial | full | energy none | energy full | "
              "time none | time full | evaluated none -> full | CPU s | PE util |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        keys = sorted(k for k in rows if k[0] == letter)
        keys.sort(key=lambda k: rows[k]["none"]["design_area_mm2"])
        for k in keys:
            m = rows[k]
            n, s, f = m["none"], m["spatial"], m["full"]
            print(f"| {k[1][0]}x{k[1][1]} | {n['design_area_mm2']:.4f} | {_g(n['edp'])} | "
                  f"{s['edp'] / n['edp']:.4f} | {f['edp'] / n['edp']:.4f} | {_g(n['energy'])} | "
                  f"{_g(f['energy'])} | {_g(n['time'])} | {_g(f['time'])} | "
                  f"{int(n['evaluated']):,} -> {int(f['evaluated']):,} | "
                  f"{n['cpu_seconds']:.2f} / {s['cpu_seconds']:.2f} / {f['cpu_seconds']:.2f} | "
                  f"{n['pe_utilisation']:.3f} -> {f['pe_utilisation']:.3f} |")
        for mode in MODES:
            import pandas as pd
            df = pd.DataFrame([{"pe": f"{k[1][0]}x{k[1][1]}",
                                "area": rows[k][mode]["design_area_mm2"],
                                "edp": rows[k][mode]["edp"]} for k in keys])
            front = kc.pareto(df, "area", "edp")
            ratios = [rows[(letter, tuple(int(v) for v in p.split("x")))][mode]["edp"] /
                      rows[(letter, tuple(int(v) for v in p.split("x")))]["none"]["edp"]
                      for p in front["pe"]]
            print(f"\n{letter} {mode}: front of {len(front)} designs: {', '.join(front['pe'])}; "
                  f"EDP / none on the front: {min(ratios):.4f} .. {max(ratios):.4f}")
        # Does a mode's front dominate none's? For each none-front design, the best EDP of the
        # mode at no larger area.
        import pandas as pd
        for mode in ("spatial", "full"):
            gains = []
            for k in keys:
                a = rows[k]["none"]["design_area_mm2"]
                best_none = min(rows[j]["none"]["edp"] for j in keys
                                if rows[j]["none"]["design_area_mm2"] <= a)
                best_mode = min(rows[j][mode]["edp"] for j in keys
                                if rows[j][mode]["design_area_mm2"] <= a)
                gains.append(best_mode / best_none)
            print(f"{letter} {mode}: best EDP at each area budget / none's: "
                  f"min {min(gains):.4f}, mean {sum(gains) / len(gains):.4f}")


def fronts(specs):
    import pandas as pd
    runs = []
    for spec in specs:
        label, _, rest = spec.partition("=")
        path, _, letter = rest.rpartition(":")
        t = kr.table(path, "tuples")
        t = t[(t["status"] == "ok") & (t["letter"] == letter)]
        df = pd.DataFrame({"pe": [f"{h}x{w}" for h, w in zip(t["design_pe_h"], t["design_pe_w"])],
                           "area": t["design_area_mm2"].astype(float),
                           "edp": t["edp"].astype(float)})
        runs.append((label, df))
    areas = sorted(set(runs[0][1]["area"]))
    for label, df in runs:
        front = kc.pareto(df, "area", "edp")
        line = f"{label}: front of {len(front)}: {', '.join(front['pe'])}"
        if df is not runs[0][1]:
            base = runs[0][1]
            g = [df[df["area"] <= a]["edp"].min() / base[base["area"] <= a]["edp"].min()
                 for a in areas]
            line += (f"; best EDP within each design's area over {runs[0][0]}'s: mean "
                     f"{sum(g) / len(g):.3f}, min {min(g):.3f}, max {max(g):.3f}")
        print(line + "\n")


MAP_RE = re.compile(r"PE mapping (\d+)x(\d+) logical PEs .*?time folds (\d+)x(\d+) of (\d+)x(\d+), "
                    r"replicas (\d+)x(\d+).*?mapping utilisation ([\d.]+)%")
UTIL_RE = re.compile(r"utilisation ([\d.]+)% \(MACs")


def _layers_text(text: str):
    """(name, logical (h, w), folds (h, w), utilisation, mapping utilisation, time) per layer."""
    out = []
    name = None
    util = None
    time = 0.0
    for line in text.splitlines():
        if line and not line.startswith(" ") and "(segment" in line:
            name = line.split()[0]
        if line.startswith("  time "):
            time = float(line.split()[1])
        m = UTIL_RE.search(line)
        if m and "PE array" in line:
            util = float(m.group(1)) / 100
        m = MAP_RE.search(line)
        if m:
            v = [int(x) for x in m.groups()[:8]]
            out.append((name, (v[0], v[1]), (v[2], v[3]), util, float(m.group(9)) / 100, time))
    return out


def exact_folds(n: int, f: int) -> int:
    """The fewest folds >= f that split n rows evenly (a divisor of n): what a perfect
    factorisation must use where the row-stationary mapper folds n rows f times with ceil."""
    return next(d for d in range(f, n + 1) if n % d == 0)


def geometry(kapla, base, network, options, shapes):
    hw = json.load(open(base if base.endswith(".json") else
                        os.path.join(os.path.dirname(__file__), "..", "..", "data", "hardware",
                                     base + ".json")))
    print("| PE array | strategy | MAC layers | ragged time fold | idle replicas | PE util "
          "(network) | PE util min / median (layers) | time with exact folds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for h, w in shapes:
            hw["pe_array"] = [h, w]
            hw["name"] = f"{hw['name'].split('~')[0]}~pe{h}x{w}"
            path = os.path.join(d, "hw.json")
            json.dump(hw, open(path, "w"))
            for s in ("B", "K"):
                text = subprocess.run(
                    [kapla, "schedule", "--network", network, "--hardware", path, "--batch", "1",
                     "--strategy", s, "--options", options, "-q"],
                    check=True, capture_output=True, text=True).stdout
                total = re.search(r"total_time (\S+)", text).group(1)
                ops = re.search(r"total_ops (\S+)", text).group(1)
                layers = [x for x in _layers_text(text) if not x[0].startswith("pool")
                          and not x[0].endswith("_res")]
                ragged = sum(1 for _, l, f, _, _, _ in layers
                             if l[1] % f[1] != 0 or l[0] % f[0] != 0)
                idle = sum(1 for _, _, _, u, mu, _ in layers if u < mu - 5e-4)
                utils = sorted(u for _, _, _, u, _, _ in layers)
                net_util = float(ops) / (float(total) * h * w)
                # Every pass of a layer is repeated per fold: with the fewest exact folds instead
                # of the ceil folds, the layer's time grows by their ratio (nothing else equal).
                exact = sum(t * exact_folds(l[0], f[0]) / f[0] * exact_folds(l[1], f[1]) / f[1]
                            for _, l, f, _, _, t in layers)
                mac_time = sum(t for *_, t in layers)
                print(f"| {h}x{w} | {s} | {len(layers)} | {ragged} | {idle} | {net_util:.3f} | "
                      f"{utils[0]:.3f} / {utils[len(utils) // 2]:.3f} | {exact / mac_time:.3f} |")


def _ok(path):
    t = kr.table(path, "tuples")
    # The networks are files: key them by their stem (the one-layer network's name).
    return {(os.path.splitext(os.path.basename(r["network"]))[0], r["letter"]): r
            for _, r in t.iterrows()}


def layers_h5(out, nets_dir):
    names = [json.load(open(os.path.join(nets_dir, f)))["name"]
             for f in sorted(os.listdir(nets_dir)) if f.endswith(".json")]
    for hw, pads in (("eyeriss", ("pad_array", "pad16")), ("cloud4x4", ("pad_array", "pad16")),
                     ("pe16x16", ("pad16",))):
        runs = {m: _ok(os.path.join(out, f"{hw}_{m}.h5")) for m in MODES + pads}
        for letter in ("B", "K"):
            print(f"\n{hw}, {letter}: EDP of none; spatial, full and padded (imperfect none) "
                  "over none; MACs of the padded layer over the real; evaluations and CPU s "
                  "none -> full\n")
            print("| layer | EDP none | spatial | full | " +
                  " | ".join(f"{p} (MACs)" for p in pads) + " | evaluated | CPU s |")
            print("|---|---:|---:|---:|" + "---:|" * len(pads) + "---:|---:|")
            for n in names:
                r = {m: runs[m].get((n, letter)) for m in runs}
                if r["none"] is None or r["none"]["status"] != "ok":
                    msg = r["none"]["message"] if r["none"] is not None else "missing"
                    print(f"| {n} | {r['none']['status'] if r['none'] is not None else '-'}: "
                          f"{msg} |" + " |" * (4 + len(pads)))
                    continue
                base = r["none"]

                def ratio(m):
                    x = r[m]
                    if x is None or x["status"] != "ok":
                        return x["status"] if x is not None else "-"
                    v = f"{x['edp'] / base['edp']:.3f}"
                    if m.startswith("pad"):
                        v += f" ({x['macs'] / base['macs']:.3f})"
                    return v
                f = r["full"]
                print(f"| {n} | {_g(base['edp'])} | {ratio('spatial')} | {ratio('full')} | " +
                      " | ".join(ratio(p) for p in pads) +
                      f" | {int(base['evaluated']):,} -> {int(f['evaluated']):,} | "
                      f"{base['cpu_seconds']:.2f} -> {f['cpu_seconds']:.2f} |")
            # Averages over the layers every mode scheduled, per group (Ruby's DeepBench figure
            # is an average of per-layer EDP gains).
            for group, pick in (("DeepBench", lambda n: n.startswith(("deepspeech", "conv_",
                                                                      "gemm_"))),
                                ("ResNet-50", lambda n: n.startswith(("conv1", "conv4", "conv5",
                                                                      "fc")))):
                parts = []
                for m in ("spatial", "full") + pads:
                    v = [runs[m][(n, letter)]["edp"] / runs["none"][(n, letter)]["edp"]
                         for n in names if pick(n) and all(
                             runs[x].get((n, letter)) is not None and
                             runs[x][(n, letter)]["status"] == "ok" for x in runs)]
                    if v:
                        parts.append(f"{m} mean {sum(v) / len(v):.3f}, min {min(v):.3f}, "
                                     f"max {max(v):.3f}")
                print(f"\n{group} ({len(v)} layers), EDP over none: " + "; ".join(parts))


def main(argv):
    if len(argv) >= 4 and argv[0] == "sweep":
        sweep(argv[1:4])
    elif len(argv) >= 2 and argv[0] == "fronts":
        fronts(argv[1:])
    elif len(argv) >= 7 and argv[0] == "geometry":
        nums = [int(x) for x in argv[5:]]
        geometry(argv[1], argv[2], argv[3], argv[4], list(zip(nums[::2], nums[1::2])))
    elif len(argv) == 3 and argv[0] == "layers-h5":
        layers_h5(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
