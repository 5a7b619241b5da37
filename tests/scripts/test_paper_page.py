#!/usr/bin/env python3
"""docs/paper_reproduction.md is what `report.py --paper` makes of the committed results.

    python3 tests/scripts/test_paper_page.py

Regenerates the page from results/paper/ (the command of results/paper/README.md) with the
`python3` first on PATH, as a reader would type it (report.py re-runs itself with Debian's
/usr/bin/python3 when that python lacks h5py/pandas: scripts/kapla_python.py), and diffs it
with the committed page, so the page cannot drift from the data. Standard library only: this
file runs under any python3.
"""
import csv
import difflib
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PAGE = os.path.join(REPO, "docs", "paper_reproduction.md")
RESULTS = os.path.join(REPO, "results", "paper")
PREFACE = os.path.join(RESULTS, "preface.md")


def regenerate(out, results=(RESULTS,)):
    python = shutil.which("python3") or "/usr/bin/python3"
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("KAPLA_PYTHON_REEXEC", None)
    cmd = [python, os.path.join("scripts", "report.py"), *results, "--paper", out,
           "--preface", os.path.relpath(PREFACE, REPO)]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


class PaperPage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kapla_paper_page_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_committed_page_is_regenerated_byte_for_byte(self):
        out = os.path.join(self.tmp, "page.md")
        p = regenerate(out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, encoding="utf-8") as f:
            new = f.read()
        with open(PAGE, encoding="utf-8") as f:
            old = f.read()
        if new != old:
            diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                "docs/paper_reproduction.md (committed)",
                                                "regenerated", n=1))
            self.fail("docs/paper_reproduction.md differs from what report.py --paper makes "
                      "of results/paper/ (rerun the command in results/paper/README.md):\n" +
                      diff[:6000])

    def test_the_page_depends_on_the_data(self):
        # One number of the data changed (K's CPU seconds on MLP-L-BP, cloud): the regenerated
        # page differs from the committed one, so the diff above can fail.
        data = os.path.join(self.tmp, "paper")
        shutil.copytree(RESULTS, data)
        path = os.path.join(data, "tuples.csv")
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        head = rows[0]
        key, secs = head.index("key"), head.index("cpu_seconds")
        hit = [r for r in rows[1:] if r[key] == "mlp_l_bp:cloud:kapla:b64:s1"]
        self.assertEqual(len(hit), 1)
        hit[0][secs] = repr(2 * float(hit[0][secs]))
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
        out = os.path.join(self.tmp, "page.md")
        p = regenerate(out, [data])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, encoding="utf-8") as f, open(PAGE, encoding="utf-8") as g:
            new, old = f.read(), g.read()
        self.assertNotEqual(new, old)
        changed = [l for l in new.splitlines() if l not in old.splitlines()]
        self.assertTrue(any(l.startswith("| MLP |") for l in changed), changed)


if __name__ == "__main__":
    unittest.main(verbosity=2)
