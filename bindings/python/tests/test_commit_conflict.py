"""A commit conflict reaches Python as `CommitConflictError` (a `PaimonError`), whatever call
committed: nothing is committed and the table reads as before."""

import pytest

import paimon_rs as pr
from test_maintenance import copy, reads_as_java_wrote_it
from test_write import snapshot_ids


def test_a_plain_commit_of_stale_compaction_messages_is_a_commit_conflict(tmp_path):
    # The messages of a compaction planned before another compaction committed delete files
    # that are no longer in the table: committing them conflicts (Java: "File deletion
    # conflicts detected").
    t = copy("pk/dedup_uncompacted", tmp_path)
    tasks = t.compact_tasks(full=True)
    assert tasks
    stale = [t.run_compact_task(task) for task in tasks]
    assert len(t.compact(full=True)) == 1
    before = snapshot_ids(t)
    with pytest.raises(pr.CommitConflictError) as e:
        t.new_commit().commit(stale)
    assert isinstance(e.value, pr.PaimonError)
    assert snapshot_ids(t) == before
    reads_as_java_wrote_it(t, "pk/dedup_uncompacted", tmp_path)
