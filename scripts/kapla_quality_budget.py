#!/usr/bin/python3
"""Quality versus search budget of R (random) and M (guided), next to K and B.

    /usr/bin/python3 scripts/kapla_quality_budget.py RESULTS [RESULTS ...] --out DIR
        [--stem quality_budget] [--reference docs/data/cloud_training_reference_totals.csv]

RESULTS: results files (.h5) and/or directories, read with kapla_results.load. A tuple's
budget is its resolved `strategy.max_evaluations` (cost-model evaluations per layer search);
R/M tuples with a seconds budget are left out (not reproducible, not comparable).

Every energy (`total_cost`, nn_dataflow J incl. static energy) is divided by a per-network
denominator, chosen in this order:
  "B"          B's total from the results (the exhaustive strategy's tuple), else
  "B (CSV)"    B's total from the --reference CSV (kind B, same network/hardware/batch), else
  "best known" the lowest total of any strategy in the results for that network.
The reference CSV may also hold kind K_ref rows (the reference implementation's KAPLA totals),
drawn as a dotted line and shown as a column.

Writes, per (hardware, batch) (suffix _<hw>_b<batch> when the results hold several):
  DIR/<stem>.png, .pdf   one panel per network: energy / denominator vs budget (log x); R and
                         M (mean over seeds, bars = min-max), K dashed, reference K dotted
  DIR/<stem>.md          three tables: quality ratios, search seconds, budget to reach K
  DIR/<stem>.csv         the long data behind them (one row per network, strategy, budget)
Exit code 1 with "error: FILE: reason" when an input is refused.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from typing import Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kapla_python  # noqa: E402

kapla_python.require("h5py", "numpy", "pandas", "matplotlib")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import kapla_results as kr  # noqa: E402
import kapla_tables as kt  # noqa: E402

DEFAULT_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                 "data", "cloud_training_reference_totals.csv")
SAMPLERS = ["R", "M"]
METRIC = kt.QUALITY_METRIC
# R's and M's max_evaluations when a job gives no params (each strategy's registry entry: search/random_sampling.cpp, search/guided.cpp; docs/sweep.md).
DEFAULT_MAX_EVALUATIONS = 1000


# --------------------------------------------------------------------------------------------
# Data


def load_reference(path: Optional[str]) -> pd.DataFrame:
    """Known totals (network, hardware, batch, kind, total_cost, source); empty if no file."""
    cols = ["network", "hardware", "batch", "kind", "total_cost", "source"]
    if not path:
        return pd.DataFrame(columns=cols)
    ref = pd.read_csv(path, comment="#")
    missing = [c for c in cols if c not in ref.columns]
    if missing:
        raise kr.ResultsError(f"{path}: no column '{missing[0]}'")
    return ref[cols]


def search_points(res: kr.Results) -> pd.DataFrame:
    """One row per ok tuple of R, M, K and B: network, hardware, batch, letter, budget (R/M:
    evaluations per layer search; NaN otherwise), seed, energy, seconds."""
    t = res.tuples[(res.tuples["status"] == "ok") & res.tuples["letter"].isin(
        SAMPLERS + ["K", "B"])]
    wide = res.resolved_wide()

    def resolved(key, name):
        if name not in wide.columns or key not in wide.index:
            return np.nan
        v = wide.at[key, name]
        return float(v) if isinstance(v, str) and v else np.nan

    budget = [resolved(k, "strategy.max_evaluations") if l in SAMPLERS else np.nan
              for k, l in zip(t["key"], t["letter"])]
    seconds_budget = [resolved(k, "strategy.max_seconds") if l in SAMPLERS else 0.0
                      for k, l in zip(t["key"], t["letter"])]
    out = pd.DataFrame({"network": t["network"].values, "hardware": t["hardware"].values,
                        "batch": t["batch"].values, "letter": t["letter"].values,
                        "budget": budget, "seed": t["seed"].values,
                        "energy": t[METRIC].astype(float).values,
                        "seconds": t["search_seconds"].astype(float).values})
    evaluation_budget = ~((out["letter"].isin(SAMPLERS)) &
                          ((np.nan_to_num(seconds_budget) > 0) | (out["budget"].isna()) |
                           (out["budget"] == 0)))
    return out[evaluation_budget].reset_index(drop=True)


def denominators(points: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Per (network, hardware, batch): `denominator` and its `kind` (see the module doc)."""
    rows = []
    for (net, hw, batch), g in points.groupby(["network", "hardware", "batch"], sort=False):
        b = g.loc[g["letter"] == "B", "energy"]
        ref = reference[(reference["network"] == net) & (reference["hardware"] == hw) &
                        (reference["batch"] == batch) & (reference["kind"] == "B")]
        if len(b):
            rows.append((net, hw, batch, float(b.min()), "B"))
        elif len(ref):
            rows.append((net, hw, batch, float(ref["total_cost"].iloc[0]), "B (CSV)"))
        else:
            rows.append((net, hw, batch, float(g["energy"].min()), "best known"))
    return pd.DataFrame(rows, columns=["network", "hardware", "batch", "denominator", "kind"])


def summarise(points: pd.DataFrame, denoms: pd.DataFrame) -> pd.DataFrame:
    """One row per (network, hardware, batch, letter, budget): seeds, ratio mean/min/max
    (energy / denominator), mean energy, mean search seconds, denominator and its kind.
    K and B rows have budget NaN."""
    p = points.merge(denoms, on=["network", "hardware", "batch"])
    p["ratio"] = p["energy"] / p["denominator"]
    p["budget_key"] = p["budget"].fillna(-1)
    g = p.groupby(["network", "hardware", "batch", "letter", "budget_key"], sort=False)
    s = g.agg(seeds=("seed", "nunique"), ratio=("ratio", "mean"), ratio_min=("ratio", "min"),
              ratio_max=("ratio", "max"), energy=("energy", "mean"),
              seconds=("seconds", "mean"), denominator=("denominator", "first"),
              kind=("kind", "first")).reset_index()
    s["budget"] = s["budget_key"].where(s["budget_key"] >= 0)
    return s.drop(columns="budget_key")


@dataclasses.dataclass
class Asked:
    """The tuples the jobs asked for in one cell (network, hardware, batch, letter, budget)."""
    tuples: int = 0
    not_ok: str = "not_run"  # why a tuple has no result: its first non-ok status, else not_run


def asked_cells(res: kr.Results) -> Dict[tuple, Asked]:
    """(network, hardware, batch, letter, budget or None) -> Asked."""
    out: Dict[tuple, Asked] = {}
    for r in res.expected.itertuples():
        budget = None
        if r.letter in SAMPLERS:
            params = json.loads(r.strategy_params) if r.strategy_params else {}
            budget = float(params.get("max_evaluations", DEFAULT_MAX_EVALUATIONS))
        a = out.setdefault((r.network, r.hardware, int(r.batch), r.letter, budget), Asked())
        a.tuples += 1
        if r.status != "ok" and a.not_ok == "not_run":
            a.not_ok = r.status
    return out


def reference_k(reference: pd.DataFrame, net: str, hw: str, batch: int) -> Optional[float]:
    r = reference[(reference["network"] == net) & (reference["hardware"] == hw) &
                  (reference["batch"] == batch) & (reference["kind"] == "K_ref")]
    return float(r["total_cost"].iloc[0]) if len(r) else None


def budget_to_reach(s: pd.DataFrame, letter: str, target: float) -> Optional[float]:
    """Smallest budget whose mean energy over seeds is at most `target` (relative 1e-9)."""
    g = s[(s["letter"] == letter) & (s["energy"] <= target * (1 + 1e-9))]
    return float(g["budget"].min()) if len(g) else None


# --------------------------------------------------------------------------------------------
# Tables


PARTIAL = "†"  # marks a mean over fewer seeds than the job asked for


def _ratio_cell(v: Optional[float], asked: Asked = Asked(), seeds: int = 0) -> kt.Cell:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return kt.Cell.missing(asked.not_ok)
    partial = PARTIAL if 0 < seeds < asked.tuples else ""
    return kt.Cell(kt.format_ratio(v) + partial, float(v))


def _lookup(s: pd.DataFrame, net: str, letter: str, budget: Optional[float], col: str):
    m = (s["network"] == net) & (s["letter"] == letter)
    m &= s["budget"].isna() if budget is None else (s["budget"] == budget)
    return float(s.loc[m, col].iloc[0]) if m.any() else None


def tables(s: pd.DataFrame, reference: pd.DataFrame, asked: Dict[tuple, Asked],
           networks: List[str], hw: str, batch: int, stem: str) -> List[kt.Table]:
    budgets = sorted(s["budget"].dropna().unique())
    cfg = kt.short_hw(hw, batch)
    fmt_b = [f"{int(b)}" for b in budgets]
    den = s.groupby("network", sort=False)[["denominator", "kind"]].first()

    q_cols = ["Network", "÷", "denominator (J)"] + \
        [f"{l} {b}" for b in fmt_b for l in SAMPLERS] + ["K", "ref. K"]
    t_cols = ["Network"] + [f"{l} {b}" for b in fmt_b for l in SAMPLERS] + ["K"]
    r_cols = ["Network", "K / ÷"] + [f"{l} reaches K at" for l in SAMPLERS]
    q_rows, t_rows, r_rows = [], [], []
    for net in networks:
        if net not in den.index:
            continue
        d, kind = float(den.at[net, "denominator"]), den.at[net, "kind"]
        row = [kt.Cell(net), kt.Cell(kind), kt.Cell(kt.format_energy(d), d)]
        trow = [kt.Cell(net)]
        for b in budgets:
            for l in SAMPLERS:
                a = asked.get((net, hw, batch, l, float(b)), Asked())
                row.append(_ratio_cell(_lookup(s, net, l, b, "ratio"), a,
                                       int(_lookup(s, net, l, b, "seeds") or 0)))
                sec = _lookup(s, net, l, b, "seconds")
                trow.append(kt.Cell(kt.format_seconds(sec), sec) if sec is not None
                            else kt.Cell.missing(a.not_ok))
        k_asked = asked.get((net, hw, batch, "K", None), Asked())
        k_why = k_asked.not_ok
        k = _lookup(s, net, "K", None, "ratio")
        row.append(_ratio_cell(k, k_asked))
        ref = reference_k(reference, net, hw, batch)
        row.append(_ratio_cell(ref / d if ref is not None else None))
        ksec = _lookup(s, net, "K", None, "seconds")
        trow.append(kt.Cell(kt.format_seconds(ksec), ksec) if ksec is not None
                    else kt.Cell.missing(k_why))
        q_rows.append(row)
        t_rows.append(trow)
        rrow = [kt.Cell(net), _ratio_cell(k, k_asked)]
        for l in SAMPLERS:
            measured = s[(s["network"] == net) & (s["letter"] == l)]
            if k is None or measured.empty:
                rrow.append(kt.Cell.missing(k_why if k is None else "not_run"))
                continue
            reach = budget_to_reach(measured, l, _lookup(s, net, "K", None, "energy"))
            rrow.append(kt.Cell(f"{int(reach)}", reach) if reach is not None else
                        kt.Cell(f"> {int(measured['budget'].max())}", None))
        r_rows.append(rrow)

    # Geometric mean over the networks, only for columns every network has.
    gm = [kt.Cell("Geometric mean"), kt.Cell(""), kt.Cell("")]
    for c in range(3, len(q_cols)):
        cells = [r[c] for r in q_rows]
        if not cells or any(x.value is None or x.value <= 0 for x in cells):
            gm.append(kt.Cell(kt.DASH))
            continue
        g = float(np.exp(np.mean(np.log([x.value for x in cells]))))
        partial = PARTIAL if any(x.text.endswith(PARTIAL) for x in cells) else ""
        gm.append(kt.Cell(kt.format_ratio(g) + partial, g))
    q_rows.append(gm)

    sampled = s[s["letter"].isin(SAMPLERS)]
    max_seeds = int(sampled["seeds"].max()) if len(sampled) else 0
    notes = [f"R/M cells: mean over seeds (at most {max_seeds}) of total energy / denominator; "
             "column headers are cost-model evaluations per layer search. "
             "÷ = what the row is divided by: B (B's total in these results), B (CSV) (B's "
             "total from the reference CSV), best known (the lowest total any strategy reached "
             "in these results). ref. K = the reference implementation's KAPLA total "
             "(kapla-spec §12) over the same denominator."]
    if any(c.text.endswith(PARTIAL) for r in q_rows for c in r):
        notes.append(f"{PARTIAL} mean over fewer seeds than the job asked for: the others "
                     "found no valid point for some layer (no_solution) or have not run.")
    return [
        kt.Table(f"{stem}_quality", f"Energy / denominator versus budget, {cfg}", q_cols, q_rows,
                 notes, bold_rows=[len(q_rows) - 1]),
        kt.Table(f"{stem}_seconds", f"Search wall time (mean over seeds), {cfg}", t_cols,
                 t_rows, ["Measured on a shared 2-core machine; indicative only."]),
        kt.Table(f"{stem}_reach_k", f"Smallest budget at which R / M (mean over seeds) reach "
                 f"K's energy, {cfg}", r_cols, r_rows,
                 ["\"> N\": not reached at the largest budget N measured."]),
    ]


def long_csv(s: pd.DataFrame) -> str:
    cols = ["network", "hardware", "batch", "letter", "budget", "seeds", "ratio", "ratio_min",
            "ratio_max", "energy", "seconds", "denominator", "kind"]
    return s[cols].to_csv(index=False, float_format="%.17g")


# --------------------------------------------------------------------------------------------
# Plot


def plot(s: pd.DataFrame, reference: pd.DataFrame, networks: List[str], hw: str, batch: int,
         out_dir: str, stem: str, letters: List[str]) -> List[str]:
    """`letters`: every strategy letter of the results (kp.strategy_colors gives their colours)."""
    import kapla_plots as kp  # matplotlib only when plotting
    colors = kp.strategy_colors(letters)
    plt = kp.plt
    nets = [n for n in networks if n in set(s["network"])]
    ncol = min(4, len(nets) + 1)
    nrow = math.ceil((len(nets) + 1) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.6 * nrow), squeeze=False)
    flat = list(axes.flat)
    for ax, net in zip(flat, nets):
        g = s[s["network"] == net]
        for l in SAMPLERS:
            c = g[g["letter"] == l].sort_values("budget")
            if len(c):
                ax.errorbar(c["budget"], c["ratio"],
                            yerr=[c["ratio"] - c["ratio_min"], c["ratio_max"] - c["ratio"]],
                            color=colors[l], marker="o", ms=3.5, capsize=2,
                            label=f"{l} (mean, min-max over seeds)")
        k = g.loc[g["letter"] == "K", "ratio"]
        if len(k):
            ax.axhline(float(k.iloc[0]), color=colors["K"], ls="--", lw=1.2,
                       label="K (kapla)")
        d, kind = float(g["denominator"].iloc[0]), g["kind"].iloc[0]
        ref = reference_k(reference, net, hw, batch)
        if ref is not None:
            ax.axhline(ref / d, color="#777777", ls=":", lw=1.2, label="reference K (kapla-spec §12)")
        ax.axhline(1.0, color=colors.get("B", "black"), lw=0.8,
                   label="denominator (B or best known)")
        ax.set_xscale("log")
        budgets = sorted(g["budget"].dropna().unique())
        if budgets:
            ax.set_xticks(budgets)
            ax.set_xticklabels([f"{int(b)}" for b in budgets])
            ax.minorticks_off()
        ax.set_title(f"{net}  (÷ {kind})", fontsize=9)
        ax.grid(True, which="both", alpha=0.25)
    for ax in flat[:len(nets)]:
        ax.set_xlabel("evaluations per layer search")
        ax.set_ylabel("energy / denominator")
    legend_ax = flat[len(nets)]
    by_label: Dict[str, object] = {}
    for ax in flat[:len(nets)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            by_label.setdefault(lab, h)
    order = sorted(by_label, key=lambda lab: (lab[:1] not in SAMPLERS, SAMPLERS.index(lab[:1])
                                              if lab[:1] in SAMPLERS else 0))
    legend_ax.legend([by_label[lab] for lab in order], order, loc="center", fontsize=8, frameon=False)
    legend_ax.axis("off")
    for ax in flat[len(nets) + 1:]:
        ax.axis("off")
    fig.suptitle(f"R and M: quality versus budget, {kt.short_hw(hw, batch)}", fontsize=10)
    fig.tight_layout()
    return kp._save(fig, out_dir, stem)


# --------------------------------------------------------------------------------------------


def write(res: kr.Results, reference: pd.DataFrame, out_dir: str, stem: str,
          plots: bool = True) -> List[str]:
    """Writes the outputs of every (hardware, batch) in `res`; returns the paths written."""
    points = search_points(res)
    if points.empty:
        raise kr.ResultsError("no ok R, M, K or B tuples in the results")
    s = summarise(points, denominators(points, reference))
    asked = asked_cells(res)
    networks = list(dict.fromkeys(res.expected["network"]))
    configs = list(dict.fromkeys(zip(s["hardware"], s["batch"])))
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for hw, batch in configs:
        name = stem if len(configs) == 1 else f"{stem}_{hw}_b{batch}"
        sc = s[(s["hardware"] == hw) & (s["batch"] == batch)]
        md = [f"# R and M: quality versus budget, {kt.short_hw(hw, batch)}", ""]
        for t in tables(sc, reference, asked, networks, hw, batch, name):
            md += [t.to_markdown(), ""]
        for ext, text in (("md", "\n".join(md).rstrip() + "\n"), ("csv", long_csv(sc))):
            path = os.path.join(out_dir, f"{name}.{ext}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            written.append(path)
        if plots:
            written += plot(sc, reference, networks, hw, batch, out_dir, name,
                            list(res.expected["letter"]))
    return written


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description="Quality versus budget of R and M, next to K.")
    ap.add_argument("paths", nargs="+", help="results files (.h5) or directories")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--stem", default="quality_budget", help="output file stem")
    ap.add_argument("--reference", default=DEFAULT_REFERENCE,
                    help="CSV of known totals (kinds B, K_ref); '' for none")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--no-checksum", action="store_true",
                    help="skip the FNV-1a checksum pass (the size is still checked)")
    args = ap.parse_args(argv)
    try:
        res = kr.load(args.paths, checksum=not args.no_checksum)
        reference = load_reference(args.reference or None)
        for p in write(res, reference, args.out, args.stem, plots=not args.no_plots):
            print(p)
    except kr.ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
