"""Tags, branches, rollback and streaming consumers on a copy of the Java-written
pk.db/many_snapshots: each read equals the read of the snapshot it names, the files are the
ones Java's TagManager / ConsumerManager write, and a consumer's stream continues where it
stopped."""

import shutil

import pyarrow as pa
import pytest

import paimon_rs as pr
from conftest import WAREHOUSE


def copy(tmp_path):
    dst = tmp_path / "t"
    shutil.copytree(WAREHOUSE / "pk.db" / "many_snapshots", dst)
    return pr.Table(str(dst)), dst


def rows(table_or_scan):
    return sorted(map(str, table_or_scan.to_arrow().to_pylist()))


def test_tags_branches_and_rollback(tmp_path):
    t, dst = copy(tmp_path)
    at_12 = rows(t.scan(snapshot=12))
    assert t.create_tag("s12", snapshot=12) == 12
    assert t.create_tag("last") == 14
    # Without a retention time the tag file is the snapshot file, as Java writes it.
    assert (dst / "tag" / "tag-s12").read_bytes() == (dst / "snapshot" / "snapshot-12").read_bytes()
    with pytest.raises(pr.InvalidArgumentError, match="already exists"):
        t.create_tag("s12")
    t.rename_tag("last", "newest")
    assert [x["name"] for x in t.tags()] == ["newest", "s12", "t3", "t6", "t9"]

    t.create_branch("b2", tag="s12")
    assert sorted(t.branches()) == ["b1", "b2"]
    assert rows(t.scan(branch="b2")) == at_12
    with pytest.raises(pr.InvalidArgumentError, match="pure numeric"):
        t.create_branch("42")

    r = t.rollback_to(12)
    assert r["snapshots"] == [14, 13] and r["tags"] == ["newest"]
    t = pr.Table(str(dst))
    assert rows(t.scan()) == at_12
    t.delete_tag("s12")
    t.delete_branch("b2")
    assert t.branches() == ["b1"]


def test_stream_with_a_consumer_continues_where_it_stopped(tmp_path):
    t, dst = copy(tmp_path)
    seen = []
    for snapshot_id, reader in t.stream(consumer_id="job", since=11):
        seen.append(snapshot_id)
        assert pa.table(reader.read_all()).num_rows > 0
        if snapshot_id == 13:
            break
    # Asking for 13 saved 12 as delivered; 13 was handed out but never followed by another
    # request, so it is read again.
    assert (dst / "consumer" / "consumer-job").read_text() == '{\n  "nextSnapshot" : 13\n}'
    again = [sid for sid, _ in t.stream(consumer_id="job")]
    assert seen == [12, 13] and again == [13, 14]
    assert t.consumer("job") == 15
    # Caught up: nothing more, and without poll_interval the iterator ends.
    assert list(t.stream(consumer_id="job")) == []
    t.reset_consumer("job", 14)
    assert [sid for sid, _ in t.stream(consumer_id="job")] == [14]
    assert t.delete_consumer("job")
