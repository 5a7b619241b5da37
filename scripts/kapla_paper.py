"""The KAPLA paper's published evaluation next to kapla's measured results (issue 22).

    python3 scripts/report.py results/paper --paper docs/paper_reproduction.md \
        --preface results/paper/preface.md

writes one Markdown page: the preface (hand-written), then, generated from the results, the
paper's scheduling-time table with kapla's CPU seconds beside each cell and the K/B speed-up
per network against the paper's, the quality table (energy / reference for S, R, M, K per
network, training and inference) with the averages against the paper's 2.2 % and 7.7 %, the
inter-layer pruning counts against the paper's, the tuples that hit their time limit with
what they had evaluated, and the provenance (files, jobs, kapla commit, threads, limits).

Rules (issue 22): a tuple that did not finish is shown as "> limit", never as a number it did
not reach; a speed-up against it is a lower bound ("> x"); where B did not finish, the
energy ratios are against the best finished reference, named in the table. The page holds no
date or path of the machine that generated it, so regenerating it from the same results gives
the same bytes (tests/scripts/test_paper_page.py).
"""
from __future__ import annotations

import csv
import math
import os
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

import kapla_results as kr
import kapla_tables as kt
from kapla_tables import Cell, Table

# --------------------------------------------------------------------------------------------
# The paper's figures (KAPLA, ASP-DAC'25; issue 22). Training on the 16x16 multi-array cloud
# accelerator, batch 64, measured on a Xeon Gold 5120 with 8 processes.

PAPER_SETUP = ("training, 16x16 multi-array cloud accelerator, batch 64, Xeon Gold 5120, "
               "8 processes")

# (paper's name, kapla's inference network; training = name + "_bp"), the paper's row order.
NETWORKS = [("AlexNet", "alex_net"), ("MobileNet", "mobilenet"), ("VGGNet", "vgg_net"),
            ("GoogLeNet", "googlenet"), ("ResNet", "resnet50"), ("MLP", "mlp_l"),
            ("LSTM", "lstm_gnmt")]
LETTERS = ["B", "S", "R", "M", "K"]

# The scheduling-time table as printed (B S R M K per network).
PAPER_TIMES = {
    "AlexNet": ["8.7 h", "12.7 h", "4.6 min", "3.2 h", "32 s"],
    "MobileNet": ["17.6 h", "33.8 h", "16.6 min", "10.1 h", "53 s"],
    "VGGNet": ["6.8 h", "12.2 h", "5.5 min", "3.6 h", "35 s"],
    "GoogLeNet": ["64.2 h", "111.0 h", "31.4 min", "37.1 h", "262 s"],
    "ResNet": ["78.6 h", "114.8 h", "42.4 min", "28.6 h", "118 s"],
    "MLP": ["0.2 h", "0.7 h", "1.0 min", "0.2 h", "13 s"],
    "LSTM": ["0.2 h", "0.9 h", "7.4 min", "0.1 h", "6 s"],
}
PAPER_SPEEDUP = 518.0                 # "518x search speedup" (K against B), the paper's text
PAPER_K_LOSS = {"training": 0.022, "inference": 0.077}  # K's energy above B's, on average

# The paper's inter-layer pruning table: constraints of one segment before -> after pruning
# (inference options, cloud, batch 64; docs/kapla_inter_layer.md section 3).
PAPER_PRUNING = {"AlexNet": (700, 2), "MobileNet": (331, 42), "VGGNet": (7, 1),
                 "GoogLeNet": (560, 1), "ResNet": (63, 4), "MLP": (784, 18), "LSTM": (70, 3)}

CLOUD = ("cloud", 64)
TIME_METRIC = "cpu_seconds"    # process CPU seconds of the tuple (one thread: ~ wall time)
QUALITY_METRIC = kt.QUALITY_METRIC


def paper_seconds(text: str) -> float:
    """'8.7 h' / '4.6 min' / '32 s' -> seconds."""
    value, unit = text.split()
    return float(value) * {"h": 3600.0, "min": 60.0, "s": 1.0}[unit]


def network_name(paper_name: str, mode: str) -> str:
    net = dict(NETWORKS)[paper_name]
    return net + "_bp" if mode == "training" else net


def geomean(xs: List[float]) -> float:
    return float(np.exp(np.mean(np.log(xs))))


def percent_above(ratio: float) -> str:
    return f"{100.0 * (ratio - 1.0):+.1f} %"


# --------------------------------------------------------------------------------------------
# One tuple's outcome


class Outcome:
    """A (mode, hardware, batch, network, strategy letter) tuple of the results (seed 1)."""

    def __init__(self, row: Optional[pd.Series], status: str):
        self.row = row
        self.status = status

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def timed_out(self) -> bool:
        return self.status == "timeout"

    def get(self, column: str) -> float:
        return float(self.row[column]) if self.row is not None else math.nan

    @property
    def seconds(self) -> float:
        return self.get(TIME_METRIC)

    @property
    def energy(self) -> float:
        return self.get(QUALITY_METRIC)

    @property
    def limit(self) -> float:
        return self.get("time_limit")

    def time_cell(self) -> Cell:
        """CPU seconds, "> limit" for a timeout, or a dash with the reason."""
        if self.ok:
            return Cell(kt.format_seconds(self.seconds), self.seconds)
        if self.timed_out:
            return Cell(f"> {kt.format_seconds(self.limit)}", None)
        return Cell.missing(self.status)


class Outcomes:
    def __init__(self, res: kr.Results):
        self.res = res
        exp = res.expected
        self.status = {}
        for k, st, m, h, b, n, lab, seed in zip(exp["key"], exp["status"], exp["mode"],
                                                exp["hardware"], exp["batch"], exp["network"],
                                                exp["label"], exp["seed"]):
            if seed == exp["seed"].min():
                self.status[(m, h, int(b), n, lab)] = (k, st)
        self.rows = res.tuples.set_index("key")

    def __call__(self, mode: str, hw: str, batch: int, net: str, letter: str) -> Outcome:
        key, st = self.status.get((mode, hw, batch, net, letter), (None, "not_run"))
        row = self.rows.loc[key] if key is not None and key in self.rows.index else None
        return Outcome(row, st)

    def configs(self) -> List[Tuple[str, str, int]]:
        """(mode, hardware, batch) present, training first, cloud-like (larger batch) first."""
        seen = {(m, h, b) for (m, h, b, _, _) in self.status}
        return sorted(seen, key=lambda x: (x[0] != "training", -x[2], x[1]))


# --------------------------------------------------------------------------------------------
# (a) Scheduling time


def speedup_cell(b: Outcome, k: Outcome) -> Cell:
    """B's time / K's: exact when both finished; a lower bound ("> x") when B hit its limit
    (B's CPU seconds when it was stopped over K's)."""
    if not k.ok:
        return Cell.missing(k.status)
    if b.ok:
        s = b.seconds / k.seconds
        return Cell(kt.format_speedup(s), s)
    if b.timed_out:
        s = b.seconds / k.seconds
        return Cell("> " + kt.format_speedup(s), None)
    return Cell.missing(b.status)


def paper_time_table(out: Outcomes) -> Table:
    mode, (hw, batch) = "training", CLOUD
    cols = ["Network"]
    for letter in LETTERS:
        cols += [f"{letter} kapla", f"{letter} paper"]
    cols += ["K/B speed-up kapla", "K/B paper"]
    rows = []
    exact, bounds, paper = [], [], []
    for pname, _ in NETWORKS:
        net = network_name(pname, mode)
        row = [Cell(pname)]
        for i, letter in enumerate(LETTERS):
            row += [out(mode, hw, batch, net, letter).time_cell(), Cell(PAPER_TIMES[pname][i])]
        b, k = out(mode, hw, batch, net, "B"), out(mode, hw, batch, net, "K")
        cell = speedup_cell(b, k)
        if cell.value is not None:
            exact.append(cell.value)
        if b.timed_out and k.ok:
            bounds.append(b.seconds / k.seconds)
        p = paper_seconds(PAPER_TIMES[pname][0]) / paper_seconds(PAPER_TIMES[pname][4])
        paper.append(p)
        row += [cell, Cell(kt.format_speedup(p), p)]
        rows.append(row)
    mean = [Cell("Geometric mean")] + [Cell("") for _ in range(2 * len(LETTERS))]
    if exact and not bounds:
        m = geomean(exact)
        mean.append(Cell(kt.format_speedup(m), m))
    elif exact or bounds:
        mean.append(Cell("> " + kt.format_speedup(geomean(exact + bounds)), None))
    else:
        mean.append(Cell(""))
    mean.append(Cell(f"{kt.format_speedup(geomean(paper))} ({PAPER_SPEEDUP:.0f}× in the text)",
                     geomean(paper)))
    rows.append(mean)
    notes = [f"kapla: CPU seconds of each tuple's search ({TIME_METRIC}), one thread, this "
             f"machine; paper: {PAPER_SETUP}. \"> t\": the tuple hit its wall-clock limit t and "
             "was stopped (what it had evaluated: the timeout table below); a speed-up against "
             "it is a lower bound (its CPU seconds when stopped over K's), and so is a "
             "geometric mean that includes one. The paper's column is its B time over its K "
             "time, per row; the geometric mean of its rows is not exactly its 518×, since "
             "the table rounds MLP's and LSTM's B times to 0.1 h."]
    return Table("paper_time_training_cloud_b64",
                 "Scheduling time, training, cloud, batch 64: kapla beside the paper",
                 cols, rows, notes, bold_rows=[len(rows) - 1])


def kapla_time_table(out: Outcomes, mode: str, hw: str, batch: int) -> Table:
    cols = ["Network"] + LETTERS + ["K/B speed-up", "K/S speed-up"]
    rows = []
    for pname, _ in NETWORKS:
        net = network_name(pname, mode)
        got = {l: out(mode, hw, batch, net, l) for l in LETTERS}
        rows.append([Cell(pname)] + [got[l].time_cell() for l in LETTERS] +
                    [speedup_cell(got["B"], got["K"]), speedup_cell(got["S"], got["K"])])
    notes = [f"CPU seconds ({TIME_METRIC}), one thread; \"> t\": stopped at its wall-clock "
             "limit t; \"> x\": a lower bound."]
    return Table(f"paper_time_{mode}_{hw}_b{batch}",
                 f"Scheduling time, {mode}, {hw}, batch {batch} (kapla only)",
                 cols, rows, notes)


# --------------------------------------------------------------------------------------------
# (b) Scheduling quality


def reference(out: Outcomes, mode: str, hw: str, batch: int, net: str) -> Tuple[str, float]:
    """What the energies of a network are divided by: B's energy when B finished, else S's
    (exhaustive over the directive space), else the lowest energy any finished strategy
    reached in these results (named), else ("", nan)."""
    for letter in ("B", "S"):
        o = out(mode, hw, batch, net, letter)
        if o.ok:
            return letter, o.energy
    done = [(out(mode, hw, batch, net, l).energy, l) for l in LETTERS
            if out(mode, hw, batch, net, l).ok]
    if not done:
        return "", math.nan
    e, l = min(done)
    return f"best ({l})", e


def earlier_b_totals(path: str) -> Dict[Tuple[str, str, int], float]:
    """kind-B rows of docs/data/cloud_training_reference_totals.csv: (network, hardware,
    batch) -> total cost of an earlier complete B run (its header says which command)."""
    totals = {}
    if not path or not os.path.exists(path):
        return totals
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(l for l in f if not l.startswith("#")):
            if row["kind"] == "B":
                totals[(row["network"], row["hardware"], int(row["batch"]))] = \
                    float(row["total_cost"])
    return totals


class QualitySummary:
    """K's mean energy ratios of one (mode, hardware, batch), for the headline."""

    def __init__(self):
        self.k_over_b: List[float] = []        # networks whose B finished
        self.k_over_s: List[float] = []        # networks where S finished and B did not
        self.k_over_earlier_b: List[float] = []
        self.refs: List[str] = []


def quality_table(out: Outcomes, mode: str, hw: str, batch: int,
                  earlier: Dict[Tuple[str, str, int], float]) -> Tuple[Table, QualitySummary]:
    others = ["S", "R", "M", "K"]
    with_earlier = any((network_name(p, mode), hw, batch) in earlier for p, _ in NETWORKS)
    cols = ["Network", "÷", "÷ energy (J)"] + [f"{l} / ÷" for l in others]
    if with_earlier:
        cols += ["K / B (earlier complete B run)"]
    rows = []
    ratios: Dict[str, List[float]] = {l: [] for l in others}
    summary = QualitySummary()
    for pname, _ in NETWORKS:
        net = network_name(pname, mode)
        ref, e = reference(out, mode, hw, batch, net)
        summary.refs.append(ref)
        row = [Cell(pname), Cell(ref) if ref else Cell.missing("no_baseline"),
               Cell(kt.format_energy(e), e) if ref else Cell("")]
        for l in others:
            o = out(mode, hw, batch, net, l)
            if not o.ok:
                row.append(Cell(f"> {kt.format_seconds(o.limit)}") if o.timed_out
                           else Cell.missing(o.status))
            elif not ref:
                row.append(Cell.missing("no_baseline"))
            else:
                r = o.energy / e
                ratios[l].append(r)
                row.append(Cell(kt.format_ratio(r), r))
                if l == "K" and ref == "B":
                    summary.k_over_b.append(r)
                elif l == "K" and ref == "S":
                    summary.k_over_s.append(r)
        if with_earlier:
            k = out(mode, hw, batch, net, "K")
            b = earlier.get((net, hw, batch))
            if k.ok and b:
                summary.k_over_earlier_b.append(k.energy / b)
                row.append(Cell(kt.format_ratio(k.energy / b), k.energy / b))
            else:
                row.append(Cell.missing(k.status if not k.ok else "no_baseline"))
        rows.append(row)
    avg = [Cell("Average"), Cell(""), Cell("")]
    for l in others:
        n = len(ratios[l])
        avg.append(Cell(kt.format_ratio(float(np.mean(ratios[l]))) +
                        (f" (n={n})" if n != len(NETWORKS) else ""),
                        float(np.mean(ratios[l]))) if n else Cell(""))
    if with_earlier:
        xs = summary.k_over_earlier_b
        avg.append(Cell(kt.format_ratio(float(np.mean(xs))) +
                        (f" (n={len(xs)})" if len(xs) != len(NETWORKS) else ""),
                        float(np.mean(xs))) if xs else Cell(""))
    rows.append(avg)
    bold = [len(rows) - 1]
    notes = []
    if (mode, (hw, batch)) in (("training", CLOUD), ("inference", CLOUD)):
        paper = [Cell("Paper (average)"), Cell("B"), Cell("")] + \
            [Cell("between K and B") if l in ("R", "M") else Cell("") for l in others[:-1]] + \
            [Cell(kt.format_ratio(1.0 + PAPER_K_LOSS[mode]), 1.0 + PAPER_K_LOSS[mode])]
        if with_earlier:
            paper.append(Cell(""))
        rows.append(paper)
        notes.append(f"Paper: K's energy {100 * PAPER_K_LOSS[mode]:.1f} % above B's on "
                     f"average ({mode}, cloud, batch 64); R and M between.")
    notes.insert(0, f"Energy = {QUALITY_METRIC} (nn_dataflow total cost incl. static energy) of "
                 "the best schedule. ÷ = the reference each row is divided by: B when B "
                 "finished; else S (exhaustive over the directive space) when it finished; "
                 "else \"best (X)\", the lowest energy any strategy reached in these results "
                 "(strategy X), so that row's ratios say how far each strategy is from the "
                 "best one found, not from an exhaustive optimum. \"> t\": that strategy was "
                 "stopped at its limit t, no energy. Average = arithmetic mean over the "
                 "networks with a ratio.")
    if with_earlier:
        same = [p for p, _ in NETWORKS
                if out(mode, hw, batch, network_name(p, mode), "B").ok
                and (network_name(p, mode), hw, batch) in earlier]
        equal = [p for p in same if out(mode, hw, batch, network_name(p, mode), "B").energy
                 == earlier[(network_name(p, mode), hw, batch)]]
        differ = [p for p in same if p not in equal]
        check = ""
        if same:
            check = (f" Where B finished here too ({', '.join(same)}), the earlier total "
                     + ("equals this sweep's B to the last bit." if not differ else
                        f"differs from this sweep's B on {', '.join(differ)}."))
        notes.append("K / B (earlier complete B run): K's energy here over B's total from "
                     "docs/data/cloud_training_reference_totals.csv (kapla's own B run to the "
                     "end with the same options; its header gives the commands). Not from "
                     "these results: a point of comparison for the networks where B hit the "
                     "limit here." + check)
    return (Table(f"paper_quality_{mode}_{hw}_b{batch}",
                  f"Scheduling quality (energy / reference), {mode}, {hw}, batch {batch}",
                  cols, rows, notes, bold_rows=bold), summary)


# --------------------------------------------------------------------------------------------
# (c) Inter-layer pruning


def pruning_table(out: Outcomes, res: kr.Results) -> Optional[Table]:
    mode, (hw, batch) = "inference", CLOUD
    wide = res.resolved_wide()
    names = ["stats.segments_before_pruning", "stats.segments_after_pruning",
             "stats.constraints_before_pruning", "stats.constraints_after_pruning"]
    cols = ["Network", "paper: one segment's constraints", "K: segments before -> after",
            "K: constraints before -> after (whole network)", "% pruned"]
    rows = []
    any_count = False
    for pname, _ in NETWORKS:
        k = out(mode, hw, batch, network_name(pname, mode), "K")
        before, after = PAPER_PRUNING[pname]
        row = [Cell(pname), Cell(f"{before} -> {after}")]
        vals = {}
        if k.ok and k.row is not None and k.row.name in wide.index:
            for n in names:
                v = wide.at[k.row.name, n] if n in wide.columns else None
                if isinstance(v, str) and v:
                    vals[n] = float(v)
        if len(vals) == len(names):
            any_count = True
            sb, sa, cb, ca = (vals[n] for n in names)
            row += [Cell(f"{sb:.0f} -> {sa:.0f}"), Cell(f"{cb:.0f} -> {ca:.0f}"),
                    Cell(f"{100.0 * (1 - ca / cb):.1f} %" if cb else "", None)]
        else:
            why = k.status if not k.ok else "not_recorded"
            row += [Cell.missing(why), Cell.missing(why), Cell.missing(why)]
        rows.append(row)
    if not any_count:
        return None
    notes = ["Paper: constraints of one multi-layer segment before -> after K's pruning "
             "(inference options, cloud, batch 64). kapla: K's counts over the whole network "
             "from these results (resolved stats.*_before_pruning / *_after_pruning), which "
             "sum over every segment, so they are not the paper's per-segment figure; the "
             "same-segment comparison (MLP, LSTM, VGGNet, GoogLeNet exact; AlexNet, ResNet "
             "differ; MobileNet's 331 matches no segment) is docs/kapla_inter_layer.md "
             "section 3."]
    return Table("paper_pruning_inference_cloud_b64",
                 "Inter-layer pruning, inference, cloud, batch 64: kapla beside the paper",
                 cols, rows, notes)


# --------------------------------------------------------------------------------------------
# Timeouts and provenance


def timeout_table(res: kr.Results) -> Optional[Table]:
    t = res.tuples[res.tuples["status"] == "timeout"]
    if t.empty:
        return None
    cols = ["Tuple", "limit (wall)", "wall s", "CPU s", "evaluated", "what it had done"]
    rows = []
    for _, r in t.iterrows():
        rows.append([Cell(f"{r['network']} {r['hardware']} b{int(r['batch'])} "
                          f"{r['label']}"),
                     Cell(kt.format_seconds(float(r["time_limit"]))),
                     Cell(f"{float(r['search_seconds']):.1f}"),
                     Cell(f"{float(r[TIME_METRIC]):.1f}"),
                     Cell(f"{int(r['evaluated']):,}"),
                     Cell(str(r["message"]))])
    return Table("paper_timeouts", "Tuples stopped at their time limit", cols, rows,
                 ["evaluated = cost-model evaluations (schemes priced) until the stop; the "
                  "message is kapla's, with the number of layer searches done."])


def provenance(res: kr.Results) -> List[str]:
    t = res.tuples
    lines = ["## Provenance (from the results files)", ""]
    replaced = any(info.replaced for info in res.files)
    lines.append("| file | job | tuples | time limit per tuple | kapla commit |" +
                 (" replaced by a later file |" if replaced else ""))
    lines.append("|---|---|---:|---|---|" + ("---:|" if replaced else ""))
    for info in res.files:
        g = t[t["source"] == info.path]
        limit = info.time_limit
        lim = "none" if not limit or math.isnan(limit) else kt.format_seconds(limit) + " wall"
        commits = ", ".join(sorted({str(v)[:7] for v in g["git_hash"]})) \
            if "git_hash" in g and len(g) else "—"
        lines.append(f"| `{os.path.basename(info.path)}` | `{info.job_name}` | {len(g)} | "
                     f"{lim} | {commits} |" + (f" {info.replaced} |" if replaced else ""))
    lines.append("")
    if replaced:
        lines.append("tuples: those this page uses from each file; replaced by a later file: "
                     "tuples of the file that a later one (a rerun) holds too, left out "
                     "(report.py --replace).")
        lines.append("")

    def uniq(col):
        return ", ".join(sorted({str(v) for v in t[col]})) if col in t else "?"
    lines.append(f"* kapla commit (`git_hash`): {uniq('git_hash')}; version "
                 f"{uniq('kapla_version')}; compiler {uniq('compiler')}")
    lines.append(f"* OpenMP threads per search: {uniq('threads')}; host: {uniq('host')}")
    start = min(t["start_time"]) if len(t) else "?"
    end = max(t["end_time"]) if len(t) else "?"
    lines.append(f"* tuples ran from {start} to {end} (UTC); CPU seconds summed over all "
                 f"tuples: {t[TIME_METRIC].sum():.0f} s ({t[TIME_METRIC].sum() / 60:.1f} "
                 "core-minutes)")
    counts = res.expected["status"].value_counts()
    lines.append("* tuples: " + ", ".join(f"{s} {int(n)}" for s, n in counts.items()))
    lines.append("")
    return lines


# --------------------------------------------------------------------------------------------
# The page


def headline(out: Outcomes, summaries: Dict[str, QualitySummary]) -> List[str]:
    lines = ["## Headline: K against B", "",
             "| | kapla (this machine, one thread) | paper |", "|---|---|---|"]
    for mode in ("training", "inference"):
        hw, batch = CLOUD
        exact, bound = [], []
        for pname, _ in NETWORKS:
            net = network_name(pname, mode)
            b, k = out(mode, hw, batch, net, "B"), out(mode, hw, batch, net, "K")
            if b.ok and k.ok:
                exact.append(b.seconds / k.seconds)
            elif b.timed_out and k.ok:
                bound.append(b.seconds / k.seconds)
        text = []
        if exact:
            text.append(f"{kt.format_speedup(geomean(exact))} (geometric mean over the "
                        f"{len(exact)} networks whose B finished)")
        if bound:
            text.append(f"> {kt.format_speedup(geomean(exact + bound))} over all "
                        f"{len(exact) + len(bound)} (B stopped at its limit on {len(bound)})")
        paper = (f"{PAPER_SPEEDUP:.0f}×" if mode == "training" else "(not given)")
        lines.append(f"| K/B speed-up, {mode}, cloud b64 | {'; '.join(text) or '—'} | "
                     f"{paper} |")
    for mode in ("training", "inference"):
        s = summaries.get(mode)
        if s is None:
            continue
        text = []
        if s.k_over_b:
            text.append(f"{percent_above(float(np.mean(s.k_over_b)))} (mean K/B over the "
                        f"{len(s.k_over_b)} networks whose B finished)")
        if s.k_over_s:
            text.append(f"{percent_above(float(np.mean(s.k_over_s)))} (mean K/S over the "
                        f"{len(s.k_over_s)} networks where S finished and B did not)")
        best = sum(1 for r in s.refs if r not in ("B", "S"))
        if best:
            text.append(f"neither B nor S finished on {best} of the {len(s.refs)} networks "
                        "(their rows are divided by the best energy found)")
        if s.k_over_earlier_b:
            text.append(f"{percent_above(float(np.mean(s.k_over_earlier_b)))} (mean over the "
                        f"{len(s.k_over_earlier_b)} networks against earlier complete B runs, "
                        "docs/data)")
        lines.append(f"| K's energy above B's, {mode}, cloud b64 | {'; '.join(text) or '—'} "
                     f"| +{100 * PAPER_K_LOSS[mode]:.1f} % |")
    lines.append("")
    return lines


def write_page(res: kr.Results, path: str, preface: Optional[str] = None,
               earlier_b_csv: Optional[str] = None) -> str:
    out = Outcomes(res)
    earlier = earlier_b_totals(earlier_b_csv) if earlier_b_csv else {}
    lines: List[str] = []
    if preface:
        with open(preface, encoding="utf-8") as f:
            lines += f.read().rstrip("\n").split("\n") + [""]
    else:
        lines += ["# The KAPLA paper's evaluation, reproduced", ""]
    lines += ["<!-- Generated by scripts/report.py --paper from the results below; do not edit "
              "by hand (tests/scripts/test_paper_page.py diffs it). -->", ""]
    body: List[str] = []
    summaries: Dict[str, QualitySummary] = {}
    body += ["## Scheduling time", ""]
    body += [paper_time_table(out).to_markdown(), ""]
    for mode, hw, batch in out.configs():
        if (mode, (hw, batch)) != ("training", CLOUD):
            body += [kapla_time_table(out, mode, hw, batch).to_markdown(), ""]
    body += ["## Scheduling quality", ""]
    for mode, hw, batch in out.configs():
        table, summary = quality_table(out, mode, hw, batch, earlier)
        if (hw, batch) == CLOUD:
            summaries[mode] = summary
        body += [table.to_markdown(), ""]
    pruning = pruning_table(out, res)
    body += ["## Inter-layer pruning", ""]
    body += [pruning.to_markdown() if pruning else
             "No K tuple of these results records its pruning counts.\n", ""]
    timeouts = timeout_table(res)
    body += ["## Tuples stopped at their time limit", ""]
    body += [timeouts.to_markdown() if timeouts else "None.\n", ""]
    lines += headline(out, summaries) + body + provenance(res)
    text = "\n".join(lines).rstrip() + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
