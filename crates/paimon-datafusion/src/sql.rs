//! SQL over a warehouse: a `SessionContext` whose default catalog is the warehouse (tables
//! are `db.table`), Paimon's time-travel spellings, and incremental reads.
//!
//! - `t VERSION AS OF 3` reads snapshot 3, `t VERSION AS OF 'tag1'` the snapshot of a tag;
//! - `t TIMESTAMP AS OF '2024-01-01 12:00:00'` the latest snapshot committed at or before that
//!   local time, `t TIMESTAMP AS OF 1704110400` at or before those epoch seconds (Spark's
//!   two forms);
//! - `paimon_incremental('db.t', '3', '5')` what changed after snapshot 3 up to 5 (or
//!   between two tags), Java's `incremental-between`.
//!
//! Statements that write (the session's policy must grant `write`):
//!
//! - `INSERT INTO t [(cols)] SELECT ... | VALUES ...` appends through the table provider's
//!   `insert_into` ([`crate::insert::PaimonSink`]): one commit per statement, nothing
//!   committed when it fails; the result is one row, `count`;
//! - `INSERT OVERWRITE [TABLE] t SELECT ...` replaces the partitions written (the table's
//!   `dynamic-partition-overwrite`, the default) or the whole table (when it is false);
//! - `MERGE INTO t USING s ON .. WHEN MATCHED [AND ..] THEN UPDATE SET .. | DELETE WHEN NOT
//!   MATCHED [AND ..] THEN INSERT ..` on a primary-key table (`crate::merge`);
//! - `INSERT OVERWRITE t [(cols)] PARTITION (k = v, ...) SELECT ...` replaces exactly that
//!   partition; `INSERT INTO t [(cols)] PARTITION (k = v) ...` appends with those values
//!   (`crate::partition_insert`, which DataFusion does not plan).
//!
//! DDL on the warehouse (the `admin` grant): `CREATE DATABASE|SCHEMA [IF NOT EXISTS]`,
//! `DROP DATABASE|SCHEMA [IF EXISTS] .. [CASCADE]`, `CREATE TABLE [IF NOT EXISTS] db.t (..,
//! PRIMARY KEY (..) NOT ENFORCED) [PARTITIONED BY (..)] [WITH (..) | TBLPROPERTIES (..)]`,
//! `DROP TABLE [IF EXISTS]`, `ALTER TABLE .. SET TBLPROPERTIES | ADD COLUMN | DROP COLUMN |
//! RENAME COLUMN | UNSET TBLPROPERTIES | RESET`, `CREATE TABLE .. LIKE`, `SHOW DATABASES`
//! (`crate::ddl`), with Paimon's type names (`MAP<K, V>`, `ROW<..>`, `TIMESTAMP_LTZ(3)`:
//! `crate::ddl_spelling`). `SHOW CREATE TABLE t` prints a Paimon table's `CREATE TABLE`
//! (`crate::show_create`). DataFusion's own `SHOW TABLES` and `DESCRIBE t` read the
//! warehouse's tables as they are.
//!
//! `CALL sys.<procedure>(..)` runs the library's maintenance under Java Paimon's procedure
//! names (`create_tag`, `rollback_to`, `expire_snapshots`, `compact`, `reset_consumer`, ...:
//! [`crate::call`]). `SHOW TAGS t` lists a table's tags (`crate::show_tags`).
//!
//! What the statements may do is the session's [`SqlPolicy`] ([`set_policy`], [`run`]).
//!
//! DataFusion's parser does not take `AS OF` after a table name, so before parsing, the
//! tokens `VERSION AS OF x` / `TIMESTAMP AS OF x` after a table name are folded into the
//! name's time-travel suffix ([`crate::scan_spec`]): `t VERSION AS OF 3` is `"t@snapshot=3"`.

use std::sync::Arc;

use chrono::{Local, NaiveDateTime, TimeZone};
use datafusion::catalog::TableFunctionImpl;
use datafusion::common::ScalarValue;
use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use datafusion::sql::parser::{DFParser, Statement};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer, Word};

use crate::catalog::PaimonCatalogProvider;
pub use crate::policy::{policy_of, Grants, SqlPolicy, SAFE_TABLE_FUNCTIONS};
use crate::scan_spec::{ScanSpec, TableName};
use crate::table::PaimonTableProvider;

/// The name the warehouse is registered under.
pub const CATALOG: &str = "paimon";

/// A session over `warehouse`: its databases are the schemas of the default catalog, so
/// tables are named `db.table`; unqualified names look in database `default`.
///
/// # Errors
/// When no storage serves the warehouse's scheme.
pub fn session(warehouse: &str) -> Result<SessionContext> {
    session_with_config(warehouse, SessionConfig::new())
}

/// [`session`] with `config` (its default catalog and schema are replaced).
///
/// # Errors
/// As [`session`].
pub fn session_with_config(warehouse: &str, config: SessionConfig) -> Result<SessionContext> {
    let catalog = PaimonCatalogProvider::new(warehouse)?;
    Ok(session_with_catalog(catalog, config))
}

/// A session over `catalog` (e.g. one on a storage of the caller's) with `config`.
pub fn session_with_catalog(
    catalog: PaimonCatalogProvider,
    config: SessionConfig,
) -> SessionContext {
    session_with_runtime(catalog, config, Arc::default())
}

/// [`session_with_catalog`] running in `runtime` (its memory pool bounds the session's
/// operators: a server gives each query one of its own).
pub fn session_with_runtime(
    catalog: PaimonCatalogProvider,
    config: SessionConfig,
    runtime: Arc<datafusion::execution::runtime_env::RuntimeEnv>,
) -> SessionContext {
    let catalog = Arc::new(catalog);
    let config = config
        .with_create_default_catalog_and_schema(false)
        .with_default_catalog_and_schema(CATALOG, "default")
        .with_information_schema(true);
    let ctx = SessionContext::new_with_config_rt(config, runtime);
    register(&ctx, catalog);
    set_policy(&ctx, SqlPolicy::default());
    ctx
}

/// Sets what the SQL [`run`] in `ctx` may do ([`SqlPolicy`]; sessions made here start with
/// [`SqlPolicy::default`]: read-only, no local files). Without local files the session's
/// table factories are removed too, so no external table can be created in it at all.
pub fn set_policy(ctx: &SessionContext, policy: SqlPolicy) {
    policy.apply_table_factories(ctx);
    ctx.state_ref()
        .write()
        .config_mut()
        .set_extension(Arc::new(policy));
}

/// Registers `catalog` as [`CATALOG`] and the `paimon_incremental` table function in `ctx`.
pub fn register(ctx: &SessionContext, catalog: Arc<PaimonCatalogProvider>) {
    ctx.register_catalog(CATALOG, Arc::clone(&catalog) as _);
    ctx.register_udtf("paimon_incremental", Arc::new(Incremental { catalog }));
}

/// Parses `sql` (one statement or several separated by `;`), time travel folded in and
/// Flink's and Spark's DDL spellings the parser rejects rewritten (`crate::ddl_spelling`).
///
/// # Errors
/// A syntax error, or a malformed `AS OF`.
pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    let sql = fold_time_travel(sql)?;
    let sql = crate::ddl_spelling::rewrite(&sql)?;
    let mut statements: Vec<Statement> =
        DFParser::parse_sql_with_dialect(&sql, &GenericDialect {})?
            .into_iter()
            .collect();
    statements.iter_mut().for_each(number_placeholders);
    Ok(statements)
}

/// Numbers JDBC's and ADBC's anonymous `?` parameters `$1`, `$2`, ... in the order they are
/// met (the statement's textual order: select list, `FROM`, `WHERE`, ...), the positional
/// placeholders DataFusion binds; DataFusion would take every `?` for one parameter.
fn number_placeholders(statement: &mut Statement) {
    use datafusion::sql::sqlparser::ast::{visit_expressions_mut, Expr as SqlExpr, Value};
    let Statement::Statement(inner) = statement else {
        return;
    };
    let mut n = 0usize;
    let _ = visit_expressions_mut(inner.as_mut(), |e| {
        if let SqlExpr::Value(v) = e {
            if let Value::Placeholder(p) = &mut v.value {
                if p == "?" {
                    n += 1;
                    *p = format!("${n}");
                }
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
}

/// Plans `statement` in `ctx` (DDL such as `CREATE VIEW` runs now; queries run when the
/// frame is collected), once the session's [`SqlPolicy`] allows it: the statement is checked
/// before it is planned, and its plan before it runs.
///
/// # Errors
/// Statements the policy refuses, unknown tables or columns, and planning errors.
pub async fn run(ctx: &SessionContext, statement: Statement) -> Result<DataFrame> {
    let policy = policy_of(ctx);
    policy.check_statement(ctx, &statement)?;
    if let Some(done) = crate::show_create::run(ctx, &statement).await? {
        return Ok(done);
    }
    if let Some(done) = crate::show_tags::run(ctx, &statement).await? {
        return Ok(done);
    }
    if let Some(done) = crate::ddl::run(ctx, &statement).await? {
        return Ok(done);
    }
    if let Some(done) = crate::merge::run(ctx, &statement).await? {
        return Ok(done);
    }
    if let Some(done) = crate::call::run(ctx, &statement).await? {
        return Ok(done);
    }
    let plan = match crate::partition_insert::rewrite(ctx, &statement).await? {
        Some(r) => {
            let plan = ctx.state().statement_to_plan(r.statement.clone()).await?;
            crate::partition_insert::retarget(plan, &r)?
        }
        None => ctx.state().statement_to_plan(statement).await?,
    };
    policy.check_plan(&plan)?;
    ctx.execute_logical_plan(plan).await
}

/// Plans the single statement `sql`.
///
/// # Errors
/// As [`parse`] and [`run`]; more or fewer than one statement.
pub async fn query(ctx: &SessionContext, sql: &str) -> Result<DataFrame> {
    let mut statements = parse(sql)?;
    if statements.len() != 1 {
        return Err(DataFusionError::Plan(format!(
            "expected one SQL statement, got {}",
            statements.len()
        )));
    }
    run(ctx, statements.remove(0)).await
}

/// `sql` with every `<table> VERSION|TIMESTAMP AS OF <literal>` written as the table's
/// time-travel suffix.
fn fold_time_travel(sql: &str) -> Result<String> {
    let dialect = GenericDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize()
        .map_err(|e| DataFusionError::SQL(Box::new(e.into()), None))?;
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut folded = false;
    let mut i = 0;
    while i < tokens.len() {
        if let Some((suffix, consumed)) = as_of(&tokens[i..])? {
            let last = out
                .iter()
                .rposition(|t| !matches!(t, Token::Whitespace(_)))
                .filter(|j| matches!(&out[*j], Token::Word(w) if w.quote_style.is_some() || w.keyword == Keyword::NoKeyword));
            let Some(j) = last else {
                return Err(DataFusionError::Plan(
                    "AS OF must follow a table name".into(),
                ));
            };
            if let Token::Word(w) = &out[j] {
                // An unquoted name is matched lower-cased, as DataFusion normalizes it.
                let name = if w.quote_style.is_some() {
                    w.value.clone()
                } else {
                    w.value.to_lowercase()
                };
                out[j] = Token::Word(Word {
                    value: TableName::with_travel(&name, &suffix),
                    quote_style: Some('"'),
                    keyword: Keyword::NoKeyword,
                });
            }
            i += consumed;
            folded = true;
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    if !folded {
        // Tokens print strings without their escapes (`'it''s'` as `'it's'`): text with
        // nothing to fold stays as typed.
        return Ok(sql.to_string());
    }
    Ok(out.iter().map(ToString::to_string).collect())
}

/// `VERSION AS OF x` or `TIMESTAMP AS OF x` at the start of `tokens`: the suffix it means
/// and how many tokens it spans.
fn as_of(tokens: &[Token]) -> Result<Option<(String, usize)>> {
    let word = |t: Option<&Token>, k: Keyword| matches!(t, Some(Token::Word(w)) if w.keyword == k && w.quote_style.is_none());
    let mut idx = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if !matches!(t, Token::Whitespace(_)) {
            idx.push(i);
            if idx.len() == 4 {
                break;
            }
        }
    }
    let [a, b, c, d] = idx[..] else {
        return Ok(None);
    };
    let version = word(tokens.get(a), Keyword::VERSION);
    if !(version || word(tokens.get(a), Keyword::TIMESTAMP))
        || !word(tokens.get(b), Keyword::AS)
        || !word(tokens.get(c), Keyword::OF)
    {
        return Ok(None);
    }
    let suffix = match (&tokens[d], version) {
        (Token::Number(n, _), true) => {
            let id: i64 = n.parse().map_err(|_| {
                DataFusionError::Plan(format!("VERSION AS OF {n}: not a snapshot id"))
            })?;
            format!("snapshot={id}")
        }
        (Token::SingleQuotedString(tag), true) if !tag.is_empty() && !tag.contains('"') => {
            format!("tag={tag}")
        }
        (Token::Number(n, _), false) => {
            let secs: i64 = n.parse().map_err(|_| {
                DataFusionError::Plan(format!("TIMESTAMP AS OF {n}: not epoch seconds"))
            })?;
            format!("timestamp-ms={}", secs.saturating_mul(1000))
        }
        (Token::SingleQuotedString(ts), false) => format!("timestamp-ms={}", local_millis(ts)?),
        (other, _) => {
            return Err(DataFusionError::Plan(format!(
                "AS OF takes a snapshot id, a tag name or a timestamp, not {other}"
            )))
        }
    };
    Ok(Some((suffix, d + 1)))
}

/// `'yyyy-MM-dd HH:mm:ss[.fff]'` (or `yyyy-MM-dd`) in the local time zone as epoch millis.
pub(crate) fn local_millis(text: &str) -> Result<i64> {
    let t = text.trim();
    let parsed = NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f"))
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default())
        })
        .map_err(|_| {
            DataFusionError::Plan(format!(
                "TIMESTAMP AS OF '{t}': expected 'yyyy-MM-dd HH:mm:ss[.fff]'"
            ))
        })?;
    Local
        .from_local_datetime(&parsed)
        .earliest()
        .map(|d| d.timestamp_millis())
        .ok_or_else(|| DataFusionError::Plan(format!("TIMESTAMP AS OF '{t}': no such local time")))
}

/// `paimon_incremental('db.table', 'start', 'end')`.
#[derive(Debug)]
struct Incremental {
    catalog: Arc<PaimonCatalogProvider>,
}

impl TableFunctionImpl for Incremental {
    fn call(&self, args: &[Expr]) -> Result<Arc<dyn TableProvider>> {
        let text = |e: &Expr| match e {
            Expr::Literal(
                ScalarValue::Utf8(Some(s))
                | ScalarValue::LargeUtf8(Some(s))
                | ScalarValue::Utf8View(Some(s)),
                _,
            ) => Some(s.clone()),
            Expr::Literal(ScalarValue::Int64(Some(n)), _) => Some(n.to_string()),
            _ => None,
        };
        let usage = || {
            DataFusionError::Plan(
                "paimon_incremental takes ('db.table', 'start', 'end'): two snapshot ids or two tags"
                    .into(),
            )
        };
        let [table, start, end] = args else {
            return Err(usage());
        };
        let (table, start, end) = (
            text(table).ok_or_else(usage)?,
            text(start).ok_or_else(usage)?,
            text(end).ok_or_else(usage)?,
        );
        let (db, name) = table.split_once('.').unwrap_or(("default", table.as_str()));
        let (opened, parsed) = match self.catalog.meta() {
            Some(_) => {
                let (path, parsed) = self.catalog.table_dir(db, name)?;
                (Err(path), parsed)
            }
            None => match self.catalog.open_table(db, name)? {
                Some((t, parsed)) => (Ok(t), parsed),
                None => {
                    return Err(DataFusionError::Plan(format!(
                        "paimon_incremental: table '{table}' does not exist in catalog {}",
                        self.catalog.warehouse()
                    )))
                }
            },
        };
        if parsed.system.is_some()
            || parsed.spec
                != (ScanSpec {
                    branch: parsed.spec.branch.clone(),
                    ..ScanSpec::default()
                })
        {
            return Err(DataFusionError::Plan(format!(
                "paimon_incremental: '{table}' must name a table or a branch of one"
            )));
        }
        let spec = ScanSpec {
            incremental: Some((start, end)),
            ..parsed.spec
        };
        spec.check_names()
            .map_err(|e| DataFusionError::Plan(format!("paimon_incremental: {e}")))?;
        Ok(Arc::new(match opened {
            Ok(t) => PaimonTableProvider::from_table(t, spec)?,
            Err(path) => PaimonTableProvider::open_with(&path, spec)?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_folds_into_the_table_name() {
        assert_eq!(
            fold_time_travel("SELECT * FROM pk.T VERSION AS OF 3 WHERE a = 1").unwrap(),
            r#"SELECT * FROM pk."t@snapshot=3" WHERE a = 1"#
        );
        assert_eq!(
            fold_time_travel(r#"select 1 from "Orders" version as of 'v1' x"#).unwrap(),
            r#"select 1 from "Orders@tag=v1" x"#
        );
        assert_eq!(
            fold_time_travel("SELECT * FROM t TIMESTAMP AS OF 1700000000").unwrap(),
            r#"SELECT * FROM "t@timestamp-ms=1700000000000""#
        );
        // strings and other uses of the words stay as they are
        let same = "SELECT 'VERSION AS OF 3', CAST(x AS TIMESTAMP) FROM t";
        assert_eq!(fold_time_travel(same).unwrap(), same);
    }

    #[test]
    fn malformed_as_of_is_refused() {
        for sql in [
            "SELECT * FROM t VERSION AS OF x",
            "SELECT * FROM t TIMESTAMP AS OF 'yesterday'",
            "SELECT * FROM VERSION AS OF 3",
        ] {
            assert!(fold_time_travel(sql).is_err(), "{sql}");
        }
    }

    #[test]
    fn local_timestamps_parse_in_the_local_zone() {
        let ms = local_millis("2024-01-01 00:00:00.250").unwrap();
        let expected = Local
            .with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
            .earliest()
            .unwrap()
            .timestamp_millis()
            + 250;
        assert_eq!(ms, expected);
    }
}
