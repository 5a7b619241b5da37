"""Plots from loaded results (kapla_results.Results); every figure is saved as PNG and PDF.

  energy_breakdown_<hw>_b<batch>   stacked bars per network and strategy (op, DRAM, GBUF, ITCN,
                                   REGF, NoC, static), normalised to B's total per network
  quality_vs_time_<hw>_b<batch>    energy / B against scheduling time (log), per tuple
  anytime_<net>_<hw>_b<batch>      R and M: sum of per-layer best costs so far against time (a
                                   lower bound), their network result, and K's and B's
  heatmap_hardware                 network x hardware, energy relative to the network's best
                                   hardware, per strategy (when the sweep varies hardware)
  heatmap_<param>_<param>_<net>    min energy over a grid of two resolved hardware parameters
                                   (when the sweep varies at least two of them)
"""
from __future__ import annotations

import math
import os
import re
from typing import Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import kapla_results as kr  # noqa: E402
import kapla_tables as kt  # noqa: E402

# The breakdown order asked for by the paper's figure, and its colours.
PARTS = [("op", "op"), ("dram", "DRAM"), ("gbuf", "GBUF"), ("itcn", "ITCN"), ("regf", "REGF"),
         ("noc", "NoC"), ("static", "static")]
PART_COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#a0a0a0"]
# One palette for the strategies, given out in the order of their labels (kt.ordered_labels:
# the paper's B S R M K first, then any other): a new strategy gets a colour with no edit here.
STRATEGY_PALETTE = ["#222222", "#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#ff7f0e",
                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h"]
REASON_SHORT = {"timeout": "timeout", "not_run": "not run", "no_solution": "no sol.",
                "failed": "failed", "interrupted": "interr."}

plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 110, "font.size": 9,
                     "pdf.fonttype": 42})


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(s))


def _save(fig, out_dir: str, stem: str) -> List[str]:
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        p = os.path.join(out_dir, f"{stem}.{ext}")
        fig.savefig(p, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def strategy_colors(labels) -> Dict[str, str]:
    """{label: colour} for the distinct labels (or letters) in `labels`."""
    return {l: STRATEGY_PALETTE[i % len(STRATEGY_PALETTE)]
            for i, l in enumerate(kt.ordered_labels(labels))}


def _colors(res: kr.Results) -> Dict[str, str]:
    """The same colour for a label in every figure of these results."""
    return strategy_colors(res.expected["label"])


def _ok_tuples(res: kr.Results) -> pd.DataFrame:
    return res.tuples[res.tuples["status"] == "ok"]


def _mean_over_seeds(t: pd.DataFrame, cols: List[str]) -> pd.DataFrame:
    return t.groupby(["network", "hardware", "batch", "label"], sort=False)[cols].mean() \
        .reset_index()


# --------------------------------------------------------------------------------------------


def energy_breakdown(res: kr.Results, out_dir: str) -> List[Tuple[str, str]]:
    """(title, stem) of each figure written."""
    written = []
    ok = _ok_tuples(res)
    exp = res.expected
    part_cols = ["energy_" + p for p, _ in PARTS]
    for hw, batch in kt.groups(res):
        e = exp[(exp["hardware"] == hw) & (exp["batch"] == batch)]
        if e.empty:
            continue
        nets = kt._networks_in_order(res, e)
        labels = kt.ordered_labels(e["label"])
        t = ok[(ok["hardware"] == hw) & (ok["batch"] == batch)]
        m = _mean_over_seeds(t, part_cols + ["energy"]).set_index(["network", "label"])
        status = {(n, l): s for n, l, s in zip(e["network"], e["label"], e["status"])}
        width = 0.8 / max(1, len(labels))
        fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(nets) * max(1, len(labels)) * 0.45
                                            + 2), 3.6))
        legend_done = False
        for j, label in enumerate(labels):
            for i, net in enumerate(nets):
                x = i + (j - (len(labels) - 1) / 2) * width
                if (net, label) not in m.index:
                    why = status.get((net, label), "not_run")
                    ax.text(x, 0.02, "— " + REASON_SHORT.get(why, why), rotation=90,
                            ha="center", va="bottom", fontsize=7, color="#b00000")
                    continue
                ref = _reference(m, net)
                bottom = 0.0
                for k, (col, (_, pname)) in enumerate(zip(part_cols, PARTS)):
                    v = m.at[(net, label), col] / ref
                    ax.bar(x, v, width * 0.9, bottom=bottom, color=PART_COLORS[k],
                           edgecolor="white", linewidth=0.3,
                           label=pname if not legend_done else None)
                    bottom += v
                legend_done = True
                ax.text(x, bottom, label, ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(nets)))
        ax.set_xticklabels(nets, rotation=20, ha="right")
        ax.set_ylabel("energy / B's total")
        ax.set_title(f"Energy breakdown, {kt.short_hw(hw, batch)}")
        ax.margins(y=0.12)
        if legend_done:
            ax.legend(ncol=len(PARTS), fontsize=7, loc="upper center",
                      bbox_to_anchor=(0.5, -0.22), frameon=False)
        stem = f"energy_breakdown_{_safe(hw)}_b{batch}"
        _save(fig, out_dir, stem)
        written.append((f"Energy breakdown, {kt.short_hw(hw, batch)}", stem))
    return written


def _reference(m: pd.DataFrame, net: str) -> float:
    """B's energy for the network, else the lowest energy among its strategies."""
    if (net, "B") in m.index and m.at[(net, "B"), "energy"] > 0:
        return float(m.at[(net, "B"), "energy"])
    v = m.loc[net, "energy"]
    v = v[v > 0]
    return float(v.min()) if len(v) else 1.0


def quality_vs_time(res: kr.Results, out_dir: str) -> List[Tuple[str, str]]:
    written = []
    ok = _ok_tuples(res)
    colors = _colors(res)
    for hw, batch in kt.groups(res):
        t = ok[(ok["hardware"] == hw) & (ok["batch"] == batch)]
        if t.empty:
            continue
        m = _mean_over_seeds(t, [kt.QUALITY_METRIC, kt.TIME_METRIC, "energy"]) \
            .set_index(["network", "label"])
        nets = list(dict.fromkeys(n for n, _ in m.index))
        fig, ax = plt.subplots(figsize=(5.6, 3.8))
        seen_labels = set()
        for i, net in enumerate(nets):
            sub = m.loc[net]
            b = sub[kt.QUALITY_METRIC].get("B", np.nan)
            ref = b if b == b and b > 0 else sub[kt.QUALITY_METRIC].min()
            for label, row in sub.iterrows():
                ax.scatter(max(row[kt.TIME_METRIC], 1e-4), row[kt.QUALITY_METRIC] / ref,
                           marker=MARKERS[i % len(MARKERS)], color=colors[label], s=36,
                           edgecolor="black", linewidth=0.4, zorder=3)
                seen_labels.add(label)
        ax.set_xscale("log")
        ax.set_xlabel("scheduling time (s, log scale)")
        ax.set_ylabel("energy / B")
        ax.axhline(1.0, color="#888888", linewidth=0.6, linestyle="--", zorder=1)
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, 0.99), max(hi, 1.01))
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
        ax.set_title(f"Quality vs scheduling time, {kt.short_hw(hw, batch)}")
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], linestyle="", marker="o", color=colors[l], label=l,
                          markeredgecolor="black") for l in kt.ordered_labels(seen_labels)]
        handles += [Line2D([], [], linestyle="", marker=MARKERS[i % len(MARKERS)],
                           color="white", markeredgecolor="black", label=n)
                    for i, n in enumerate(nets)]
        ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5),
                  frameon=False)
        stem = f"quality_vs_time_{_safe(hw)}_b{batch}"
        _save(fig, out_dir, stem)
        written.append((f"Quality vs scheduling time, {kt.short_hw(hw, batch)}", stem))
    return written


def anytime_curves(res: kr.Results, out_dir: str) -> List[Tuple[str, str]]:
    """One figure per (network, hardware, batch) that has curves (the strategies that record
    them: R and M today).

    A curve (/curves best_cost) is the SUM OVER LAYERS of each layer's best cost so far, not the
    cost of a network schedule: it ends at or below the tuple's total_cost, which the quality
    table reports. So each curve ends in a marker at its tuple's network result (total_cost,
    search time), and the axis says which is which."""
    written = []
    if res.curves.empty:
        return written
    t = res.tuples.set_index("key")
    c = res.curves.join(t[["network", "hardware", "batch", "label", "seed"]], on="key")
    ok = _ok_tuples(res).set_index("key")
    colors = _colors(res)
    plain = {hw for hw, _ in kt.groups(res)}  # not per design point of a hardware space
    for (net, hw, batch), g in c.groupby(["network", "hardware", "batch"], sort=False):
        if hw not in plain:
            continue
        fig, ax = plt.subplots(figsize=(5.8, 3.9))
        for (label, seed), gc in g.groupby(["label", "seed"], sort=True):
            x = np.maximum(gc["seconds"].to_numpy(float), 1e-4)
            ax.step(x, gc["best_cost"], where="post", color=colors[label],
                    label=f"{label} (seed {seed}): sum of layer bests", linewidth=1.2)
            key = gc["key"].iloc[0]
            if key in ok.index:
                ax.plot([max(float(ok.at[key, kt.TIME_METRIC]), 1e-4)],
                        [float(ok.at[key, kt.QUALITY_METRIC])], marker="s", color=colors[label],
                        linestyle="none", label=f"{label} (seed {seed}): network result")
        refs = ok[(ok["network"] == net) & (ok["hardware"] == hw) & (ok["batch"] == batch)]
        for label in ("K", "B"):
            r = refs[refs["label"] == label]
            if r.empty:
                continue
            cost = float(r[kt.QUALITY_METRIC].mean())
            secs = float(r[kt.TIME_METRIC].mean())
            ax.axhline(cost, color=colors[label], linestyle="--", linewidth=0.9,
                       label=f"{label}: network result ({kt.format_seconds(secs)})")
            ax.plot([max(secs, 1e-4)], [cost], marker="o", color=colors[label])
        ax.set_xscale("log")
        ax.set_xlabel("search time (s, log scale)")
        ax.set_ylabel("energy: lines = sum of per-layer\nbests so far (lower bound); "
                      "markers = network result", fontsize=8)
        ax.set_title(f"Anytime curves, {net}, {kt.short_hw(hw, batch)}")
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
        ax.legend(fontsize=6, frameon=False)
        stem = f"anytime_{_safe(net)}_{_safe(hw)}_b{batch}"
        _save(fig, out_dir, stem)
        written.append((f"Anytime curves, {net}, {kt.short_hw(hw, batch)}", stem))
    return written


def _heatmap(ax, data: np.ndarray, rows: List[str], cols: List[str], fmt, cmap="viridis_r",
             vmin=None, vmax=None):
    masked = np.ma.masked_invalid(data)
    im = ax.imshow(masked, cmap=cmap, aspect="auto", vmin=vmin, vmax=vmax)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    cm = plt.get_cmap(cmap)
    lo = np.nanmin(data) if vmin is None else vmin
    hi = np.nanmax(data) if vmax is None else vmax
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            v = data[i, j]
            if v != v:
                ax.text(j, i, "—", ha="center", va="center", fontsize=7, color="#b00000")
                continue
            r, g, b, _ = cm((v - lo) / (hi - lo) if hi > lo else 0.0)
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(j, i, fmt(v), ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    return im


def hardware_heatmaps(res: kr.Results, out_dir: str) -> List[Tuple[str, str]]:
    """Only when the sweep has more than one hardware. Design points of hardware spaces are
    the co-design section's (kapla_codesign: heat map over two design axes)."""
    written = []
    plain = {hw for hw, _ in kt.groups(res)}
    ok = _ok_tuples(res)
    ok = ok[ok["hardware"].isin(plain)]
    hws = [hw for hw in dict.fromkeys(res.expected["hardware"]) if hw in plain]
    if len(hws) < 2 or ok.empty:
        return written
    labels = kt.ordered_labels(ok["label"])
    nets = list(dict.fromkeys(res.expected["network"]))
    per_sample = ok.assign(per_sample=ok["energy"] / ok["batch"].clip(lower=1))
    m = per_sample.groupby(["label", "network", "hardware"])["per_sample"].min()
    fig, axes = plt.subplots(1, len(labels), figsize=(1.4 + 1.0 * len(hws) * len(labels),
                                                      1.4 + 0.35 * len(nets)), squeeze=False)
    panels = []
    for ax, label in zip(axes[0], labels):
        data = np.full((len(nets), len(hws)), np.nan)
        for i, n in enumerate(nets):
            for j, h in enumerate(hws):
                if (label, n, h) in m.index:
                    data[i, j] = m[(label, n, h)]
            best = np.nanmin(data[i]) if np.any(data[i] == data[i]) else np.nan
            data[i] = data[i] / best
        panels.append((ax, label, data))
    vmax = max([np.nanmax(d) for _, _, d in panels if np.any(d == d)] + [1.0])
    for ax, label, data in panels:
        _heatmap(ax, data, nets, hws, lambda v: f"{v:.2f}", vmin=1.0, vmax=max(vmax, 1.0001))
        ax.set_title(label)
        if ax is not axes[0][0]:
            ax.set_yticklabels([])
    fig.suptitle("Energy per sample relative to the network's best hardware")
    fig.tight_layout()
    stem = "heatmap_hardware"
    _save(fig, out_dir, stem)
    written.append(("Energy per sample (energy / batch) per network and hardware, relative "
                    "to the network's best hardware (min over batches), per strategy", stem))

    # Grids over resolved hardware parameters (hardware-explorer sweeps: nodes x GBUF x PEs).
    wide = res.resolved_wide()
    params = [c for c in wide.columns if c.startswith("hardware.") and c != "hardware.name"
              and not c.startswith("hardware.costs.")]
    preferred = ["hardware.nodes", "hardware.gbuf_bytes", "hardware.pe_array"]
    params = [p for p in preferred if p in params] + [p for p in params if p not in preferred]
    ok_w = ok.join(wide[params], on="key") if params else ok
    varying = [p for p in params if ok_w[p].nunique() > 1]
    axes_pair = None
    for i, px in enumerate(varying):
        for py in varying[i + 1:]:
            combos = ok_w[[px, py]].drop_duplicates().shape[0]
            # A real grid, not two hardware that differ in everything at once.
            if combos > max(ok_w[px].nunique(), ok_w[py].nunique()):
                axes_pair = (px, py)
                break
        if axes_pair:
            break
    if axes_pair:
        px, py = axes_pair
        sx, sy = px.split(".", 1)[1], py.split(".", 1)[1]
        for net in nets:
            for label in labels:
                g = ok_w[(ok_w["network"] == net) & (ok_w["label"] == label)]
                if g["hardware"].nunique() < 2:
                    continue
                xs = sorted(g[px].unique(), key=_num_key)
                ys = sorted(g[py].unique(), key=_num_key)
                grid = g.groupby([py, px])["energy"].min()
                data = np.array([[grid.get((y, x), np.nan) for x in xs] for y in ys], float)
                fig, ax = plt.subplots(figsize=(1.5 + 0.8 * len(xs), 1.2 + 0.5 * len(ys)))
                _heatmap(ax, data / np.nanmin(data), [str(y) for y in ys],
                         [str(x) for x in xs], lambda v: f"{v:.2f}")
                ax.set_xlabel(sx)
                ax.set_ylabel(sy)
                ax.set_title(f"{net}, {label}: energy / best (min over other parameters)")
                stem = f"heatmap_{_safe(sx)}_{_safe(sy)}_{_safe(net)}_{label}"
                _save(fig, out_dir, stem)
                written.append((f"Hardware grid {sx} x {sy}, {net}, {label}", stem))
    return written


def _num_key(v):
    nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", str(v))]
    return (math.prod(nums) if nums else 0.0, str(v))


def all_plots(res: kr.Results, out_dir: str) -> Dict[str, List[Tuple[str, str]]]:
    return {"Energy breakdown": energy_breakdown(res, out_dir),
            "Quality vs scheduling time": quality_vs_time(res, out_dir),
            "Anytime curves (R, M against K and B)": anytime_curves(res, out_dir),
            "Hardware sweep": hardware_heatmaps(res, out_dir)}
