//! Format tables (`type = format-table`, Java `FormatTable`: Hive-style directories of plain
//! Parquet, ORC, CSV or JSON files, partitioned by `k=v/` path segments, no snapshots). `paimon read` reads the
//! tables pypaimon 2.1 and Java 1.4.2 wrote (fixtures/format-table, rows kept here), `paimon
//! write` appends and overwrites partitions, in Parquet, ORC, CSV (with Java's `csv.*`
//! options) and JSON files rolled at `target-file-size`, that Java 1.4.2 then reads (its
//! filesystem catalog loads a format table as `FormatTable`), and every other command still
//! refuses them. Before
//! issue 45 every command refused format tables, so each test here but the last failed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::write_cmd::{canonical, ok, paimon, s};

/// The refusal of everything but reading and writing
/// (`paimon_spec::options::FORMAT_TABLE_UNSUPPORTED`).
const REFUSAL: &str = "format tables (type = format-table) are only read and written";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/format-table")
        .join(name)
}

/// `paimon read TABLE ARGS --format jsonl`, canonical and sorted.
fn our_rows(table: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["read", s(table), "--format", "jsonl"];
    all.extend_from_slice(args);
    canonical(
        ok(&all)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect(),
    )
}

/// Java 1.4.2's rows of the format table `db.NAME` of the filesystem catalog `wh`.
fn java_rows(wh: &Path, name: &str) -> Vec<String> {
    let out = crate::maintenance::oracle(&[
        "catalog-dump",
        "--catalog-option",
        &format!("warehouse={}", s(wh)),
        &format!("db.{name}"),
    ]);
    canonical(
        out.lines()
            .map(|l| serde_json::from_str(l).expect("oracle JSON line"))
            .collect(),
    )
}

fn rows(lines: &[&str]) -> Vec<String> {
    canonical(
        lines
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect(),
    )
}

/// Every file under `root`, relative, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// A Parquet format table `db.NAME` in the filesystem catalog `wh`: `schema-0` as Java's
/// `SchemaManager` writes it, no data yet.
fn new_table(wh: &Path, name: &str, fields: &str, partition_keys: &str, options: &str) -> PathBuf {
    new_format_table(wh, name, fields, partition_keys, "parquet", options)
}

/// [`new_table`] in `format` (`file.format`).
fn new_format_table(
    wh: &Path,
    name: &str,
    fields: &str,
    partition_keys: &str,
    format: &str,
    options: &str,
) -> PathBuf {
    let t = wh.join("db.db").join(name);
    std::fs::create_dir_all(t.join("schema")).unwrap();
    std::fs::write(
        t.join("schema/schema-0"),
        format!(
            r#"{{
  "version" : 3,
  "id" : 0,
  "fields" : {fields},
  "highestFieldId" : 9,
  "partitionKeys" : {partition_keys},
  "primaryKeys" : [ ],
  "options" : {{ "type" : "format-table", "file.format" : "{format}"{options} }},
  "timeMillis" : 1781088620905
}}"#
        ),
    )
    .unwrap();
    t
}

const ORDERS: &str = r#"[ { "id" : 0, "name" : "id", "type" : "INT NOT NULL" },
    { "id" : 1, "name" : "item", "type" : "STRING" },
    { "id" : 2, "name" : "dt", "type" : "STRING" },
    { "id" : 3, "name" : "hr", "type" : "INT" } ]"#;

#[test]
fn reads_the_format_tables_pypaimon_wrote() {
    // interop/peers/format_table.py, ROUNDS[0], in Parquet and ORC files.
    let all = rows(&[
        r#"{"id":1,"name":"a","score":1.5,"dt":"2024-01-01","hr":1}"#,
        r#"{"id":2,"name":null,"score":2.5,"dt":"2024-01-01","hr":1}"#,
        r#"{"id":3,"name":"c","score":null,"dt":"2024-01-02","hr":2}"#,
        r#"{"id":4,"name":"d/=:%","score":4.0,"dt":"2024-01-02","hr":3}"#,
    ]);
    for name in ["pypaimon_parquet", "pypaimon_orc"] {
        let t = fixture(name);
        assert_eq!(our_rows(&t, &[]), all, "{name}");
        assert_eq!(
            our_rows(&t, &["--filter", "hr = 3 OR name = 'a'"]),
            rows(&[
                r#"{"id":1,"name":"a","score":1.5,"dt":"2024-01-01","hr":1}"#,
                r#"{"id":4,"name":"d/=:%","score":4.0,"dt":"2024-01-02","hr":3}"#,
            ]),
            "{name}"
        );
        assert_eq!(
            our_rows(&t, &["--select", "hr,id", "--filter", "dt = '2024-01-02'"]),
            rows(&[r#"{"hr":2,"id":3}"#, r#"{"hr":3,"id":4}"#]),
            "{name}"
        );
    }
}

#[test]
fn reads_the_format_tables_java_wrote() {
    // scripts/gen-format-table-fixture.sh: (i, 'java-<i>', i % 2) for i in 0..6.
    let want: Vec<String> = rows(&[
        r#"{"id":0,"v":"java-0","p":0}"#,
        r#"{"id":1,"v":"java-1","p":1}"#,
        r#"{"id":2,"v":"java-2","p":0}"#,
        r#"{"id":3,"v":"java-3","p":1}"#,
        r#"{"id":4,"v":"java-4","p":0}"#,
        r#"{"id":5,"v":"java-5","p":1}"#,
    ]);
    for name in ["java_parquet", "java_csv", "java_json"] {
        let t = fixture(name);
        assert_eq!(our_rows(&t, &[]), want, "{name}");
        assert_eq!(
            ok(&["read", s(&t), "--filter", "p = 1", "--format", "null"]).trim(),
            "3",
            "{name}"
        );
    }
}

#[test]
fn a_filter_on_partition_columns_prunes_their_directories() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let status = Command::new("cp")
        .args(["-r", s(&fixture("pypaimon_parquet")), s(&t)])
        .status()
        .unwrap();
    assert!(status.success());
    // A damaged file in a partition the filter leaves out is never opened.
    let hr3 = t.join("dt=2024-01-02/hr=3");
    let name = std::fs::read_dir(&hr3)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&name, b"PAR1 not parquet").unwrap();
    assert_eq!(
        our_rows(&t, &["--filter", "dt = '2024-01-02' AND hr < 3"]),
        rows(&[r#"{"id":3,"name":"c","score":null,"dt":"2024-01-02","hr":2}"#])
    );
    let out = paimon(&["read", s(&t)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(s(&name)),
        "the error names the damaged file: {err}"
    );
}

#[test]
fn writes_partitions_java_reads_and_overwrites_one() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let t = new_table(&wh, "orders", ORDERS, r#"[ "dt", "hr" ]"#, "");
    let first = dir.path().join("first.jsonl");
    std::fs::write(
        &first,
        concat!(
            r#"{"id":1,"item":"a","dt":"2024-01-01","hr":1}"#,
            "\n",
            r#"{"id":2,"item":null,"dt":"2024-01-01","hr":2}"#,
            "\n",
            r#"{"id":3,"item":"c/d=e","dt":"2024/01:02","hr":1}"#,
            "\n",
            r#"{"id":4,"item":"d","dt":null,"hr":null}"#,
            "\n",
        ),
    )
    .unwrap();
    ok(&["write", s(&t), "--from", s(&first)]);
    let mut written = files(&t);
    written.retain(|f| !f.starts_with("schema"));
    let dirs: Vec<&str> = written
        .iter()
        .map(|f| f.rsplit_once('/').unwrap().0)
        .collect();
    assert_eq!(
        dirs,
        [
            "dt=2024%2F01%3A02/hr=1",
            "dt=2024-01-01/hr=1",
            "dt=2024-01-01/hr=2",
            "dt=__DEFAULT_PARTITION__/hr=__DEFAULT_PARTITION__",
        ]
    );
    for f in &written {
        let name = f.rsplit('/').next().unwrap();
        assert!(
            name.starts_with("data-") && name.ends_with("-0.parquet") && name.len() == 51,
            "Java's data file name: {name}"
        );
    }
    let all = rows(&[
        r#"{"id":1,"item":"a","dt":"2024-01-01","hr":1}"#,
        r#"{"id":2,"item":null,"dt":"2024-01-01","hr":2}"#,
        r#"{"id":3,"item":"c/d=e","dt":"2024/01:02","hr":1}"#,
        r#"{"id":4,"item":"d","dt":null,"hr":null}"#,
    ]);
    assert_eq!(java_rows(&wh, "orders"), all);
    assert_eq!(our_rows(&t, &[]), all);

    // Replace dt=2024-01-01 (both of its hr directories) with two rows.
    let second = dir.path().join("second.jsonl");
    std::fs::write(
        &second,
        concat!(
            r#"{"id":10,"item":"x","dt":"2024-01-01","hr":2}"#,
            "\n",
            r#"{"id":11,"item":"y","dt":"2024-01-01","hr":7}"#,
            "\n",
        ),
    )
    .unwrap();
    ok(&[
        "write",
        s(&t),
        "--from",
        s(&second),
        "--overwrite",
        "--partition",
        "dt=2024-01-01",
    ]);
    let after = rows(&[
        r#"{"id":10,"item":"x","dt":"2024-01-01","hr":2}"#,
        r#"{"id":11,"item":"y","dt":"2024-01-01","hr":7}"#,
        r#"{"id":3,"item":"c/d=e","dt":"2024/01:02","hr":1}"#,
        r#"{"id":4,"item":"d","dt":null,"hr":null}"#,
    ]);
    assert_eq!(java_rows(&wh, "orders"), after);
    assert_eq!(our_rows(&t, &[]), after);
    assert!(
        files(&t).iter().all(|f| !f.contains("_temporary")),
        "no temporary file is left: {:?}",
        files(&t)
    );

    // Rows outside the partition named are refused, and nothing changes.
    let before = files(&t);
    let out = paimon(&[
        "write",
        s(&t),
        "--from",
        s(&first),
        "--overwrite",
        "--partition",
        "dt=2024-01-01",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(files(&t), before);
}

#[test]
fn a_failed_write_leaves_no_file_and_hostile_partitions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let t = new_table(&wh, "orders", ORDERS, r#"[ "dt", "hr" ]"#, "");
    let bad = dir.path().join("bad.jsonl");
    // The second row breaks `id INT NOT NULL` after the first was written.
    std::fs::write(
        &bad,
        concat!(
            r#"{"id":1,"item":"a","dt":"2024-01-01","hr":1}"#,
            "\n",
            r#"{"id":null,"item":"b","dt":"2024-01-01","hr":1}"#,
            "\n",
        ),
    )
    .unwrap();
    let before = files(&t);
    let out = paimon(&["write", s(&t), "--from", s(&bad)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("null value in non-nullable column id"),
        "{err}"
    );
    assert_eq!(files(&t), before);
    assert!(
        !t.join("dt=2024-01-01/hr=1/_temporary").exists(),
        "the temporary directory is removed"
    );
    assert_eq!(our_rows(&t, &[]), Vec::<String>::new());

    // By value only, `..` would name the directory above the table.
    let v = new_table(
        &wh,
        "by_value",
        ORDERS,
        r#"[ "dt" ]"#,
        r#", "format-table.partition-path-only-value" : "true""#,
    );
    let hostile = dir.path().join("hostile.jsonl");
    std::fs::write(&hostile, r#"{"id":1,"item":"a","dt":"..","hr":1}"#).unwrap();
    let out = paimon(&["write", s(&v), "--from", s(&hostile)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("invalid partition value for dt"), "{err}");
    assert_eq!(files(&wh.join("db.db")).len(), 2, "{:?}", files(&wh));
    // A plain value works, and the directory is the value alone.
    std::fs::write(&hostile, r#"{"id":1,"item":"a","dt":"2024-01-01","hr":1}"#).unwrap();
    ok(&["write", s(&v), "--from", s(&hostile)]);
    assert!(v.join("2024-01-01").is_dir());
    // Not checked with Java: 1.4.2 lists `schema/` of a by-value table as a partition and
    // fails on `schema-0` as a Parquet file (pypaimon and we skip the schema directory).
    assert_eq!(
        our_rows(&v, &[]),
        rows(&[r#"{"id":1,"item":"a","dt":"2024-01-01","hr":1}"#])
    );
}

#[test]
fn other_commands_refuse_a_format_table_and_write_nothing() {
    let t = fixture("java_parquet");
    let before = files(&t);
    let commands: Vec<Vec<&str>> = vec![
        vec!["plan", s(&t)],
        vec!["compact", s(&t)],
        vec!["expire-snapshots", s(&t)],
        vec!["remove-orphan-files", s(&t)],
        vec!["read", s(&t), "--snapshot", "1"],
        vec![
            "write",
            s(&t),
            "--from",
            "x.jsonl",
            "--prepare-only",
            "--out-dir",
            "x",
        ],
    ];
    for args in commands {
        let out = paimon(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "paimon {args:?}: {err}");
        assert!(
            err.contains(REFUSAL) || err.contains("is a format table"),
            "paimon {args:?}: {err}"
        );
        assert_eq!(files(&t), before, "paimon {args:?} changed the table");
    }
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new_ft");
    let out = paimon(&[
        "create-table",
        s(&new),
        "--schema",
        r#"{"fields":[{"name":"id","type":"INT"}]}"#,
        "--option",
        "type=format-table",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(REFUSAL), "{err}");
    assert!(!new.join("schema/schema-0").exists());
}

/// Columns of every scalar kind the text formats write, partitioned by `p`.
const TYPED: &str = r#"[ { "id" : 0, "name" : "id", "type" : "INT NOT NULL" },
    { "id" : 1, "name" : "s", "type" : "STRING" },
    { "id" : 2, "name" : "d", "type" : "DECIMAL(10, 2)" },
    { "id" : 3, "name" : "day", "type" : "DATE" },
    { "id" : 4, "name" : "ts", "type" : "TIMESTAMP(3)" },
    { "id" : 5, "name" : "f", "type" : "DOUBLE" },
    { "id" : 6, "name" : "b", "type" : "BOOLEAN" },
    { "id" : 7, "name" : "big", "type" : "BIGINT" },
    { "id" : 8, "name" : "p", "type" : "STRING" } ]"#;

/// The rows written into each typed table, in the oracle's encoding (what `--from` takes and
/// both `paimon read --format jsonl` and the oracle print): nulls in every column, a negative
/// decimal, dates and timestamps before the epoch, strings holding the field delimiters,
/// quotes and escape characters of the CSV variants.
const TYPED_ROWS: [&str; 4] = [
    r#"{"id":1,"s":"plain","d":"12.30","day":"2024-01-02","ts":"2024-01-02T03:04:05.123","f":1.5,"b":true,"big":9007199254740993,"p":"x"}"#,
    r#"{"id":2,"s":null,"d":null,"day":null,"ts":null,"f":null,"b":null,"big":null,"p":"x"}"#,
    r#"{"id":3,"s":"a,b;c \"q\" 'q' back\\slash","d":"-0.01","day":"1960-06-15","ts":"1960-06-15T12:00:00.500","f":-2.5E-7,"b":false,"big":-1,"p":"y"}"#,
    r#"{"id":4,"s":"tab\tand | pipe","d":"99999999.99","day":"1970-01-01","ts":"1970-01-01T00:00:01.000","f":1.0E300,"b":true,"big":0,"p":"__p__"}"#,
];

/// The file names of `t`'s partition `dir`, sorted.
fn names_in(t: &Path, dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(t.join(dir))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn writes_orc_csv_and_json_tables_java_reads() {
    // Before issue 45's second part `paimon write` refused every format but Parquet.
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let from = dir.path().join("rows.jsonl");
    std::fs::write(&from, TYPED_ROWS.join("\n")).unwrap();
    let want = rows(&TYPED_ROWS);
    let variants: [(&str, &str, &str); 5] = [
        ("orc_t", "orc", ""),
        ("json_t", "json", ""),
        ("csv_t", "csv", ""),
        // Java's fallback key for the delimiter, a header, a null literal, another quote
        // and escape character and CRLF records.
        (
            "csv_opts",
            "csv",
            r#", "field-delimiter" : ";", "csv.include-header" : "true",
               "csv.null-literal" : "NULL", "csv.quote-character" : "'",
               "csv.escape-character" : "|", "csv.line-delimiter" : "\r\n""#,
        ),
        ("csv_tab", "csv", r#", "csv.field-delimiter" : "\t""#),
    ];
    for (name, format, options) in variants {
        let t = new_format_table(&wh, name, TYPED, r#"[ "p" ]"#, format, options);
        ok(&["write", s(&t), "--from", s(&from)]);
        for part in ["p=x", "p=y", "p=__p__"] {
            let names = names_in(&t, part);
            assert_eq!(names.len(), 1, "{name} {part}: {names:?}");
            let n = &names[0];
            assert!(
                n.starts_with("data-") && n.ends_with(&format!("-0.{format}")),
                "{name}: Java's data file name: {n}"
            );
        }
        assert_eq!(java_rows(&wh, name), want, "Java 1.4.2 reads {name}");
        assert_eq!(our_rows(&t, &[]), want, "paimon read {name}");
    }
    // The spelling Java's writers use, by hand: CSV by position, without partition columns,
    // the escape character before quotes and escape characters inside quotes.
    let csv = std::fs::read_to_string(t_file(&wh.join("db.db/csv_opts"), "p=y")).unwrap();
    assert_eq!(
        csv,
        "id;s;d;day;ts;f;b;big\r\n3;'a,b;c \"q\" |'q|' back\\slash';-0.01;1960-06-15;\
         1960-06-15 12:00:00.500;-2.5E-7;false;-1\r\n"
    );
    let csv = std::fs::read_to_string(t_file(&wh.join("db.db/csv_t"), "p=x")).unwrap();
    assert_eq!(
        csv,
        "1,plain,12.30,2024-01-02,2024-01-02 03:04:05.123,1.5,true,9007199254740993\n2,,,,,,,\n"
    );
    let json = std::fs::read_to_string(t_file(&wh.join("db.db/json_t"), "p=x")).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"id":1,"s":"plain","d":"12.30","day":"2024-01-02","ts":"2024-01-02 03:04:05.123","f":1.5,"b":true,"big":9007199254740993}"#,
            "\n",
            r#"{"id":2,"s":null,"d":null,"day":null,"ts":null,"f":null,"b":null,"big":null}"#,
            "\n"
        )
    );
}

/// The one data file of `t`'s partition `dir`.
fn t_file(t: &Path, dir: &str) -> PathBuf {
    let names = names_in(t, dir);
    assert_eq!(names.len(), 1, "{names:?}");
    t.join(dir).join(&names[0])
}

#[test]
fn a_line_break_in_a_csv_string_is_quoted_and_read_back() {
    // Java 1.4.2 writes the same quoted field but its CSV reader splits records at every line
    // break, quoted or not, so it does not read this row back (docs/guide/writing.md).
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let t = new_format_table(&wh, "nl", ORDERS, r#"[ "dt" ]"#, "csv", "");
    let from = dir.path().join("rows.jsonl");
    let lines = [
        r#"{"id":1,"item":"line one\nline \"two\"\r\n","dt":"d","hr":1}"#,
        r#"{"id":2,"item":"after","dt":"d","hr":2}"#,
    ];
    std::fs::write(&from, lines.join("\n")).unwrap();
    ok(&["write", s(&t), "--from", s(&from)]);
    assert_eq!(
        std::fs::read_to_string(t_file(&t, "dt=d")).unwrap(),
        "1,\"line one\nline \\\"two\\\"\r\n\",1\n2,after,2\n"
    );
    assert_eq!(our_rows(&t, &[]), rows(&lines));
}

#[test]
fn files_roll_at_the_target_file_size_and_java_reads_them_all() {
    // Java's FormatTableRollingFileWriter checks the size every 1,000 rows: with a 1 KiB
    // target, 2,500 rows of one partition make files of 1,000, 1,000 and 500 rows, named
    // data-<one uuid>-0, -1 and -2. Before this change each partition got one file.
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let from = dir.path().join("rows.jsonl");
    let mut text = String::new();
    for i in 0..2500 {
        text.push_str(&format!(
            r#"{{"id":{i},"item":"item-{i}","dt":"{}","hr":1}}"#,
            if i < 2499 { "a" } else { "b" }
        ));
        text.push('\n');
    }
    std::fs::write(&from, text).unwrap();
    for format in ["parquet", "csv", "orc", "json"] {
        let name = format!("roll_{format}");
        let t = new_format_table(
            &wh,
            &name,
            ORDERS,
            r#"[ "dt" ]"#,
            format,
            r#", "target-file-size" : "1 kb""#,
        );
        ok(&["write", s(&t), "--from", s(&from)]);
        let names = names_in(&t, "dt=a");
        assert_eq!(names.len(), 3, "{format}: {names:?}");
        let uuid = &names[0][..41];
        for (n, name) in names.iter().enumerate() {
            assert_eq!(name, &format!("{uuid}-{n}.{format}"), "{format}");
        }
        assert_eq!(names_in(&t, "dt=b").len(), 1, "{format}");
        let java = crate::maintenance::oracle(&[
            "catalog-dump",
            "--catalog-option",
            &format!("warehouse={}", s(&wh)),
            &format!("db.{name}"),
        ]);
        let ids: std::collections::BTreeSet<i64> = java
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            ids,
            (0..2500).collect(),
            "Java 1.4.2 reads every row of {format}"
        );
        assert_eq!(
            ok(&["read", s(&t), "--format", "null"]).trim(),
            "2500",
            "{format}"
        );
    }
}

#[test]
fn sql_reads_inserts_and_overwrites_format_tables_java_reads() {
    // Before issue 45's SQL part every statement on a format table failed with the refusal.
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    new_format_table(&wh, "sql_csv", ORDERS, r#"[ "dt" ]"#, "csv", "");
    new_format_table(
        &wh,
        "sql_whole",
        ORDERS,
        r#"[ "dt" ]"#,
        "json",
        r#", "dynamic-partition-overwrite" : "false""#,
    );
    let sql = |q: &str| ok(&["sql", s(&wh), q]);
    let select = |q: &str| -> Vec<String> {
        canonical(
            ok(&["sql", s(&wh), q, "--format", "jsonl"])
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
        )
    };
    for t in ["sql_csv", "sql_whole"] {
        sql(&format!(
            "INSERT INTO db.{t} VALUES (1, 'a, \"b\"', '2024-01-01', 1), (2, NULL, '2024-01-02', 2)"
        ));
        let first = rows(&[
            r#"{"id":1,"item":"a, \"b\"","dt":"2024-01-01","hr":1}"#,
            r#"{"id":2,"item":null,"dt":"2024-01-02","hr":2}"#,
        ]);
        assert_eq!(java_rows(&wh, t), first, "{t}");
        let pruned = select(&format!(
            "SELECT id, hr FROM db.{t} WHERE dt = '2024-01-02'"
        ));
        assert_eq!(pruned, rows(&[r#"{"id":2,"hr":2}"#]), "{t}");
        // Replaces the partitions written, or with dynamic-partition-overwrite = false the
        // whole table.
        sql(&format!(
            "INSERT OVERWRITE db.{t} VALUES (3, 'c', '2024-01-01', 3)"
        ));
        let after = if t == "sql_csv" {
            rows(&[
                r#"{"id":2,"item":null,"dt":"2024-01-02","hr":2}"#,
                r#"{"id":3,"item":"c","dt":"2024-01-01","hr":3}"#,
            ])
        } else {
            rows(&[r#"{"id":3,"item":"c","dt":"2024-01-01","hr":3}"#])
        };
        assert_eq!(java_rows(&wh, t), after, "{t}");
    }
    sql("INSERT OVERWRITE db.sql_csv PARTITION (dt = '2024-01-02') SELECT 4 AS id, 'd' AS item, 4 AS hr");
    let last = rows(&[
        r#"{"id":3,"item":"c","dt":"2024-01-01","hr":3}"#,
        r#"{"id":4,"item":"d","dt":"2024-01-02","hr":4}"#,
    ]);
    assert_eq!(java_rows(&wh, "sql_csv"), last);
    assert_eq!(select("SELECT * FROM db.sql_csv"), last);
    let out = paimon(&["sql", s(&wh), "SELECT * FROM db.sql_csv$snapshots"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a format table"), "{err}");
}
