"""Shared helpers: the repository's fixtures, Java's expected rows, and the `paimon` binary,
whose `compare-rows` compares our Arrow output with Java's rows in the oracle's JSON encoding
(the one place that encoding lives, paimon-cli's rows.rs), so it is not re-implemented here."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "fixtures"
WAREHOUSE = FIXTURES / "warehouse"
EXPECTED = FIXTURES / "expected"


def paimon_bin() -> str:
    """The `paimon` CLI built by cargo (PAIMON_BIN, else $CARGO_TARGET_DIR/debug/paimon)."""
    if os.environ.get("PAIMON_BIN"):
        return os.environ["PAIMON_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "paimon")


def skips() -> dict:
    """The one skip list (crates/paimon-cli/tests/acceptance/skips.rs): case -> reason."""
    text = (REPO / "crates/paimon-cli/tests/acceptance/skips.rs").read_text()
    return dict(re.findall(r'\(\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)"\)', text))


def scan_kwargs(args):
    """`paimon read` arguments (as in queries.json) as `Table.scan` keyword arguments."""
    kw = {}
    it = iter(args)
    for a in it:
        if a == "--with-kind":
            kw["with_kind"] = True
            continue
        v = next(it)
        key = a[2:].replace("-", "_")
        if key == "select":
            kw[key] = [c.strip() for c in v.split(",") if c.strip()]
        elif key in ("snapshot", "timestamp_ms", "changes_since"):
            kw[key] = int(v)
        else:
            kw[key] = v
    return kw


def compare(table_dir, expected, data, args, tmp_path):
    """None when `data` (anything with __arrow_c_stream__, or a pyarrow Table) holds exactly
    Java's rows in `expected` as a multiset, else paimon's report of what differs."""
    t = data if isinstance(data, pa.Table) else pa.table(data)
    actual = tmp_path / "actual.arrow"
    with pa.OSFile(str(actual), "wb") as f, pa.ipc.new_file(f, t.schema) as w:
        w.write_table(t)
    r = subprocess.run(
        [paimon_bin(), "compare-rows", str(table_dir), str(expected), str(actual), *args],
        capture_output=True,
        text=True,
    )
    return None if r.returncode == 0 else (r.stderr or r.stdout)


def fixture_cases():
    """(case, table dir, args, expected file) for every expected file and query, as the
    Rust acceptance suite enumerates them."""
    out = []
    for db in sorted(EXPECTED.iterdir()):
        for t in sorted(db.iterdir()):
            table_dir = WAREHOUSE / f"{db.name}.db" / t.name
            for f in sorted(t.iterdir()):
                name = f.name
                if f.is_dir():
                    if name.startswith("branch-"):
                        out.append((f"{db.name}/{t.name}/{name}/latest.jsonl", table_dir, ["--branch", name[7:]], f / "latest.jsonl"))
                    continue
                if name == "latest.jsonl":
                    args = []
                elif name.startswith("snapshot-"):
                    args = ["--snapshot", name[9:-6]]
                elif name.startswith("tag-"):
                    args = ["--tag", name[4:-6]]
                else:
                    continue
                out.append((f"{db.name}/{t.name}/{name}", table_dir, args, f))
    for q in json.loads((FIXTURES / "queries.json").read_text()):
        db, t = q["table"].split("/")
        out.append((q["expected"], WAREHOUSE / f"{db}.db" / t, q["args"], EXPECTED / q["expected"]))
    return out


@pytest.fixture
def damaged(tmp_path):
    """Copies a fixture table to tmp_path and returns its new path."""

    def copy(db_table):
        db, t = db_table.split("/")
        dst = tmp_path / f"{db}.db" / t
        shutil.copytree(WAREHOUSE / f"{db}.db" / t, dst)
        return dst

    return copy
