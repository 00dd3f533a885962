//! `paimon compact` on copies of Java-written fixture tables, checked against Java Paimon 1.4.2
//! compacting an identical copy (`scripts/java-oracle.sh compact`: Java's
//! `AppendCompactCoordinator` on unaware-bucket tables, full compaction otherwise):
//!
//! * the files left per bucket (count and levels) are the ones Java's compaction leaves;
//! * Java reads the same rows from our compacted table as from its own (and, except where
//!   Java's batch read skips level 0, as before the compaction); our reader reads them too;
//! * Java then keeps writing and compacting on our table (`commit-loop`, `compact`), and Java
//!   and we still read the same rows;
//! * a compaction whose inputs a concurrent commit already removed fails and commits nothing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use paimon_cli::scan_args::ScanArgs;
use paimon_io::LocalFileIO;
use paimon_meta::Table;

use crate::maintenance::{copy_dir, java_dump, oracle, ours, paimon, repo};

/// The live files of every level (a batch scan of deletion-vector and first-row tables skips
/// level 0).
fn all_live_files(t: &Table) -> Vec<paimon_meta::scan::LiveFile> {
    t.live_files(Some(t.scan().with_all_levels(true))).unwrap()
}

/// Levels of the live files of each (partition, bucket), sorted.
fn live_levels(table: &Path) -> BTreeMap<String, Vec<i32>> {
    let t = Table::open(Arc::new(LocalFileIO::new()), table.to_str().unwrap()).unwrap();
    let mut out: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for f in all_live_files(&t) {
        out.entry(format!("{:?}/{}", f.partition, f.bucket))
            .or_default()
            .push(f.file.level);
    }
    for v in out.values_mut() {
        v.sort_unstable();
    }
    out
}

fn file_count(levels: &BTreeMap<String, Vec<i32>>) -> usize {
    levels.values().map(Vec::len).sum()
}

fn latest_commit_kind(table: &Path) -> String {
    let t = Table::open(Arc::new(LocalFileIO::new()), table.to_str().unwrap()).unwrap();
    let id = t.snapshot_manager().latest_id().unwrap().unwrap();
    t.snapshot_manager().snapshot(id).unwrap().commit_kind
}

/// Rows as canonical JSON (numbers re-printed from their values: Java prints `6.5E-4`, we
/// print `0.00065`), sorted.
fn canonical(rows: Vec<String>) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap()
                .to_string()
        })
        .collect();
    v.sort();
    v
}

/// Compacts a copy of fixture `rel` with `paimon compact [--full]` and another copy with Java,
/// and checks everything the module doc lists. `compacts` says whether the fixture has files
/// Java's rules compact (so that a test that compacts nothing cannot pass by accident).
fn check(rel: &str, full: bool, compacts: bool) {
    let _ = check_table(
        &repo().join("fixtures/warehouse").join(rel),
        rel,
        full,
        compacts,
    );
}

/// Compacts a copy of `src` with us and one with Java and checks them (see the module docs);
/// returns the levels of our copy's files right after our compaction.
fn check_table(src: &Path, rel: &str, full: bool, compacts: bool) -> BTreeMap<String, Vec<i32>> {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("ours");
    let java = dir.path().join("java");
    copy_dir(src, &mine);
    copy_dir(src, &java);
    let before_rows = java_dump(src, &[]);
    let before_files = live_levels(&mine);

    let mut args = vec!["compact", mine.to_str().unwrap()];
    if full {
        args.push("--full");
    }
    let said = paimon(&args);
    // Minor compaction of primary-key tables: Java's writers compact as after a write.
    let pk = Table::open(Arc::new(LocalFileIO::new()), mine.to_str().unwrap())
        .unwrap()
        .is_primary_key_table();
    if pk && !full {
        oracle(&["compact", java.to_str().unwrap(), "--minor"]);
    } else {
        oracle(&["compact", java.to_str().unwrap()]);
    }

    let after = live_levels(&mine);
    assert_eq!(
        after,
        live_levels(&java),
        "{rel}: files left, ours vs Java ({said})"
    );
    assert_eq!(
        after != before_files,
        compacts,
        "{rel}: compaction expected: {compacts} ({said})"
    );
    if compacts {
        assert_eq!(latest_commit_kind(&mine), "COMPACT", "{rel}");
        assert!(
            file_count(&after) < file_count(&before_files) || full,
            "{rel}"
        );
    }
    let java_rows = java_dump(&java, &[]);
    assert_eq!(java_dump(&mine, &[]), java_rows, "{rel}: Java reads ours");
    assert_eq!(
        ours(&mine, &ScanArgs::default()),
        java_rows,
        "{rel}: we read ours"
    );
    let t = Table::open(Arc::new(LocalFileIO::new()), mine.to_str().unwrap()).unwrap();
    if !t.options().batch_scan_skip_level0() {
        assert_eq!(java_rows, before_rows, "{rel}: rows kept");
    }

    // Java writes on (appending, compacting every 4th round) and compacts again.
    let ms = mine.to_str().unwrap();
    oracle(&["commit-loop", ms, "--seconds", "2", "--retain", "1000"]);
    oracle(&["compact", ms]);
    let rows = canonical(java_dump(&mine, &[]));
    assert!(rows.len() >= java_rows.len(), "{rel}");
    assert_eq!(
        canonical(ours(&mine, &ScanArgs::default())),
        rows,
        "{rel}: after Java wrote on"
    );
    after
}

#[test]
fn unaware_append_below_min_file_num_is_left_as_java_leaves_it() {
    check("append.db/unaware", false, false);
}

#[test]
fn unaware_append_partitions_with_few_files_are_left_as_java_leaves_them() {
    check("append.db/part_multi", false, false);
}

/// A table written by six `paimon write`s (six small files per bucket), `options` its table
/// options.
fn six_writes(dir: &Path, options: &[&str], pk: bool) -> std::path::PathBuf {
    let t = dir.join("t");
    let schema =
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}]}"#;
    let mut args = vec!["create-table", t.to_str().unwrap(), "--schema", schema];
    if pk {
        args.extend(["--primary-key", "id"]);
    }
    for o in options {
        args.extend(["--option", o]);
    }
    paimon(&args);
    for round in 0..6 {
        let csv = dir.join(format!("r{round}.csv"));
        let rows: String = (0..20)
            .map(|i| format!("{},r{round}-{i}\n", (i * 7 + round * 3) % 25))
            .collect();
        std::fs::write(&csv, format!("id,v\n{rows}")).unwrap();
        paimon(&[
            "write",
            t.to_str().unwrap(),
            "--from",
            csv.to_str().unwrap(),
        ]);
    }
    t
}

/// `paimon create-table` of a table with `schema`, primary key `id` and `options` (`k=v`).
fn create_id_table(t: &Path, schema: &str, options: &[&str]) {
    let mut args = vec![
        "create-table",
        t.to_str().unwrap(),
        "--schema",
        schema,
        "--primary-key",
        "id",
    ];
    for o in options {
        args.extend(["--option", o]);
    }
    paimon(&args);
}

/// A primary-key table (2 buckets) with one big run at the last level (6,000 keys written
/// and fully compacted), then `small` writes of 20 of its first 2,000 keys each (some deletes
/// among them). The big run's files are more than twice the size of five small files together
/// (about 22 kb against 10 kb a bucket), so Java's size ratio stops short of them.
fn big_run_then_small_writes(dir: &Path, small: usize) -> std::path::PathBuf {
    big_run_then_small_writes_with(dir, small, &[])
}

/// As [`big_run_then_small_writes`], with more table options.
fn big_run_then_small_writes_with(
    dir: &Path,
    small: usize,
    options: &[&str],
) -> std::path::PathBuf {
    let t = dir.join("t");
    let schema =
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}]}"#;
    let mut all = vec!["bucket=2"];
    all.extend_from_slice(options);
    create_id_table(&t, schema, &all);
    let write = |name: &str, rows: String, kinds: bool| {
        let csv = dir.join(name);
        let header = if kinds { "op,id,v" } else { "id,v" };
        std::fs::write(&csv, format!("{header}\n{rows}")).unwrap();
        let mut args = vec![
            "write",
            t.to_str().unwrap(),
            "--from",
            csv.to_str().unwrap(),
        ];
        if kinds {
            args.extend(["--row-kind-column", "op"]);
        }
        paimon(&args);
    };
    let big: String = (0..6000).map(|i| format!("{i},big-{i}\n")).collect();
    write("big.csv", big, false);
    paimon(&["compact", t.to_str().unwrap(), "--full"]);
    for round in 0..small {
        let rows: String = (0..20)
            .map(|i| {
                let id = (i * 37 + round * 11) % 2000;
                let op = if i % 7 == 3 { "-D" } else { "+U" };
                format!("{op},{id},small-{round}-{i}\n")
            })
            .collect();
        write(&format!("small-{round}.csv"), rows, true);
    }
    t
}

#[test]
fn primary_key_minor_six_level0_files_as_java() {
    // Six runs, none at a higher level: size amplification takes them all.
    let dir = tempfile::tempdir().unwrap();
    let t = six_writes(dir.path(), &["bucket=2"], true);
    let _ = check_table(&t, "six writes, pk bucket 2, minor", false, true);
}

#[test]
fn primary_key_minor_small_runs_over_a_big_one_as_java() {
    // Five small level-0 runs over a big last-level run: size ratio takes the small ones into
    // the level just above it, keeping their deletes (the last level may hold those keys).
    let dir = tempfile::tempdir().unwrap();
    let t = big_run_then_small_writes(dir.path(), 5);
    let after = check_table(&t, "big run + 5 small writes, minor", false, true);
    assert!(
        after.values().all(|v| v.contains(&4) && v.contains(&5)),
        "{after:?}"
    );
}

#[test]
fn primary_key_minor_below_the_run_trigger_is_left_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_run_then_small_writes(dir.path(), 3);
    let _ = check_table(&t, "big run + 3 small writes, minor", false, false);
}

#[test]
fn unaware_append_six_small_files_bin_packed_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = six_writes(dir.path(), &["bucket=-1"], false);
    let _ = check_table(&t, "six writes, bucket -1", false, true);
}

#[test]
fn fixed_bucket_append_six_files_full_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = six_writes(dir.path(), &["bucket=2", "bucket-key=id"], false);
    let _ = check_table(&t, "six writes, bucket 2", true, true);
}

#[test]
fn primary_key_six_level0_files_full_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = six_writes(dir.path(), &["bucket=2"], true);
    let _ = check_table(&t, "six writes, pk bucket 2", true, true);
}

#[test]
fn fixed_bucket_append_minor_compaction_takes_min_file_num_files() {
    let dir = tempfile::tempdir().unwrap();
    let t = six_writes(dir.path(), &["bucket=2", "bucket-key=id"], false);
    let before = live_levels(&t);
    assert!(before.values().all(|v| v.len() == 6), "{before:?}");
    let rows = java_dump(&t, &[]);
    paimon(&["compact", t.to_str().unwrap()]);
    // Java's pickCompactBefore: the first five files by sequence number become one file.
    let after = live_levels(&t);
    assert!(after.values().all(|v| v.len() == 2), "{after:?}");
    assert_eq!(java_dump(&t, &[]), rows);
}

#[test]
fn unaware_append_with_deletion_vectors_as_java() {
    check("append.db/dv_append", false, true);
}

#[test]
fn fixed_bucket_append_already_compacted_is_left_as_java_leaves_it() {
    check("append.db/fixed_bucket", true, false);
}

#[test]
fn fixed_bucket_append_with_deletion_vectors_full_as_java() {
    check("append.db/dv_append_bucketed", true, true);
}

#[test]
fn primary_key_level0_only_full_as_java() {
    check("pk.db/dedup_uncompacted", true, true);
}

#[test]
fn primary_key_mixed_levels_full_as_java() {
    check("pk.db/dedup_mixed_levels", true, true);
}

#[test]
fn primary_key_partitioned_full_as_java() {
    check("pk.db/partitioned", true, true);
}

#[test]
fn partial_update_full_as_java() {
    check("pk.db/partial_update", true, true);
}

#[test]
fn partial_update_ignore_delete_full_as_java() {
    check("pk.db/partial_update_ignore_delete", true, true);
}

#[test]
fn aggregation_full_as_java() {
    check("pk.db/aggregation", true, true);
}

#[test]
fn sequence_field_full_as_java() {
    check("pk.db/sequence_field", true, true);
}

#[test]
fn avro_primary_key_full_as_java() {
    check("pk.db/dedup_avro", true, true);
}

#[test]
fn first_row_full_makes_level0_rows_visible_as_java() {
    check("pk.db/first_row", true, true);
}

/// Java's writers already compacted each write of the fixture by lookup: nothing to do.
#[test]
fn first_row_minor_already_compacted_is_left_as_java() {
    check("pk.db/first_row", false, false);
}

/// First-row tables are compacted by lookup too: level-0 files (of a `write-only` writer) move
/// up; a key already in a level above keeps that row (its first) and the newer records are
/// dropped, as Java's `FirstRowMergeFunctionWrapper` does.
#[test]
fn first_row_minor_over_a_big_run_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_run_then_small_writes_with(
        dir.path(),
        5,
        &[
            "merge-engine=first-row",
            "ignore-delete=true",
            "write-only=true",
        ],
    );
    let after = check_table(&t, "first-row big run + 5 small writes, minor", false, true);
    assert!(after.values().all(|v| !v.contains(&0)), "{after:?}");
}

/// Full compaction of a primary-key table with deletion vectors (Java wrote it with lookup
/// compaction after each commit, so its files above level 0 carry vectors): the deleted rows
/// are skipped (Java reads our table as its own compacted copy), and no file is left with a
/// vector.
fn deletion_vectors_full(rel: &str) {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("fixtures/warehouse").join(rel);
    let t = Table::open(Arc::new(LocalFileIO::new()), src.to_str().unwrap()).unwrap();
    let before = t.live_files(None).unwrap();
    assert!(before.iter().any(|f| f.deletion_file.is_some()), "{rel}");
    let mine = dir.path().join("t");
    copy_dir(&src, &mine);
    let after = check_table(&src, rel, true, true);
    assert!(
        after.values().flatten().all(|l| *l == 5),
        "{rel}: {after:?}"
    );
    paimon(&["compact", mine.to_str().unwrap(), "--full"]);
    let t = Table::open(Arc::new(LocalFileIO::new()), mine.to_str().unwrap()).unwrap();
    assert!(
        t.live_files(None)
            .unwrap()
            .iter()
            .all(|f| f.deletion_file.is_none()),
        "{rel}: vectors left"
    );
}

#[test]
fn deletion_vectors_32_full_as_java() {
    deletion_vectors_full("pk.db/dv32");
}

#[test]
fn deletion_vectors_64_full_as_java() {
    deletion_vectors_full("pk.db/dv64");
}

/// Minor compaction of a primary-key table with deletion vectors is Java's lookup
/// compaction: level-0 files over a last-level run (written by a `write-only` writer) move up,
/// and the copies of their keys in the last level are marked in a new vector file. Java reads
/// our table as its own compacted copy (an unmarked old copy would show as a second row, an
/// unmarked deleted key as a row too), and both keep compacting it.
fn deletion_vectors_minor(options: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["deletion-vectors.enabled=true", "write-only=true"];
    all.extend_from_slice(options);
    let t = big_run_then_small_writes_with(dir.path(), 5, &all);
    let after = check_table(&t, &format!("dv minor {options:?}"), false, true);
    assert!(
        after.values().all(|v| !v.contains(&0) && v.contains(&5)),
        "{after:?}"
    );
}

#[test]
fn deletion_vectors_minor_lookup_as_java() {
    deletion_vectors_minor(&[]);
}

#[test]
fn deletion_vectors_64_minor_lookup_as_java() {
    deletion_vectors_minor(&["deletion-vectors.bitmap64=true"]);
}

/// Partial update merges the older copy's fields into the new row.
#[test]
fn deletion_vectors_partial_update_minor_lookup_as_java() {
    deletion_vectors_minor(&[
        "merge-engine=partial-update",
        "partial-update.remove-record-on-delete=true",
    ]);
}

/// [`big_run_then_small_writes_with`] five small writes, deletion vectors, `write-only`.
fn dv_big_run_then_five_small_writes(dir: &Path) -> std::path::PathBuf {
    big_run_then_small_writes_with(
        dir,
        5,
        &["deletion-vectors.enabled=true", "write-only=true"],
    )
}

/// The marks themselves: after the lookup compaction of the same table twice over (once by
/// us, once by Java), the last-level files carry vectors of the same cardinality.
#[test]
fn deletion_vectors_minor_marks_what_java_marks() {
    let dir = tempfile::tempdir().unwrap();
    let t = dv_big_run_then_five_small_writes(dir.path());
    let java = dir.path().join("java");
    copy_dir(&t, &java);
    paimon(&["compact", t.to_str().unwrap()]);
    oracle(&["compact", java.to_str().unwrap(), "--minor"]);
    let marks = |p: &Path| -> BTreeMap<String, Vec<i64>> {
        let t = Table::open(Arc::new(LocalFileIO::new()), p.to_str().unwrap()).unwrap();
        let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for f in all_live_files(&t) {
            let card = f
                .deletion_file
                .as_ref()
                .map_or(0, |d| d.cardinality.unwrap_or(-1));
            out.entry(format!("{}/{}", f.bucket, f.file.level))
                .or_default()
                .push(card);
        }
        for v in out.values_mut() {
            v.sort_unstable();
        }
        out
    };
    let ours = marks(&t);
    assert!(
        ours.iter()
            .any(|(k, v)| k.ends_with("/5") && v.iter().any(|c| *c > 0)),
        "{ours:?}"
    );
    assert_eq!(ours, marks(&java));
}

/// Gentle lookup compaction forces level 0 up only every n-th time a writer compacts, which a
/// stateless planner cannot follow: refused, nothing committed.
#[test]
fn deletion_vectors_gentle_minor_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = big_run_then_small_writes_with(
        dir.path(),
        1,
        &[
            "deletion-vectors.enabled=true",
            "write-only=true",
            "lookup-compact=gentle",
        ],
    );
    let before = live_levels(&t);
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["compact", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gentle"), "{err}");
    assert_eq!(live_levels(&t), before);
}

#[test]
fn unaware_full_rewrites_each_partition_into_one_file() {
    let src = repo().join("fixtures/warehouse/append.db/unaware");
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy_dir(&src, &t);
    let before = java_dump(&src, &[]);
    assert_eq!(file_count(&live_levels(&t)), 3);
    paimon(&["compact", t.to_str().unwrap(), "--full"]);
    // Three small files, far below the 256 MiB target: one file.
    assert_eq!(file_count(&live_levels(&t)), 1);
    assert_eq!(java_dump(&t, &[]), before);
    assert_eq!(ours(&t, &ScanArgs::default()), before);
}

#[test]
fn partition_option_compacts_only_that_partition() {
    let src = repo().join("fixtures/warehouse/pk.db/partitioned");
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy_dir(&src, &t);
    let before = live_levels(&t);
    let before_rows = java_dump(&src, &[]);
    let table = Table::open(Arc::new(LocalFileIO::new()), t.to_str().unwrap()).unwrap();
    let first = table.live_files(None).unwrap()[0].partition.clone();
    let dt = match &first[0] {
        paimon_spec::binary::Datum::String(s) => s.clone(),
        other => format!("{other:?}"),
    };
    paimon(&[
        "compact",
        t.to_str().unwrap(),
        "--full",
        "--partition",
        &format!("dt={dt}"),
    ]);
    let after = live_levels(&t);
    let changed: Vec<&String> = after
        .keys()
        .chain(before.keys())
        .filter(|k| after.get(*k) != before.get(*k))
        .collect();
    assert!(!changed.is_empty());
    for k in changed {
        assert!(k.contains(&format!("{dt:?}")), "{k} is outside dt={dt}");
    }
    assert_eq!(java_dump(&t, &[]), before_rows);
}

#[test]
fn compaction_racing_a_commit_that_removed_its_inputs_commits_nothing() {
    let src = repo().join("fixtures/warehouse/pk.db/dedup_uncompacted");
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    copy_dir(&src, &t);
    let ts = t.to_str().unwrap();
    let before = java_dump(&src, &[]);
    let table = Table::open(Arc::new(LocalFileIO::new()), ts).unwrap();
    let plan = table.compact_planner().with_full(true).plan().unwrap();
    assert!(!plan.tasks.is_empty());
    let worker =
        paimon_write::TableCompact::try_new(table.file_io().clone(), ts, table.schema()).unwrap();
    let messages: Vec<_> = plan
        .tasks
        .iter()
        .map(|task| worker.run(task).unwrap())
        .collect();
    // Meanwhile Java compacts the same files away.
    oracle(&["compact", ts]);
    let snapshots = table.snapshots().unwrap().len();
    let err = table
        .new_commit("racing-compactor")
        .commit(i64::MAX, &messages)
        .unwrap_err();
    assert!(
        matches!(err, paimon_meta::Error::CommitConflict { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("no longer live"), "{err}");
    assert_eq!(
        table.snapshots().unwrap().len(),
        snapshots,
        "nothing committed"
    );
    assert_eq!(java_dump(&t, &[]), before);
    // Planning again finds Java's result: every bucket one run at the last level.
    let again = table.compact_planner().with_full(true).plan().unwrap();
    assert!(again.tasks.is_empty(), "{:?}", again.tasks.len());
}

/// Writes updates, deletes and new keys (and `extra_rows`, CSV lines) with `paimon write` into a
/// copy of fixture `rel` whose schema text `edit` changed, then full-compacts it with us and
/// an identical copy with Java: the files left and the rows agree, and Java reads the same
/// changelog (kinds and rows) from both COMPACT snapshots, which has every kind. Returns that
/// changelog and the files' levels after the write.
/// Java's changelog rows (with their kinds) of the snapshots in `range` (`FROM,TO`).
fn java_changelog(t: &Path, range: &str) -> Vec<String> {
    canonical(java_dump(
        t,
        &[
            "--incremental",
            range,
            "--incremental-mode",
            "changelog",
            "--with-kind",
        ],
    ))
}

fn full_compaction_changelogs(
    rel: &str,
    edit: &dyn Fn(String) -> String,
    extra_rows: &str,
) -> (Vec<String>, BTreeMap<String, Vec<i32>>) {
    compaction_changelogs(rel, edit, extra_rows, true)
}

/// As `full_compaction_changelogs`, with a minor compaction (ours, and Java's writers' own)
/// unless `full`.
fn compaction_changelogs(
    rel: &str,
    edit: &dyn Fn(String) -> String,
    extra_rows: &str,
    full: bool,
) -> (Vec<String>, BTreeMap<String, Vec<i32>>) {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("ours");
    let java = dir.path().join("java");
    copy_dir(&repo().join("fixtures/warehouse").join(rel), &mine);
    let schema = mine.join("schema/schema-0");
    let text = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(&schema, edit(text)).unwrap();
    let csv = dir.path().join("w.csv");
    let mut rows = String::from("op,id,v,n,ts\n");
    for id in 10..16 {
        rows.push_str(&format!("+U,{id},updated-{id},{id},\n"));
    }
    for id in 20..23 {
        rows.push_str(&format!("-D,{id},,,\n"));
    }
    for id in 100..106 {
        rows.push_str(&format!("+I,{id},new-{id},1,\n"));
    }
    rows.push_str(extra_rows);
    std::fs::write(&csv, rows).unwrap();
    let ms = mine.to_str().unwrap();
    paimon(&[
        "write",
        ms,
        "--from",
        csv.to_str().unwrap(),
        "--row-kind-column",
        "op",
    ]);
    let written = Table::open(Arc::new(LocalFileIO::new()), ms)
        .unwrap()
        .snapshot_manager()
        .latest_id()
        .unwrap()
        .unwrap();
    let levels_written = live_levels(&mine);
    copy_dir(&mine, &java);
    if full {
        paimon(&["compact", ms, "--full"]);
        oracle(&["compact", java.to_str().unwrap()]);
    } else {
        paimon(&["compact", ms]);
        oracle(&["compact", java.to_str().unwrap(), "--minor"]);
    }
    assert_eq!(live_levels(&mine), live_levels(&java), "{rel}");
    let range = format!("{written},{}", written + 1);
    let changelog = |t: &Path| java_changelog(t, &range);
    let ours = changelog(&mine);
    for kind in ["-U", "+U", "+I", "-D"] {
        assert!(
            ours.iter().any(|l| l.contains(&format!("\"{kind}\""))),
            "{rel}: no {kind} in {ours:?}"
        );
    }
    assert_eq!(ours, changelog(&java), "{rel}");
    assert_eq!(java_dump(&mine, &[]), java_dump(&java, &[]), "{rel}");
    (ours, levels_written)
}

/// `changelog-producer = full-compaction`: our full compaction writes the changelog Java's
/// does, for rows we wrote into level 0 over Java's last level.
#[test]
fn full_compaction_changelog_as_java() {
    full_compaction_changelogs("pk.db/changelog_full_compaction", &|s| s, "");
}

#[test]
fn aggregation_lookup_full_merges_as_java_reads() {
    // Lookup compaction left older aggregates in deeper levels: a full compaction merges the
    // level-0 records and the shallowest copy of each key, as Java's read does.
    check("pk.db/aggregation_lookup", true, true);
}

/// `changelog-producer = lookup` on a `write-only` table (Java's dedicated-compaction setup:
/// writers leave level 0, the compactor writes the changelog): rows we write into level 0 over
/// Java's levels 5, 4 and 3 give the changelog Java's full compaction gives (each key's
/// level-0 records against its copy in the shallowest level); then with
/// `changelog-producer.row-deduplicate`, where an update to equal values adds no -U/+U.
#[test]
fn lookup_changelog_full_compaction_as_java() {
    for dedup in [false, true] {
        let extra = match dedup {
            true => ",\n    \"changelog-producer.row-deduplicate\" : \"true\"",
            false => "",
        };
        let edit = |text: String| {
            let edited = text.replace(
                "\"changelog-producer\" : \"lookup\"",
                &format!(
                    "\"changelog-producer\" : \"lookup\",\n    \"write-only\" : \"true\"{extra}"
                ),
            );
            assert_ne!(edited, text, "the fixture's options changed");
            edited
        };
        // Key 40 again with its values (fixtures/expected/pk/changelog_lookup/latest.jsonl).
        let (ours, written) = full_compaction_changelogs(
            "pk.db/changelog_lookup",
            &edit,
            "+U,40,c2-40,80,2024-05-01T04:42:00.040\n",
        );
        assert!(
            written.values().any(|l| l.contains(&0)),
            "the write left level-0 files"
        );
        let key40 = ours.iter().filter(|l| l.contains("\"id\":40,")).count();
        assert_eq!(key40, if dedup { 0 } else { 2 }, "dedup {dedup}: {ours:?}");
    }
}

/// The lookup producer's changelog from a minor compaction (Java's writers compact after a
/// write: level 0 is forced up, and a key without a copy among the inputs takes its old row
/// from the levels below the output): the same files, changelog and rows as Java's.
#[test]
fn lookup_changelog_minor_compaction_as_java() {
    let edit = |text: String| {
        let edited = text.replace(
            "\"changelog-producer\" : \"lookup\"",
            "\"changelog-producer\" : \"lookup\",\n    \"write-only\" : \"true\"",
        );
        assert_ne!(edited, text, "the fixture's options changed");
        edited
    };
    let (ours, written) = compaction_changelogs("pk.db/changelog_lookup", &edit, "", false);
    assert!(
        written.values().any(|l| l.contains(&0)),
        "the write left level-0 files"
    );
    assert!(!ours.is_empty());
}

/// A `changelog-producer = lookup` table that is not `write-only`: Java's writers compact
/// each write up from level 0 and write the lookup changelog in that compaction; `paimon
/// write` commits, then runs that compaction. The same three writes, by Java's writer into
/// one table and by ours into another, leave the same files, rows and changelog.
#[test]
fn lookup_changelog_writes_compact_as_java_writers_do() {
    let ours = writes_as_java_writers_do(&["changelog-producer=lookup"]);
    let updates = ours.iter().filter(|l| l.contains("\"-U\"")).count();
    assert_eq!(updates, 8, "-U of 195..=199 and 0..=2: {ours:?}");
}

/// The same with deletion vectors: the lookup compaction also marks each key's old copy, and
/// the old row of the changelog is the one the vectors leave.
#[test]
fn deletion_vector_lookup_changelog_writes_compact_as_java_writers_do() {
    let ours =
        writes_as_java_writers_do(&["changelog-producer=lookup", "deletion-vectors.enabled=true"]);
    let updates = ours.iter().filter(|l| l.contains("\"-U\"")).count();
    assert_eq!(updates, 8, "-U of 195..=199 and 0..=2: {ours:?}");
}

/// `changelog-producer = input`: each flush writes every record it held as changelog, as
/// Java's `MergeTreeWriter` does (here 200 + 10 + 3 inserts, the repeated keys included);
/// with deletion vectors the lookup compaction after each write adds none.
#[test]
fn input_changelog_writes_as_java_writers_do() {
    for extra in [None, Some("deletion-vectors.enabled=true")] {
        let mut options = vec!["changelog-producer=input"];
        options.extend(extra);
        let ours = writes_as_java_writers_do(&options);
        assert_eq!(ours.len(), 213, "{options:?}: {ours:?}");
        assert!(ours.iter().all(|l| l.contains("\"+I\"")), "{options:?}");
    }
}

/// Java reads `incremental-between` with its batch scan, which skips level 0 on tables with
/// deletion vectors: the `input` producer's changelog files there are not read (its streaming
/// read has them); our reader reads both as Java does.
#[test]
fn incremental_reads_of_input_changelog_skip_level0_with_deletion_vectors_as_java() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("w.csv");
    std::fs::write(&csv, "op,id,v\n+I,1,a\n+I,2,b\n+U,1,A\n-D,2,\n").unwrap();
    for dv in [false, true] {
        let t = dir.path().join(format!("dv-{dv}"));
        let dv_option = format!("deletion-vectors.enabled={dv}");
        create_id_table(
            &t,
            r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#,
            &["bucket=1", "changelog-producer=input", &dv_option],
        );
        paimon(&[
            "write",
            t.to_str().unwrap(),
            "--from",
            csv.to_str().unwrap(),
            "--row-kind-column",
            "op",
        ]);
        let latest = Table::open(Arc::new(LocalFileIO::new()), t.to_str().unwrap())
            .unwrap()
            .snapshot_manager()
            .latest_id()
            .unwrap()
            .unwrap();
        let incremental = ScanArgs {
            incremental: Some(format!("0,{latest}")),
            incremental_mode: Some("changelog".into()),
            with_kind: true,
            ..ScanArgs::default()
        };
        let changes = ScanArgs {
            changes_since: Some(0),
            with_kind: true,
            ..ScanArgs::default()
        };
        let java_incremental = java_changelog(&t, &format!("0,{latest}"));
        let java_changes = canonical(java_dump(&t, &["--changes-since", "0", "--with-kind"]));
        assert_eq!(
            canonical(ours(&t, &incremental)),
            java_incremental,
            "dv {dv}"
        );
        assert_eq!(canonical(ours(&t, &changes)), java_changes, "dv {dv}");
        // Every record written, kinds kept, in the streaming read.
        let want = [
            r#"{"_ROW_KIND":"+I","id":1,"v":"a"}"#,
            r#"{"_ROW_KIND":"+I","id":2,"v":"b"}"#,
            r#"{"_ROW_KIND":"+U","id":1,"v":"A"}"#,
            r#"{"_ROW_KIND":"-D","id":2,"v":null}"#,
        ];
        assert_eq!(
            java_changes,
            canonical(want.map(String::from).to_vec()),
            "dv {dv}"
        );
        assert_eq!(
            java_incremental.is_empty(),
            dv,
            "dv {dv}: {java_incremental:?}"
        );
    }
}

/// Three writes (keys 0..200, 195..205, 0..3) by `paimon write` into one table and by Java's
/// writer (`prepare-messages --commit`) into another, both made with `options`: the same
/// files per level after each write, the same snapshots, the same rows, and the same
/// changelog over every snapshot, which is returned.
fn writes_as_java_writers_do(options: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("ours");
    let java = dir.path().join("java");
    let schema = r#"{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}]}"#;
    for t in [&mine, &java] {
        let mut all = vec!["bucket=1"];
        all.extend_from_slice(options);
        create_id_table(t, schema, &all);
    }
    // Small writes over a big run: level 0 is forced up to the level above the run, and the
    // old rows of its keys are looked up below (levels 5, then 4 and 5).
    for (n, (from, to)) in [(0, 200), (195, 205), (0, 3)].into_iter().enumerate() {
        let input = dir.path().join(format!("w{n}.jsonl"));
        let rows: String = (from..to)
            .map(|i| format!("{{\"id\":{i},\"v\":\"java-{i}\"}}\n"))
            .collect();
        std::fs::write(&input, rows).unwrap();
        paimon(&[
            "write",
            mine.to_str().unwrap(),
            "--from",
            input.to_str().unwrap(),
        ]);
        let msgs = dir.path().join(format!("m{n}"));
        oracle(&[
            "prepare-messages",
            java.to_str().unwrap(),
            msgs.to_str().unwrap(),
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--commit",
            "true",
        ]);
        assert_eq!(
            live_levels(&mine),
            live_levels(&java),
            "{options:?} after write {n}"
        );
    }
    let latest = |t: &Path| {
        Table::open(Arc::new(LocalFileIO::new()), t.to_str().unwrap())
            .unwrap()
            .snapshot_manager()
            .latest_id()
            .unwrap()
            .unwrap()
    };
    assert_eq!(latest(&mine), latest(&java), "snapshots made");
    // Java's streaming read of every snapshot's changelog (its `incremental-between` read of a
    // deletion-vector table skips level 0, where the `input` producer's changelog lies).
    let changes = |t: &Path| canonical(java_dump(t, &["--changes-since", "0", "--with-kind"]));
    let ours = changes(&mine);
    assert_eq!(ours, changes(&java), "{options:?}");
    assert_eq!(java_dump(&mine, &[]), java_dump(&java, &[]), "{options:?}");
    ours
}

#[test]
fn dynamic_bucket_full_as_java() {
    check("pk.db/dynamic_bucket", true, true);
}

#[test]
fn dynamic_bucket_minor_as_java() {
    check("pk.db/dynamic_bucket", false, false);
}

/// Compaction handed out as task files: `paimon compact --plan-only` writes one per bucket,
/// a `paimon compact-task` process runs each, and `paimon commit` commits their messages. The
/// table (deletion vectors: lookup tasks that mark older copies) ends as one `paimon compact`
/// leaves a copy of it, and Java reads the same rows from both; a damaged task file is refused
/// with its name and nothing is written.
#[test]
fn compaction_tasks_run_in_other_processes_as_in_one() {
    let dir = tempfile::tempdir().unwrap();
    let t = dv_big_run_then_five_small_writes(dir.path());
    let one = dir.path().join("one-process");
    copy_dir(&t, &one);
    paimon(&["compact", one.to_str().unwrap()]);
    let ts = t.to_str().unwrap();
    let tasks = dir.path().join("tasks");
    paimon(&[
        "compact",
        ts,
        "--plan-only",
        "--out-dir",
        tasks.to_str().unwrap(),
    ]);
    let mut task_files: Vec<_> = std::fs::read_dir(&tasks)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    task_files.sort();
    assert_eq!(task_files.len(), 2, "one task per bucket: {task_files:?}");
    let before = live_levels(&t);
    let mut messages = Vec::new();
    for (i, f) in task_files.iter().enumerate() {
        let out = dir.path().join(format!("messages-{i}"));
        paimon(&[
            "compact-task",
            ts,
            f.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
        ]);
        for m in std::fs::read_dir(&out).unwrap() {
            messages.push(m.unwrap().path().to_str().unwrap().to_string());
        }
    }
    assert_eq!(live_levels(&t), before, "running tasks commits nothing");
    let mut args = vec!["commit", ts];
    args.extend(messages.iter().map(String::as_str));
    paimon(&args);
    assert_eq!(latest_commit_kind(&t), "COMPACT");
    assert_eq!(live_levels(&t), live_levels(&one));
    assert_eq!(java_dump(&t, &[]), java_dump(&one, &[]));

    let bad = dir.path().join("bad.bin");
    let mut bytes = std::fs::read(&task_files[0]).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&bad, bytes).unwrap();
    let out_dir = dir.path().join("bad-out");
    let out = Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args([
            "compact-task",
            ts,
            bad.to_str().unwrap(),
            "--out-dir",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("bad.bin"), "{err}");
    assert!(!out_dir.exists());
}
