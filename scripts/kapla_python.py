"""Makes kapla's scripts run under whatever `python3` comes first on PATH.

The scripts need Debian's python3-h5py, python3-pandas and python3-matplotlib, which only
Debian's /usr/bin/python3 sees. Under another python (pyenv, conda, a venv) that lacks them,
`require()` re-runs the calling script with /usr/bin/python3 when that one has them, and
otherwise prints one line saying what to install and exits 1. Import this module before
h5py/numpy/pandas/matplotlib:

    import kapla_python
    kapla_python.require("h5py", "numpy", "pandas")

KAPLA_SYSTEM_PYTHON overrides /usr/bin/python3 (the tests use it).
"""
from __future__ import annotations

import importlib.util
import os
import sys

# Module -> Debian package.
PACKAGES = {"h5py": "python3-h5py", "numpy": "python3-numpy", "pandas": "python3-pandas",
            "matplotlib": "python3-matplotlib"}
_REEXEC_MARK = "KAPLA_PYTHON_REEXEC"  # set in the re-run process: never re-run twice


def system_python() -> str:
    return os.environ.get("KAPLA_SYSTEM_PYTHON", "/usr/bin/python3")


def missing(modules) -> list:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _script_path():
    """The running script's file, or None (interactive, -c, stdin): only a file can re-run."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return os.path.abspath(path) if path and os.path.isfile(path) else None


def require(*modules: str) -> None:
    """Returns when every module imports here; else re-runs the script or exits 1."""
    lacking = missing(modules)
    if not lacking:
        return
    python = system_python()
    script = _script_path()
    if script and not os.environ.get(_REEXEC_MARK) and os.access(python, os.X_OK):
        # Even when `python` is this interpreter: run as `python -S` it lacks its site packages.
        env = dict(os.environ, **{_REEXEC_MARK: "1"})
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(python, [python, script] + sys.argv[1:], env)
    packages = " ".join(PACKAGES.get(m, m) for m in lacking)
    print(f"error: {sys.executable or 'python'} lacks {', '.join(lacking)}: install Debian's "
          f"packages (apt-get install {packages}, or bash scripts/setup.sh) and run the script "
          f"with {python}", file=sys.stderr)
    sys.exit(1)
