#!/usr/bin/python3
"""The README's Python runs as written, whatever `python3` comes first on PATH.

    /usr/bin/python3 tests/scripts/test_python_as_written.py --kapla build/src/kapla

Extracts the README's pandas example and its `python3 scripts/report.py ...` line, literally,
and runs them from a directory holding results/quick.h5 (a small sweep) and scripts/:
  - under the `python3` first on PATH (pyenv's on the development machine, lacking h5py);
  - under `/usr/bin/python3 -S`, a python that lacks h5py on every machine;
  - with no usable system python: one line saying what to install, exit 1.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from kapla_test_cli import kapla_binary, main

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def readme_python_example():
    """The README's ```python block (the pandas example)."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    if len(blocks) != 1:
        raise AssertionError(f"README.md has {len(blocks)} python blocks, expected 1")
    return blocks[0]


def readme_report_command():
    """The README's `python3 scripts/report.py ...` line, without its comment."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        lines = [l.split("#")[0].strip() for l in f if l.startswith("python3 scripts/report.py")]
    if len(lines) != 1:
        raise AssertionError(f"README.md has {len(lines)} report.py lines, expected 1")
    return lines[0]


class PythonAsWritten(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        kapla = kapla_binary()
        cls.tmp = tempfile.mkdtemp(prefix="kapla_python_test_")
        os.symlink(os.path.join(REPO, "scripts"), os.path.join(cls.tmp, "scripts"))
        job = {"name": "quick", "networks": ["mlp_s"],
               "hardware": [{"name": "edge", "batch": 1}, {"name": "cloud4x4", "batch": 16}],
               "strategies": ["exhaustive", {"name": "random", "params": {"max_evaluations": 50}}],
               "output": "results/quick.h5"}
        with open(os.path.join(cls.tmp, "quick.json"), "w") as f:
            json.dump(job, f)
        subprocess.run([kapla, "sweep", "quick.json", "--threads", "1", "--quiet"],
                       cwd=cls.tmp, check=True, timeout=300)
        with open(os.path.join(cls.tmp, "example.py"), "w") as f:
            f.write(readme_python_example())

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "tmp"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_in_tmp(self, cmd, **env):
        e = dict(os.environ, MPLBACKEND="Agg", **env)
        e.pop("KAPLA_PYTHON_REEXEC", None)
        return subprocess.run(cmd, cwd=self.tmp, env=e, capture_output=True, text=True,
                              timeout=300, shell=isinstance(cmd, str))

    def check_example_output(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        # One row per (hardware, batch, network), one column per strategy: no averaging.
        self.assertIn("cloud4x4", p.stdout)
        self.assertIn("edge", p.stdout)
        self.assertIn("exhaustive", p.stdout)
        self.assertIn("random", p.stdout)

    def test_example_under_the_python3_on_path(self):
        python3 = shutil.which("python3")
        self.assertIsNotNone(python3)
        self.check_example_output(self.run_in_tmp([python3, "example.py"]))

    def test_example_under_a_python_without_h5py(self):
        p0 = self.run_in_tmp(["/usr/bin/python3", "-S", "-c", "import h5py"])
        self.assertNotEqual(p0.returncode, 0)  # the premise: -S hides Debian's packages
        self.check_example_output(self.run_in_tmp(["/usr/bin/python3", "-S", "example.py"]))

    def test_example_groups_by_hardware_and_batch(self):
        p = self.run_in_tmp(["/usr/bin/python3", "example.py"])
        self.check_example_output(p)
        rows = [l.split() for l in p.stdout.splitlines() if l.startswith(("edge", "cloud4x4"))]
        self.assertEqual(sorted(r[:3] for r in rows),
                         [["cloud4x4", "16", "mlp_s"], ["edge", "1", "mlp_s"]], p.stdout)

    def test_report_command_as_written(self):
        cmd = readme_report_command()
        self.assertTrue(cmd.startswith("python3 "), cmd)
        p = self.run_in_tmp(cmd)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = cmd.split("--out", 1)[1].split()[0]
        self.assertTrue(os.path.exists(os.path.join(self.tmp, out, "index.md")))
        p = self.run_in_tmp(cmd.replace("python3 ", "/usr/bin/python3 -S ", 1))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_one_line_when_no_python_has_the_modules(self):
        for cmd in (["/usr/bin/python3", "-S", "example.py"],
                    ["/usr/bin/python3", "-S", "scripts/report.py", "results/quick.h5",
                     "--out", "r"],
                    ["/usr/bin/python3", "-S", "scripts/kapla_quality_budget.py",
                     "results/quick.h5", "--out", "r"]):
            p = self.run_in_tmp(cmd, KAPLA_SYSTEM_PYTHON="/nonexistent/python3")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertTrue(lines[0].startswith("error: "), lines[0])
            self.assertIn("apt-get install python3-h5py", lines[0])


if __name__ == "__main__":
    main()
