//! `paimon sql` (paimon-datafusion) against Java's rows: every fixture case of
//! `fixtures/expected` written as SQL (time travel with `VERSION AS OF`, branches as
//! `t$branch_b`, row kinds from `t$audit_log`, filters as `WHERE`), aggregates and joins
//! computed from Java's rows, and the plans DataFusion makes.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use clap::Parser;
use paimon_cli::compare::diff_rows;
use paimon_cli::read_cmd::output_fields;
use paimon_cli::rows::batch_to_json_rows;
use paimon_cli::scan_args::ScanArgs;
use paimon_datafusion::sql;
use paimon_spec::types::{DataField, DataType, TypeKind};
use serde_json::Value;

use crate::fixtures::cases;
use crate::paths::repo;
use crate::skips::skip_reason;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    scan: ScanArgs,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn warehouse() -> String {
    repo()
        .join("fixtures/warehouse")
        .to_string_lossy()
        .to_string()
}

/// Runs `query` on the fixture warehouse.
fn run(rt: &tokio::runtime::Runtime, query: &str) -> Result<Vec<RecordBatch>, String> {
    rt.block_on(async {
        let ctx = sql::session(&warehouse()).map_err(|e| e.to_string())?;
        let df = sql::query(&ctx, query).await.map_err(|e| e.to_string())?;
        df.collect().await.map_err(|e| e.to_string())
    })
}

fn json_rows(batches: &[RecordBatch], fields: &[DataField]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for b in batches {
        for r in batch_to_json_rows(b, fields).map_err(|e| format!("{e:#}"))? {
            out.push(r.to_string());
        }
    }
    Ok(out)
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The SQL of a case's `dump` options; `columns` are the table's.
fn case_sql(db: &str, table: &str, scan: &ScanArgs, columns: &[DataField]) -> String {
    let mut name = table.to_string();
    if let Some(b) = &scan.branch {
        name.push_str(&format!("$branch_{b}"));
    }
    let selected: Vec<String> = match &scan.select {
        Some(s) => s.split(',').map(|c| c.trim().to_string()).collect(),
        None => columns.iter().map(|f| f.name.clone()).collect(),
    };
    if scan.with_kind {
        name.push_str("$audit_log");
    } else if selected
        .iter()
        .any(|c| c == "_ROW_ID" || c == "_SEQUENCE_NUMBER")
    {
        name.push_str("$row_tracking");
    }
    let mut version = String::new();
    if let Some(n) = scan.snapshot {
        version = format!(" VERSION AS OF {n}");
    }
    if let Some(t) = &scan.tag {
        version = format!(" VERSION AS OF '{t}'");
    }
    if let Some(inc) = &scan.incremental {
        name.push_str(&format!("@incremental={}", inc.replace(' ', "")));
        if let Some(m) = &scan.incremental_mode {
            name.push_str(&format!(",{m}"));
        }
    }
    if let Some(n) = scan.changes_since {
        name.push_str(&format!("@changes-since={n}"));
    }
    let mut cols: Vec<String> = match &scan.select {
        Some(_) => selected.iter().map(|c| quote(c)).collect(),
        None => vec!["*".into()],
    };
    if scan.with_kind {
        // the audit log's own leading column is `rowkind`; Java's dump names it `_ROW_KIND`
        cols = selected.iter().map(|c| quote(c)).collect();
        cols.insert(0, "rowkind AS \"_ROW_KIND\"".into());
    }
    let mut q = format!(
        "SELECT {} FROM {db}.{}{version}",
        cols.join(", "),
        quote(&name)
    );
    if let Some(f) = &scan.filter {
        q.push_str(&format!(" WHERE {f}"));
    }
    q
}

fn run_case(
    rt: &tokio::runtime::Runtime,
    table: &Path,
    args: &[String],
    expected: &Path,
) -> Result<(), String> {
    let cli = Cli::try_parse_from(std::iter::once("read".to_string()).chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    let t = table.file_name().unwrap().to_string_lossy().to_string();
    let db = table
        .parent()
        .and_then(Path::file_name)
        .map(|d| d.to_string_lossy().trim_end_matches(".db").to_string())
        .unwrap();
    let opened = cli
        .scan
        .open(&table.to_string_lossy())
        .map_err(|e| format!("{e:#}"))?;
    let query = case_sql(&db, &t, &cli.scan, &opened.schema.fields);
    let mut fields =
        output_fields(&opened.schema, opened.select.as_deref()).map_err(|e| e.to_string())?;
    if cli.scan.with_kind {
        fields.insert(0, DataField::new(i32::MIN, "_ROW_KIND", DataType::string()));
    }
    let batches = run(rt, &query).map_err(|e| format!("{query}: {e}"))?;
    let got = json_rows(&batches, &fields)?;
    let want: Vec<String> = std::fs::read_to_string(expected)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_string)
        .collect();
    match diff_rows(&want, &got, &fields) {
        None => Ok(()),
        Some(d) => Err(format!("{query}: {d}")),
    }
}

#[test]
fn sql_reads_every_fixture_case_as_java() {
    let rt = runtime();
    let cases = cases();
    assert!(cases.len() > 100, "only {} cases found", cases.len());
    let (mut passed, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    let mut unexpected_passes = Vec::new();
    for (case, table, args, expected) in &cases {
        let sql_case = format!("sql:{case}");
        let skip = skip_reason(case).or_else(|| skip_reason(&sql_case));
        match (skip, run_case(&rt, table, args, expected)) {
            (None, Ok(())) => passed += 1,
            (None, Err(e)) => failures.push(format!("FAIL {case} {args:?}: {e}")),
            (Some(_), Err(_)) => skipped += 1,
            (Some(_), Ok(())) => unexpected_passes.push(case.clone()),
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    eprintln!(
        "sql: {} cases, {passed} passed, {} failed, {skipped} skipped (skips.rs)",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{} SQL cases failed", failures.len());
    assert!(
        unexpected_passes.is_empty(),
        "skipped SQL cases now pass, remove them from skips.rs: {unexpected_passes:?}"
    );
}

/// Java's latest rows of `db/table` as JSON objects.
fn java_rows(db: &str, table: &str) -> Vec<serde_json::Map<String, Value>> {
    let p = repo().join(format!("fixtures/expected/{db}/{table}/latest.jsonl"));
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str(l).unwrap() {
            Value::Object(m) => m,
            other => panic!("not a row: {other}"),
        })
        .collect()
}

/// The one row of an aggregate query, as JSON values.
fn one_row(rt: &tokio::runtime::Runtime, query: &str, fields: &[DataField]) -> Vec<Value> {
    let batches = run(rt, query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let rows = json_rows(&batches, fields).unwrap();
    assert_eq!(rows.len(), 1, "{query}");
    let v: serde_json::Map<String, Value> = serde_json::from_str(&rows[0]).unwrap();
    fields.iter().map(|f| v[&f.name].clone()).collect()
}

fn bigint(name: &str) -> DataField {
    DataField::new(0, name, DataType::nullable(TypeKind::BigInt))
}

/// Tables whose latest rows Java lists, with their Paimon fields.
fn aggregate_tables() -> Vec<(String, String, Vec<DataField>, Vec<String>)> {
    let mut out = Vec::new();
    for (case, table, args, _) in cases() {
        if !args.is_empty() || !case.ends_with("/latest.jsonl") || case.contains("/branch-") {
            continue;
        }
        if skip_reason(&case).is_some() {
            continue;
        }
        let t = table.file_name().unwrap().to_string_lossy().to_string();
        let db = case.split('/').next().unwrap().to_string();
        let opened = ScanArgs::default().open(&table.to_string_lossy()).unwrap();
        out.push((
            db,
            t,
            opened.schema.fields.clone(),
            opened.schema.partition_keys.clone(),
        ));
    }
    out
}

#[test]
fn sql_aggregates_equal_those_of_javas_rows() {
    let rt = runtime();
    let tables = aggregate_tables();
    assert!(tables.len() > 30, "only {} tables", tables.len());
    let mut checked = 0;
    for (db, t, fields, partition_keys) in &tables {
        let rows = java_rows(db, t);
        let name = format!("{db}.{}", quote(t));
        // count(*)
        let got = one_row(
            &rt,
            &format!("SELECT count(*) AS n FROM {name}"),
            &[bigint("n")],
        );
        assert_eq!(got[0], Value::from(rows.len()), "{name}: count(*)");
        checked += 1;
        // sum / min / max / count per integer column, min / max per string column
        for f in fields {
            let integer = matches!(
                f.data_type.kind,
                TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt
            );
            let string = matches!(f.data_type.kind, TypeKind::VarChar { .. });
            if !integer && !string {
                continue;
            }
            let values: Vec<&Value> = rows
                .iter()
                .map(|r| &r[&f.name])
                .filter(|v| !v.is_null())
                .collect();
            let c = quote(&f.name);
            if integer {
                let ints: Vec<i128> = values
                    .iter()
                    .map(|v| i128::from(v.as_i64().unwrap()))
                    .collect();
                let q = format!(
                    "SELECT CAST(sum(CAST({c} AS DECIMAL(38, 0))) AS VARCHAR) AS s, CAST(min({c}) AS BIGINT) AS lo, CAST(max({c}) AS BIGINT) AS hi, count({c}) AS n FROM {name}"
                );
                let got = one_row(
                    &rt,
                    &q,
                    &[
                        DataField::new(0, "s", DataType::string()),
                        bigint("lo"),
                        bigint("hi"),
                        bigint("n"),
                    ],
                );
                let sum = (!ints.is_empty()).then(|| ints.iter().sum::<i128>().to_string());
                let want = vec![
                    sum.map_or(Value::Null, Value::from),
                    ints.iter()
                        .min()
                        .map_or(Value::Null, |v| Value::from(*v as i64)),
                    ints.iter()
                        .max()
                        .map_or(Value::Null, |v| Value::from(*v as i64)),
                    Value::from(ints.len()),
                ];
                assert_eq!(got, want, "{q}");
            } else {
                let strs: Vec<&str> = values.iter().map(|v| v.as_str().unwrap()).collect();
                let q =
                    format!("SELECT min({c}) AS lo, max({c}) AS hi, count({c}) AS n FROM {name}");
                let got = one_row(
                    &rt,
                    &q,
                    &[
                        DataField::new(0, "lo", DataType::string()),
                        DataField::new(1, "hi", DataType::string()),
                        bigint("n"),
                    ],
                );
                let want = vec![
                    strs.iter().min().map_or(Value::Null, |v| Value::from(*v)),
                    strs.iter().max().map_or(Value::Null, |v| Value::from(*v)),
                    Value::from(strs.len()),
                ];
                assert_eq!(got, want, "{q}");
            }
            checked += 1;
        }
        // group by the first partition key
        if let Some(p) = partition_keys.first() {
            let pf = fields.iter().find(|f| &f.name == p).unwrap().clone();
            let mut want: BTreeMap<String, i64> = BTreeMap::new();
            for r in &rows {
                *want.entry(r[p].to_string()).or_default() += 1;
            }
            let q = format!(
                "SELECT {}, count(*) AS n FROM {name} GROUP BY {}",
                quote(p),
                quote(p)
            );
            let batches = run(&rt, &q).unwrap_or_else(|e| panic!("{q}: {e}"));
            let got_rows = json_rows(&batches, &[pf.clone(), bigint("n")]).unwrap();
            let mut got: BTreeMap<String, i64> = BTreeMap::new();
            for r in got_rows {
                let v: serde_json::Map<String, Value> = serde_json::from_str(&r).unwrap();
                got.insert(v[p].to_string(), v["n"].as_i64().unwrap());
            }
            assert_eq!(got, want, "{q}");
            checked += 1;
        }
    }
    eprintln!("sql aggregates: {} tables, {checked} checks", tables.len());
}

#[test]
fn sql_joins_equal_the_join_of_javas_rows() {
    let rt = runtime();
    for (a, b) in [
        (("pk", "dedup_uncompacted"), ("pk", "dedup_compacted")),
        (("append", "unaware"), ("pk", "dedup_uncompacted")),
        (("append", "fixed_bucket"), ("append", "unaware")),
    ] {
        let (ra, rb) = (java_rows(a.0, a.1), java_rows(b.0, b.1));
        let mut pairs = 0i64;
        let mut sum = 0i64;
        for x in &ra {
            for y in &rb {
                match (x["id"].as_i64(), y["id"].as_i64()) {
                    (Some(i), Some(j)) if i == j => {
                        pairs += 1;
                        sum += i;
                    }
                    _ => {}
                }
            }
        }
        let q = format!(
            "SELECT count(*) AS n, CAST(sum(x.id) AS BIGINT) AS s FROM {}.{} x JOIN {}.{} y ON x.id = y.id",
            a.0, a.1, b.0, b.1
        );
        let got = one_row(&rt, &q, &[bigint("n"), bigint("s")]);
        let want_sum = if pairs == 0 {
            Value::Null
        } else {
            Value::from(sum)
        };
        assert_eq!(got, vec![Value::from(pairs), want_sum], "{q}");
        assert!(
            pairs > 0,
            "{q}: the join matches nothing, pick other tables"
        );
    }
}

fn explain(rt: &tokio::runtime::Runtime, query: &str) -> String {
    let batches = run(rt, &format!("EXPLAIN {query}")).unwrap();
    arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

#[test]
fn explain_shows_pushed_filters_partitions_and_statistics() {
    let rt = runtime();
    let plan = explain(
        &rt,
        "SELECT id, name FROM append.unaware WHERE id < 10 AND name LIKE 'name-%'",
    );
    assert!(plan.contains("PaimonScanExec"), "{plan}");
    assert!(
        plan.contains("predicate=(id < 10) AND (name STARTS WITH 'name-')"),
        "{plan}"
    );
    // both filters are exact: no FilterExec is left above the scan
    assert!(!plan.contains("FilterExec"), "{plan}");
    assert!(plan.contains("partitions="), "{plan}");
    // a float comparison is pushed for pruning and filtered again
    let plan = explain(&rt, "SELECT id FROM append.unaware WHERE price > 1.5");
    assert!(plan.contains("predicate=price > 1.5"), "{plan}");
    assert!(plan.contains("FilterExec"), "{plan}");
    // count(*) of an append table comes from the manifests' row counts: nothing is scanned
    let plan = explain(&rt, "SELECT count(*) FROM append.unaware");
    assert!(!plan.contains("PaimonScanExec"), "{plan}");
    // a primary-key table with overlapping files must be merged to count
    let plan = explain(&rt, "SELECT count(*) FROM pk.dedup_uncompacted");
    assert!(plan.contains("PaimonScanExec"), "{plan}");
}

#[test]
fn scans_are_split_into_partitions() {
    let rt = runtime();
    // append.fixed_bucket has 3 buckets, so at least 3 splits to deal out
    let plan = explain(&rt, "SELECT * FROM append.fixed_bucket");
    let parts: usize = plan
        .split("partitions=")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{plan}"));
    assert!(parts > 1, "one partition for the whole table: {plan}");
}

#[test]
fn errors_name_the_table_or_column() {
    let rt = runtime();
    for (query, needle) in [
        ("SELECT * FROM pk.no_such_table", "no_such_table"),
        (
            "SELECT no_such_column FROM pk.dedup_uncompacted",
            "no_such_column",
        ),
        ("SELEC 1", "SELEC"),
        (
            "SELECT * FROM pk.dedup_uncompacted VERSION AS OF 999",
            "999",
        ),
        (
            "SELECT * FROM pk.dedup_uncompacted VERSION AS OF 'no_tag'",
            "no_tag",
        ),
        ("SELECT * FROM pk.\"dedup_uncompacted$nope\"", "nope"),
    ] {
        let e = run(&rt, query).unwrap_err();
        assert!(e.contains(needle), "{query}: {e}");
    }
}

#[test]
fn a_selective_filter_reads_a_small_fraction_of_the_bytes() {
    use paimon_io::CountingFileIO;
    let rt = runtime();
    let io = Arc::new(CountingFileIO::new(Arc::new(paimon_io::LocalFileIO::new())));
    let catalog = paimon_datafusion::PaimonCatalogProvider::with_io(io.clone(), &warehouse());
    let ctx = sql::session_with_catalog(catalog, datafusion::prelude::SessionConfig::new());
    let count = |q: &str| -> (u64, usize) {
        io.reset();
        let n = rt.block_on(async {
            let df = sql::query(&ctx, q).await.unwrap();
            df.collect()
                .await
                .unwrap()
                .iter()
                .map(RecordBatch::num_rows)
                .sum::<usize>()
        });
        (io.bytes_read(), n)
    };
    // part_multi is partitioned by region: one partition's rows are a fraction of the files
    let (all, all_rows) = count("SELECT * FROM append.part_multi");
    let (one, one_rows) = count("SELECT * FROM append.part_multi WHERE region = ''");
    assert!(
        one_rows > 0 && one_rows < all_rows,
        "{one_rows} of {all_rows}"
    );
    assert!(one * 2 < all, "filtered read {one} bytes, full read {all}");
}

/// `paimon sql` as a process: statements from stdin (a view, then a query of it) print in
/// turn; the JSON lines equal Java's rows for the same filter; errors are one line, exit 1.
#[test]
fn paimon_sql_runs_statements_from_stdin() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_paimon");
    let mut child = Command::new(bin)
        .args(["sql", &warehouse(), "--format", "jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"CREATE VIEW small AS SELECT id, name FROM append.unaware WHERE id < 10;\n\
              SELECT * FROM small;",
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let want: Vec<String> = std::fs::read_to_string(
        repo().join("fixtures/expected/append/unaware/q-select-id-name-lt10.jsonl"),
    )
    .unwrap()
    .lines()
    .map(str::to_string)
    .collect();
    let fields = vec![
        DataField::new(0, "id", DataType::nullable(TypeKind::Int)),
        DataField::new(1, "name", DataType::string()),
    ];
    assert_eq!(diff_rows(&want, &got, &fields), None);
    assert_eq!(got.len(), want.len());

    let out = Command::new(bin)
        .args(["sql", &warehouse(), "SELECT missing FROM append.unaware"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("missing"),
        "{err}"
    );
}

/// Runs `paimon sql WAREHOUSE QUERY [extra...]`: exit code, stdout, stderr.
fn paimon_sql(warehouse: &str, query: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paimon"))
        .args(["sql", warehouse, query, "--format", "csv"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A quoted table name with `..` in it does not leave the warehouse: `"db"."../../x"`, where
/// `x` beside the warehouse links to a fixture table, is refused naming the identifier, and no
/// row is printed.
#[test]
fn paimon_sql_refuses_a_table_name_leaving_the_warehouse() {
    let tmp = tempfile::tempdir().unwrap();
    let wh = tmp.path().join("wh");
    std::fs::create_dir_all(wh.join("db.db")).unwrap();
    let fixture = repo().join("fixtures/warehouse/append.db/unaware");
    std::os::unix::fs::symlink(fixture.canonicalize().unwrap(), tmp.path().join("x")).unwrap();
    let (code, stdout, stderr) = paimon_sql(
        &wh.display().to_string(),
        r#"SELECT count(*) FROM "db"."../../x""#,
        &[],
    );
    assert_eq!(code, Some(1), "stdout: {stdout} stderr: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("../../x") && stderr.contains("not allowed"),
        "{stderr}"
    );
}

/// Local files are out of `paimon sql`'s reach unless `--allow-local-files` is given: COPY TO
/// writes nothing and an external table over a CSV file is refused; with the flag both work.
#[test]
fn paimon_sql_reaches_local_files_only_when_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("in.csv");
    std::fs::write(&csv, "a,b\n1,x\n2,y\n").unwrap();
    let copied = tmp.path().join("out.csv");
    let copy = format!(
        "COPY (SELECT id FROM append.unaware WHERE id < 3) TO '{}' STORED AS CSV",
        copied.display()
    );
    let external = format!(
        "CREATE EXTERNAL TABLE ext STORED AS CSV LOCATION '{}' OPTIONS ('format.has_header' 'true'); \
         SELECT a, b FROM ext ORDER BY a",
        csv.display()
    );
    let wh = warehouse();

    let (code, stdout, stderr) = paimon_sql(&wh, &copy, &[]);
    assert_eq!(code, Some(1), "stdout: {stdout} stderr: {stderr}");
    assert!(stderr.contains("--allow-local-files"), "{stderr}");
    assert!(!copied.exists(), "COPY wrote {}", copied.display());
    let (code, stdout, stderr) = paimon_sql(&wh, &external, &[]);
    assert_eq!(code, Some(1), "stdout: {stdout} stderr: {stderr}");
    assert!(stderr.contains("--allow-local-files"), "{stderr}");
    assert!(!stdout.contains('x'), "{stdout}");

    let (code, _, stderr) = paimon_sql(&wh, &copy, &["--allow-local-files"]);
    assert_eq!(code, Some(0), "{stderr}");
    let written = std::fs::read_to_string(&copied).unwrap();
    let mut ids: Vec<&str> = written.lines().skip(1).collect();
    ids.sort_unstable();
    let want: Vec<String> = std::fs::read_to_string(
        repo().join("fixtures/expected/append/unaware/q-select-id-name-lt10.jsonl"),
    )
    .unwrap()
    .lines()
    .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
    .filter(|id| id.as_i64().is_some_and(|i| i < 3))
    .map(|id| id.to_string())
    .collect();
    let mut want: Vec<&str> = want.iter().map(String::as_str).collect();
    want.sort_unstable();
    assert!(!want.is_empty());
    assert_eq!(ids, want);
    let (code, stdout, stderr) = paimon_sql(&wh, &external, &["--allow-local-files"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.ends_with("1,x\n2,y\n"), "{stdout}");
}
