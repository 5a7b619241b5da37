#!/usr/bin/python3
"""Integration tests of scripts/kapla_results.py and scripts/report.py on results written by
the built kapla binary in a temporary directory.

    /usr/bin/python3 tests/scripts/test_report.py --kapla build/src/kapla [unittest args]

(ctest passes --kapla $<TARGET_FILE:kapla>; KAPLA_BIN works too: kapla_test_cli.py.) Every expected number is
recomputed here from the raw HDF5 tables with h5py, independently of the loader.
"""
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, SCRIPTS)

import kapla_plots as kp  # noqa: E402
import kapla_results as kr  # noqa: E402
import kapla_tables as kt  # noqa: E402
from kapla_test_cli import kapla_binary, main  # noqa: E402

PYTHON = "/usr/bin/python3"
OLD_RESULTS = os.path.join(HERE, "..", "data", "results")  # files of older schema versions
STRATEGIES = ["exhaustive", "directive-exhaustive", "random", "guided", "kapla"]
LETTERS = ["B", "S", "R", "M", "K"]


def job(name, networks, hardware, strategies, limit=600):
    return {"name": name, "networks": networks,
            "hardware": [{"name": h, "batch": b} for h, b in hardware],
            "strategies": strategies, "seeds": [1], "options": {"opt_goal": "e"},
            "tuple_time_limit_seconds": limit, "output": name + ".h5"}


def table_rows(path, ext):
    """Rows of a written table, its header included (0 for an empty or unreadable one)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if ext == "csv":
        rows = [r for r in csv.reader(io.StringIO(text)) if r]
        return len(rows) if rows and all(len(r) == len(rows[0]) for r in rows) else 0
    if ext == "md":
        lines = [ln for ln in text.splitlines() if ln.startswith("|")]
        # The second line is the separator |---|---|.
        return len(lines) - 1 if len(lines) >= 2 and set(lines[1]) <= set("|-: ") else 0
    # LaTeX: the rows between begin{tabular} and end{tabular} end with a double backslash.
    body = text.partition("\\begin{tabular}")[2].partition("\\end{tabular}")[0]
    return sum(1 for ln in body.splitlines() if ln.rstrip().endswith("\\\\")
               and "rule" not in ln)


def raw_tuples(path):
    """{key: {column: value}} straight from the HDF5 tuples table."""
    with h5py.File(path, "r") as f:
        data = f["tuples"][()]
        names = data.dtype.names
        out = {}
        for row in data:
            rec = {n: (row[n].decode() if isinstance(row[n], bytes) else row[n]) for n in names}
            out[rec["key"]] = rec
        return out


def raw_resolved(path):
    with h5py.File(path, "r") as f:
        out = {}
        for row in f["resolved"][()]:
            out.setdefault(row["key"].decode(), {})[row["name"].decode()] = row["value"].decode()
        return out


def forge_checksum(path):
    """Rewrites the user block so that the file's size and FNV-1a checksum match its body, as
    an adversary (or a damaged file's lucky checksum) would."""
    with open(path, "r+b") as f:
        f.seek(512)
        body = f.read()
        block = (f"KAPLA-RESULTS\nsize={len(body)}\nfnv1a64={kr.fnv1a64(body):016x}\n"
                 .encode().ljust(512, b"\0"))
        f.seek(0)
        f.write(block)


def cell_text(table, row_name, column):
    j = table.columns.index(column)
    for r in table.rows:
        if r[0].text == row_name:
            return r[j]
    raise KeyError(row_name)


def wait_for_stop_handler(pid, seconds=120):
    """Waits until process pid catches SIGTERM (Linux /proc; a fixed delay was too short on a
    loaded machine, and the default action then killed the sweep before it wrote anything)."""
    if not os.path.isdir("/proc/self"):
        time.sleep(0.5)
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                caught = next(int(line.split()[1], 16) for line in f
                              if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            caught = 0
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never installed its SIGTERM handler")


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        kapla = cls.kapla = kapla_binary()
        cls.tmp = tempfile.mkdtemp(prefix="kapla_report_test_")
        cls.results = os.path.join(cls.tmp, "results")
        os.makedirs(cls.results)

        def sweep(spec, wait=True, into=cls.results):
            jf = os.path.join(cls.tmp, spec["name"] + ".json")
            with open(jf, "w") as f:
                json.dump(spec, f)
            out = os.path.join(into, spec["name"] + ".h5")
            cmd = [kapla, "sweep", jf, "--out", out, "--threads", "1", "--quiet"]
            if wait:
                subprocess.run(cmd, check=True, timeout=300)
                return out
            return out, subprocess.Popen(cmd)

        # Two networks x two hardware x every strategy, inference, batch 1.
        cls.main = sweep(job("main", ["mlp_s", "mlp_m"], [("edge", 1), ("cloud4x4", 1)],
                             STRATEGIES))
        # A time limit nobody can meet: every tuple times out (batch 2 keeps keys apart).
        cls.timeout = sweep(job("late", ["mlp_s"], [("edge", 2)], ["exhaustive", "kapla"],
                                limit=1e-9))
        # A sweep stopped (SIGTERM) during its first, longest tuple: mlp_s_bp is never run.
        out, proc = sweep(job("stopped", ["googlenet_bp", "mlp_l_bp"], [("cloud", 64)],
                              ["exhaustive"]), wait=False)
        wait_for_stop_handler(proc.pid)
        time.sleep(0.5)  # into the first tuple: googlenet_bp takes seconds
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=300)
        cls.stopped = out
        # Strategies with params, one named by its letter (outside results/: its own tests).
        cls.labelled = sweep(job("labelled", ["mlp_s"], [("edge", 1)], [
            "exhaustive", "K", {"name": "random", "params": {"max_evaluations": 40}},
            {"name": "random", "params": {"max_evaluations": 20}}]), into=cls.tmp)
        # The job of the schema 3 fixture, run by this kapla (schema 4: labels written).
        with open(os.path.join(OLD_RESULTS, "schema3_mlp_s.json")) as f:
            cls.schema3_again = sweep(json.load(f), into=cls.tmp)

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "tmp"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    # -- loader ------------------------------------------------------------------------------

    def test_loader_matches_raw_hdf5(self):
        res = kr.load([self.main])
        raw = raw_tuples(self.main)
        self.assertEqual(sorted(res.tuples["key"]), sorted(raw))
        self.assertEqual(len(raw), 2 * 2 * 5)
        for _, row in res.tuples.iterrows():
            r = raw[row["key"]]
            for c in ["energy", "total_cost", "time", "search_seconds"] + kr.ENERGY_COLUMNS:
                self.assertEqual(row[c], r[c], (row["key"], c))
            self.assertEqual(row["letter"], dict(zip(STRATEGIES, LETTERS))[r["strategy"]])
            self.assertEqual((row["letter"], row["label"]),
                             (r["strategy_letter"], r["strategy_label"]))
        with h5py.File(self.main, "r") as f:
            self.assertEqual(len(res.layers), f["layers"].shape[0])
            self.assertEqual(len(res.segments), f["segments"].shape[0])
            self.assertEqual(len(res.resolved), f["resolved"].shape[0])
            self.assertEqual(int(f.attrs["kapla_schema"]), kr.SCHEMA_VERSIONS[-1])
        self.assertTrue(res.expected["present"].all())

    def test_expected_comes_from_the_file(self):
        # /expected is written by kapla: every tuple the job asked for, in job order, with the
        # keys kapla computed (the scripts no longer re-derive them).
        with h5py.File(self.stopped, "r") as f:
            rows = f["expected"][()]
            keys = [k.decode() for k in rows["key"]]
        self.assertEqual(keys, ["googlenet_bp:cloud:exhaustive:b64:s1",
                                "mlp_l_bp:cloud:exhaustive:b64:s1"])
        self.assertFalse(hasattr(kr, "expected_tuples"))
        self.assertFalse(hasattr(kr, "tuple_key"))

    def test_every_table_describes_its_columns(self):
        with h5py.File(self.main, "r") as f:
            for name in kr.TABLES + [kr.EXPECTED]:
                ds = f[name]
                n = len(ds.dtype.names)
                self.assertEqual(len(ds.attrs["units"]), n, name)
                self.assertEqual(len(ds.attrs["descriptions"]), n, name)
                self.assertTrue(all(len(d) > 0 for d in ds.attrs["descriptions"]), name)
                self.assertGreater(len(ds.attrs["description"]), 0, name)
            self.assertNotIn("directives", f["layers"].dtype.names)
        cols = kr.columns(self.main, "tuples").set_index("column")
        self.assertEqual(cols.at["time", "unit"], "cycles")
        self.assertEqual(cols.at["search_seconds", "unit"], "s")
        self.assertIn("J", cols.at["total_cost", "unit"])

    def test_table_is_tidy(self):
        layers = kr.table(self.main, "layers")
        self.assertEqual(list(layers.columns[:len(kr.AXES) + 1]), ["key"] + kr.AXES)
        self.assertTrue(all(isinstance(v, str) for v in layers["partition"]))
        raw = raw_tuples(self.main)
        for _, row in layers.iterrows():
            self.assertEqual(row["network"], raw[row["key"]]["network"])
            self.assertEqual(row["batch"], raw[row["key"]]["batch"])

    def test_old_format_file_loads(self):
        # Written by kapla before schema 3 (no /expected, no column attributes, a directives
        # column): still loads, and expects the tuples it holds.
        old = os.path.join(OLD_RESULTS, "schema2_mlp_s.h5")
        res = kr.load([old])
        self.assertEqual(res.files[0].schema, 2)
        self.assertEqual(list(res.tuples["label"]), ["B", "R[max_evaluations=40]"])
        # `kapla merge` of it alone writes the current schema, its rows still without letters
        # (no /expected to take them from): the loader labels them all the same.
        merged = os.path.join(self.tmp, "schema2_merged.h5")
        subprocess.run([self.kapla, "merge", old, "-o", merged], check=True, timeout=60,
                       capture_output=True)
        res_merged = kr.load([merged])
        self.assertEqual(res_merged.files[0].schema, kr.SCHEMA_VERSIONS[-1])
        self.assertEqual(list(res_merged.tuples["label"]), ["B", "R[max_evaluations=40]"])
        self.assertEqual(list(res_merged.expected["letter"]), ["B", "R"])
        self.assertEqual(len(res.tuples), 2)
        self.assertTrue(res.expected["present"].all())
        self.assertEqual(sorted(res.expected["key"]), sorted(res.tuples["key"]))
        self.assertFalse(res.curves.empty)
        self.assertEqual(list(kr.columns(old, "tuples")["unit"].unique()), [""])
        p, out = self.run_report(old)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_schema3_file_loads_with_the_labels_kapla_writes_now(self):
        # Written before the strategy_letter / strategy_label columns: the loader's fallback
        # for old files gives the same letters and labels as this kapla writes for the job.
        old = kr.load([os.path.join(OLD_RESULTS, "schema3_mlp_s.h5")])
        now = kr.load([self.schema3_again])
        self.assertEqual((old.files[0].schema, now.files[0].schema), (3, kr.SCHEMA_VERSIONS[-1]))
        raw = raw_tuples(self.schema3_again)
        for res in (old, now):
            for table in (res.tuples, res.expected):
                self.assertEqual(
                    {k: (l, b) for k, l, b in zip(table["key"], table["letter"], table["label"])},
                    {k: (r["strategy_letter"], r["strategy_label"]) for k, r in raw.items()})
        self.assertEqual(sorted(old.tuples["label"]), ["B", "R[max_evaluations=40]"])
        p, out = self.run_report(os.path.join(OLD_RESULTS, "schema3_mlp_s.h5"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "index.md"), encoding="utf-8") as f:
            self.assertIn("R[max_evaluations=40]", f.read())

    def test_tables_use_the_labels_from_the_file(self):
        res = kr.load([self.labelled])
        raw = raw_tuples(self.labelled)
        self.assertEqual(sorted(r["strategy_label"] for r in raw.values()),
                         ["B", "K", "R[max_evaluations=20]", "R[max_evaluations=40]"])
        self.assertEqual(raw["mlp_s:edge:K:b1:s1"]["strategy_letter"], "K")  # named by letter
        labels = ["B", "R[max_evaluations=20]", "R[max_evaluations=40]", "K"]  # paper order
        t = {t.name: t for t in kt.time_tables(res)}["time_inference_edge_b1"]
        self.assertEqual(t.columns, ["Network"] + labels + ["K vs " + l for l in labels[:3]])
        for r in raw.values():
            self.assertEqual(cell_text(t, "mlp_s", r["strategy_label"]).value,
                             r["search_seconds"])
        status = kt.status_table(res)
        self.assertEqual([r[0].text for r in status.rows], labels)
        # No strategy table of their own: letters, labels and colours come from the file.
        for module, name in ((kr, "STRATEGY_LETTERS"), (kr, "LETTER_STRATEGIES"),
                             (kr, "strategy_letter"), (kt, "strategy_label"),
                             (kt, "with_labels"), (kp, "STRATEGY_COLORS")):
            self.assertFalse(hasattr(module, name), name)

    def test_colours_follow_the_label_order_with_one_palette(self):
        colours = kp.strategy_colors(["K", "T[x=1]", "B", "R[max_evaluations=20]", "B"])
        self.assertEqual(list(colours), ["B", "R[max_evaluations=20]", "K", "T[x=1]"])
        self.assertEqual(list(colours.values()), kp.STRATEGY_PALETTE[:4])
        many = kp.strategy_colors([f"Z{i:02d}" for i in range(len(kp.STRATEGY_PALETTE) + 1)])
        self.assertEqual(len(many), len(kp.STRATEGY_PALETTE) + 1)  # more labels than colours

    def test_directory_and_not_run(self):
        res = kr.load([self.results])
        self.assertEqual(len(res.files), 3)
        exp = res.expected.set_index("key")
        self.assertEqual(exp.at["mlp_l_bp:cloud:exhaustive:b64:s1", "status"], "not_run")
        self.assertEqual(exp.at["mlp_s:edge:exhaustive:b2:s1", "status"], "timeout")

    # -- tables ------------------------------------------------------------------------------

    def test_time_table_values(self):
        res = kr.load([self.main])
        raw = raw_tuples(self.main)
        tables = {t.name: t for t in kt.time_tables(res)}
        self.assertEqual(sorted(tables), ["time_inference_cloud4x4_b1", "time_inference_edge_b1"])
        for hw in ("edge", "cloud4x4"):
            t = tables[f"time_inference_{hw}_b1"]
            self.assertEqual(t.columns, ["Network"] + LETTERS + ["K vs " + l for l in LETTERS[:4]])
            self.assertEqual([r[0].text for r in t.rows], ["mlp_s", "mlp_m", "Geometric mean"])
            logs = {l: [] for l in LETTERS[:4]}
            for net in ("mlp_s", "mlp_m"):
                secs = {l: raw[f"{net}:{hw}:{s}:b1:s1"]["search_seconds"]
                        for s, l in zip(STRATEGIES, LETTERS)}
                for l in LETTERS:
                    self.assertEqual(cell_text(t, net, l).value, secs[l])
                for l in LETTERS[:4]:
                    sp = secs[l] / secs["K"]
                    logs[l].append(np.log(sp))
                    self.assertAlmostEqual(cell_text(t, net, "K vs " + l).value, sp, places=12)
            for l in LETTERS[:4]:
                self.assertAlmostEqual(cell_text(t, "Geometric mean", "K vs " + l).value,
                                       float(np.exp(np.mean(logs[l]))), places=12)

    def test_quality_table_values(self):
        res = kr.load([self.main])
        raw = raw_tuples(self.main)
        tables = {t.name: t for t in kt.quality_tables(res)}
        self.assertEqual(sorted(tables), ["quality_cloud4x4_b1", "quality_edge_b1"])
        for hw in ("edge", "cloud4x4"):
            t = tables[f"quality_{hw}_b1"]
            self.assertEqual([r[0].text for r in t.rows], ["mlp_s", "mlp_m", "Average (inference)"])
            ratios = {l: [] for l in LETTERS[1:]}
            for net in ("mlp_s", "mlp_m"):
                cost = {l: raw[f"{net}:{hw}:{s}:b1:s1"]["total_cost"]
                        for s, l in zip(STRATEGIES, LETTERS)}
                self.assertEqual(cell_text(t, net, "B energy").value, cost["B"])
                for l in LETTERS[1:]:
                    ratios[l].append(cost[l] / cost["B"])
                    self.assertAlmostEqual(cell_text(t, net, f"{l} / B").value,
                                           cost[l] / cost["B"], places=12)
            for l in LETTERS[1:]:
                self.assertAlmostEqual(cell_text(t, "Average (inference)", f"{l} / B").value,
                                       float(np.mean(ratios[l])), places=12)

    def test_pruning_table_values(self):
        res = kr.load([self.main])
        rv = raw_resolved(self.main)
        raw = raw_tuples(self.main)
        with h5py.File(self.main, "r") as f:
            layer_keys = [k.decode() for k in f["layers"]["key"]]
        t = {x.name: x for x in kt.pruning_tables(res)}["pruning_inference_edge_b1"]
        for net in ("mlp_s", "mlp_m"):
            k = rv[f"{net}:edge:kapla:b1:s1"]
            b = rv[f"{net}:edge:exhaustive:b1:s1"]
            before = float(k.get("stats.segments_before_pruning", b["stats.segments"]))
            after = float(k.get("stats.segments_after_pruning", k["stats.segments"]))
            self.assertEqual(cell_text(t, net, "Segments before").value, before)
            self.assertEqual(cell_text(t, net, "Segments after").value, after)
            self.assertAlmostEqual(t.rows[[r[0].text for r in t.rows].index(net)][4].value,
                                   100 * (1 - after / before))
            self.assertEqual(cell_text(t, net, "Layers").value,
                             layer_keys.count(f"{net}:edge:exhaustive:b1:s1"))
        self.assertTrue(raw)  # the file was read by h5py

    def test_missing_cells_are_marked(self):
        res = kr.load([self.results])
        tables = {t.name: t for t in kt.time_tables(res) + kt.quality_tables(res)}
        t = tables["time_inference_edge_b2"]
        c = cell_text(t, "mlp_s", "B")
        self.assertEqual((c.text, c.value, c.reason), ("—", None, "timeout"))
        md = t.to_markdown()
        self.assertIn("—<sup>1</sup>", md)
        self.assertIn("<sup>1</sup> timeout", md)
        self.assertIn("timeout", t.to_csv().splitlines()[1])
        self.assertIn("---\\textsuperscript{1}", t.to_latex())
        q = tables["quality_cloud_b64"]
        c = cell_text(q, "mlp_l_bp", "B energy")
        self.assertEqual(c.reason, "not_run")
        self.assertIn("not run", q.to_markdown())
        # The recorded training tuple is there with its number.
        raw = raw_tuples(self.stopped)
        self.assertEqual(cell_text(q, "googlenet_bp", "B energy").value,
                         raw["googlenet_bp:cloud:exhaustive:b64:s1"]["total_cost"])

    # -- the command line --------------------------------------------------------------------

    def run_report(self, *inputs, out=None):
        out = out or tempfile.mkdtemp(dir=self.tmp)
        p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "report.py"), *inputs, "--out", out],
                           capture_output=True, text=True, timeout=300)
        return p, out

    def test_report_writes_tables_plots_and_index(self):
        p, out = self.run_report(self.results)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "index.md"), encoding="utf-8") as f:
            index = f.read()
        for stem in ("time_inference_edge_b1", "quality_edge_b1", "pruning_inference_edge_b1",
                     "quality_cloud_b64", "time_training_cloud_b64", "status"):
            for ext in ("md", "csv", "tex"):
                path = os.path.join(out, "tables", f"{stem}.{ext}")
                # A header and at least one row, by structure: the cells hold measured
                # times, so the file's size varies from run to run.
                self.assertGreaterEqual(table_rows(path, ext), 2, path)
                self.assertIn(f"tables/{stem}.{ext}", index)
        with open(os.path.join(out, "tables", "quality_edge_b1.csv")) as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], ["Network", "B energy", "S / B", "R / B", "M / B", "K / B"])
        raw = raw_tuples(self.main)
        self.assertEqual(float(rows[1][1]), raw["mlp_s:edge:exhaustive:b1:s1"]["total_cost"])
        plots = ["energy_breakdown_edge_b1", "energy_breakdown_cloud4x4_b1",
                 "quality_vs_time_edge_b1", "heatmap_hardware"]
        for stem in plots:
            png = os.path.join(out, "plots", stem + ".png")
            pdf = os.path.join(out, "plots", stem + ".pdf")
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(pdf, "rb") as f:
                self.assertEqual(f.read(5), b"%PDF-")
            self.assertGreater(os.path.getsize(png), 5000)
            self.assertGreater(os.path.getsize(pdf), 2000)
            self.assertIn(f"plots/{stem}.png", index)
        for link in [l.split("](", 1)[1].split(")")[0] for l in index.splitlines()
                     if "](" in l]:
            self.assertTrue(os.path.exists(os.path.join(out, link)), link)

    def test_anytime_plot_from_curves(self):
        # The curves R and M record are sums of per-layer bests (a lower bound of the network
        # result the quality table reports): the plot must show both and say which is which.
        res = kr.load([self.main])
        keys = [k for k in res.tuples["key"] if k.startswith("mlp_s:edge:") and
                (":random:" in k or ":guided:" in k)]
        self.assertEqual(sorted(set(res.curves["key"]) & set(keys)), sorted(keys))
        res.curves = res.curves[res.curves["key"].isin(keys)]
        captured = []
        real_save = kp._save

        def save(fig, out_dir, stem):
            ax = fig.axes[0]
            captured.append((ax.get_ylabel(), [l.get_label() for l in ax.get_lines()],
                             [(l.get_label(), list(l.get_ydata())) for l in ax.get_lines()]))
            return real_save(fig, out_dir, stem)

        kp._save = save
        try:
            out = os.path.join(self.tmp, "anytime")
            figs = kp.anytime_curves(res, out)
        finally:
            kp._save = real_save
        self.assertEqual([s for _, s in figs], ["anytime_mlp_s_edge_b1"])
        self.assertGreater(os.path.getsize(os.path.join(out, "anytime_mlp_s_edge_b1.png")), 5000)
        ylabel, labels, data = captured[0]
        self.assertIn("sum of per-layer", ylabel)
        self.assertIn("lower bound", ylabel)
        raw = raw_tuples(self.main)
        for key in keys:
            letter = "R" if ":random:" in key else "M"
            marker = [y for l, y in data if l == f"{letter} (seed 1): network result"]
            self.assertEqual(marker, [[raw[key]["total_cost"]]], labels)
            curve = res.curves[res.curves["key"] == key]["best_cost"]
            self.assertLessEqual(curve.iloc[-1], raw[key]["total_cost"] * (1 + 1e-12))

    def assertRefused(self, path, *words):
        p, out = self.run_report(path)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith(f"error: {path}: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        self.assertFalse(os.path.exists(os.path.join(out, "index.md")))
        p2 = subprocess.run([PYTHON, os.path.join(SCRIPTS, "kapla_results.py"), path],
                            capture_output=True, text=True, timeout=120)
        self.assertEqual(p2.returncode, 1)
        self.assertEqual(p2.stderr.strip(), lines[0])

    def test_foreign_hdf5_file(self):
        path = os.path.join(self.tmp, "foreign.h5")
        with h5py.File(path, "w") as f:
            f["data"] = np.arange(10)
            f.attrs["creator"] = "someone else"
        self.assertRefused(path, "not a kapla results file", "kapla_schema")

    def test_not_hdf5_at_all(self):
        path = os.path.join(self.tmp, "notes.h5")
        with open(path, "w") as f:
            f.write("hello\n" * 100)
        self.assertRefused(path, "not an HDF5 file")

    def test_truncated_file(self):
        path = os.path.join(self.tmp, "truncated.h5")
        with open(self.main, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[: len(data) // 2])
        self.assertRefused(path, "truncated", "refusing")

    def test_damaged_file(self):
        path = os.path.join(self.tmp, "damaged.h5")
        with open(self.main, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        with open(path, "wb") as f:
            f.write(bytes(data))
        self.assertRefused(path, "checksum mismatch")

    def test_other_schema_version(self):
        # A well-formed, correctly checksummed file of the next schema version.
        newer = kr.SCHEMA_VERSIONS[-1] + 1
        path = os.path.join(self.tmp, f"v{newer}.h5")
        with h5py.File(path, "w", userblock_size=512) as f:
            f.attrs["kapla_schema"] = np.int32(newer)
        forge_checksum(path)
        self.assertRefused(path, f"kapla_schema version {newer}",
                           f"versions 2 to {newer - 1}")

    def test_forged_checksum_values_refused(self):
        # Damaged values behind a forged checksum (issue 17.7): report.py refuses them as kapla's
        # reader does (src/io/result_ranges.cpp), naming the tuple and the field.
        cases = [("tuples", "edp", 1.93e29, "edp: is not energy x time"),
                 ("tuples", "time", -1.0, "time: not a finite non-negative number"),
                 ("tuples", "energy_dram", float("nan"), "energy_dram: not a finite"),
                 ("tuples", "batch", 1 << 62, "batch: out of range [1, 1048576]"),
                 ("tuples", "threads", 0, "threads: out of range [1, 4096]"),
                 ("layers", "energy", float("inf"), "energy: not a finite non-negative"),
                 ("segments", "time", -2.0, "time: not a finite non-negative")]
        for table, column, value, words in cases:
            with self.subTest(column=f"{table}.{column}"):
                path = os.path.join(self.tmp, f"forged_{table}_{column}.h5")
                shutil.copyfile(self.main, path)
                with h5py.File(path, "r+") as f:
                    row = f[table][0]
                    row[column] = value
                    f[table][0] = row
                    key = row["key"].decode()
                forge_checksum(path)
                kr.verify_file(path, checksum=True)  # the checksum passes: only values are off
                self.assertRefused(path, f"tuple '{key}'", words, "damaged results file?")
                p = subprocess.run([self.kapla, "results", path], capture_output=True,
                                   text=True, timeout=120)
                self.assertEqual(p.returncode, 1, p.stdout)  # kapla refuses it too
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                self.assertIn(key, p.stderr)

    def test_limits_agree_with_kapla(self):
        p = subprocess.run([self.kapla, "validate", "--limits"], capture_output=True, text=True,
                           check=True, timeout=60)
        bounds = {l.split()[0]: int(l.split()[-1]) for l in p.stdout.splitlines()[1:]
                  if l.split()[0] in ("batch", "threads")}
        self.assertEqual(bounds, {"batch": kr.MAX_BATCH, "threads": kr.MAX_THREADS})

    def test_checksum_agrees_with_kapla(self):
        kr.verify_file(self.main, checksum=True)  # raises if our FNV-1a differs from kapla's


class PaperPageTest(unittest.TestCase):
    """report.py --paper (scripts/kapla_paper.py) on a small real sweep with the paper's
    training options: every number recomputed from the raw HDF5; a timed-out B is shown as
    "> limit" and its speed-up as a lower bound; the compact export gives the same page."""

    @classmethod
    def setUpClass(cls):
        kapla = kapla_binary()
        cls.tmp = tempfile.mkdtemp(prefix="kapla_paper_test_")
        cls.results = os.path.join(cls.tmp, "results")
        os.makedirs(cls.results)
        with open(os.path.join(SCRIPTS, "..", "jobs", "paper_training.json")) as f:
            options = json.load(f)["options"]

        def sweep(name, networks, strategies, limit=0):
            spec = job(name, networks, [("cloud", 64)], strategies, limit)
            spec["options"] = options
            jf = os.path.join(cls.tmp, name + ".json")
            with open(jf, "w") as f:
                json.dump(spec, f)
            out = os.path.join(cls.results, name + ".h5")
            subprocess.run([kapla, "sweep", jf, "--out", out, "--threads", "1", "--quiet"],
                           check=True, timeout=600)
            return out

        cls.files = [sweep("paper_k", ["mlp_l_bp", "alex_net_bp"], ["kapla", "random"]),
                     sweep("paper_b", ["mlp_l_bp"], ["exhaustive"]),
                     sweep("paper_late", ["alex_net_bp"], ["exhaustive"], limit=1e-9)]
        cls.raw = {}
        for f in cls.files:
            cls.raw.update(raw_tuples(f))
        # MLP-L-BP's B stopped at once: the run that paper_b (no limit) reruns to the end.
        cls.b_late = sweep("paper_b_late", ["mlp_l_bp"], ["exhaustive"], limit=1e-9)

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "tmp"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_time_table(self):
        import kapla_paper as kpp
        t = kpp.paper_time_table(kpp.Outcomes(kr.load(self.files)))
        raw = self.raw
        b = raw["mlp_l_bp:cloud:exhaustive:b64:s1"]["cpu_seconds"]
        k = raw["mlp_l_bp:cloud:kapla:b64:s1"]["cpu_seconds"]
        self.assertEqual(cell_text(t, "MLP", "B kapla").value, b)
        self.assertEqual(cell_text(t, "MLP", "K kapla").value, k)
        self.assertEqual(cell_text(t, "MLP", "B paper").text, "0.2 h")
        self.assertAlmostEqual(cell_text(t, "MLP", "K/B speed-up kapla").value, b / k, places=12)
        self.assertAlmostEqual(cell_text(t, "MLP", "K/B paper").value, 720 / 13, places=12)
        # B on AlexNet hit its limit: "> limit", no number; the speed-up is a lower bound.
        self.assertEqual(raw["alex_net_bp:cloud:exhaustive:b64:s1"]["status"], "timeout")
        self.assertTrue(cell_text(t, "AlexNet", "B kapla").text.startswith("> "))
        self.assertIsNone(cell_text(t, "AlexNet", "B kapla").value)
        self.assertTrue(cell_text(t, "AlexNet", "K/B speed-up kapla").text.startswith("> "))
        self.assertIsNone(cell_text(t, "AlexNet", "K/B speed-up kapla").value)
        self.assertTrue(cell_text(t, "Geometric mean", "K/B speed-up kapla").text
                        .startswith("> "))
        self.assertEqual(cell_text(t, "MLP", "S kapla").reason, "not_run")

    def test_quality_table(self):
        import kapla_paper as kpp
        out = kpp.Outcomes(kr.load(self.files))
        t, summary = kpp.quality_table(out, "training", "cloud", 64, {})
        raw = self.raw
        b = raw["mlp_l_bp:cloud:exhaustive:b64:s1"]["total_cost"]
        k = raw["mlp_l_bp:cloud:kapla:b64:s1"]["total_cost"]
        r = raw["mlp_l_bp:cloud:random:b64:s1"]["total_cost"]
        self.assertEqual(cell_text(t, "MLP", "÷").text, "B")
        self.assertEqual(cell_text(t, "MLP", "K / ÷").value, k / b)
        self.assertEqual(cell_text(t, "MLP", "R / ÷").value, r / b)
        # B did not finish on AlexNet: divided by the best finished strategy, named.
        ka = raw["alex_net_bp:cloud:kapla:b64:s1"]["total_cost"]
        ra = raw["alex_net_bp:cloud:random:b64:s1"]["total_cost"]
        best = "K" if ka <= ra else "R"
        self.assertEqual(cell_text(t, "AlexNet", "÷").text, f"best ({best})")
        self.assertEqual(cell_text(t, "AlexNet", "K / ÷").value, ka / min(ka, ra))
        self.assertEqual(summary.k_over_b, [k / b])
        self.assertEqual(cell_text(t, "Paper (average)", "K / ÷").value, 1.022)

    def test_a_later_file_replaces_a_rerun_tuple_only_when_asked(self):
        import kapla_paper as kpp
        key = "mlp_l_bp:cloud:exhaustive:b64:s1"
        late, full = self.b_late, self.files[1]
        self.assertEqual(raw_tuples(late)[key]["status"], "timeout")
        with self.assertRaisesRegex(kr.ResultsError, "differs from"):
            kr.load([late, full])
        for order, kept, status in (([late, full], full, "ok"),
                                    ([full, late], late, "timeout")):
            res = kr.load(order, replace=True)
            rows = res.tuples[res.tuples["key"] == key]
            self.assertEqual(len(rows), 1)
            self.assertEqual(rows["source"].iloc[0], kept)
            self.assertEqual(rows["status"].iloc[0], status)
            self.assertEqual(rows["total_cost"].iloc[0], raw_tuples(kept)[key]["total_cost"])
            self.assertEqual([i.replaced for i in res.files], [1, 0])
            exp = res.expected[res.expected["key"] == key]
            self.assertEqual(list(exp["status"]), [status])
            self.assertEqual(list(exp["job_name"]),
                             ["paper_b" if kept == full else "paper_b_late"])
        # The compact export keeps what was replaced, and the page's provenance says so.
        d = os.path.join(self.tmp, "compact_replaced")
        kr.export_compact(kr.load([late, full], replace=True), d)
        c = kr.load([d])
        self.assertEqual([i.replaced for i in c.files], [1, 0])
        self.assertEqual(list(c.tuples["status"]), ["ok"])
        text = "\n".join(kpp.provenance(c))
        self.assertIn("replaced by a later file", text)
        self.assertIn("| `paper_b_late.h5` | `paper_b_late` | 0 | 1e-09 s wall |", text)
        self.assertNotIn("replaced by a later file", "\n".join(kpp.provenance(kr.load([full]))))

    def test_compact_export_gives_the_same_page(self):
        d = os.path.join(self.tmp, "compact")
        pages = [os.path.join(self.tmp, "a.md"), os.path.join(self.tmp, "b.md")]
        for args in ([*self.files, "--export-compact", d, "--paper", pages[0]],
                     [d, "--paper", pages[1]]):
            p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "report.py"), *args],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
        with open(pages[0]) as f, open(pages[1]) as g:
            a, b = f.read(), g.read()
        self.assertEqual(a, b)
        self.assertIn("> 1e-09 s", a)  # the stopped tuple, never a number it did not reach
        c = kr.load([d])
        full = kr.load(self.files)
        self.assertEqual(list(c.tuples["key"]), list(full.tuples["key"]))
        for col in ("total_cost", "cpu_seconds", "evaluated", "status", "message"):
            self.assertEqual(list(c.tuples[col]), list(full.tuples[col]), col)
        self.assertEqual(len(c.resolved), len(full.resolved))
        self.assertEqual(list(c.expected["status"]), list(full.expected["status"]))


if __name__ == "__main__":
    main()
