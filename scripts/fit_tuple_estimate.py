#!/usr/bin/python3
"""Fits the sweep dispatcher's tuple-time estimate (sweep/strategy_runner.cpp, estimate_cost)
to measured one-thread tuple CPU times, and prints its constants and how far off it is.

    /usr/bin/python3 scripts/fit_tuple_estimate.py docs/data/tuple_times.csv [results/quick.h5 ...]

Model: seconds = scale * layers * nodes**p * strategy_factor * (2 if batch > 1 else 1)
* (pipelining_factor if inter-layer pipelining is on and nodes > 1 else 1), with
strategy_factor = 1 for K; scale, p, pipelining_factor and the other strategies' factors are
fitted by least squares on log(seconds). CSV rows:
network,hardware,batch,strategy,interlayer,cpu_seconds,source (interlayer: 1 if the options
had partition_interlayer); HDF5 results add their /tuples rows (cpu_seconds of status ok
tuples; interlayer from the job's options). Times under 0.01 s (the
tables' resolution) count as 0.005 s.
"""
import csv
import json
import pathlib
import sys

try:
    import numpy as np
except ModuleNotFoundError as e:
    sys.exit(f"error: {e.name} is missing: apt-get install python3-numpy (or run /usr/bin/python3)")

REPO = pathlib.Path(__file__).resolve().parent.parent
STRATEGIES = ["kapla", "exhaustive", "directive-exhaustive", "random", "guided"]


def layers(network):
    return len(json.loads((REPO / "data/networks" / f"{network}.json").read_text())["layers"])


def nodes(hardware):
    h, w = json.loads((REPO / "data/hardware" / f"{hardware}.json").read_text())["nodes"]
    return h * w


def rows_of(path):
    if path.suffix == ".csv":
        with open(path) as f:
            for r in csv.DictReader(f):
                yield (r["network"], r["hardware"], int(r["batch"]), r["strategy"],
                       r["interlayer"] == "1", float(r["cpu_seconds"]))
        return
    try:
        import h5py
    except ModuleNotFoundError:
        sys.exit("error: h5py is missing: apt-get install python3-h5py (or run /usr/bin/python3)")
    with h5py.File(path, "r") as f:
        t = f["tuples"][()]
        job = json.loads(f.attrs["job_file"])
    interlayer = bool(job.get("options", {}).get("partition_interlayer", False))
    for r in t:
        if r["status"].decode() != "ok":
            continue
        yield (r["network"].decode(), r["hardware"].decode(), int(r["batch"]),
               r["strategy"].decode(), interlayer, float(r["cpu_seconds"]))


def main(paths):
    data = [row for p in paths for row in rows_of(pathlib.Path(p))]
    used = [s for s in STRATEGIES if any(d[3] == s for d in data)]
    free = [s for s in used if s != "kapla"]
    a, y = [], []
    for net, hw, batch, strategy, interlayer, sec in data:
        # log(sec) - log(layers) - log(batch factor) = log(scale) + p log(nodes) + log(f_s)
        # Time per layer: log(seconds / layers / batch factor) is linear in the parameters.
        y.append(np.log(max(sec, 0.005)) - np.log(layers(net)) - np.log(2 if batch > 1 else 1))
        pipelined = 1.0 if interlayer and nodes(hw) > 1 else 0.0
        a.append([1.0, np.log(nodes(hw)), pipelined] + [1.0 if strategy == s else 0.0 for s in free])
    coef, *_ = np.linalg.lstsq(np.array(a), np.array(y), rcond=None)
    err = np.array(y) - np.array(a) @ coef
    print(f"{len(data)} tuples; scale {np.exp(coef[0]):.3g} s, nodes exponent p {coef[1]:.3f}, "
          f"pipelining factor {np.exp(coef[2]):.3g}")
    for s, c in zip(free, coef[3:]):
        print(f"  factor {s}: {np.exp(c):.3g} (K = 1)")
    ratio = np.exp(np.abs(err))
    for label, i in (("most over", int(np.argmin(err))), ("most under", int(np.argmax(err)))):
        net, hw, batch, strategy, _, sec = data[i]
        print(f"  {label}estimated: {strategy} on {net}, {hw} b{batch}: {sec} s measured, "
              f"{sec / np.exp(err[i]):.3g} s estimated")
    print(f"  measured / estimated: median {np.median(ratio):.2f}x off, 90th percentile "
          f"{np.percentile(ratio, 90):.1f}x, worst {ratio.max():.1f}x")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
