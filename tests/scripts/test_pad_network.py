#!/usr/bin/python3
"""scripts/pad_network.py (the padding alternative, docs/imperfect.md): the padded copy has the
rounded dimensions and the MACs of the larger layer, kapla reads it, and what cannot be padded
is refused with one line.

    /usr/bin/python3 tests/scripts/test_pad_network.py --kapla build/src/kapla
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from kapla_test_cli import kapla_binary, main

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PAD = os.path.join(REPO, "scripts", "pad_network.py")


def pad(*args):
    return subprocess.run([sys.executable, PAD, *args], capture_output=True, text=True)


def macs(path, kapla):
    out = subprocess.run([kapla, "show", path, "--batch", "1"], capture_output=True, text=True,
                         check=True).stdout
    return int(out.strip().splitlines()[-1].split()[-1])  # "total_macs N"


class PadNetwork(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, net):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(net, f)
        return path

    def test_d113_pads_to_128_and_costs_its_macs(self):
        kapla = kapla_binary()
        # Ruby's example: a dimension of 113 padded to a multiple of 16 is 128; a 3x3, stride-2
        # conv of 113 -> 113 channels on a 17x10 ofmap becomes 128 -> 128 on 32x10 (hofm to 32,
        # wofm left alone) reading a 65x21 input (derived from the padded ofmap).
        src = self.write("d.json", {
            "name": "d", "source": "test", "input": {"nofm": 113, "sofm": [35, 21]},
            "externals": [], "layers": [{"name": "c", "type": "Conv", "nifm": 113, "nofm": 113,
                                         "sofm": [17, 10], "sfil": 3, "strd": 2}]})
        out = os.path.join(self.dir.name, "out")
        r = pad(src, out, "--multiple", "nifm=16", "--multiple", "nofm=16", "--multiple",
                "hofm=16", "--suffix", "_p")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, f"c: MACs {113 * 113 * 170 * 9} -> {128 * 128 * 320 * 9} "
                                   f"({128 * 128 * 320 / (113 * 113 * 170):.4f})\n")
        net = json.load(open(os.path.join(out, "d_p.json")))
        self.assertEqual(net["name"], "d_p")
        self.assertEqual(net["input"], {"nofm": 128, "sofm": [65, 21]})
        layer = net["layers"][0]
        self.assertEqual((layer["nifm"], layer["nofm"], layer["sofm"]), (128, 128, [32, 10]))
        self.assertEqual(macs(os.path.join(out, "d_p.json"), kapla), 128 * 128 * 320 * 9)

    def test_split_gives_each_layer_its_own_input_and_keeps_small_dims(self):
        kapla = kapla_binary()
        out = os.path.join(self.dir.name, "out")
        r = pad(os.path.join(REPO, "data", "networks", "deepbench_gemm.json"), out, "--split",
                "--multiple", "nofm=16")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = sorted(os.listdir(out))
        self.assertEqual(names, ["gemm_1024x700x512.json", "gemm_35x700x2048.json",
                                 "gemm_5124x700x2048.json", "gemm_7680x1x2560.json"])
        # 35 output channels pad to 48; 5124 to 5136; the others are multiples of 16 already.
        self.assertEqual(macs(os.path.join(out, "gemm_35x700x2048.json"), kapla), 48 * 700 * 2048)
        self.assertEqual(macs(os.path.join(out, "gemm_5124x700x2048.json"), kapla),
                         5136 * 700 * 2048)
        # A dimension below its multiple is kept: 1 position of the 7680x1x2560 GEMV.
        r = pad(os.path.join(REPO, "data", "networks", "deepbench_gemm.json"), out, "--split",
                "--multiple", "wofm=16", "--suffix", "_w")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(macs(os.path.join(out, "gemm_7680x1x2560_w.json"), kapla),
                         7680 * 1 * 2560)
        self.assertEqual(macs(os.path.join(out, "gemm_35x700x2048_w.json"), kapla),
                         35 * 704 * 2048)

    def test_refuses_chains_and_bad_multiples(self):
        out = os.path.join(self.dir.name, "out")
        r = pad(os.path.join(REPO, "data", "networks", "mlp_s.json"), out)
        self.assertEqual(r.returncode, 1)
        self.assertIn("layers[1] ('fc2'): reads another layer or shares its input", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        r = pad(os.path.join(REPO, "data", "networks", "mlp_s.json"), out, "--multiple", "nofm=0")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--multiple nofm=0: must be DIM=M", r.stderr)

    def test_bad_files_get_one_line(self):
        out = os.path.join(self.dir.name, "out")
        cases = {
            "missing.json": None,
            "broken.json": "{bad",
            "list.json": "[1, 2]",
            "nolayers.json": '{"name": "n", "layers": []}',
            "noname.json": '{"name": "n", "layers": [{"type": "Conv"}]}',
            "nodims.json": '{"name": "n", "layers": [{"name": "c", "type": "Conv"}]}',
            "strings.json": '{"name": "n", "layers": [{"name": "c", "type": "FC", '
                            '"nifm": "8", "nofm": 8}]}',
        }
        expect = {"missing.json": "cannot read", "broken.json": "not valid JSON",
                  "list.json": "not a kapla network file", "nolayers.json":
                  "not a kapla network file", "noname.json": "layers[0]: must be an object "
                  "with a name", "nodims.json": "layers[0] ('c'): a missing or malformed field",
                  "strings.json": "layers[0] ('c'): a missing or malformed field"}
        for name, text in cases.items():
            path = os.path.join(self.dir.name, name)
            if text is not None:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            r = pad(path, out, "--multiple", "nifm=16")
            self.assertEqual(r.returncode, 1, name)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(f"error: {path}: ", r.stderr)
            self.assertIn(expect[name], r.stderr)


if __name__ == "__main__":
    main(require_kapla=True)
