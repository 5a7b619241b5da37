#!/usr/bin/python3
"""Tables and plots of the KAPLA paper from kapla sweep results.

    python3 scripts/report.py RESULTS [RESULTS ...] --out DIR

RESULTS: results files (.h5, schema version 2 to 5) and/or directories of them. Writes
  DIR/index.md                      links to everything, with the tables inline
  DIR/tables/<name>.{md,csv,tex}    (a) time_*, (b) quality_*, (c) pruning_*, status
  DIR/plots/<name>.{png,pdf}        energy breakdown, quality vs time, anytime curves, heatmaps
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


def write_report(res: "kr.Results", out: str, plots: bool = True) -> str:
    import kapla_tables as kt
    os.makedirs(os.path.join(out, "tables"), exist_ok=True)
    tables = kt.all_tables(res)
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
        for heading, figs in kp.all_plots(res, os.path.join(out, "plots")).items():
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
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--no-plots", action="store_true", help="tables only")
    ap.add_argument("--no-checksum", action="store_true",
                    help="skip the checksum pass over each file (sizes are still checked)")
    args = ap.parse_args(argv)
    try:
        res = kr.load(args.results, checksum=not args.no_checksum)
    except kr.ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if res.expected.empty:
        print(f"error: {args.results[0]}: no tuples in these results", file=sys.stderr)
        return 1
    path = write_report(res, args.out, plots=not args.no_plots)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
