"""The command line shared by the tests in this folder: which kapla binary they run.

    /usr/bin/python3 tests/scripts/test_X.py --kapla build/src/kapla [unittest args]

ctest passes --kapla $<TARGET_FILE:kapla>; without it the KAPLA_BIN environment variable names
the binary. main() moves --kapla into KAPLA_BIN, so kapla_binary() has one place to look, also
in the subprocesses a test starts.
"""
import os
import sys
import unittest

ENV = "KAPLA_BIN"


def _runnable(path):
    return bool(path) and os.access(path, os.X_OK)


def kapla_binary():
    """The kapla binary to run; skips the calling test class when there is none."""
    path = os.environ.get(ENV, "")
    if not _runnable(path):
        raise unittest.SkipTest("no kapla binary (pass --kapla PATH or set KAPLA_BIN)")
    return path


def main(require_kapla=False, verbosity=2):
    """unittest.main on sys.argv without --kapla PATH. require_kapla: exit with the usage line
    when no binary is given (instead of skipping every test)."""
    args = sys.argv[1:]
    usage = f"usage: {os.path.basename(sys.argv[0])} --kapla PATH_TO_KAPLA [unittest args]"
    if "--kapla" in args:
        i = args.index("--kapla")
        if i + 1 == len(args):
            sys.exit(usage)
        os.environ[ENV] = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if require_kapla and not _runnable(os.environ.get(ENV, "")):
        sys.exit(usage)
    unittest.main(argv=[sys.argv[0]] + args, verbosity=verbosity)
