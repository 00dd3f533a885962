//! [`SqlPolicy`]: what SQL a session runs. A restricted session (what a service gives its
//! clients) reads the warehouse and nothing else: no external tables, no COPY, no table
//! function or URL table over local files, and DDL / DML only when granted. Each refused
//! statement is checked to have read or written nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::Int64Type;
use datafusion::catalog::TableFunctionImpl;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::TableProvider;
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use datafusion::prelude::{SessionConfig, SessionContext};
use paimon_datafusion::sql::{self, Grants, SqlPolicy};
use paimon_test_utils::repo;

fn warehouse() -> String {
    repo().join("fixtures/warehouse").display().to_string()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A session over the fixtures with `policy`.
fn session(policy: SqlPolicy) -> SessionContext {
    let ctx = sql::session_with_config(&warehouse(), SessionConfig::new()).unwrap();
    sql::set_policy(&ctx, policy);
    ctx
}

/// A session over an empty warehouse in `dir` with `policy` (CREATE TABLE writes there).
fn session_in(dir: &Path, policy: SqlPolicy) -> SessionContext {
    let ctx = sql::session_with_config(dir.to_str().unwrap(), SessionConfig::new()).unwrap();
    sql::set_policy(&ctx, policy);
    ctx
}

fn run(ctx: &SessionContext, rt: &tokio::runtime::Runtime, text: &str) -> Result<Vec<RecordBatch>> {
    rt.block_on(async {
        let mut out = Vec::new();
        for s in sql::parse(text)? {
            out.extend(sql::run(ctx, s).await?.collect().await?);
        }
        Ok(out)
    })
}

fn count(batches: &[RecordBatch]) -> i64 {
    batches[0].column(0).as_primitive::<Int64Type>().value(0)
}

/// A directory with `in.csv` (two rows) and the path `out.csv` nothing has written yet.
struct Files {
    _dir: tempfile::TempDir,
    csv: PathBuf,
    out: PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    std::fs::write(&csv, "a,b\n1,x\n2,y\n").unwrap();
    let out = dir.path().join("out.csv");
    Files {
        csv,
        out,
        _dir: dir,
    }
}

#[test]
fn the_default_session_reads_the_warehouse_only() {
    let rt = runtime();
    let f = files();
    let ctx = sql::session(&warehouse()).unwrap();
    let n = count(&run(&ctx, &rt, "SELECT count(*) FROM append.unaware").unwrap());
    assert!(n > 0);
    let copy = format!(
        "COPY (SELECT 1 AS a) TO '{}' STORED AS CSV",
        f.out.display()
    );
    let e = run(&ctx, &rt, &copy).unwrap_err().to_string();
    assert!(e.contains("COPY") && e.contains("local files"), "{e}");
    assert!(!f.out.exists());
    let e = run(&ctx, &rt, "CREATE VIEW v AS SELECT 1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("CREATE VIEW") && e.contains("admin"), "{e}");
}

#[test]
fn restricted_sessions_refuse_local_files_whatever_the_grants() {
    let rt = runtime();
    let f = files();
    let ctx = session(SqlPolicy::restricted(Grants::all()));
    let external = format!(
        "CREATE EXTERNAL TABLE ext STORED AS CSV LOCATION '{}' OPTIONS ('format.has_header' 'true')",
        f.csv.display()
    );
    let e = run(&ctx, &rt, &external).unwrap_err().to_string();
    assert!(
        e.contains("CREATE EXTERNAL TABLE") && e.contains("local files"),
        "{e}"
    );
    assert!(
        run(&ctx, &rt, "SELECT * FROM ext").is_err(),
        "no table was made"
    );
    // The table factories are gone too: a plan made without `sql::run` cannot make one.
    let e = rt
        .block_on(async { ctx.sql(&external).await.map(|_| ()) })
        .unwrap_err()
        .to_string();
    assert!(e.to_lowercase().contains("factory"), "{e}");

    let copy = format!(
        "COPY (SELECT id FROM append.unaware) TO '{}' STORED AS CSV",
        f.out.display()
    );
    let e = run(&ctx, &rt, &copy).unwrap_err().to_string();
    assert!(e.contains("COPY") && e.contains("local files"), "{e}");
    assert!(!f.out.exists(), "COPY wrote {}", f.out.display());
    let insert = format!("INSERT INTO '{}' SELECT 1 AS a", f.out.display());
    assert!(run(&ctx, &rt, &insert).is_err());
    assert!(!f.out.exists());
}

#[test]
fn url_tables_and_file_table_functions_are_refused() {
    let rt = runtime();
    let f = files();
    let by_path = format!("SELECT count(*) FROM '{}'", f.csv.display());
    let url = session(SqlPolicy::restricted(Grants::all())).enable_url_table();
    let e = run(&url, &rt, &by_path).unwrap_err().to_string();
    assert!(e.contains("URL tables") && e.contains("local files"), "{e}");

    let ctx = session(SqlPolicy::restricted(Grants::all()));
    ctx.register_udtf("read_csv", Arc::new(ReadCsv));
    let q = format!("SELECT count(*) FROM read_csv('{}')", f.csv.display());
    let e = run(&ctx, &rt, &q).unwrap_err().to_string();
    assert!(e.contains("read_csv") && e.contains("local files"), "{e}");
    // A policy that lets the function be called still refuses the file scan it plans.
    sql::set_policy(
        &ctx,
        SqlPolicy {
            table_functions: vec!["read_csv".into()],
            ..SqlPolicy::restricted(Grants::all())
        },
    );
    let e = run(&ctx, &rt, &q).unwrap_err().to_string();
    assert!(e.contains("reads local files"), "{e}");
    // With local files allowed the same session reads the file: the refusals are the policy's.
    sql::set_policy(&ctx, SqlPolicy::local_user(true));
    assert_eq!(count(&run(&ctx, &rt, &q).unwrap()), 2);
}

#[test]
fn ddl_and_dml_need_their_grants() {
    let rt = runtime();
    let read_only = session(SqlPolicy::restricted(Grants::READ));
    for (text, needs) in [
        ("CREATE VIEW v AS SELECT 1 AS a", "admin"),
        ("CREATE TABLE m (a INT)", "admin"),
        ("CREATE SCHEMA s", "admin"),
        ("DROP VIEW IF EXISTS v", "admin"),
        ("DROP TABLE IF EXISTS append.unaware", "admin"),
        ("SET datafusion.execution.batch_size = 10", "admin"),
    ] {
        let e = run(&read_only, &rt, text).unwrap_err().to_string();
        assert!(
            e.contains(needs) && e.contains("not granted"),
            "{text}: {e}"
        );
    }
    assert!(
        run(&read_only, &rt, "SELECT * FROM v").is_err(),
        "no view was made"
    );

    // CREATE TABLE writes the warehouse: the sessions that may run it get empty ones.
    let (admin_wh, writer_wh) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let admin = session_in(
        admin_wh.path(),
        SqlPolicy::restricted(Grants {
            read: true,
            write: false,
            admin: true,
        }),
    );
    run(&admin, &rt, "CREATE TABLE m (a BIGINT)").unwrap();
    let e = run(&admin, &rt, "INSERT INTO m VALUES (1), (2)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("write") && e.contains("not granted"), "{e}");
    assert_eq!(
        count(&run(&admin, &rt, "SELECT count(*) FROM m").unwrap()),
        0
    );

    assert!(admin_wh
        .path()
        .join("default.db/m/schema/schema-0")
        .is_file());
    let writer = session_in(writer_wh.path(), SqlPolicy::restricted(Grants::all()));
    run(
        &writer,
        &rt,
        "CREATE TABLE m (a BIGINT); INSERT INTO m VALUES (1), (2)",
    )
    .unwrap();
    assert_eq!(
        count(&run(&writer, &rt, "SELECT count(*) FROM m").unwrap()),
        2
    );

    let blind = session(SqlPolicy::restricted(Grants {
        read: false,
        write: false,
        admin: false,
    }));
    let e = run(&blind, &rt, "SELECT count(*) FROM append.unaware")
        .unwrap_err()
        .to_string();
    assert!(e.contains("read") && e.contains("not granted"), "{e}");
}

/// `read_csv('path')`: a table function scanning a local CSV file, as engines register them.
#[derive(Debug)]
struct ReadCsv;

impl TableFunctionImpl for ReadCsv {
    fn call(&self, args: &[Expr]) -> Result<Arc<dyn TableProvider>> {
        let Some(Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(path)), _)) =
            args.first()
        else {
            return Err(datafusion::error::DataFusionError::Plan(
                "read_csv('path')".into(),
            ));
        };
        let url = ListingTableUrl::parse(path)?;
        let options = ListingOptions::new(Arc::new(CsvFormat::default().with_has_header(true)))
            .with_file_extension(".csv");
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("a", arrow::datatypes::DataType::Int64, true),
            arrow::datatypes::Field::new("b", arrow::datatypes::DataType::Utf8, true),
        ]));
        let config = ListingTableConfig::new(url)
            .with_listing_options(options)
            .with_schema(schema);
        Ok(Arc::new(ListingTable::try_new(config)?))
    }
}

#[test]
fn call_needs_admin_and_compact_needs_write() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let admin = session_in(dir.path(), SqlPolicy::restricted(Grants::all()));
    run(
        &admin,
        &rt,
        "CREATE TABLE kv (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED); \
         INSERT INTO kv VALUES (1, 'a')",
    )
    .unwrap();
    let writer = session_in(
        dir.path(),
        SqlPolicy::restricted(Grants {
            read: true,
            write: true,
            admin: false,
        }),
    );
    let e = run(
        &writer,
        &rt,
        "CALL sys.create_tag(table => 'default.kv', tag => 't')",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("admin") && e.contains("not granted"), "{e}");
    assert!(!dir.path().join("default.db/kv/tag").exists());
    run(
        &writer,
        &rt,
        "CALL sys.compact(table => 'default.kv', compact_strategy => 'full')",
    )
    .unwrap();
    let reader = session_in(dir.path(), SqlPolicy::restricted(Grants::READ));
    let e = run(&reader, &rt, "CALL sys.compact(table => 'default.kv')")
        .unwrap_err()
        .to_string();
    assert!(e.contains("write") && e.contains("not granted"), "{e}");
}

/// `SHOW CREATE TABLE` of a Paimon table answers the `CREATE TABLE` of its schema (the
/// fixture's `schema/schema-0`, written by Java: the columns and options below); DataFusion
/// answered it with an empty definition, since only views have one in `information_schema`.
/// A view keeps DataFusion's answer.
#[test]
fn show_create_table_of_a_paimon_table_prints_its_schema() {
    let rt = runtime();
    let ctx = sql::session(&warehouse()).unwrap();
    sql::set_policy(&ctx, SqlPolicy::local_user(false));
    let rows = run(&ctx, &rt, "SHOW CREATE TABLE append.unaware").unwrap();
    let definition = rows[0]
        .column_by_name("definition")
        .unwrap()
        .as_string::<i32>()
        .value(0)
        .to_string();
    assert_eq!(
        definition,
        "CREATE TABLE append.unaware (\n  `id` INT,\n  `name` STRING,\n  `price` DOUBLE,\n  \
         `amount` DECIMAL(12, 2),\n  `dt` DATE,\n  `ts` TIMESTAMP(6),\n  `flag` BOOLEAN,\n  \
         `tags` ARRAY<STRING>\n)\nWITH (\n  'bucket' = '-1'\n)"
    );
    run(&ctx, &rt, "CREATE VIEW v AS SELECT 1 AS one").unwrap();
    let rows = run(&ctx, &rt, "SHOW CREATE TABLE v").unwrap();
    let text = arrow::util::pretty::pretty_format_batches(&rows)
        .unwrap()
        .to_string();
    assert!(text.contains("SELECT 1 AS one"), "{text}");
}
