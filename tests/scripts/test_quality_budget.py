#!/usr/bin/python3
"""Tests of scripts/kapla_quality_budget.py on a tiny sweep run by the built kapla binary.

    /usr/bin/python3 tests/scripts/test_quality_budget.py --kapla build/src/kapla [unittest args]

The sweep: mlp_s and lstm_phoneme on cloud4x4 (batch 16) x B, K, R and M at 10 and 40
evaluations per layer search, seeds 1-2 (a few seconds). Expected numbers are recomputed here
from the raw HDF5 tables with h5py, independently of kapla_results.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

import h5py
import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, SCRIPTS)

import kapla_quality_budget as qb  # noqa: E402
import kapla_results as kr  # noqa: E402
from kapla_test_cli import kapla_binary, main  # noqa: E402

PYTHON = "/usr/bin/python3"
SCRIPT = os.path.join(SCRIPTS, "kapla_quality_budget.py")
NETWORKS = ["mlp_s", "lstm_phoneme"]
BUDGETS = [10, 40]


def raw(path):
    """{key: (letter, seed, total_cost, max_evaluations or None)} straight from the file."""
    with h5py.File(path, "r") as f:
        budget = {}
        for row in f["resolved"][()]:
            if row["name"].decode() == "strategy.max_evaluations":
                budget[row["key"].decode()] = float(row["value"].decode())
        out = {}
        for row in f["tuples"][()]:
            key = row["key"].decode()
            if row["status"].decode() == "ok":
                out[key] = (row["network"].decode(), row["strategy_letter"].decode(),
                            int(row["seed"]), float(row["total_cost"]), budget.get(key))
        return out


class QualityBudget(unittest.TestCase):
    tmp = None

    @classmethod
    def setUpClass(cls):
        kapla = kapla_binary()
        cls.tmp = tempfile.mkdtemp(prefix="kapla_qb_")
        strategies = ["exhaustive", "kapla"] + [
            {"name": s, "params": {"max_evaluations": b}}
            for s in ("random", "guided") for b in BUDGETS]
        job = {"name": "qb_test", "networks": NETWORKS,
               "hardware": [{"name": "cloud4x4", "batch": 16}], "strategies": strategies,
               "seeds": [1, 2], "options": {"opt_goal": "e"}, "tuple_time_limit_seconds": 600,
               "output": os.path.join(cls.tmp, "qb.h5")}
        cls.job = os.path.join(cls.tmp, "qb.json")
        with open(cls.job, "w") as f:
            json.dump(job, f)
        subprocess.run([kapla, "sweep", cls.job, "--quiet", "--threads", "1"], check=True,
                       cwd=cls.tmp)
        cls.h5 = os.path.join(cls.tmp, "qb.h5")
        cls.raw = raw(cls.h5)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_script(self, *args):
        return subprocess.run([PYTHON, SCRIPT, *args], capture_output=True, text=True)

    def expected_ratio(self, network, letter, budget):
        b = [c for _, l, _, c, _ in (v for v in self.raw.values() if v[0] == network)
             if l == "B"]
        vals = [c for n, l, _, c, bud in self.raw.values()
                if n == network and l == letter and bud == budget]
        return float(np.mean(vals)) / min(b), len(vals)

    def test_csv_and_markdown_match_raw_file(self):
        out = os.path.join(self.tmp, "out")
        r = self.run_script(self.h5, "--out", out, "--stem", "qb", "--reference", "")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "qb.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "qb.md"), encoding="utf-8") as f:
            md = f.read()
        checked = 0
        for net in NETWORKS:
            for letter in ("R", "M"):
                for b in BUDGETS:
                    want, seeds = self.expected_ratio(net, letter, float(b))
                    row = [x for x in rows if x["network"] == net and x["letter"] == letter and
                           float(x["budget"]) == b]
                    self.assertEqual(len(row), 1, (net, letter, b))
                    self.assertAlmostEqual(float(row[0]["ratio"]), want, delta=1e-12)
                    self.assertEqual(int(row[0]["seeds"]), seeds)
                    self.assertEqual(row[0]["kind"], "B")
                    checked += 1
            line = [l for l in md.splitlines() if l.startswith(f"| {net} | B |")]
            self.assertEqual(len(line), 1, md)
            want_r10 = self.expected_ratio(net, "R", 10.0)[0]
            self.assertEqual(line[0].split(" | ")[3], f"{want_r10:.3f}")
            k = self.expected_ratio(net, "K", None)[0]
            self.assertEqual(line[0].split(" | ")[-2], f"{k:.3f}")
        self.assertEqual(checked, 8)
        # Columns: R/M at each budget, then K and ref. K (no reference file: missing).
        self.assertIn("| R 10 | M 10 | R 40 | M 40 | K | ref. K |", md)
        self.assertIn("**Geometric mean**", md)
        self.assertIn("### Search wall time", md)
        self.assertIn("reach K's energy", md)
        with open(os.path.join(out, "qb.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(os.path.join(out, "qb.pdf")), 1000)

    def test_denominator_falls_back_to_reference_b_then_best_known(self):
        res = kr.load([self.h5])
        points = qb.search_points(res)
        no_b = points[points["letter"] != "B"]
        ref = pd.DataFrame([["mlp_s", "cloud4x4", 16, "B", 1.25e-4, "test"],
                            ["mlp_s", "cloud4x4", 16, "K_ref", 2.5e-4, "test"],
                            ["mlp_s", "edge", 16, "B", 9.0, "other hardware: unused"]],
                           columns=["network", "hardware", "batch", "kind", "total_cost",
                                    "source"])
        d = qb.denominators(no_b, ref).set_index("network")
        self.assertEqual(d.at["mlp_s", "kind"], "B (CSV)")
        self.assertEqual(d.at["mlp_s", "denominator"], 1.25e-4)
        best = min(c for n, l, _, c, _ in self.raw.values() if n == "lstm_phoneme" and l != "B")
        self.assertEqual(d.at["lstm_phoneme", "kind"], "best known")
        self.assertEqual(d.at["lstm_phoneme", "denominator"], best)
        # B in the results wins over the CSV.
        self.assertEqual(qb.denominators(points, ref).set_index("network")
                         .at["mlp_s", "kind"], "B")
        self.assertEqual(qb.reference_k(ref, "mlp_s", "cloud4x4", 16), 2.5e-4)
        self.assertIsNone(qb.reference_k(ref, "lstm_phoneme", "cloud4x4", 16))

    def test_budget_to_reach(self):
        s = pd.DataFrame({"letter": ["R", "R", "R", "M"], "budget": [10.0, 30.0, 100.0, 10.0],
                          "energy": [3.0, 2.0, 1.0, 2.0]})
        self.assertEqual(qb.budget_to_reach(s, "R", 2.0), 30.0)
        self.assertEqual(qb.budget_to_reach(s, "M", 2.0), 10.0)
        self.assertIsNone(qb.budget_to_reach(s, "R", 0.5))

    def test_asked_cells_counts_seeds_and_first_failure(self):
        exp = pd.DataFrame({
            "network": ["n"] * 4, "hardware": ["h"] * 4, "batch": [1] * 4,
            "letter": ["R", "R", "M", "K"],
            "strategy_params": ['{"max_evaluations":30}', '{"max_evaluations":30}', "", ""],
            "status": ["ok", "no_solution", "not_run", "timeout"]})
        a = qb.asked_cells(types.SimpleNamespace(expected=exp))
        self.assertEqual(a[("n", "h", 1, "R", 30.0)], qb.Asked(2, "no_solution"))
        self.assertEqual(a[("n", "h", 1, "M", float(qb.DEFAULT_MAX_EVALUATIONS))],
                         qb.Asked(1, "not_run"))
        self.assertEqual(a[("n", "h", 1, "K", None)], qb.Asked(1, "timeout"))
        cell = qb._ratio_cell(1.5, qb.Asked(2, "no_solution"), seeds=1)
        self.assertEqual(cell.text, "1.500" + qb.PARTIAL)
        self.assertEqual(qb._ratio_cell(None, qb.Asked(2, "no_solution")).reason, "no_solution")

    def test_refuses_foreign_input_with_one_line(self):
        bad = os.path.join(self.tmp, "not_results.h5")
        with open(bad, "w") as f:
            f.write("hello\n")
        r = self.run_script(bad, "--out", os.path.join(self.tmp, "bad"))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("error: " + bad), r.stderr)


if __name__ == "__main__":
    main(require_kapla=True, verbosity=1)
