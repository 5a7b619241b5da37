#!/usr/bin/python3
"""Tables and plots of the KAPLA paper from kapla sweep results.

    python3 scripts/report.py RESULTS [RESULTS ...] --out DIR
    python3 scripts/report.py RESULTS [RESULTS ...] --paper PAGE.md [--preface FILE]

RESULTS: results files (.h5, schema version 2 to 7) and/or directories of them. Writes
  DIR/index.md                      links to everything, with the tables inline
  DIR/tables/<name>.{md,csv,tex}    (a) time_*, (b) quality_*, (c) pruning_*, status, and for
                                    hardware design points codesign_layers_*, codesign_front_*
  DIR/plots/<name>.{png,pdf}        energy breakdown, quality vs time, anytime curves, heatmaps;
                                    for design points Pareto fronts (area vs EDP, energy vs
                                    delay), pJ/MAC per layer, energy over two design axes
                                    (scripts/kapla_codesign.py; --baseline, --heatmap-axes)
--paper writes one Markdown page with the KAPLA paper's published figures beside these results
(scripts/kapla_paper.py: scheduling time and K/B speed-up, quality against B and the paper's
averages, inter-layer pruning, timeouts, provenance); docs/paper_reproduction.md is that page
for results/paper/ (its README has the command). --export-compact DIR writes the per-tuple
tables as CSV (kapla_results.export_compact), which report.py reads back in place of the HDF5
files (results/paper/ is one). --out, --paper and --export-compact may be given together.
--replace: a tuple in a later RESULTS file replaces it in the earlier ones (reruns).
Exit code 1 with a one-line "error: FILE: reason" when an input is refused (foreign, truncated,
damaged or other-version file); docs/analysis.md explains the tables.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kapla_python  # noqa: E402

# Under a python without Debian's packages: re-run with /usr/bin/python3, or one line and exit 1.
kapla_python.require("h5py", "numpy", "pandas", "matplotlib")

import kapla_results as kr  # noqa: E402


def write_report(res: "kr.Results", out: str, plots: bool = True, baseline=None,
                 heatmap_axes=None) -> str:
    import kapla_codesign as kc
    import kapla_tables as kt
    os.makedirs(os.path.join(out, "tables"), exist_ok=True)
    tables = kt.all_tables(res)
    codesign = kc.has_designs(res)
    if codesign:
        tables["codesign"] = kc.tables(res, baseline)
    index = ["# kapla results", ""]
    for info in res.files:
        index.append(f"* `{info.path}`: job `{info.job_name}`, kapla {info.kapla_version}, "
                     f"schema {info.schema}")
    exp = res.expected
    index.append(f"* {len(res.tuples)} tuples recorded, {int((~exp['present']).sum())} of "
                 f"{len(exp)} asked for not run; statuses: " +
                 ", ".join(f"{s} {n}" for s, n in exp["status"].value_counts().items()))
    index.append("")
    sections = [("time", "(a) Scheduling time"), ("quality", "(b) Scheduling quality"),
                ("pruning", "(c) Inter-layer pruning"), ("status", "Tuples")]
    if codesign:
        sections.append(("codesign", "Co-design: pJ/MAC per layer and Pareto fronts"))
    for kind, heading in sections:
        index += [f"## {heading}", ""]
        if not tables[kind]:
            index += ["No data for this table in these results.", ""]
        for t in tables[kind]:
            for ext, text in (("md", t.to_markdown()), ("csv", t.to_csv()),
                              ("tex", t.to_latex())):
                with open(os.path.join(out, "tables", f"{t.name}.{ext}"), "w",
                          encoding="utf-8") as f:
                    f.write(text)
            index.append(t.to_markdown().replace("### ", "#### ", 1))
            index.append(f"Files: [Markdown](tables/{t.name}.md), [CSV](tables/{t.name}.csv), "
                         f"[LaTeX](tables/{t.name}.tex)")
            index.append("")
    if plots:
        import kapla_plots as kp
        index += ["## Plots", ""]
        figures = kp.all_plots(res, os.path.join(out, "plots"))
        if codesign:
            figures["Co-design"] = kc.plots(res, os.path.join(out, "plots"), kp._save,
                                            baseline, heatmap_axes)
        for heading, figs in figures.items():
            index += [f"### {heading}", ""]
            if not figs:
                why = {"Anytime curves (R, M against K and B)":
                       "no R or M tuple with a recorded curve in these results",
                       "Hardware sweep": "the sweep has a single hardware"}.get(heading,
                                                                                "no data")
                index += [f"None: {why}.", ""]
            for title, stem in figs:
                index += [f"**{title}** ([PNG](plots/{stem}.png), [PDF](plots/{stem}.pdf))",
                          "", f"![{title}](plots/{stem}.png)", ""]
    path = os.path.join(out, "index.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(index).rstrip() + "\n")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results files (.h5) or directories")
    ap.add_argument("--out", help="output directory (the full report)")
    ap.add_argument("--paper", metavar="PAGE",
                    help="write the paper-reproduction page (Markdown) to PAGE")
    ap.add_argument("--preface", metavar="FILE",
                    help="with --paper: Markdown put at the top of the page (hand-written)")
    ap.add_argument("--earlier-b", metavar="CSV",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "docs", "data", "cloud_training_reference_totals.csv"),
                    help="with --paper: complete B totals of earlier runs (kind B rows) shown "
                         "as a point of comparison; default docs/data/"
                         "cloud_training_reference_totals.csv; '' for none")
    ap.add_argument("--export-compact", metavar="DIR",
                    help="write the per-tuple tables of RESULTS as CSV into DIR (a compact "
                         "export that report.py reads back as RESULTS; no per-layer rows)")
    ap.add_argument("--replace", action="store_true",
                    help="a tuple in a later RESULTS file replaces the same tuple in the files "
                         "before it (a rerun); without it, differing copies are refused")
    ap.add_argument("--no-plots", action="store_true", help="tables only")
    ap.add_argument("--baseline", metavar="HARDWARE",
                    help="co-design: the hardware (a design name or a plain entry) whose "
                         "pJ/MAC per layer is the baseline; default the design space's base, "
                         "when the job ran it as a plain hardware entry")
    ap.add_argument("--heatmap-axes", nargs=2, metavar=("X", "Y"),
                    help="co-design: the two design axes of the energy heat map (nodes, pe, "
                         "gbuf_bytes, regf_bytes, array_bus_width_bits, dram_bandwidth); "
                         "default the first two that vary")
    ap.add_argument("--no-checksum", action="store_true",
                    help="skip the checksum pass over each file (sizes are still checked)")
    args = ap.parse_args(argv)
    if not (args.out or args.paper or args.export_compact):
        ap.error("give --out DIR, --paper PAGE and/or --export-compact DIR")
    import kapla_codesign as kc
    for axis in args.heatmap_axes or []:
        if axis not in kc.HEATMAP_AXIS_NAMES:
            ap.error(f"--heatmap-axes: unknown axis '{axis}' (one of "
                     f"{', '.join(kc.HEATMAP_AXIS_NAMES)})")
    try:
        res = kr.load(args.results, checksum=not args.no_checksum, replace=args.replace)
    except kr.ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if res.expected.empty:
        print(f"error: {args.results[0]}: no tuples in these results", file=sys.stderr)
        return 1
    if args.baseline and args.baseline not in set(res.tuples["hardware"]):
        print(f"error: {args.results[0]}: --baseline: no tuple on hardware '{args.baseline}' "
              "in these results", file=sys.stderr)
        return 1
    if args.export_compact:
        kr.export_compact(res, args.export_compact)
        print(f"wrote {args.export_compact}")
    if args.out:
        path = write_report(res, args.out, plots=not args.no_plots, baseline=args.baseline,
                            heatmap_axes=args.heatmap_axes)
        print(f"wrote {path}")
    if args.paper:
        import kapla_paper
        for name, given in (("--preface", args.preface), ("--earlier-b", args.earlier_b)):
            if given and not os.path.isfile(given):
                print(f"error: {given}: {name}: no such file", file=sys.stderr)
                return 1
        path = kapla_paper.write_page(res, args.paper, preface=args.preface,
                                      earlier_b_csv=args.earlier_b or None)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
