"""Co-design results (issue 19, docs/codesign_results.md): tables and plots of the hardware
design points of a sweep (tuples whose `design_base` is set, docs/codesign.md).

One group of tables and plots per network, design space (its base), strategy label and batch;
the stems end in <net>_<base>_<label>_b<batch>:

  codesign_layers_...         table: pJ/MAC per layer for the baseline design, the layer-wise
                              best design and the best single design (Thistle, CGO 2023,
                              Fig. 5/6)
  codesign_front_...          table: the area-EDP Pareto front
  pareto_area_edp_..., pareto_energy_delay_...   every design and its Pareto front
  pj_per_mac_...              the three pJ/MAC series per layer
  heatmap_design_<x>_<y>_...  lowest energy over two design axes

pJ/MAC = energy (J, as the technology model gives it) x 1e12 / MACs, with the MACs of schema 7's
`macs` columns (older files have none: no pJ/MAC then). The baseline is the tuple on the design
space's base hardware itself (list the base as a plain hardware entry of the job, as
jobs/codesign_thistle_*.json do) or the design named by --baseline. The layer-wise best takes,
for each layer, the lowest pJ/MAC any design gave that layer within its network schedule; the
best single design is the design of the lowest network energy.

A design space may set a PE-utilisation floor (schema 8's `design_min_pe_utilisation`; each tuple
has its `pe_utilisation`): a design with an ok tuple below it, on any network of the file, is
infeasible (docs/codesign.md). It is left out of every front, choice and heat map, listed in the
front table's notes and drawn as a cross on the front plots.
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

import kapla_results as kr
from kapla_tables import DASH, Cell, Table

PJ_PER_J = 1e12
# The design axes a heat map may use, as (column, label); `pe` is the "HxW" text of the array.
DESIGN_AXES = [("nodes", "nodes"), ("pe", "PE array"), ("design_gbuf_bytes", "GBUF bytes"),
               ("design_regf_bytes", "REGF bytes"),
               ("design_array_bus_width_bits", "bus bits"),
               ("design_dram_bandwidth", "DRAM B/cycle")]
# What --heatmap-axes accepts: the axis names of job files (docs/codesign.md) and "pe".
HEATMAP_AXIS_NAMES = ["nodes", "pe", "gbuf_bytes", "regf_bytes", "array_bus_width_bits",
                      "dram_bandwidth"]
GROUP = ["network", "design_base", "label", "batch"]


class Group(NamedTuple):
    """One experiment: a network, a design space (its base), a strategy label and a batch.
    Designs of different spaces are never compared with each other (two technologies)."""
    network: str
    base: str
    label: str
    batch: int

    def stem(self) -> str:
        return "_".join(_safe(v) for v in (self.network, self.base, self.label)) + \
            f"_b{self.batch}"

    def title(self) -> str:
        return f"{self.network}, {self.base} designs, {self.label}, batch {self.batch}"

    def of(self, t: pd.DataFrame) -> pd.DataFrame:
        """The rows of tuples table `t` in this group (design points only if `t` has only
        them)."""
        return t[(t["network"] == self.network) & (t["label"] == self.label) &
                 (t["batch"] == self.batch)]


def _safe(s) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(s))


def has_designs(res: kr.Results) -> bool:
    t = res.tuples
    return "design_base" in t and bool((t["design_base"].fillna("") != "").any())


def _with_macs(t: pd.DataFrame) -> pd.DataFrame:
    macs = t["macs"] if "macs" in t else pd.Series(0, index=t.index)
    macs = macs.fillna(0).astype("int64")
    with np.errstate(divide="ignore", invalid="ignore"):
        pj = np.where(macs > 0, t["energy"] * PJ_PER_J / macs.where(macs > 0, 1), np.nan)
    return t.assign(macs=macs, pj_per_mac=pj)


def _design_rows(res: kr.Results) -> pd.DataFrame:
    """The ok tuples on design points, with `area_mm2`, `pe` ("HxW"), `nodes`, `pj_per_mac`,
    `pe_utilisation`, `min_pe_utilisation` and `below_floor`: the design (its hardware) has an
    ok tuple below its PE-utilisation floor, on any network (files before schema 8: none)."""
    t = res.tuples
    t = t[(t["status"] == "ok") & (t["design_base"].fillna("") != "")]
    zero = pd.Series(0.0, index=t.index)
    util = t["pe_utilisation"].astype(float) if "pe_utilisation" in t else zero
    floor = t["design_min_pe_utilisation"].astype(float) \
        if "design_min_pe_utilisation" in t else zero
    below = set(t["hardware"][util < floor])
    t = t.assign(area_mm2=t["design_area_mm2"].astype(float),
                 pe=[f"{h}x{w}" for h, w in zip(t["design_pe_h"], t["design_pe_w"])],
                 nodes=[f"{h}x{w}" for h, w in zip(t["design_nodes_h"], t["design_nodes_w"])],
                 pe_utilisation=util, min_pe_utilisation=floor,
                 below_floor=t["hardware"].isin(below))
    return _with_macs(t).reset_index(drop=True)


def designs(res: kr.Results) -> pd.DataFrame:
    """The ok tuples on feasible design points (none below its PE-utilisation floor), with
    `area_mm2`, `pe` ("HxW"), `nodes`, `pj_per_mac` and `pe_utilisation`."""
    d = _design_rows(res)
    return d[~d["below_floor"]].reset_index(drop=True)


def below_floor(res: kr.Results, g: Optional["Group"] = None) -> pd.DataFrame:
    """The ok tuples of the infeasible design points (a tuple below the PE-utilisation floor),
    of group g if given."""
    d = _design_rows(res)
    d = d[d["below_floor"]].reset_index(drop=True)
    return d if g is None else g.of(d[d["design_base"] == g.base])


def pareto(df: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """The points no other point beats in both x and y (lower is better), sorted by x: each
    point of the front has a lower y than every point of lower or equal x before it."""
    s = df.sort_values([x, y], kind="stable")
    best = np.inf
    keep = []
    for v in s[y].to_numpy(float):
        keep.append(v < best)
        best = min(best, v)
    return s[np.array(keep, dtype=bool)]


def baseline_key(res: kr.Results, g: Group, baseline: Optional[str] = None) -> Optional[str]:
    """The key of the baseline tuple of group g: on hardware `baseline` if given, else the
    plain tuple on the design space's base; None when the results have neither."""
    t = g.of(res.tuples[res.tuples["status"] == "ok"])
    if baseline is None:
        match = t[(t["hardware"] == g.base) & (t["design_base"].fillna("") == "")]
    else:
        match = t[t["hardware"] == baseline]
    return str(match["key"].iloc[0]) if len(match) else None


def _layers_of(res: kr.Results, keys: Sequence[str]) -> pd.DataFrame:
    lay = res.layers[res.layers["key"].isin(keys)]
    lay = lay.join(res.tuples.set_index("key")[["hardware"]], on="key")
    if "macs" not in lay:
        lay = lay.assign(macs=0)
    lay = lay[lay["macs"].fillna(0) > 0]
    return lay.assign(pj_per_mac=lay["energy"] * PJ_PER_J / lay["macs"])


def layer_choices(res: kr.Results, g: Group,
                  baseline: Optional[str] = None) -> Optional[pd.DataFrame]:
    """One row per layer with MACs, in scheduling order: macs, baseline_pj, layerwise_pj,
    layerwise_design, single_pj; the best single design's name in attrs['single']. None when
    the group has no design points with MACs."""
    d = designs_of(res, g)
    d = d[d["macs"] > 0]
    if d.empty:
        return None
    single = d.sort_values(["energy", "key"], kind="stable").iloc[0]
    lay = _layers_of(res, list(d["key"]))
    order = lay[lay["key"] == single["key"]][["layer", "macs"]].reset_index(drop=True)
    best = lay.sort_values(["pj_per_mac", "hardware"], kind="stable") \
        .drop_duplicates("layer").set_index("layer")
    one = lay[lay["key"] == single["key"]].set_index("layer")["pj_per_mac"]
    bkey = baseline_key(res, g, baseline)
    base = _layers_of(res, [bkey]).set_index("layer")["pj_per_mac"] if bkey else pd.Series(
        dtype=float)
    out = order.assign(baseline_pj=[base.get(l, np.nan) for l in order["layer"]],
                       layerwise_pj=[best.at[l, "pj_per_mac"] for l in order["layer"]],
                       layerwise_design=[best.at[l, "hardware"] for l in order["layer"]],
                       single_pj=[one.get(l, np.nan) for l in order["layer"]])
    out.attrs["single"] = str(single["hardware"])
    out.attrs["baseline"] = str(res.tuples.set_index("key").at[bkey, "hardware"]) if bkey \
        else None
    for col in ("baseline", "layerwise", "single"):
        out.attrs[col + "_pj"] = weighted(out, col + "_pj")
    return out


def weighted(c: pd.DataFrame, col: str) -> float:
    """pJ/MAC over all the layers with MACs: their energy / their MACs (nan if one is
    missing)."""
    macs = c["macs"].astype(float)
    return float((c[col] * macs).sum(min_count=len(c)) / macs.sum())


def groups(res: kr.Results) -> List[Group]:
    """The groups of the design points (feasible or not), sorted."""
    d = _design_rows(res)
    return sorted(Group(n, b, l, int(x)) for n, b, l, x in
                  d[GROUP].drop_duplicates().itertuples(index=False))


def designs_of(res: kr.Results, g: Group) -> pd.DataFrame:
    """designs(res) of group g."""
    d = designs(res)
    return g.of(d[d["design_base"] == g.base])


def _short(design: str) -> str:
    """A design's name without its base (the part after '~')."""
    return design.split("~", 1)[1] if "~" in design else design


def _num(v: float, digits: int = 2) -> Cell:
    return Cell(DASH) if v != v else Cell(f"{v:.{digits}f}", float(v))


def tables(res: kr.Results, baseline: Optional[str] = None) -> List[Table]:
    out = []
    for g in groups(res):
        stem, what = g.stem(), g.title()
        c = layer_choices(res, g, baseline)
        if c is not None:
            rows = [[Cell(l), Cell(f"{m:,}", int(m)), _num(b), _num(w), Cell(_short(d)),
                     _num(s)] for l, m, b, w, d, s in
                    zip(c["layer"], c["macs"], c["baseline_pj"], c["layerwise_pj"],
                        c["layerwise_design"], c["single_pj"])]
            rows.append([Cell("all layers with MACs"), Cell(f"{int(c['macs'].sum()):,}",
                                                            int(c["macs"].sum())),
                         _num(c.attrs["baseline_pj"]), _num(c.attrs["layerwise_pj"]),
                         Cell(""), _num(c.attrs["single_pj"])])
            notes = [f"Best single design (lowest network energy): `{c.attrs['single']}`."]
            if c.attrs["baseline"]:
                notes.append(f"Baseline: `{c.attrs['baseline']}`.")
            else:
                notes.append("No baseline tuple (run the design space's base as a plain "
                             "hardware entry, or name one with --baseline).")
            notes.append("pJ/MAC = the layer's energy in its network schedule / its MACs; "
                         "layers without MACs (pooling, element-wise) are left out.")
            out.append(Table(f"codesign_layers_{stem}",
                             f"pJ/MAC per layer, {what}",
                             ["Layer", "MACs", "baseline", "layer-wise best", "its design",
                              "best single"], rows, notes, bold_rows=[len(rows) - 1]))
        d = designs_of(res, g)
        low = below_floor(res, g)
        if d["area_mm2"].gt(0).any() or low["area_mm2"].gt(0).any():
            f = pareto(d[d["area_mm2"] > 0], "area_mm2", "edp")
            rows = [[Cell(_short(h)), _num(a, 4), Cell(f"{e:.4g}", float(e)),
                     Cell(f"{en:.4g}", float(en)), Cell(f"{t:.4g}", float(t)), _num(p),
                     _num(u, 3)]
                    for h, a, e, en, t, p, u in zip(f["hardware"], f["area_mm2"], f["edp"],
                                                    f["energy"], f["time"], f["pj_per_mac"],
                                                    f["pe_utilisation"])]
            out.append(Table(f"codesign_front_{stem}",
                             f"Area-EDP Pareto front, {what} ({len(f)} of {len(d)} designs)",
                             ["Design", "area mm²", "EDP (J x cycles)", "energy (J)",
                              "time (cycles)", "pJ/MAC", "PE util"], rows,
                             _floor_notes(d, low)))
    return out


def _floor_notes(d: pd.DataFrame, low: pd.DataFrame) -> List[str]:
    """Why designs are missing: those below the PE-utilisation floor, by name."""
    floors = sorted((set(d["min_pe_utilisation"]) | set(low["min_pe_utilisation"])) - {0.0})
    if not floors:
        return []
    what = "/".join(f"{v:g}" for v in floors)
    if low.empty:
        return [f"PE-utilisation floor {what}: every design meets it."]
    names = ", ".join(f"`{_short(h)}` ({u:.3f})" for h, u in
                      zip(low["hardware"], low["pe_utilisation"]))
    return [f"PE-utilisation floor {what}: {len(low)} designs below it on this network are "
            f"infeasible and left out (design, its utilisation here): {names}."]


# --------------------------------------------------------------------------------------------
# Plots


def _plain_ticks(ax) -> None:
    """Tick labels of log axes as plain numbers (20, 1e+08); minor labels on y only (on x
    they would overlap)."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter
    if ax.get_xscale() == "log":
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    if ax.get_yscale() == "log":
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.tick_params(which="minor", labelsize=6)


def _front_plot(d: pd.DataFrame, x: str, y: str, xlabel: str, ylabel: str, title: str,
                base: Optional[pd.Series], out_dir: str, stem: str, save,
                low: Optional[pd.DataFrame] = None) -> None:
    import matplotlib.pyplot as plt
    f = pareto(d, x, y)
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.scatter(d[x], d[y], s=14, color="#9a9a9a", label=f"design ({len(d)})", zorder=2)
    if low is not None and len(low):
        ax.scatter(low[x], low[y], s=14, marker="x", color="#e377c2", linewidth=0.8,
                   label=f"below PE-util floor ({len(low)})", zorder=2)
    ax.plot(f[x], f[y], "-o", color="#d62728", markersize=4, linewidth=1.2,
            label=f"Pareto front ({len(f)})", zorder=3)
    if base is not None and base[x] > 0:
        ax.scatter([base[x]], [base[y]], marker="*", s=120, color="#1f77b4",
                   edgecolor="black", linewidth=0.5, label="baseline", zorder=4)
    ax.set_yscale("log")
    if x != "area_mm2":
        ax.set_xscale("log")
    _plain_ticks(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    ax.legend(fontsize=7, frameon=False)
    save(fig, out_dir, stem)


def _baseline_row(res: kr.Results, d: pd.DataFrame, key: Optional[str]) -> Optional[pd.Series]:
    """The baseline tuple with its area: its own (a design point) or the area of the design
    point with the same PE array, GBUF and REGF (a plain base tuple has no area column)."""
    if key is None:
        return None
    row = _with_macs(res.tuples[res.tuples["key"] == key]).iloc[0].copy()
    if float(row.get("design_area_mm2", 0) or 0) > 0:
        row["area_mm2"] = float(row["design_area_mm2"])
        return row
    wide = res.resolved_wide()
    if key not in wide.index:
        return None
    r = wide.loc[key]
    same = d[(d["design_gbuf_bytes"].astype(str) == str(r.get("hardware.gbuf_bytes"))) &
             (d["design_regf_bytes"].astype(str) == str(r.get("hardware.regf_bytes"))) &
             ([f"({h}, {w})" == str(r.get("hardware.pe_array")) or
               f"{h}x{w}" == str(r.get("hardware.pe_array"))
               for h, w in zip(d["design_pe_h"], d["design_pe_w"])])]
    row["area_mm2"] = float(same["area_mm2"].iloc[0]) if len(same) else 0.0
    return row


def plots(res: kr.Results, out_dir: str, save, baseline: Optional[str] = None,
          heatmap_axes: Optional[Sequence[str]] = None) -> List[Tuple[str, str]]:
    """(title, stem) of each figure written; `save(fig, out_dir, stem)` writes PNG and PDF."""
    import matplotlib.pyplot as plt
    written = []
    for g in groups(res):
        stem, what = g.stem(), g.title()
        d = designs_of(res, g)
        low = below_floor(res, g)
        base = _baseline_row(res, pd.concat([d, low]), baseline_key(res, g, baseline))
        if d["area_mm2"].gt(0).any():
            _front_plot(d[d["area_mm2"] > 0], "area_mm2", "edp", "area (mm²)",
                        "EDP (J x cycles, log)", f"Area vs EDP, {what}", base, out_dir,
                        f"pareto_area_edp_{stem}", save, low[low["area_mm2"] > 0])
            written.append((f"Area vs EDP and its Pareto front, {what}",
                            f"pareto_area_edp_{stem}"))
        _front_plot(d, "time", "energy", "time (cycles, log)", "energy (J, log)",
                    f"Energy vs delay, {what}", base, out_dir, f"pareto_energy_delay_{stem}",
                    save, low)
        written.append((f"Energy vs delay and its Pareto front, {what}",
                         f"pareto_energy_delay_{stem}"))
        c = layer_choices(res, g, baseline)
        if c is not None:
            fig, ax = plt.subplots(figsize=(max(5.0, 0.32 * len(c) + 2.0), 3.6))
            x = np.arange(len(c))
            series = [("baseline_pj", f"baseline ({_short(c.attrs['baseline'] or '—')})",
                       "#1f77b4", "o"),
                      ("layerwise_pj", "layer-wise best design", "#2ca02c", "^"),
                      ("single_pj", f"best single design ({_short(c.attrs['single'])})",
                       "#d62728", "s")]
            for col, name, color, marker in series:
                if c[col].notna().any():
                    ax.plot(x, c[col], marker=marker, color=color, linewidth=1.0,
                            markersize=4, label=name)
            ax.set_xticks(x)
            ax.set_xticklabels(c["layer"], rotation=60, ha="right", fontsize=7)
            ax.set_ylabel("pJ/MAC (log)")
            ax.set_yscale("log")  # an FC layer at batch 1 costs ten times a conv
            _plain_ticks(ax)
            ax.set_title(f"pJ/MAC per layer, {what}")
            ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
            ax.legend(fontsize=7, frameon=False)
            save(fig, out_dir, f"pj_per_mac_{stem}")
            written.append((f"pJ/MAC per layer (Thistle Fig. 5/6), {what}",
                            f"pj_per_mac_{stem}"))
        hm = _heatmap(d, heatmap_axes)
        if hm is not None:
            (xc, xl), (yc, yl), data, xs, ys = hm
            from kapla_plots import _heatmap as draw
            fig, ax = plt.subplots(figsize=(1.6 + 0.85 * len(xs), 1.3 + 0.45 * len(ys)))
            draw(ax, data * 1e3, [str(v) for v in ys], [str(v) for v in xs],
                 lambda v: f"{v:.4g}")
            ax.set_xlabel(xl)
            ax.set_ylabel(yl)
            ax.set_title(f"Energy (mJ), lowest over the other axes, {what}", fontsize=8)
            short = [c.replace("design_", "", 1) for c in (xc, yc)]
            hstem = f"heatmap_design_{_safe(short[0])}_{_safe(short[1])}_{stem}"
            save(fig, out_dir, hstem)
            written.append((f"Energy (mJ) over {xl} x {yl}, {what}", hstem))
    return written


def _sort_values(vals) -> list:
    def key(v):
        nums = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", str(v))]
        return (float(np.prod(nums)) if nums else 0.0, str(v))
    return sorted(vals, key=key)


def _heatmap(d: pd.DataFrame, chosen: Optional[Sequence[str]]):
    """((x column, label), (y column, label), energy grid, x values, y values) over two axes
    (`chosen`, or the first two that vary), the lowest energy over the others; None if fewer
    than two axes vary."""
    names = dict(DESIGN_AXES)
    if chosen:
        axes = [(c if c in names else f"design_{c}") for c in chosen]
        axes = [(c, names.get(c, c)) for c in axes if c in d]
    else:
        axes = [(c, l) for c, l in DESIGN_AXES if c in d and d[c].nunique() > 1]
    if len(axes) < 2 or d.empty:
        return None
    (xc, xl), (yc, yl) = axes[0], axes[1]
    xs, ys = _sort_values(d[xc].unique()), _sort_values(d[yc].unique())
    grid = d.groupby([yc, xc])["energy"].min()
    data = np.array([[grid.get((y, x), np.nan) for x in xs] for y in ys], float)
    return (xc, xl), (yc, yl), data, xs, ys
