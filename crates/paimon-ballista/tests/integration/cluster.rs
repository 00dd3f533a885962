//! A real cluster on loopback: the `paimon-ballista` binary as one scheduler and two executor
//! processes, queries over Java-written fixture tables (`append/fixed_bucket`, and the
//! primary-key tables `pk/dedup_uncompacted` and `pk/partitioned` whose rows need merging).
//! Every result equals the same query run by local DataFusion and the answer computed here
//! from Java's expected rows (`fixtures/expected/<db>/<table>/latest.jsonl`); `paimon sql
//! --scheduler` (the CLI, built beside this test by `cargo test --workspace --features
//! paimon-cli/ballista`, a clear failure when it is not) prints the same rows as `paimon sql`
//! locally.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use paimon_test_utils::repo;
use serde_json::Value;

const QUERY_TIMEOUT: Duration = Duration::from_secs(120);

/// What Ballista 55's scheduler logs when an executor dies while a task on the survivor reads
/// its shuffle output: it rolls the running stage back, cancels that task and ignores the
/// cancelled task's status update; after that, in 4 of 12 runs of
/// `killing_an_executor_gives_the_right_rows_or_an_error` here (2026-12-04), no task was
/// launched again and the job never ended (the survivor's one task slot is apparently never
/// handed back). Ballista's own liveness bug, not a wrong answer: the test accepts a job
/// that hangs this way (and only this way) as an outcome that returned no rows.
const BALLISTA_RECOVERY_HANG: &str = "Ignore TaskStatus update";

pub(crate) fn warehouse() -> String {
    repo().join("fixtures/warehouse").display().to_string()
}

/// Java's rows of `db/table` (latest snapshot).
pub(crate) fn java_rows(db: &str, table: &str) -> Vec<serde_json::Map<String, Value>> {
    let p = repo().join(format!("fixtures/expected/{db}/{table}/latest.jsonl"));
    std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Value::Object(o) => o,
            other => panic!("{}: {other}", p.display()),
        })
        .collect()
}

/// A JSON value as Arrow's display prints it (`NULL` for null).
pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A free loopback port (bound, then released for the child to bind), never one handed out
/// before in this process: the tests start their clusters at once, and the system may offer a
/// port it just gave back, so two processes would race for it (an executor whose server cannot
/// bind stops).
fn free_port() -> u16 {
    static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut given = GIVEN.lock().unwrap();
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if given.insert(port) {
            return port;
        }
    }
}

/// A child process killed (and reaped) when dropped, so no test leaves one running.
struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Proc {
    fn spawn(name: &str, args: &[String], dir: &Path) -> Proc {
        let log = dir.join(format!("{name}.log"));
        let out = File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_paimon-ballista"))
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        Proc {
            name: name.into(),
            child,
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process has ended (reaped) within `within`.
    fn exited(&mut self, within: Duration) -> bool {
        let start = Instant::now();
        loop {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return true;
            }
            if start.elapsed() > within {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} exited with {status}:\n{}", self.name, self.log());
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One scheduler and two executors (one task slot each, so a stage of several tasks spreads
/// over both).
struct Cluster {
    scheduler: Proc,
    executors: Vec<Proc>,
    url: String,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let scheduler_addr = format!("127.0.0.1:{port}");
        let mut scheduler = Proc::spawn(
            "scheduler",
            &[
                "scheduler".into(),
                "--bind".into(),
                scheduler_addr.clone(),
                "--executor-timeout-secs".into(),
                "5".into(),
                "--min-ready-executors".into(),
                "2".into(),
                "--warehouse".into(),
                warehouse(),
            ],
            dir.path(),
        );
        wait_until("the scheduler listens", || {
            scheduler.assert_running();
            TcpStream::connect(&scheduler_addr).is_ok()
        });
        let executors = (0..2)
            .map(|i| {
                let work = dir.path().join(format!("work-{i}"));
                std::fs::create_dir_all(&work).unwrap();
                Proc::spawn(
                    &format!("executor-{i}"),
                    &[
                        "executor".into(),
                        "--scheduler".into(),
                        scheduler_addr.clone(),
                        "--bind".into(),
                        format!("127.0.0.1:{}", free_port()),
                        "--grpc-port".into(),
                        free_port().to_string(),
                        "--concurrent-tasks".into(),
                        "1".into(),
                        "--heartbeat-secs".into(),
                        "1".into(),
                        "--work-dir".into(),
                        work.display().to_string(),
                        "--warehouse".into(),
                        warehouse(),
                    ],
                    dir.path(),
                )
            })
            .collect::<Vec<_>>();
        let mut cluster = Cluster {
            scheduler,
            executors,
            url: format!("df://{scheduler_addr}"),
            _dir: dir,
        };
        let addr: SocketAddr = scheduler_addr.parse().unwrap();
        wait_until("both executors register", || {
            cluster.scheduler.assert_running();
            cluster.executors.iter_mut().for_each(Proc::assert_running);
            ready(addr)
        });
        cluster
    }

    /// Kills every process and checks that each has ended.
    fn shut_down(mut self) {
        for p in std::iter::once(&mut self.scheduler).chain(&mut self.executors) {
            let _ = p.child.kill();
            assert!(p.exited(Duration::from_secs(10)), "{} did not end", p.name);
        }
    }

    /// Lines `... scans <table>` each executor printed, per executor.
    fn scan_tasks(&self) -> Vec<usize> {
        self.executors
            .iter()
            .map(|e| e.log().lines().filter(|l| l.contains(" scans ")).count())
            .collect()
    }

    fn logs(&self) -> String {
        std::iter::once(&self.scheduler)
            .chain(&self.executors)
            .map(|p| format!("--- {}\n{}", p.name, p.log()))
            .collect()
    }
}

/// The scheduler's `GET /readyz`: 200 once `--min-ready-executors` executors registered.
fn ready(addr: SocketAddr) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let req = format!("GET /readyz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200")
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting until {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Rows as display strings, sorted (every query also orders, but equal ordering keys may
/// come in any order).
pub(crate) fn rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let opts = FormatOptions::default().with_null("NULL");
    let mut out = Vec::new();
    for b in batches {
        let fmts = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect::<Vec<_>>();
        for r in 0..b.num_rows() {
            out.push(fmts.iter().map(|f| f.value(r).to_string()).collect());
        }
    }
    out.sort();
    out
}

async fn run(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<Vec<Vec<String>>> {
    run_within(ctx, sql)
        .await
        .unwrap_or_else(|| panic!("query timed out after {QUERY_TIMEOUT:?}: {sql}"))
}

/// `sql`'s rows, or `None` when it takes longer than [`QUERY_TIMEOUT`].
async fn run_within(
    ctx: &SessionContext,
    sql: &str,
) -> Option<datafusion::error::Result<Vec<Vec<String>>>> {
    let batches =
        tokio::time::timeout(QUERY_TIMEOUT, async { ctx.sql(sql).await?.collect().await })
            .await
            .ok()?;
    Some(batches.map(|b| rows(&b)))
}

/// The `paimon` binary with the `ballista` feature, built by the workspace build beside this
/// test's executable (`target/<profile>/paimon`, this test in `target/<profile>/deps/`):
/// `cargo test --workspace --features paimon-cli/ballista` (scripts/test.sh) builds it so.
/// Nothing depends on paimon-cli, so `cargo test -p paimon-ballista` alone does not build it;
/// the test then fails saying so (never a skip).
fn paimon_cli() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join(format!("paimon{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} is not built: run `cargo build -p paimon-cli --features ballista` first \
         (`cargo test --workspace --features paimon-cli/ballista` builds it)",
        bin.display()
    );
    bin
}

/// `paimon sql [--scheduler URL] WAREHOUSE SQL --format jsonl`: the rows, sorted.
fn cli_rows(scheduler: Option<&str>, sql: &str) -> Vec<String> {
    let mut cmd = Command::new(paimon_cli());
    cmd.arg("sql");
    if let Some(url) = scheduler {
        cmd.args(["--scheduler", url]);
    }
    let mut child = cmd
        .args([warehouse().as_str(), sql, "--format", "jsonl"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > QUERY_TIMEOUT {
            let _ = child.kill();
            panic!("paimon sql timed out after {QUERY_TIMEOUT:?}: {sql}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("without the `ballista` feature"),
        "{} has no --scheduler: run `cargo build -p paimon-cli --features ballista` \
         (`cargo test --workspace --features paimon-cli/ballista` builds it so)",
        paimon_cli().display()
    );
    assert!(
        out.status.success(),
        "paimon sql {scheduler:?} {sql}: {stderr}"
    );
    let mut lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// The queries and, for each, the answer computed from Java's rows.
fn queries() -> Vec<(&'static str, Vec<Vec<String>>)> {
    let append = java_rows("append", "fixed_bucket");
    let dedup = java_rows("pk", "dedup_uncompacted");
    let parted = java_rows("pk", "partitioned");
    let int = |r: &serde_json::Map<String, Value>, c: &str| r[c].as_i64();
    let mut out = Vec::new();

    let ids: Vec<i64> = append.iter().filter_map(|r| int(r, "id")).collect();
    out.push((
        "SELECT count(*), sum(id), min(id), max(id) FROM append.fixed_bucket",
        vec![vec![
            append.len().to_string(),
            ids.iter().sum::<i64>().to_string(),
            ids.iter().min().unwrap().to_string(),
            ids.iter().max().unwrap().to_string(),
        ]],
    ));

    // Pushed down: the predicate travels to the executors in the scan node.
    let mut filtered: Vec<Vec<String>> = append
        .iter()
        .filter(|r| int(r, "id").is_some_and(|i| (10..40).contains(&i)) && !r["name"].is_null())
        .map(|r| vec![text(&r["id"]), text(&r["name"])])
        .collect();
    filtered.sort();
    out.push((
        "SELECT id, name FROM append.fixed_bucket \
         WHERE id >= 10 AND id < 40 AND name IS NOT NULL ORDER BY id",
        filtered,
    ));

    let mut merged: Vec<Vec<String>> = dedup
        .iter()
        .filter(|r| r["n"].is_null() || int(r, "id").is_some_and(|i| i % 3 == 0))
        .map(|r| vec![text(&r["id"]), text(&r["v"]), text(&r["n"])])
        .collect();
    merged.sort();
    out.push((
        "SELECT id, v, n FROM pk.dedup_uncompacted WHERE n IS NULL OR id % 3 = 0 ORDER BY id",
        merged,
    ));

    let mut joined = Vec::new();
    for p in &dedup {
        for a in append.iter().filter(|a| a["id"] == p["id"]) {
            joined.push(vec![text(&p["id"]), text(&p["v"]), text(&a["name"])]);
        }
    }
    joined.sort();
    out.push((
        "SELECT p.id, p.v, a.name FROM pk.dedup_uncompacted p \
         JOIN append.fixed_bucket a ON p.id = a.id ORDER BY p.id",
        joined,
    ));

    let mut groups: BTreeMap<(String, String), (usize, i64)> = BTreeMap::new();
    for r in &parted {
        let g = groups
            .entry((text(&r["dt"]), text(&r["hr"])))
            .or_insert((0, i64::MIN));
        g.0 += 1;
        g.1 = g.1.max(int(r, "id").unwrap());
    }
    let mut grouped: Vec<Vec<String>> = groups
        .into_iter()
        .map(|((dt, hr), (c, m))| vec![dt, hr, c.to_string(), m.to_string()])
        .collect();
    grouped.sort();
    out.push((
        "SELECT dt, hr, count(*), max(id) FROM pk.partitioned GROUP BY dt, hr ORDER BY dt, hr",
        grouped,
    ));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_match_local_datafusion_and_java() {
    let cluster = Cluster::start();
    let remote = paimon_ballista::remote_session(&cluster.url, &warehouse())
        .await
        .unwrap();
    let local = paimon_datafusion::sql::session(&warehouse()).unwrap();
    // All queries at once (each executor has one task slot), so the scheduler hands tasks to
    // both executors.
    let jobs: Vec<_> = queries()
        .into_iter()
        .map(|(sql, java)| {
            let remote = remote.clone();
            (
                sql,
                java,
                tokio::spawn(async move { run(&remote, sql).await }),
            )
        })
        .collect();
    for (sql, java, job) in jobs {
        assert!(!java.is_empty(), "no Java rows for {sql}");
        let got = match job.await.unwrap() {
            Ok(r) => r,
            Err(e) => panic!("{sql}: {e}\n{}", cluster.logs()),
        };
        assert_eq!(
            got,
            run(&local, sql).await.unwrap(),
            "local DataFusion: {sql}"
        );
        assert_eq!(got, java, "Java's rows: {sql}");
    }
    let tasks = cluster.scan_tasks();
    assert!(
        tasks.iter().all(|n| *n > 0),
        "scan tasks per executor {tasks:?}\n{}",
        cluster.logs()
    );

    // The CLI against the same cluster: the rows of `paimon sql` locally, and Java's (the
    // JSON lines of `paimon sql` are the oracle's row encoding).
    let append = java_rows("append", "fixed_bucket");
    let mut want: Vec<String> = append
        .iter()
        .filter(|r| r["id"].as_i64().is_some_and(|i| (10..40).contains(&i)))
        .map(|r| serde_json::json!({"id": r["id"], "name": r["name"]}).to_string())
        .collect();
    want.sort();
    let sql = "SELECT id, name FROM append.fixed_bucket WHERE id >= 10 AND id < 40";
    let remote = cli_rows(Some(&cluster.url), sql);
    assert_eq!(remote, cli_rows(None, sql), "paimon sql locally: {sql}");
    assert_eq!(remote, want, "Java's rows: {sql}");
    let ids: Vec<i64> = append.iter().filter_map(|r| r["id"].as_i64()).collect();
    let sql = "SELECT count(*) AS n, sum(id) AS s FROM append.fixed_bucket";
    let remote = cli_rows(Some(&cluster.url), sql);
    assert_eq!(remote, cli_rows(None, sql), "paimon sql locally: {sql}");
    assert_eq!(
        remote,
        vec![serde_json::json!({"n": append.len(), "s": ids.iter().sum::<i64>()}).to_string()],
        "Java's rows: {sql}"
    );
    cluster.shut_down();
}

/// A query that keeps the executors busy for a while after its scans: a sum over the cross
/// product of three scans (216,000 rows from 60), and its answer from Java's rows:
/// `sum(a.id * b.id + c.id) = (sum a)(sum b) n + n n (sum c)`.
fn slow_query() -> (&'static str, Vec<Vec<String>>) {
    let append = java_rows("append", "fixed_bucket");
    let n = i64::try_from(append.len()).unwrap();
    let sum: i64 = append.iter().filter_map(|r| r["id"].as_i64()).sum();
    assert!(
        append.iter().all(|r| r["id"].is_i64()),
        "ids are never null"
    );
    (
        "SELECT count(*), sum(a.id * b.id + c.id) FROM append.fixed_bucket a \
         CROSS JOIN append.fixed_bucket b CROSS JOIN append.fixed_bucket c",
        vec![vec![
            (n * n * n).to_string(),
            (sum * sum * n + n * n * sum).to_string(),
        ]],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_an_executor_gives_the_right_rows_or_an_error() {
    let mut cluster = Cluster::start();
    let remote = paimon_ballista::remote_session(&cluster.url, &warehouse())
        .await
        .unwrap();
    let (sql, java) = slow_query();
    let query = {
        let remote = remote.clone();
        tokio::spawn(async move { run_within(&remote, sql).await })
    };
    // Kill an executor once it has started a scan task of this query, so the job has work
    // (and shuffle output) on it.
    let start = Instant::now();
    let victim = loop {
        if let Some(i) = cluster.scan_tasks().iter().rposition(|n| *n > 0) {
            break i;
        }
        if query.is_finished() {
            let r = query.await.unwrap();
            panic!(
                "the query ended before any scan task was logged: {r:?}\n{}",
                cluster.logs()
            );
        }
        assert!(
            start.elapsed() < QUERY_TIMEOUT,
            "no scan task started\n{}",
            cluster.logs()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mid_query = !query.is_finished();
    cluster.executors[victim].kill();
    let Some(result) = query.await.unwrap() else {
        // The one outcome tolerated besides rows and errors, listed with the skips
        // (crates/paimon-cli/tests/acceptance/skips.rs): Ballista 55's own recovery hang.
        let logs = cluster.logs();
        assert!(
            logs.contains(BALLISTA_RECOVERY_HANG),
            "{sql}: no answer {QUERY_TIMEOUT:?} after killing an executor\n{logs}"
        );
        eprintln!(
            "{sql}: no answer {QUERY_TIMEOUT:?} after killing an executor, in Ballista 55's \
             known recovery hang (\"{BALLISTA_RECOVERY_HANG}\" in the scheduler log); no rows \
             were returned"
        );
        cluster.shut_down();
        return;
    };
    match result {
        Ok(rows) => assert_eq!(rows, java, "rows after killing an executor: {sql}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.trim().is_empty(), "an empty error");
            eprintln!("query with a killed executor failed: {msg}");
        }
    }
    assert!(
        mid_query,
        "the query had ended before the executor was killed\n{}",
        cluster.logs()
    );
    // The survivor takes the next query (the dead executor's heartbeats stop, the scheduler
    // drops it after --executor-timeout-secs).
    let (sql, java) = queries().swap_remove(0);
    match run(&remote, sql).await {
        Ok(rows) => assert_eq!(rows, java, "after the kill: {sql}"),
        Err(e) => panic!("{sql} after the kill: {e}\n{}", cluster.logs()),
    }
    cluster.shut_down();
}

/// Splits of `table`'s scan in the plan of `sql` on `ctx` (a local session: one
/// `PaimonScanExec` per table).
async fn local_split_count(ctx: &SessionContext, sql: &str, table: &str) -> usize {
    let plan = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let mut splits = 0;
    datafusion::common::tree_node::TreeNode::apply(&plan, |p| {
        if let Some(s) = p.downcast_ref::<paimon_datafusion::PaimonScanExec>() {
            if s.node().table_path.ends_with(table) {
                splits += s.split_count();
            }
        }
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    })
    .unwrap();
    splits
}

/// The splits each executor's tasks read of `table`, from the `scans <table> (<n> splits)`
/// lines of its log.
fn splits_read(cluster: &Cluster, table: &str) -> Vec<usize> {
    let marker = format!("/{table} (");
    cluster
        .executors
        .iter()
        .map(|e| {
            e.log()
                .lines()
                .filter(|l| l.contains(" scans "))
                .filter_map(|l| l.split_once(&marker))
                .map(|(_, rest)| {
                    let n = rest.split_once(' ').map_or(rest, |(n, _)| n);
                    n.parse::<usize>()
                        .unwrap_or_else(|_| panic!("split count in {rest:?}"))
                })
                .sum()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_scan_is_split_over_both_executors() {
    let cluster = Cluster::start();
    let remote = paimon_ballista::remote_session_with(&cluster.url, &warehouse(), Some(4))
        .await
        .unwrap();
    let local = paimon_datafusion::sql::session(&warehouse()).unwrap();
    let table = "pk.db/partitioned";
    let sql =
        "SELECT dt, hr, count(*), max(id) FROM pk.partitioned GROUP BY dt, hr ORDER BY dt, hr";
    let splits = local_split_count(&local, sql, table).await;
    assert!(
        splits >= 2,
        "{table} plans {splits} splits: too few to spread"
    );
    let java = queries()
        .into_iter()
        .find(|(q, _)| *q == sql)
        .map(|(_, rows)| rows)
        .unwrap();
    let got = match run(&remote, sql).await {
        Ok(r) => r,
        Err(e) => panic!("{sql}: {e}\n{}", cluster.logs()),
    };
    assert_eq!(got, java, "Java's rows: {sql}");
    // Each split was read once, and both executors read some: the scan itself was spread,
    // not only the stages above it.
    let per_executor = splits_read(&cluster, table);
    assert_eq!(
        per_executor.iter().sum::<usize>(),
        splits,
        "splits read per executor {per_executor:?}\n{}",
        cluster.logs()
    );
    assert!(
        per_executor.iter().all(|n| *n > 0),
        "splits read per executor {per_executor:?}\n{}",
        cluster.logs()
    );
    cluster.shut_down();
}

/// Executors run Paimon scans of their warehouse only: a client's external table over a
/// Parquet file (which the scheduler plans as a file scan) and a `COPY ... TO` (a file sink)
/// fail with the executors' refusal and read or write nothing, and a Paimon query on the same
/// cluster still gives Java's rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn executors_refuse_file_scans_and_sinks() {
    let cluster = Cluster::start();
    let remote = paimon_ballista::remote_session(&cluster.url, &warehouse())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.parquet");
    let local = SessionContext::new();
    local
        .sql(&format!(
            "COPY (SELECT 42 AS a) TO '{}' STORED AS PARQUET",
            secret.display()
        ))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    remote
        .sql(&format!(
            "CREATE EXTERNAL TABLE secret STORED AS PARQUET LOCATION '{}'",
            secret.display()
        ))
        .await
        .unwrap();
    match run(&remote, "SELECT a FROM secret").await {
        Ok(rows) => panic!("an executor read {}: {rows:?}", secret.display()),
        Err(e) => assert!(
            e.to_string()
                .contains("executor refuses the task's plan: a file scan")
                && e.to_string().contains("secret.parquet"),
            "{e}\n{}",
            cluster.logs()
        ),
    }
    let out = dir.path().join("out.parquet");
    let copy = format!(
        "COPY (SELECT id FROM append.fixed_bucket) TO '{}' STORED AS PARQUET",
        out.display()
    );
    assert!(run(&remote, &copy).await.is_err(), "COPY ran");
    assert!(!out.exists(), "COPY wrote {}", out.display());

    let n = java_rows("append", "fixed_bucket").len();
    assert_eq!(
        run(&remote, "SELECT count(*) FROM append.fixed_bucket")
            .await
            .unwrap(),
        vec![vec![n.to_string()]]
    );
    cluster.shut_down();
}
