"""The paper's tables from loaded results (kapla_results.Results), rendered as Markdown, CSV
and LaTeX. A missing cell (a tuple that timed out, failed, found no schedule or was not run)
is shown as "—" with a numbered footnote giving the reason.

  (a) scheduling time per network x strategy, with the speedup of K over each strategy;
  (b) scheduling quality: energy (nn_dataflow total cost) normalised to B, per network, for
      training and inference, with the average;
  (c) inter-layer pruning: segments (and constraints) before/after pruning, % pruned.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

import kapla_results as kr

DASH = "—"

# Why a cell is empty; the footnote text.
REASONS = {
    "timeout": "timeout: the search hit the tuple time limit{limit}",
    "not_run": "not run: the tuple is in the job but not in the results",
    "no_solution": "no solution: the search found no valid schedule",
    "failed": "failed: the search raised an error (see the tuple's message)",
    "interrupted": "interrupted: the run was stopped before the tuple finished",
    "no_baseline": "no baseline: B has no result for this network, nothing to normalise to",
    "no_k": "no K result: no speedup",
    "not_recorded": "not recorded: this run does not store the count",
}
REASON_ORDER = list(REASONS)

# Where the pruning counts come from (resolved (name, value) pairs of a tuple). The first
# name present wins. See docs/analysis.md.
SEGMENTS_BEFORE = ["stats.segments_before_pruning", "stats.segments_generated"]
SEGMENTS_AFTER = ["stats.segments_after_pruning", "stats.segments_kept"]
CONSTRAINTS_BEFORE = ["stats.constraints_before_pruning", "stats.constraints_generated"]
CONSTRAINTS_AFTER = ["stats.constraints_after_pruning"]
SEGMENTS_ANY = "stats.segments"             # what every strategy records (segments searched)
CONSTRAINTS_ANY = "stats.constraints_searched"

QUALITY_METRIC = "total_cost"   # spec §9: compare nn_dataflow total cost (energy incl. static)
TIME_METRIC = "search_seconds"  # wall time of the tuple's search


@dataclasses.dataclass
class Cell:
    text: str                      # as shown (Markdown/LaTeX)
    value: Optional[float] = None  # the number behind it (CSV), None when missing
    reason: Optional[str] = None   # key of REASONS when missing

    @staticmethod
    def missing(reason: str) -> "Cell":
        return Cell(DASH, None, reason)


@dataclasses.dataclass
class Table:
    name: str              # file stem
    title: str
    columns: List[str]
    rows: List[List[Cell]]
    notes: List[str] = dataclasses.field(default_factory=list)  # free text under the table
    time_limit: Optional[float] = None
    bold_rows: Sequence[int] = ()

    # -- footnotes -----------------------------------------------------------------------
    def reasons(self) -> List[str]:
        used = {c.reason for r in self.rows for c in r if c.reason}
        return [r for r in REASON_ORDER if r in used]

    def _footnote(self, reason: str) -> str:
        limit = ""
        if self.time_limit and not math.isnan(self.time_limit):
            limit = f" ({format_seconds(self.time_limit)})"
        return REASONS[reason].format(limit=limit)

    def _mark(self, cell: Cell, sup) -> str:
        if not cell.reason:
            return cell.text
        return cell.text + sup(self.reasons().index(cell.reason) + 1)

    # -- renderers -----------------------------------------------------------------------
    def to_markdown(self) -> str:
        def sup(n):
            return "<sup>" + str(n) + "</sup>"
        out = [f"### {self.title}", ""]
        out.append("| " + " | ".join(self.columns) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(self.columns) - 1)) + "|")
        for i, r in enumerate(self.rows):
            cells = [self._mark(c, sup).replace("|", "\\|") for c in r]
            if i in self.bold_rows:
                cells = [f"**{c}**" if c else c for c in cells]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        for n, reason in enumerate(self.reasons(), 1):
            out.append(f"<sup>{n}</sup> {self._footnote(reason)}  ")
        out.extend(note + "  " for note in self.notes)
        return "\n".join(out).rstrip() + "\n"

    def to_csv(self) -> str:
        """Numbers unrounded; a missing cell holds its reason ("timeout", "not_run", ...)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([c.reason if c.reason else (repr(c.value) if isinstance(c.value, float)
                                                   else (c.value if c.value is not None
                                                         else c.text)) for c in r])
        return buf.getvalue()

    def to_latex(self) -> str:
        def sup(n):
            return "\\textsuperscript{" + str(n) + "}"

        def esc(s: str) -> str:
            s = s.replace("\\", "\\textbackslash{}")
            for a, b in (("&", "\\&"), ("%", "\\%"), ("_", "\\_"), ("#", "\\#"),
                         ("×", "$\\times$"), (DASH, "---"), ("≤", "$\\leq$")):
                s = s.replace(a, b)
            return s

        out = ["% " + self.title, "\\begin{table}[t]", "\\centering",
               "\\caption{" + esc(self.title) + "}",
               "\\begin{tabular}{l" + "r" * (len(self.columns) - 1) + "}", "\\hline",
               " & ".join(esc(c) for c in self.columns) + " \\\\", "\\hline"]
        for i, r in enumerate(self.rows):
            cells = [esc(c.text) + (sup(self.reasons().index(c.reason) + 1) if c.reason else "")
                     for c in r]
            if i in self.bold_rows:
                out.append("\\hline")
                cells = ["\\textbf{" + c + "}" for c in cells]
            out.append(" & ".join(cells) + " \\\\")
        out += ["\\hline", "\\end{tabular}"]
        notes = [sup(n) + " " + esc(self._footnote(r)) for n, r in enumerate(self.reasons(), 1)]
        notes += [esc(n) for n in self.notes]
        if notes:
            out.append("\\par\\smallskip{\\footnotesize " + "\\\\ ".join(notes) + "}")
        out.append("\\end{table}")
        return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Formatting


def format_seconds(s: float) -> str:
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return DASH
    if s < 60:
        return f"{s:.3g} s" if s < 10 else f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def format_energy(j: float) -> str:
    """Energies in the hardware's unit (joules for the shipped presets, relative for eyeriss)."""
    return f"{j:.4e}"


def format_ratio(x: float) -> str:
    return f"{x:.3f}"


def format_speedup(x: float) -> str:
    return f"{x:.3g}×" if x < 1000 else f"{x:.0f}×"


def short_hw(hardware: str, batch: int) -> str:
    return f"{hardware}, batch {batch}"


# --------------------------------------------------------------------------------------------
# Cells from tuples


def ordered_labels(labels) -> List[str]:
    """The distinct strategy labels (`label` of kr.load's tables, written by kapla) in the
    paper's letter order (kr.STRATEGY_ORDER), other letters after them, then by label."""
    def rank(l):
        base = l[0] if l else ""
        return (kr.STRATEGY_ORDER.index(base) if base in kr.STRATEGY_ORDER else 99, l)
    return sorted(set(labels), key=rank)


def aggregate(res: kr.Results, metric: str) -> pd.DataFrame:
    """One row per (mode, hardware, batch, network, label): `value` = mean of `metric` over the
    seeds whose status is ok, or NaN with `reason` (the first failing status, or not_run)."""
    exp = res.expected
    t = res.tuples.set_index("key")
    rows = []
    keys = ["mode", "hardware", "batch", "network", "label"]
    for group, g in exp.groupby(keys, sort=False):
        vals = []
        reasons = []
        for k, st in zip(g["key"], g["status"]):
            if st == "ok":
                vals.append(float(t.at[k, metric]))
            else:
                reasons.append(st)
        value = float(np.mean(vals)) if vals else np.nan
        reason = None if vals else (sorted(reasons, key=REASON_ORDER.index)[0])
        rows.append(group + (value, reason, len(vals), len(g)))
    return pd.DataFrame(rows, columns=keys + ["value", "reason", "n_ok", "n"])


def _get(gn: pd.DataFrame, label: str):
    """(value, reason) of a strategy label in one network's aggregate rows."""
    if label not in gn.index:
        return np.nan, "not_run"
    return gn.at[label, "value"], gn.at[label, "reason"]


def _networks_in_order(res: kr.Results, g: pd.DataFrame) -> List[str]:
    order = list(dict.fromkeys(res.expected["network"]))  # job order (sorted by key)
    present = set(g["network"])
    return [n for n in order if n in present]


def groups(res: kr.Results) -> List[Tuple[str, int]]:
    """The (hardware, batch) configurations, cloud-like (more nodes) first. Design points of
    hardware spaces are left to the co-design section (kapla_codesign): a table and a plot per
    design point would be 10^5 files for a sweep of 10^4 designs."""
    e = res.expected
    if "design_base" in e:
        e = e[e["design_base"].fillna("") == ""]
    g = e[["hardware", "batch"]].drop_duplicates()
    return sorted(((h, int(b)) for h, b in zip(g["hardware"], g["batch"])),
                  key=lambda x: (-x[1], x[0]))


def _time_limit(res: kr.Results) -> Optional[float]:
    if res.tuples.empty or "time_limit" not in res.tuples:
        return None
    v = res.tuples["time_limit"].dropna()
    return float(v.max()) if len(v) else None


# --------------------------------------------------------------------------------------------
# (a) scheduling time


def time_tables(res: kr.Results) -> List[Table]:
    agg = aggregate(res, TIME_METRIC)
    tables = []
    for mode in ("training", "inference"):
        for hw, batch in groups(res):
            g = agg[(agg["mode"] == mode) & (agg["hardware"] == hw) & (agg["batch"] == batch)]
            if g.empty:
                continue
            labels = ordered_labels(g["label"])
            others = [l for l in labels if l != "K"]
            has_k = "K" in labels
            cols = ["Network"] + labels + ([f"K vs {l}" for l in others] if has_k else [])
            rows = []
            speedups: Dict[str, List[float]] = {l: [] for l in others}
            for net in _networks_in_order(res, g):
                gn = g[g["network"] == net].set_index("label")
                row = [Cell(net)]
                for l in labels:
                    v, why = _get(gn, l)
                    row.append(Cell(format_seconds(v), v) if why is None else Cell.missing(why))
                if has_k:
                    k, kwhy = _get(gn, "K")
                    for l in others:
                        v, why = _get(gn, l)
                        if why is not None:
                            row.append(Cell.missing(why))
                        elif kwhy is not None:
                            row.append(Cell.missing(kwhy))
                        else:
                            s = v / k if k > 0 else math.inf
                            speedups[l].append(s)
                            row.append(Cell(format_speedup(s), s))
                rows.append(row)
            bold = []
            if has_k and any(speedups.values()):
                avg = [Cell("Geometric mean")] + [Cell("") for _ in labels]
                for l in others:
                    s = [x for x in speedups[l] if x > 0 and math.isfinite(x)]
                    if s:
                        m = float(np.exp(np.mean(np.log(s))))
                        avg.append(Cell(format_speedup(m), m))
                    else:
                        avg.append(Cell(""))
                bold = [len(rows)]
                rows.append(avg)
            notes = [f"Wall time of each tuple's search ({TIME_METRIC}); mean over seeds."]
            if has_k:
                notes.append("K vs X = time of X / time of K.")
            tables.append(Table(f"time_{mode}_{hw}_b{batch}",
                                f"Scheduling time, {mode}, {short_hw(hw, batch)}",
                                cols, rows, notes, _time_limit(res), bold))
    return tables


# --------------------------------------------------------------------------------------------
# (b) scheduling quality


def quality_tables(res: kr.Results) -> List[Table]:
    agg = aggregate(res, QUALITY_METRIC)
    tables = []
    for hw, batch in groups(res):
        g = agg[(agg["hardware"] == hw) & (agg["batch"] == batch)]
        labels = ordered_labels(g["label"])
        others = [l for l in labels if l != "B"]
        cols = ["Network", "B energy"] + [f"{l} / B" for l in others]
        rows: List[List[Cell]] = []
        bold = []
        for mode in ("training", "inference"):
            gm = g[g["mode"] == mode]
            if gm.empty:
                continue
            ratios: Dict[str, List[float]] = {l: [] for l in others}
            nets = _networks_in_order(res, gm)
            for net in nets:
                gn = gm[gm["network"] == net].set_index("label")
                b, bwhy = _get(gn, "B")
                row = [Cell(net), Cell(format_energy(b), b) if bwhy is None
                       else Cell.missing(bwhy)]
                for l in others:
                    v, why = _get(gn, l)
                    if why is not None:
                        row.append(Cell.missing(why))
                    elif bwhy is not None:
                        row.append(Cell.missing("no_baseline"))
                    else:
                        ratios[l].append(v / b)
                        row.append(Cell(format_ratio(v / b), v / b))
                rows.append(row)
            if not others:
                continue
            avg = [Cell(f"Average ({mode})"), Cell("")]
            for l in others:
                if ratios[l]:
                    m = float(np.mean(ratios[l]))
                    n_missing = len(nets) - len(ratios[l])
                    avg.append(Cell(format_ratio(m) + (f" (n={len(ratios[l])})" if n_missing
                                                       else ""), m))
                else:
                    avg.append(Cell(""))
            bold.append(len(rows))
            rows.append(avg)
        if not rows:
            continue
        notes = [f"Energy = {QUALITY_METRIC} (nn_dataflow total cost, incl. static energy) of "
                 "the best schedule; X / B = energy of X over energy of B (1 = as good as "
                 "exhaustive). Average = arithmetic mean of the ratios over the networks with "
                 "both results (n shown when some are missing). Mean over seeds."]
        tables.append(Table(f"quality_{hw}_b{batch}",
                            f"Scheduling quality (energy normalised to B), {short_hw(hw, batch)}",
                            cols, rows, notes, _time_limit(res), bold))
    return tables


# --------------------------------------------------------------------------------------------
# (c) inter-layer pruning


def _first(resolved: Dict[str, str], names: Sequence[str]) -> Optional[float]:
    for n in names:
        if n in resolved and resolved[n] not in ("", None):
            try:
                return float(resolved[n])
            except ValueError:
                pass
    return None


def pruning_tables(res: kr.Results) -> List[Table]:
    wide = res.resolved_wide()
    by_key = {k: {n: v for n, v in row.items() if isinstance(v, str)}
              for k, row in wide.to_dict(orient="index").items()}
    exp = res.expected
    nlayers = res.layers.groupby("key").size().to_dict() if len(res.layers) else {}
    tables = []
    for mode in ("inference", "training"):
        for hw, batch in groups(res):
            g = exp[(exp["mode"] == mode) & (exp["hardware"] == hw) & (exp["batch"] == batch)]
            if g.empty:
                continue
            cols = ["Network", "Layers", "Segments before", "Segments after", "% pruned",
                    "Constraints before", "Constraints after", "% pruned"]
            rows = []
            sources = set()
            for net in _networks_in_order(res, g):
                gn = g[(g["network"] == net) & (g["seed"] == g["seed"].min())]
                k_rows = gn[gn["label"] == "K"]
                b_rows = gn[gn["label"] == "B"]
                k_key = k_rows["key"].iloc[0] if len(k_rows) else None
                b_key = b_rows["key"].iloc[0] if len(b_rows) else None
                k_status = k_rows["status"].iloc[0] if len(k_rows) else "not_run"
                b_status = b_rows["status"].iloc[0] if len(b_rows) else "not_run"
                k_res = by_key.get(k_key, {}) if k_status == "ok" else {}
                b_res = by_key.get(b_key, {}) if b_status == "ok" else {}
                layers = next((nlayers[k] for k in gn["key"] if k in nlayers), None)
                row = [Cell(net), Cell(str(layers), layers) if layers else Cell("")]

                def count(before_names, after_names, any_name):
                    before = _first(k_res, before_names)
                    if before is not None:
                        sources.add("K's own count before pruning")
                    else:
                        before = _first(b_res, [any_name])
                        if before is not None:
                            sources.add("B's count (B searches every segment/constraint)")
                    after = _first(k_res, list(after_names) + [any_name])
                    cells = []
                    if before is None:
                        why = b_status if b_status != "ok" else (
                            k_status if k_status != "ok" else "not_recorded")
                        cells.append(Cell.missing(why))
                    else:
                        cells.append(Cell(f"{before:.0f}", before))
                    if after is None:
                        cells.append(Cell.missing(k_status if k_status != "ok"
                                                  else "not_recorded"))
                    else:
                        cells.append(Cell(f"{after:.0f}", after))
                    if before is not None and after is not None and before > 0:
                        p = 100.0 * (1.0 - after / before)
                        cells.append(Cell(f"{p:.1f} %", p))
                    else:
                        cells.append(Cell.missing(cells[0].reason or cells[1].reason
                                                  or "not_recorded"))
                    return cells

                row += count(SEGMENTS_BEFORE, SEGMENTS_AFTER, SEGMENTS_ANY)
                row += count(CONSTRAINTS_BEFORE, CONSTRAINTS_AFTER, CONSTRAINTS_ANY)
                rows.append(row)
            notes = ["After = what K (kapla) searched (resolved stats."
                     "segments_after_pruning, else stats.segments; constraints: stats."
                     "constraints_after_pruning, else stats.constraints_searched). Before = "
                     + (" / ".join(sorted(sources)) if sources else
                        "K's stats.*_before_pruning, else B's count") + "."]
            tables.append(Table(f"pruning_{mode}_{hw}_b{batch}",
                                f"Inter-layer pruning, {mode}, {short_hw(hw, batch)}",
                                cols, rows, notes, _time_limit(res)))
    return tables


# --------------------------------------------------------------------------------------------
# Status overview


def status_table(res: kr.Results) -> Table:
    exp = res.expected
    statuses = ["ok", "timeout", "no_solution", "failed", "interrupted", "not_run"]
    cols = ["Strategy"] + statuses + ["total"]
    rows = []
    for l in ordered_labels(exp["label"]):
        g = exp[exp["label"] == l]
        counts = g["status"].value_counts()
        rows.append([Cell(l)] + [Cell(str(int(counts.get(s, 0))), int(counts.get(s, 0)))
                                 for s in statuses] + [Cell(str(len(g)), len(g))])
    return Table("status", "Tuples by strategy and status", cols, rows,
                 ["Counts over every (network, hardware, batch, seed) the jobs asked for."])


def all_tables(res: kr.Results) -> Dict[str, List[Table]]:
    return {"time": time_tables(res), "quality": quality_tables(res),
            "pruning": pruning_tables(res), "status": [status_table(res)]}
