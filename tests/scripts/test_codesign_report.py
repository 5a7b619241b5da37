#!/usr/bin/python3
"""The co-design part of scripts/report.py (scripts/kapla_codesign.py) on a small design-space
sweep written by the built kapla binary: the schema 7 `macs` columns, the Pareto fronts, the
pJ/MAC per layer of the baseline, the layer-wise best and the best single design, and the plots;
on a second sweep, the PE-utilisation floor (schema 8): designs below it left off the fronts
and named in the tables, `kapla results` marking their tuples.

    /usr/bin/python3 tests/scripts/test_codesign_report.py --kapla build/src/kapla

Expected numbers are recomputed from the raw HDF5 tables with h5py, not through the loader.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, SCRIPTS)

import kapla_codesign as kc  # noqa: E402
import kapla_results as kr  # noqa: E402
from kapla_test_cli import kapla_binary, main  # noqa: E402

PYTHON = "/usr/bin/python3"

# A conv, a pooling layer (no MACs) and an FC: small enough for many designs in seconds.
NETWORK = {"name": "tiny_cnn", "source": "test", "input": {"nofm": 8, "sofm": 18},
           "externals": [],
           "layers": [{"name": "conv", "type": "Conv", "nifm": 8, "nofm": 16, "sofm": 16,
                       "sfil": 3},
                      {"name": "pool", "type": "Pooling", "nofm": 16, "sofm": 8, "sreg": 2,
                       "strd": 2},
                      {"name": "fc", "type": "FC", "nifm": 16, "nofm": 10, "sfil": 8}]}
MACS = {"conv": 16 * 8 * 16 * 16 * 9, "pool": 0, "fc": 10 * 16 * 64}


def raw(path, table):
    """[{column: value}] straight from one HDF5 table."""
    with h5py.File(path, "r") as f:
        data = f[table][()]
        return [{n: (r[n].decode() if isinstance(r[n], bytes) else r[n])
                 for n in data.dtype.names} for r in data]


def sweep(tmp, name, hardware):
    """Runs a job of tiny_cnn on `hardware` (the job's hardware list) with K in `tmp`; the path
    of its results."""
    net = os.path.join(tmp, "tiny_cnn.json")
    with open(net, "w") as f:
        json.dump(NETWORK, f)
    job = {"name": name, "networks": [net], "hardware": hardware, "strategies": ["kapla"],
           "seeds": [1], "options": {"opt_goal": "e"}, "output": name + ".h5"}
    jf = os.path.join(tmp, "job.json")
    with open(jf, "w") as f:
        json.dump(job, f)
    h5 = os.path.join(tmp, name + ".h5")
    subprocess.run([kapla_binary(), "sweep", jf, "--out", h5, "--threads", "1", "--quiet"],
                   check=True, timeout=300)
    return h5


class CodesignReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kapla_codesign_test_")
        cls.h5 = sweep(cls.tmp, "codesign_test",
                       [{"name": "eyeriss_45nm", "batch": 1},
                        {"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"pe_array": [[4, 4], [8, 8], [14, 12]],
                                  "gbuf_bytes": [32768, 131072], "regf_bytes": [64, 1024]},
                         "constraints": {"area_budget_mm2": 2.4}},
                        # A second space, another technology: a group of its own.
                        {"name": "eyeriss_45nm_nobus", "batch": 1},
                        {"base": "eyeriss_45nm_nobus", "batch": 1,
                         "axes": {"pe_array": [[8, 8]], "regf_bytes": [64, 1024]}}])
        cls.res = kr.load([cls.h5])
        cls.tuples = {r["key"]: r for r in raw(cls.h5, "tuples")}
        cls.layers = raw(cls.h5, "layers")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_macs_columns_count_multiply_accumulates(self):
        with h5py.File(self.h5, "r") as f:
            self.assertEqual(int(f.attrs["kapla_schema"]), 9)
        # Each base + its designs: 12 under 2.4 mm^2 (all), 2.
        self.assertEqual(len(self.tuples), 13 + 3)
        for row in self.layers:
            self.assertEqual(row["macs"], MACS[row["layer"]], row["layer"])
        for t in self.tuples.values():
            self.assertEqual(t["macs"], sum(MACS.values()))

    def test_pareto_front_is_exactly_the_non_dominated_designs(self):
        d = kc.designs_of(self.res, kc.groups(self.res)[0])
        self.assertEqual(len(d), 12)
        for x, y in (("area_mm2", "edp"), ("time", "energy")):
            front = kc.pareto(d, x, y)
            on = set(front["key"])
            pts = list(zip(d["key"], d[x], d[y]))
            for k, a, b in pts:
                dominated = any((a2 <= a and b2 < b) or (a2 < a and b2 <= b)
                                for k2, a2, b2 in pts if k2 != k)
                self.assertEqual(k in on, not dominated, (x, y, k))
            self.assertTrue(np.all(np.diff(front[x].to_numpy()) >= 0))
            self.assertTrue(np.all(np.diff(front[y].to_numpy()) < 0))

    def test_pj_per_mac_per_layer_choices(self):
        g = kc.groups(self.res)[0]
        self.assertEqual((g.base, g.label, g.batch), ("eyeriss_45nm", "K", 1))
        c = kc.layer_choices(self.res, g)
        self.assertEqual(list(c["layer"]), ["conv", "fc"])  # the pooling layer has no MACs
        designs = {k: t for k, t in self.tuples.items() if t["design_base"] == "eyeriss_45nm"}
        base = [k for k, t in self.tuples.items() if t["hardware"] == "eyeriss_45nm"]
        self.assertEqual(c.attrs["baseline"], "eyeriss_45nm")
        single = min(designs, key=lambda k: (designs[k]["energy"], k))
        self.assertEqual(c.attrs["single"], designs[single]["hardware"])
        for _, r in c.iterrows():
            per = {row["key"]: row["energy"] * 1e12 / row["macs"] for row in self.layers
                   if row["layer"] == r["layer"]}
            self.assertEqual(r["layerwise_pj"], min(per[k] for k in designs))
            self.assertEqual(r["single_pj"], per[single])
            self.assertEqual(r["baseline_pj"], per[base[0]])
            self.assertLessEqual(r["layerwise_pj"], r["single_pj"])
        total = sum(MACS.values())
        self.assertAlmostEqual(
            c.attrs["single_pj"],
            sum(r["energy"] for r in self.layers if r["key"] == single and r["macs"]) * 1e12 /
            total, delta=1e-9 * c.attrs["single_pj"])
        self.assertLessEqual(c.attrs["layerwise_pj"], c.attrs["single_pj"])

    def test_two_design_spaces_are_two_groups(self):
        first, second = kc.groups(self.res)
        self.assertEqual((first.base, second.base), ("eyeriss_45nm", "eyeriss_45nm_nobus"))
        c = kc.layer_choices(self.res, second)
        self.assertEqual(c.attrs["baseline"], "eyeriss_45nm_nobus")
        self.assertTrue(c.attrs["single"].startswith("eyeriss_45nm_nobus~"))
        self.assertTrue(all(d.startswith("eyeriss_45nm_nobus~") for d in c["layerwise_design"]))
        self.assertEqual(len(kc.designs_of(self.res, second)), 2)
        # The technology without array-bus energy gives that part 0.
        for r in self.layers:
            if self.tuples[r["key"]]["hardware"].startswith("eyeriss_45nm_nobus"):
                self.assertEqual(r["energy_itcn"], 0)

    def test_report_writes_the_codesign_tables_and_plots(self):
        out = os.path.join(self.tmp, "report")
        p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "report.py"), self.h5, "--out", out,
                            "--heatmap-axes", "pe", "regf_bytes"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "index.md"), encoding="utf-8") as f:
            index = f.read()
        stem = kc.groups(self.res)[0].stem()
        self.assertTrue(stem.endswith("tiny_cnn.json_eyeriss_45nm_K_b1"), stem)
        for t in (f"codesign_layers_{stem}", f"codesign_front_{stem}"):
            for ext in ("md", "csv", "tex"):
                self.assertIn(f"tables/{t}.{ext}", index)
                self.assertGreater(os.path.getsize(os.path.join(out, "tables", f"{t}.{ext}")),
                                   100)
        for plot in (f"pareto_area_edp_{stem}", f"pareto_energy_delay_{stem}",
                     f"pj_per_mac_{stem}", f"heatmap_design_pe_regf_bytes_{stem}"):
            with open(os.path.join(out, "plots", plot + ".png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertIn(f"plots/{plot}.png", index)

    def test_a_named_baseline_replaces_the_base_and_must_exist(self):
        name = "eyeriss_45nm~pe8x8~gbuf32k~regf64"
        c = kc.layer_choices(self.res, kc.groups(self.res)[0], baseline=name)
        self.assertEqual(c.attrs["baseline"], name)
        key = next(k for k, t in self.tuples.items() if t["hardware"] == name)
        conv = next(r for r in self.layers if r["key"] == key and r["layer"] == "conv")
        self.assertEqual(c["baseline_pj"].iloc[0], conv["energy"] * 1e12 / MACS["conv"])
        p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "report.py"), self.h5, "--out",
                            os.path.join(self.tmp, "y"), "--baseline", "eyeriss"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(), f"error: {self.h5}: --baseline: no tuple on "
                                           "hardware 'eyeriss' in these results")

    def test_an_unknown_heatmap_axis_is_refused(self):
        p = subprocess.run([PYTHON, os.path.join(SCRIPTS, "report.py"), self.h5, "--out",
                            os.path.join(self.tmp, "x"), "--heatmap-axes", "pe", "sram"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--heatmap-axes: unknown axis 'sram'", p.stderr)


# Measured on tiny_cnn with K: the 4x4 arrays reach a PE utilisation of 0.745, the 8x8 0.7376
# and the 14x12 0.7372, so a floor of 0.74 keeps the 4x4 designs alone. Without the floor the
# larger arrays are on both fronts (they take a quarter of the 4x4's cycles, or less).
FLOOR = 0.74


class UtilisationFloorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kapla_util_floor_test_")
        cls.h5 = sweep(cls.tmp, "util_floor_test",
                       [{"name": "eyeriss_45nm", "batch": 1},
                        {"base": "eyeriss_45nm", "batch": 1,
                         "axes": {"pe_array": [[4, 4], [8, 8], [14, 12]],
                                  "gbuf_bytes": [32768], "regf_bytes": [64, 1024]},
                         "constraints": {"min_pe_utilisation": FLOOR}}])
        cls.res = kr.load([cls.h5])
        cls.tuples = {r["key"]: r for r in raw(cls.h5, "tuples")}
        cls.designs = {t["hardware"]: t for t in cls.tuples.values() if t["design_base"]}
        cls.below = {h for h, t in cls.designs.items() if t["pe_utilisation"] < FLOOR}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_utilisation_and_floor_columns(self):
        with h5py.File(self.h5, "r") as f:
            self.assertEqual(int(f.attrs["kapla_schema"]), 9)
        self.assertEqual(len(self.designs), 6)
        for h, t in self.designs.items():
            pes = t["design_pe_h"] * t["design_pe_w"]
            self.assertAlmostEqual(t["pe_utilisation"], t["macs"] / (pes * t["time"]),
                                   delta=1e-15, msg=h)
            self.assertEqual(t["design_min_pe_utilisation"], FLOOR)
        base = self.tuples[next(k for k, t in self.tuples.items() if not t["design_base"])]
        self.assertEqual(base["design_min_pe_utilisation"], 0)
        self.assertAlmostEqual(base["pe_utilisation"], base["macs"] / (168 * base["time"]),
                               delta=1e-15)
        self.assertEqual(self.below, {h for h in self.designs if "~pe4x4~" not in h})
        floors = {r["key"]: r["value"] for r in raw(self.h5, "resolved")
                  if r["name"] == "constraints.min_pe_utilisation"}
        self.assertEqual(floors, {k: "0.74" for k, t in self.tuples.items()
                                  if t["design_base"]})

    def test_designs_below_the_floor_are_off_the_fronts(self):
        g = kc.groups(self.res)[0]
        d = kc.designs_of(self.res, g)
        low = kc.below_floor(self.res, g)
        self.assertEqual(set(d["hardware"]), set(self.designs) - self.below)
        self.assertEqual(set(low["hardware"]), self.below)
        everything = kc.pd.concat([d, low])
        for x, y in (("area_mm2", "edp"), ("time", "energy")):
            unfloored = set(kc.pareto(everything, x, y)["hardware"])
            self.assertTrue(unfloored & self.below, (x, y))  # the floor changes the front
            self.assertFalse(set(kc.pareto(d, x, y)["hardware"]) & self.below)
        front = next(t for t in kc.tables(self.res) if t.name.startswith("codesign_front_"))
        self.assertEqual(front.columns[-1], "PE util")
        names = {r[0].text for r in front.rows}
        self.assertFalse(names & {h.split("~", 1)[1] for h in self.below})
        self.assertEqual(len(front.notes), 1)
        self.assertIn(f"PE-utilisation floor {FLOOR:g}: {len(self.below)} designs below it",
                      front.notes[0])
        for h in self.below:
            self.assertIn(f"`{h.split('~', 1)[1]}` ({self.designs[h]['pe_utilisation']:.3f})",
                          front.notes[0])
        layers = next(t for t in kc.tables(self.res) if t.name.startswith("codesign_layers_"))
        self.assertIn("~pe4x4~", "".join(layers.notes))  # the best single design is feasible

    def test_front_plots_draw_the_designs_below_the_floor_apart(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        legends = {}

        def save(fig, out_dir, stem):
            legends[stem] = fig.axes[0].get_legend_handles_labels()[1]
            plt.close(fig)
        kc.plots(self.res, self.tmp, save)
        fronts = [stem for stem in legends if stem.startswith("pareto_")]
        self.assertEqual(len(fronts), 2)
        for stem in fronts:
            self.assertIn(f"below PE-util floor ({len(self.below)})", legends[stem])
            self.assertIn(f"design ({len(self.designs) - len(self.below)})", legends[stem])

    def test_kapla_results_marks_the_tuples_below_the_floor(self):
        out = subprocess.run([kapla_binary(), "results", self.h5], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        self.assertIn("min_pe_util", out[0].split())
        self.assertIn("pe_util", out[0].split())
        marked = {line.split()[1] for line in out[1:] if line.endswith("(below)")}
        self.assertEqual(marked, self.below)
        csv = subprocess.run([kapla_binary(), "results", self.h5, "--csv"], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        head = csv[0].split(",")
        self.assertEqual(head[-2:], ["design_min_pe_util", "pe_utilisation"])
        for line in csv[1:]:
            cells = line.split(",")
            t = self.tuples[cells[head.index("key")]]
            self.assertEqual(float(cells[-1]), t["pe_utilisation"])  # shortest exact form


if __name__ == "__main__":
    main()
