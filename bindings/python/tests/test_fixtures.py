"""Every fixture table (latest, every snapshot, tags, branches, and the queries of
fixtures/queries.json) read through paimon_rs equals Java's expected rows."""

import pytest

import paimon_rs as pr
from conftest import compare, fixture_cases, scan_kwargs, skips

CASES = fixture_cases()
SKIPS = skips()


def test_there_are_many_cases():
    assert len(CASES) > 100


@pytest.mark.parametrize("case,table_dir,args,expected", CASES, ids=[c[0] for c in CASES])
def test_fixture_reads_javas_rows(case, table_dir, args, expected, tmp_path):
    kw = scan_kwargs(args)
    if case in SKIPS:
        with pytest.raises(pr.PaimonError):
            pr.Table.open(str(table_dir)).scan(**kw).to_arrow()
        pytest.skip(f"skips.rs: {SKIPS[case]}")
    got = pr.read_table(str(table_dir), **kw)
    diff = compare(table_dir, expected, got, args, tmp_path)
    assert diff is None, diff
