"""Load kapla sweep results (HDF5, schema versions 2 to 9) into pandas DataFrames.

    import kapla_results as kr
    tuples = kr.table("results/quick.h5", "tuples")   # one tidy DataFrame: strings decoded,
    layers = kr.table("results/quick.h5", "layers")   # the tuple's network, hardware, ... joined
    kr.columns("results/quick.h5", "layers")          # each column's unit and description
    res = kr.load(["results/quick.h5"])               # files and/or directories
    res.tuples, res.layers, res.segments, res.curves, res.resolved, res.expected

A results file is refused with a one-line `ResultsError("FILE: reason")` when it is not HDF5,
not a kapla results file (no `kapla_schema` root attribute), of another schema version,
truncated or damaged (the 512-byte user block holds the size and FNV-1a-64 checksum of the rest
of the file, as written by src/io/hdf5_sink.cpp), misses a table, or holds a value the writer
never writes (a damaged file whose checksum was forged: the same checks as kapla's reader,
src/io/result_ranges.cpp). Tables and columns are
whatever the file holds: they are defined once, in src/io/result_schema.cpp, and each table
carries its columns' units and descriptions as attributes (version 3).

Command line (a quick look at a file):  python3 scripts/kapla_results.py FILE|DIR ...
Exit code 1 (message on stderr) on any refused input.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from typing import Dict, Iterable, List, Optional, Sequence

import kapla_python

kapla_python.require("h5py", "numpy", "pandas")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

SCHEMA_VERSIONS = (2, 3, 4, 5, 6, 7, 8, 9)  # kOldestReadableSchema .. kResultSchemaVersion
ATTR_SCHEMA = "kapla_schema"
ATTR_JOB_NAME = "job_name"
ATTR_JOB_FINGERPRINT = "job_fingerprint"
ATTR_JOB_FILE = "job_file"
ATTR_WRITER_VERSION = "kapla_version"
ATTR_UNITS = "units"                # per table: one unit per column (version 3)
ATTR_DESCRIPTIONS = "descriptions"  # per table: one description per column (version 3)

USER_BLOCK_BYTES = 512
USER_BLOCK_MAGIC = b"KAPLA-RESULTS\n"

ENERGY_PARTS = ["op", "noc", "static", "dram", "gbuf", "itcn", "regf"]  # kEnergyPartNames
ENERGY_COLUMNS = ["energy_" + p for p in ENERGY_PARTS]

# Tables every file has; /expected (the tuples the job asked for) from version 3 on.
TABLES = ["tuples", "layers", "segments", "curves", "resolved"]
EXPECTED = "expected"
# The tuple's axes: the columns of /expected, joined onto the per-tuple tables by table().
# strategy_letter and strategy_label come from kapla's strategy registry (version 4; rows
# written before get them from _with_old_labels below); load() also names them `letter` and
# `label`.
AXES = ["network", "hardware", "strategy", "strategy_params", "strategy_letter",
        "strategy_label", "batch", "seed"]

STATUSES = ["ok", "no_solution", "timeout", "failed", "interrupted"]

# src/model/limits.hpp's kMaxBatch and kMaxThreads (tests/scripts/test_report.py compares them
# with `kapla validate --limits`).
MAX_BATCH = 1 << 20
MAX_THREADS = 4096

# The paper's column order of the strategies' letters: a presentation order only (tables and
# colours put other letters after these, by label); letters and labels are read from the files.
STRATEGY_ORDER = ["B", "S", "R", "M", "K"]


class ResultsError(Exception):
    """A refused input; str() is one line naming the file and the reason."""


# --------------------------------------------------------------------------------------------
# Integrity


_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def fnv1a64(data: bytes, h: int = _FNV_OFFSET) -> int:
    """64-bit FNV-1a (sweep::fnv1a), continuing from `h`."""
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


def _fnv1a64_file(f, chunk: int = 1 << 20) -> (int, int):
    # Vectorised over 8 interleaved lanes is not possible (FNV is sequential); numpy only
    # helps with the byte conversion. ~10 MB/s in CPython, enough for results files.
    h = _FNV_OFFSET
    n = 0
    while True:
        buf = f.read(chunk)
        if not buf:
            return h, n
        n += len(buf)
        for b in buf:
            h = ((h ^ b) * _FNV_PRIME) & _MASK


def _is_schema_file(path: str) -> Optional[bool]:
    """True/False: the file opens as HDF5 and has/lacks the schema attribute; None: no HDF5."""
    try:
        with h5py.File(path, "r") as f:
            return ATTR_SCHEMA in f.attrs
    except Exception:  # noqa: BLE001 - any h5py failure means "cannot be opened"
        return None


def verify_file(path: str, checksum: bool = True) -> None:
    """Raises ResultsError unless `path` is an intact kapla results file of this schema.

    `checksum=False` skips the (slow in Python) FNV-1a pass but still checks the size.
    """
    name = str(path)
    if not os.path.exists(name):
        raise ResultsError(f"{name}: no such file")
    if os.path.isdir(name):
        raise ResultsError(f"{name}: is a directory, not a results file")
    try:
        with open(name, "rb") as f:
            block = f.read(USER_BLOCK_BYTES)
    except OSError as e:
        raise ResultsError(f"{name}: cannot be read ({e.strerror})") from None
    if not block.startswith(USER_BLOCK_MAGIC):
        if not h5py.is_hdf5(name):
            raise ResultsError(f"{name}: not an HDF5 file (or its header is corrupt); "
                               "refusing to use it")
        has_schema = _is_schema_file(name)
        if has_schema is None:
            raise ResultsError(f"{name}: cannot be opened as HDF5 (truncated or corrupt); "
                               "refusing to use it")
        if not has_schema:
            raise ResultsError(f"{name}: not a kapla results file (no '{ATTR_SCHEMA}' "
                               "attribute)")
        raise ResultsError(f"{name}: corrupt: its checksum block is missing; refusing to use it")
    size = None
    hash_text = None
    for line in block[len(USER_BLOCK_MAGIC):].split(b"\0", 1)[0].decode("ascii", "replace") \
            .splitlines():
        if line.startswith("size="):
            try:
                size = int(line[5:])
            except ValueError:
                size = None
        elif line.startswith("fnv1a64="):
            hash_text = line[8:24]
    if size is None or hash_text is None:
        raise ResultsError(f"{name}: corrupt: unreadable checksum block; refusing to use it")
    actual = os.path.getsize(name) - USER_BLOCK_BYTES
    if actual != size:
        raise ResultsError(f"{name}: corrupt: {actual + USER_BLOCK_BYTES} bytes where "
                           f"{size + USER_BLOCK_BYTES} were written (truncated?); "
                           "refusing to use it")
    if checksum:
        with open(name, "rb") as f:
            f.seek(USER_BLOCK_BYTES)
            h, _ = _fnv1a64_file(f)
        if f"{h:016x}" != hash_text:
            raise ResultsError(f"{name}: corrupt: checksum mismatch (the file was damaged after "
                               "it was written); refusing to use it")


# --------------------------------------------------------------------------------------------
# Reading one file


@dataclasses.dataclass
class FileInfo:
    path: str
    schema: int
    job_name: str
    job_fingerprint: str
    job_file: str
    kapla_version: str
    # Tuples of this file left out because a later file of a load(..., replace=True) holds
    # them (a rerun); kept in a compact export so that its provenance still says so.
    replaced: int = 0

    @property
    def time_limit(self) -> float:
        """The job's tuple_time_limit_seconds (0: none), nan when its job file does not say."""
        try:
            return float(json.loads(self.job_file).get("tuple_time_limit_seconds", np.nan))
        except (ValueError, AttributeError, TypeError):
            return np.nan


def _text(v) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _text(v[()])
    return str(v)


def _read_table(f: h5py.File, name: str, table: str) -> pd.DataFrame:
    if table not in f:
        raise ResultsError(f"{name}: corrupt or incomplete results (no table '{table}')")
    ds = f[table]
    if not isinstance(ds, h5py.Dataset) or ds.dtype.names is None:
        raise ResultsError(f"{name}: table '{table}': not a table")
    if len(ds.shape) != 1:
        raise ResultsError(f"{name}: table '{table}': not 1-D")
    try:
        data = ds[()] if ds.shape[0] > 0 else None
    except Exception as e:  # noqa: BLE001
        raise ResultsError(f"{name}: table '{table}': cannot read the table (corrupt file?): "
                           f"{e}") from None
    cols = {}
    for c in ds.dtype.names:
        kind = ds.dtype.fields[c][0]
        is_str = h5py.check_string_dtype(kind) is not None or kind.kind in "OSU"
        if data is None:
            cols[c] = pd.Series([], dtype=object if is_str else kind)
        elif is_str:
            cols[c] = [_text(v) for v in data[c]]
        else:
            cols[c] = data[c]
    return pd.DataFrame(cols)


def read_file(path: str, checksum: bool = True):
    """(FileInfo, {table: DataFrame}) of one results file; ResultsError if refused."""
    name = str(path)
    verify_file(name, checksum=checksum)
    try:
        f = h5py.File(name, "r")
    except Exception:  # noqa: BLE001
        raise ResultsError(f"{name}: cannot be opened as HDF5 (truncated or corrupt); "
                           "refusing to use it") from None
    with f:
        if ATTR_SCHEMA not in f.attrs:
            raise ResultsError(f"{name}: not a kapla results file (no '{ATTR_SCHEMA}' "
                               "attribute)")
        try:
            version = int(np.asarray(f.attrs[ATTR_SCHEMA]).reshape(-1)[0])
        except Exception:  # noqa: BLE001
            raise ResultsError(f"{name}: cannot read '{ATTR_SCHEMA}' (corrupt file?)") from None
        if version not in SCHEMA_VERSIONS:
            raise ResultsError(f"{name}: {ATTR_SCHEMA} version {version}; this script reads "
                               f"versions {SCHEMA_VERSIONS[0]} to {SCHEMA_VERSIONS[-1]}")
        attrs = {}
        for a in (ATTR_JOB_NAME, ATTR_JOB_FINGERPRINT, ATTR_JOB_FILE, ATTR_WRITER_VERSION):
            if a not in f.attrs:
                raise ResultsError(f"{name}: corrupt or incomplete results (no '{a}' attribute)")
            attrs[a] = _text(f.attrs[a])
        tables = {t: _read_table(f, name, t) for t in TABLES}
        if version >= 3:
            tables[EXPECTED] = _read_table(f, name, EXPECTED)
    info = FileInfo(name, version, attrs[ATTR_JOB_NAME], attrs[ATTR_JOB_FINGERPRINT],
                    attrs[ATTR_JOB_FILE], attrs[ATTR_WRITER_VERSION])
    for t in ("tuples", EXPECTED):
        if t in tables:
            tables[t] = _with_old_labels(tables[t])
    tuples = tables["tuples"]
    bad = tuples.loc[~tuples["status"].isin(STATUSES), "status"]
    if len(bad):
        raise ResultsError(f"{name}: corrupt results: unknown status '{bad.iloc[0]}'")
    dup = tuples["key"][tuples["key"].duplicated()]
    if len(dup):
        raise ResultsError(f"{name}: corrupt results: tuple '{dup.iloc[0]}' appears twice")
    known = set(tuples["key"])
    for t in ("layers", "segments", "curves", "resolved"):
        if not len(tables[t]):
            continue
        unknown = set(tables[t]["key"]) - known
        if unknown:
            raise ResultsError(f"{name}: corrupt results: table '{t}' names unknown tuple "
                               f"'{sorted(unknown)[0]}'")
    check_ranges(name, tables)
    return info, tables


def _first_bad(df: pd.DataFrame, bad: pd.Series, field: str, reason: str, name: str) -> None:
    """Raises for the first row where `bad` holds (the C++ reader's message)."""
    if bad.any():
        key = df.loc[bad.to_numpy().nonzero()[0][0], "key"]
        raise ResultsError(f"{name}: tuple '{key}': {field}: {reason} (damaged results file?)")


def check_ranges(name: str, tables: Dict[str, pd.DataFrame]) -> None:
    """The value checks of kapla's reader (src/io/result_ranges.cpp), so that a damaged file
    whose checksum was forged feeds no absurd number (an EDP of 1e29, a negative time, a batch
    of 2^62) to the tables and plots: ResultsError for the first value the writer never writes."""
    def count(df, col, lo, hi):
        v = df[col].astype("int64")
        bad = (v < lo) | (v > hi)
        if bad.any():
            _first_bad(df, bad, col, f"out of range [{lo}, {hi}], got {v[bad].iloc[0]}", name)

    def amount(df, col, field=None):
        v = df[col].astype("float64")
        _first_bad(df, ~(np.isfinite(v) & (v >= 0)), field or col,
                   "not a finite non-negative number", name)

    t = tables["tuples"].reset_index(drop=True)
    int64_max = np.iinfo(np.int64).max
    count(t, "batch", 1, MAX_BATCH)
    count(t, "threads", 1, MAX_THREADS)
    for c in ("evaluated", "valid", "pruned", "macs"):
        if c in t:  # macs: version 7
            count(t, c, 0, int64_max)
    for c in ["total_cost", "energy", "time", "edp", "search_seconds", "cpu_seconds"] + \
            ENERGY_COLUMNS:
        amount(t, c)
    if "pe_utilisation" in t:  # version 8
        amount(t, "pe_utilisation")
    ok = t["status"] == "ok"
    edp, product = t["edp"].astype("float64"), t["energy"] * t["time"]
    off = (edp - product).abs() > 1e-9 * np.maximum(edp.abs(), product.abs())
    _first_bad(t, ok & off, "edp", "is not energy x time", name)
    layers = tables["layers"].reset_index(drop=True)
    for c in ("energy", "time"):
        amount(layers, c, f"layers.{c}")
    count(layers, "segment", 0, int64_max)
    if "macs" in layers:
        count(layers, "macs", 0, int64_max)
    segments = tables["segments"].reset_index(drop=True)
    for c in ("energy", "time"):
        amount(segments, c, f"segments.{c}")


# --------------------------------------------------------------------------------------------
# Many files


def find_files(paths: Iterable[str]) -> List[str]:
    """Results files named by `paths`: files as given; a directory gives its *.h5 files and
    those of its *.parts/ subdirectories (a sweep in progress), like `kapla results`."""
    out: List[str] = []
    for p in paths:
        p = str(p)
        if not os.path.isdir(p):
            out.append(p)
            continue
        found = []
        for root in [p] + sorted(os.path.join(p, d) for d in os.listdir(p)
                                 if d.endswith(".parts") and os.path.isdir(os.path.join(p, d))):
            for n in sorted(os.listdir(root)):
                full = os.path.join(root, n)
                if n.endswith(".h5") and ".tmp." not in n and os.path.isfile(full):
                    found.append(full)
        if not found:
            raise ResultsError(f"{p}: no results files (*.h5) in this directory")
        out.extend(sorted(found))
    return out


# ONLY FOR ROWS WRITTEN BEFORE SCHEMA 4, which have no strategy letter or label (files older
# than schema 4, and their rows merged by kapla into a newer file without a job's /expected row
# to take them from): the five strategies kapla had then, by registry name (a job may also name
# them by letter), and labels in the form kapla writes since (io::strategy_label: the letter,
# plus the params as KEY=VALUE in key order, "R[max_evaluations=40]"). Newer rows carry both,
# so a new strategy needs no line here.
_OLD_ROW_LETTERS = {"exhaustive": "B", "directive-exhaustive": "S", "random": "R",
                    "guided": "M", "kapla": "K"}


def _old_row_label(strategy: str, params: str) -> tuple:
    """(letter, label) of a tuple written before schema 4."""
    s = str(strategy)
    letter = s.upper() if s.upper() in _OLD_ROW_LETTERS.values() else \
        _OLD_ROW_LETTERS.get(s, s)
    if not params:
        return letter, letter
    texts = [f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}"
             for k, v in sorted(json.loads(params).items())]
    return letter, f"{letter}[{','.join(texts)}]"


def _with_old_labels(df: pd.DataFrame) -> pd.DataFrame:
    """`df` (a file's tuples or expected) with strategy_letter and strategy_label on every row:
    as read, or for rows written before schema 4 (no letter) from _old_row_label."""
    df = df.copy()
    for c in ("strategy_letter", "strategy_label"):
        if c not in df:
            df[c] = pd.Series([""] * len(df), index=df.index, dtype=object)
    old = df["strategy_letter"] == ""
    if old.any():
        pairs = [_old_row_label(s, p) for s, p in
                 zip(df.loc[old, "strategy"], df.loc[old, "strategy_params"])]
        df.loc[old, "strategy_letter"] = [l for l, _ in pairs]
        df.loc[old, "strategy_label"] = [b for _, b in pairs]
    return df


def network_mode(network: str) -> str:
    """'training' for the back-propagation networks (*_bp), else 'inference'."""
    return "training" if str(network).endswith("_bp") else "inference"


_SEARCH_COLUMNS = ["status", "message", "total_cost", "energy"] + ENERGY_COLUMNS + \
    ["time", "edp", "evaluated", "valid", "pruned"]


@dataclasses.dataclass
class Results:
    files: List[FileInfo]
    tuples: pd.DataFrame     # one row per tuple (+ letter, label, mode, job_name, source,
    #                          time_limit; letter and label = strategy_letter, strategy_label)
    layers: pd.DataFrame     # one row per (tuple, layer)
    segments: pd.DataFrame   # one row per (tuple, segment)
    curves: pd.DataFrame     # anytime curves (R, M): best cost after `evaluated` schedules
    resolved: pd.DataFrame   # (key, name, value) long form
    expected: pd.DataFrame   # every tuple the jobs asked for, with `present` and `status`

    def resolved_wide(self) -> pd.DataFrame:
        """resolved as one row per key, one column per name."""
        if self.resolved.empty:
            return pd.DataFrame(index=pd.Index([], name="key"))
        return self.resolved.pivot_table(index="key", columns="name", values="value",
                                         aggfunc="first")


def _add_derived(tuples: pd.DataFrame, exp: pd.DataFrame) -> None:
    """The columns load() adds: letter, label, mode on both tables; on /expected, whether each
    tuple is present and its status (not_run when absent)."""
    for df in (tuples, exp):
        df["letter"] = df["strategy_letter"]
        df["label"] = df["strategy_label"]
        df["mode"] = [network_mode(n) for n in df["network"]]
    status = dict(zip(tuples["key"], tuples["status"]))
    exp["present"] = exp["key"].isin(status.keys())
    exp["status"] = [status.get(k, "not_run") for k in exp["key"]]


def load(paths: Sequence[str], checksum: bool = True, replace: bool = False) -> Results:
    """Reads files and/or directories. The same tuple in several files is kept once if the
    search results agree; ResultsError if they differ (like `kapla merge`). With replace, a
    tuple in a later file replaces it in the files before it, whatever their results (a tuple
    rerun at a newer commit or without a time limit); each FileInfo counts what it lost."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    compact = [p for p in paths if is_compact(p)]
    if compact:
        if len(compact) != len(paths) or len(compact) > 1:
            raise ResultsError(f"{compact[0]}: a compact export is read alone, not with other "
                               "results")
        return load_compact(compact[0])
    files = find_files(paths)
    infos: List[FileInfo] = []
    parts: Dict[str, List[pd.DataFrame]] = {t: [] for t in TABLES}
    seen: Dict[str, tuple] = {}
    expected: List[pd.DataFrame] = []
    read = [read_file(path, checksum=checksum) for path in files]
    last = {}  # with replace: the index of the last file holding each tuple
    if replace:
        for n, (_, tables) in enumerate(read):
            last.update((key, n) for key in tables["tuples"]["key"])
    for n, (path, (info, tables)) in enumerate(zip(files, read)):
        infos.append(info)
        t = tables["tuples"]
        keep = []
        for i, key in enumerate(t["key"]):
            row = tuple(t[c].iloc[i] for c in _SEARCH_COLUMNS)
            if replace and last[key] != n:
                info.replaced += 1
                keep.append(False)
            elif key in seen:
                prev_file, prev = seen[key]
                if not all((a == b) or (isinstance(a, float) and np.isnan(a) and np.isnan(b))
                           for a, b in zip(prev, row)):
                    raise ResultsError(f"{path}: tuple '{key}' differs from {prev_file}; "
                                       "refusing to combine them")
                keep.append(False)
            else:
                seen[key] = (path, row)
                keep.append(True)
        keep = np.array(keep, dtype=bool)
        t = t[keep].copy()
        t["job_name"] = info.job_name
        t["source"] = path
        t["time_limit"] = info.time_limit
        parts["tuples"].append(t)
        kept = set(t["key"])
        for name in ("layers", "segments", "curves", "resolved"):
            df = tables[name]
            parts[name].append(df[df["key"].isin(kept)])
        if EXPECTED in tables:  # version 3; a version 2 file expects what it holds (below)
            expected.append(tables[EXPECTED])

    def cat(name):
        dfs = [d for d in parts[name] if len(d)]
        if not dfs:
            return parts[name][0].iloc[0:0].copy() if parts[name] else pd.DataFrame()
        return pd.concat(dfs, ignore_index=True)

    tuples = cat("tuples")
    for c in ("batch", "seed"):
        if c in tuples:
            tuples[c] = tuples[c].astype("int64")
    tuples = tuples.sort_values("key", kind="stable").reset_index(drop=True)
    layers = cat("layers").sort_values(["key", "layer_index"], kind="stable") \
        .reset_index(drop=True)
    segments = cat("segments").sort_values(["key", "segment"], kind="stable") \
        .reset_index(drop=True)
    curves = cat("curves").sort_values(["key", "point"], kind="stable").reset_index(drop=True)
    resolved = cat("resolved").reset_index(drop=True)

    cols = AXES + ["key"]
    if expected:
        # A replaced tuple is asked for by the job that ran it last.
        exp = pd.concat(expected, ignore_index=True) \
            .drop_duplicates("key", keep="last" if replace else "first")
    else:
        exp = pd.DataFrame(columns=cols + ["job_name"])
    # Tuples present but not in /expected (version 2 files) are expected too (they ran).
    extra = tuples.loc[~tuples["key"].isin(exp["key"]), cols + ["job_name"]]
    exp = pd.concat([exp, extra], ignore_index=True)
    _add_derived(tuples, exp)
    exp["batch"] = exp["batch"].astype("int64")
    exp["seed"] = exp["seed"].astype("int64")
    exp = exp.reset_index(drop=True)  # job order: networks, then hardware, strategies, seeds
    return Results(infos, tuples, layers, segments, curves, resolved, exp)


def table(paths, name: str, checksum: bool = True) -> pd.DataFrame:
    """One table of results files and/or directories as a tidy DataFrame in one call: strings
    decoded, and the tuple's axes (network, hardware, strategy, strategy_params, batch, seed)
    as columns of every table, so that `groupby`/`pivot_table` can use them directly. `name`:
    tuples, layers, segments, curves, resolved or expected (expected adds `present`,
    `status`)."""
    res = load(paths, checksum=checksum)
    if name == EXPECTED:
        return res.expected
    if name not in TABLES:
        raise ResultsError(f"{name}: no such table; tables: {', '.join(TABLES + [EXPECTED])}")
    df = getattr(res, name)
    if name == "tuples":
        return df
    axes = res.tuples.set_index("key")[AXES]
    return df.join(axes, on="key")[["key"] + AXES + [c for c in df.columns if c != "key"]]


def columns(path: str, name: str) -> pd.DataFrame:
    """A table's columns with their unit and description, from the file's attributes (version
    3; version 2 files carry none: empty strings)."""
    verify_file(path, checksum=False)
    with h5py.File(path, "r") as f:
        if name not in f:
            raise ResultsError(f"{path}: no table '{name}'")
        ds = f[name]
        names = list(ds.dtype.names)
        units = [_text(u) for u in ds.attrs.get(ATTR_UNITS, [""] * len(names))]
        desc = [_text(d) for d in ds.attrs.get(ATTR_DESCRIPTIONS, [""] * len(names))]
    if len(units) != len(names) or len(desc) != len(names):
        raise ResultsError(f"{path}: table '{name}': {len(names)} columns but {len(units)} units "
                           f"and {len(desc)} descriptions")
    return pd.DataFrame({"column": names, "unit": units, "description": desc})


# --------------------------------------------------------------------------------------------
# Compact export: the per-tuple tables of a set of results as CSV, for results small enough to
# commit (results/paper/). It keeps /tuples, /resolved and /expected exactly (floats as
# Python's shortest round-trip repr) and drops the per-layer, per-segment and curve rows, so
# the tables and pages built from tuples and resolved values (report.py --paper) are the same
# from the export as from the HDF5 files; plots and per-layer tables need the HDF5 files.

COMPACT_MARK = "compact.json"
COMPACT_FORMAT = "kapla-compact-results"
COMPACT_VERSION = 1
_COMPACT_TABLES = ("tuples", "resolved", EXPECTED)
_DERIVED = ["letter", "label", "mode"]  # added by _add_derived, not exported


def is_compact(path) -> bool:
    return os.path.isdir(str(path)) and os.path.isfile(os.path.join(str(path), COMPACT_MARK))


def export_compact(res: Results, directory: str) -> None:
    """Writes res (loaded from HDF5 files) as a compact export into directory."""
    os.makedirs(directory, exist_ok=True)
    files = [dict(dataclasses.asdict(i), path=os.path.basename(i.path)) for i in res.files]
    meta = {"format": COMPACT_FORMAT, "version": COMPACT_VERSION, "files": files,
            "tables": list(_COMPACT_TABLES), "dropped": ["layers", "segments", "curves"]}
    with open(os.path.join(directory, COMPACT_MARK), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    tuples = res.tuples.drop(columns=[c for c in _DERIVED if c in res.tuples]).copy()
    tuples["source"] = [os.path.basename(s) for s in tuples["source"]]
    expected = res.expected.drop(columns=_DERIVED + ["present", "status"])
    for name, df in (("tuples", tuples), ("resolved", res.resolved), (EXPECTED, expected)):
        df.to_csv(os.path.join(directory, name + ".csv"), index=False, lineterminator="\n")


def load_compact(directory: str) -> Results:
    """A compact export (export_compact) as Results with empty layers, segments and curves."""
    directory = str(directory)
    try:
        with open(os.path.join(directory, COMPACT_MARK), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{directory}: {COMPACT_MARK}: cannot be read: {e}") from None
    if meta.get("format") != COMPACT_FORMAT or meta.get("version") != COMPACT_VERSION:
        raise ResultsError(f"{directory}: {COMPACT_MARK}: not a version {COMPACT_VERSION} "
                           f"{COMPACT_FORMAT} file")
    infos = [FileInfo(os.path.join(directory, i["path"]), i["schema"], i["job_name"],
                      i["job_fingerprint"], i["job_file"], i["kapla_version"],
                      i.get("replaced", 0))
             for i in meta["files"]]
    tables = {}
    for name in _COMPACT_TABLES:
        path = os.path.join(directory, name + ".csv")
        try:
            # "" stays an empty string; only "nan" is a missing number.
            tables[name] = pd.read_csv(path, keep_default_na=False, na_values=["nan"],
                                       float_precision="round_trip",
                                       dtype={"key": str, "value": str, "name": str,
                                              "strategy_params": str, "message": str})
        except (OSError, ValueError) as e:
            raise ResultsError(f"{path}: cannot be read: {e}") from None
    tuples = tables["tuples"]
    tuples["source"] = [os.path.join(directory, s) for s in tuples["source"]]
    exp = tables[EXPECTED]
    _add_derived(tuples, exp)
    empty = pd.DataFrame({"key": pd.Series([], dtype=object)})
    return Results(infos, tuples, empty.copy(), empty.copy(), empty.copy(), tables["resolved"],
                   exp)


def main(argv: Sequence[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="Summarise kapla results files.")
    ap.add_argument("paths", nargs="+", help="results files (.h5) or directories")
    ap.add_argument("--no-checksum", action="store_true",
                    help="skip the FNV-1a checksum pass (the size is still checked)")
    args = ap.parse_args(argv)
    try:
        res = load(args.paths, checksum=not args.no_checksum)
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for info in res.files:
        print(f"{info.path}: job '{info.job_name}' schema {info.schema} "
              f"(kapla {info.kapla_version})")
    t = res.tuples
    print(f"{len(t)} tuples, {len(res.layers)} layer rows, {len(res.segments)} segments, "
          f"{len(res.curves)} curve points; {int((~res.expected['present']).sum())} not run")
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        print(t[["key", "status", "energy", "time", "search_seconds"]].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

