//! `CALL sys.<procedure>(...)`: the maintenance of the library under Java Paimon's Spark and
//! Flink procedure names and argument names, named (`table => 'db.t', tag => 'x'`) or
//! positional (in the order listed), which DataFusion parses but does not plan.
//!
//! | procedure | arguments | result |
//! |---|---|---|
//! | `create_tag` | `table, tag, snapshot, time_retained` (`snapshot_id` too; `ignore_if_exists`, ours, for `ALTER TABLE .. CREATE TAG IF NOT EXISTS`) | `result` true |
//! | `delete_tag` | `table, tag` (comma-separated names; one that is not there is skipped, as Java's `deleteTag` skips it) | `result` true |
//! | `rename_tag` | `table, tag, target_tag` | `result` true |
//! | `create_branch` | `table, branch, tag, snapshot` (`snapshot_id` too) | `result` true |
//! | `delete_branch` | `table, branch` (comma-separated names) | `result` true |
//! | `fast_forward` | `table, branch` | `result` true |
//! | `rollback_to` (Flink) | `table, tag, snapshot_id` (`snapshot` too) | `previous_snapshot_id, current_snapshot_id` |
//! | `rollback` (Spark) | `table, version` (digits: a snapshot, else a tag) | as `rollback_to` |
//! | `create_tag_from_timestamp` | `table, tag, timestamp` (epoch millis: the first snapshot at or after it) | `tagName, snapshot, commit_time, watermark` |
//! | `rollback_to_timestamp` | `table, timestamp` (epoch millis: the last snapshot at or before it) | as `rollback_to` |
//! | `remove_orphan_files` | `table, older_than` (`'yyyy-MM-dd HH:mm:ss'`, local; one day ago by default), `dry_run` | `result`: each orphan file's path |
//! | `expire_partitions` | `table, expiration_time` (`'1 d'`), `timestamp_formatter, timestamp_pattern, expire_strategy, max_expires` | `expired_partitions`: `k=v, k2=v2` each |
//! | `expire_snapshots` | `table, retain_max, retain_min, older_than, max_deletes` | `result`: snapshots expired |
//! | `compact` | `table, partitions, compact_strategy` (`full` / `minor`) | `result` true |
//! | `create_global_index` | `table, index_column, index_type` (`btree` / `bitmap`), `options` (`k=v,k2=v2`) | `result` true (Java's), then ours: `files, rows, row_ranges, snapshot` |
//! | `drop_global_index` | `table, index_column, index_type` | `result` true, then ours: `files, snapshot` |
//! | `reset_consumer` | `table, consumer_id, next_snapshot_id` (an existing snapshot, as Flink's checks; without it the consumer is deleted, and one that does not exist is an error) | `result` true |
//! | `clear_consumers` | `table, including_consumers, excluding_consumers` (regular expressions matching whole ids; every consumer when none) | `result` true |
//!
//! Argument names are Flink's (`consumer_id`); Spark's camel-case spellings of the same
//! names (`consumerId`) are taken too, as names are matched without case and underscores.
//! `table` is `db.t` (or `t` in database `default`; `t$branch_b` for a branch). The
//! session's policy needs the `write` grant for `compact` and `admin` for the others.
//! Paimon's Spark tag statements (`ALTER TABLE t CREATE TAG ..`, `DELETE TAG`, `RENAME TAG`)
//! run as these calls (`crate::ddl_spelling`).
//! Arguments not listed (e.g. `where`, `order_strategy`, several
//! `partitions` joined by `;`) are refused by name, so no call silently does less than it says.

use std::sync::Arc;
use std::time::Duration;

use arrow::array::{ArrayRef, BooleanArray, Int64Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::Statement;
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Statement as Sql,
    UnaryOperator, Value,
};
use paimon_meta::branch::BranchStart;
use paimon_rs::RollbackTarget;

use crate::error::df_err;
use crate::policy::policy_of;
use crate::table::{off_runtime, PaimonTableProvider};

/// A procedure: its name and its argument names in positional order.
struct Procedure {
    name: &'static str,
    args: &'static [&'static str],
}

/// The procedures (see the module docs).
const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "create_tag",
        args: &[
            "table",
            "tag",
            "snapshot",
            "time_retained",
            "snapshot_id",
            "ignore_if_exists",
        ],
    },
    Procedure {
        name: "delete_tag",
        args: &["table", "tag"],
    },
    Procedure {
        name: "rename_tag",
        args: &["table", "tag", "target_tag"],
    },
    Procedure {
        name: "create_branch",
        args: &["table", "branch", "tag", "snapshot", "snapshot_id"],
    },
    Procedure {
        name: "delete_branch",
        args: &["table", "branch"],
    },
    Procedure {
        name: "fast_forward",
        args: &["table", "branch"],
    },
    Procedure {
        name: "rollback_to",
        args: &["table", "tag", "snapshot_id", "snapshot"],
    },
    Procedure {
        name: "rollback",
        args: &["table", "version"],
    },
    Procedure {
        name: "create_tag_from_timestamp",
        args: &["table", "tag", "timestamp", "time_retained"],
    },
    Procedure {
        name: "rollback_to_timestamp",
        args: &["table", "timestamp"],
    },
    Procedure {
        name: "remove_orphan_files",
        args: &["table", "older_than", "dry_run"],
    },
    Procedure {
        name: "expire_partitions",
        args: &[
            "table",
            "expiration_time",
            "timestamp_formatter",
            "timestamp_pattern",
            "expire_strategy",
            "max_expires",
            "options",
        ],
    },
    Procedure {
        name: "expire_snapshots",
        args: &[
            "table",
            "retain_max",
            "retain_min",
            "older_than",
            "max_deletes",
        ],
    },
    Procedure {
        name: "create_global_index",
        args: &[
            "table",
            "index_column",
            "index_type",
            "partitions",
            "options",
        ],
    },
    Procedure {
        name: "drop_global_index",
        args: &["table", "index_column", "index_type", "partitions"],
    },
    Procedure {
        name: "reset_consumer",
        args: &["table", "consumer_id", "next_snapshot_id"],
    },
    Procedure {
        name: "clear_consumers",
        args: &["table", "including_consumers", "excluding_consumers"],
    },
    Procedure {
        name: "compact",
        args: &[
            "table",
            "partitions",
            "compact_strategy",
            "order_strategy",
            "order_by",
            "where",
            "options",
        ],
    },
];

/// The grant `procedure` needs: `write` for `compact`, which only rewrites data files,
/// `admin` for the others.
pub fn procedure_grant(procedure: &str) -> &'static str {
    if procedure.eq_ignore_ascii_case("compact") {
        "write"
    } else {
        "admin"
    }
}

/// Runs `statement` when it is a `CALL`; `None` leaves it to DataFusion.
///
/// # Errors
/// Unknown procedures or arguments, a missing grant, what the procedure itself refuses.
pub(crate) async fn run(ctx: &SessionContext, statement: &Statement) -> Result<Option<DataFrame>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let Sql::Call(function) = s.as_ref() else {
        return Ok(None);
    };
    let full = function.name.to_string();
    let name = full
        .strip_prefix("sys.")
        .or_else(|| full.strip_prefix("SYS."))
        .unwrap_or(&full)
        .to_lowercase();
    let Some(procedure) = PROCEDURES.iter().find(|p| p.name == name) else {
        let known: Vec<&str> = PROCEDURES.iter().map(|p| p.name).collect();
        return Err(plan(format!(
            "CALL {full}: no such procedure (known: sys.{})",
            known.join(", sys.")
        )));
    };
    let policy = policy_of(ctx);
    let grant = procedure_grant(procedure.name);
    let granted = match grant {
        "write" => policy.grants.write,
        _ => policy.grants.admin,
    };
    if !granted {
        return Err(plan(format!(
            "CALL sys.{name} needs the {grant} grant, not granted to this session"
        )));
    }
    let args = Args::of(procedure, function)?;
    let table_name = args
        .text("table")?
        .ok_or_else(|| args.fail("table is required"))?;
    let provider = ctx
        .table_provider(table_name.as_str())
        .await
        .map_err(|e| args.fail(&first_line(&e)))?;
    let Some(provider) = provider.downcast_ref::<PaimonTableProvider>() else {
        return Err(args.fail(&format!("'{table_name}' is not a Paimon table")));
    };
    let path = provider.path().to_string();
    let table = paimon_rs::Table::from_meta(provider.meta().clone());
    let batch = match procedure.name {
        "create_tag" => {
            let tag = args.required("tag")?;
            let snapshot = args.int_of(&["snapshot", "snapshot_id"])?;
            let retained = match args.text("time_retained")? {
                None => None,
                Some(t) => Some(paimon_spec::options::parse_duration_millis(&t).ok_or_else(
                    || {
                        args.fail(&format!(
                            "time_retained '{t}' is not a duration ('1 d', '12 h')"
                        ))
                    },
                )?),
            };
            let ignore_if_exists = args.flag("ignore_if_exists")?;
            blocking(&path, move || {
                if ignore_if_exists && table.tags()?.iter().any(|(n, _)| *n == tag) {
                    return Ok(());
                }
                match retained {
                    None => table.create_tag(&tag, snapshot),
                    Some(ms) => table.create_tag_retained(&tag, snapshot, ms),
                }
                .map(|_| ())
            })
            .await?;
            done()?
        }
        "delete_tag" => {
            let tags = args.required("tag")?;
            blocking(&path, move || {
                for tag in names(&tags) {
                    table.delete_tag(tag)?;
                }
                Ok(())
            })
            .await?;
            done()?
        }
        "rename_tag" => {
            let (from, to) = (args.required("tag")?, args.required("target_tag")?);
            blocking(&path, move || table.rename_tag(&from, &to)).await?;
            done()?
        }
        "create_branch" => {
            let branch = args.required("branch")?;
            let start = match (
                args.text("tag")?,
                args.int_of(&["snapshot", "snapshot_id"])?,
            ) {
                (Some(_), Some(_)) => return Err(args.fail("give tag or snapshot, not both")),
                (Some(tag), None) => BranchStart::Tag(tag),
                (None, Some(id)) => BranchStart::Snapshot(id),
                (None, None) => BranchStart::Empty,
            };
            blocking(&path, move || table.create_branch(&branch, &start)).await?;
            done()?
        }
        "delete_branch" => {
            let branches = args.required("branch")?;
            blocking(&path, move || {
                for b in names(&branches) {
                    table.delete_branch(b)?;
                }
                Ok(())
            })
            .await?;
            done()?
        }
        "fast_forward" => {
            let branch = args.required("branch")?;
            blocking(&path, move || table.fast_forward(&branch)).await?;
            done()?
        }
        "rollback_to" | "rollback" => {
            let target = if procedure.name == "rollback" {
                RollbackTarget::parse(&args.required("version")?)
            } else {
                match (
                    args.text("tag")?,
                    args.int_of(&["snapshot_id", "snapshot"])?,
                ) {
                    (Some(tag), None) => RollbackTarget::Tag(tag),
                    (None, Some(id)) => RollbackTarget::Snapshot(id),
                    _ => return Err(args.fail("give exactly one of tag and snapshot_id")),
                }
            };
            let (before, after) = blocking(&path, move || {
                let before = table.meta().snapshot_manager().latest_id()?;
                let report = table.rollback_to(target)?;
                Ok((before, report.snapshot_id))
            })
            .await?;
            rollback_result(before, after)?
        }
        "create_tag_from_timestamp" => {
            if args.given("time_retained") {
                return Err(args.fail("time_retained is not supported"));
            }
            let tag = args.required("tag")?;
            let millis = args
                .int_of(&["timestamp"])?
                .ok_or_else(|| args.fail("timestamp is required"))?;
            let snapshot = blocking(&path, move || {
                Ok(table
                    .meta()
                    .create_tag_from_timestamp(&tag, millis, None)
                    .map(|s| (tag, s))?)
            })
            .await?;
            let (tag, snapshot) = snapshot;
            let schema = Schema::new(vec![
                Field::new("tagName", DataType::Utf8, true),
                Field::new("snapshot", DataType::Int64, true),
                Field::new("commit_time", DataType::Int64, true),
                Field::new("watermark", DataType::Utf8, true),
            ]);
            // Java prints the watermark with `String.valueOf`: "null" when there is none.
            let watermark = snapshot
                .watermark
                .map_or_else(|| "null".to_string(), |w| w.to_string());
            RecordBatch::try_new(
                Arc::new(schema),
                vec![
                    Arc::new(StringArray::from(vec![tag])) as ArrayRef,
                    Arc::new(Int64Array::from(vec![snapshot.id])),
                    Arc::new(Int64Array::from(vec![snapshot.time_millis])),
                    Arc::new(StringArray::from(vec![watermark])),
                ],
            )?
        }
        "rollback_to_timestamp" => {
            let millis = args
                .int_of(&["timestamp"])?
                .ok_or_else(|| args.fail("timestamp is required"))?;
            let fail = args.fail(&format!(
                "no snapshot committed at or before {millis} (epoch millis)"
            ));
            let rolled = blocking(&path, move || {
                let snapshots = table.meta().snapshot_manager();
                let before = snapshots.latest_id()?;
                let Some(target) = snapshots.earlier_or_equal_time_millis(millis)? else {
                    return Ok(None);
                };
                let report = table.rollback_to(RollbackTarget::Snapshot(target.id))?;
                Ok(Some((before, report.snapshot_id)))
            })
            .await?;
            let (before, after) = rolled.ok_or(fail)?;
            rollback_result(before, after)?
        }
        "remove_orphan_files" => {
            let mut clean = table.remove_orphan_files();
            if let Some(t) = args.text("older_than")? {
                let millis = crate::sql::local_millis(&t)?;
                let now = chrono::Utc::now().timestamp_millis();
                let age = u64::try_from(now.saturating_sub(millis)).unwrap_or(0);
                clean = clean.with_older_than(Duration::from_millis(age));
            }
            match args.text("dry_run")?.as_deref() {
                None | Some("false") => {}
                Some("true") => clean = clean.with_dry_run(true),
                Some(other) => {
                    return Err(args.fail(&format!("dry_run is true or false, not '{other}'")))
                }
            }
            let report = blocking(&path, move || clean.run()).await?;
            let schema = Schema::new(vec![Field::new("result", DataType::Utf8, true)]);
            RecordBatch::try_new(
                Arc::new(schema),
                vec![Arc::new(StringArray::from(report.files)) as ArrayRef],
            )?
        }
        "expire_partitions" => {
            if args.given("options") {
                return Err(args.fail("options is not supported"));
            }
            let mut expire = table.expire_partitions();
            if let Some(t) = args.text("expiration_time")? {
                let ms = paimon_spec::options::parse_duration_millis(&t).ok_or_else(|| {
                    args.fail(&format!(
                        "expiration_time '{t}' is not a duration ('1 d', '12 h')"
                    ))
                })?;
                expire = expire.with_expiration_time(Duration::from_millis(ms));
            }
            if let Some(f) = args.text("timestamp_formatter")? {
                expire = expire.with_timestamp_formatter(f);
            }
            if let Some(p) = args.text("timestamp_pattern")? {
                expire = expire.with_timestamp_pattern(p);
            }
            if let Some(s) = args.text("expire_strategy")? {
                let strategy = paimon_rs::maintenance::partition_expire_strategy(&s)
                    .map_err(|e| args.fail(&e.to_string()))?;
                expire = expire.with_strategy(strategy);
            }
            if let Some(n) = args.int_of(&["max_expires"])? {
                let n = usize::try_from(n)
                    .map_err(|_| args.fail(&format!("max_expires {n} is negative")))?;
                expire = expire.with_max_expires(n);
            }
            let keys = table.meta().schema().partition_keys.clone();
            let report = blocking(&path, move || expire.run()).await?;
            // Java prints each partition as its `Map.toString` without the braces, keys in
            // partition order.
            let mut rows: Vec<String> = report
                .partitions
                .iter()
                .map(|p| {
                    keys.iter()
                        .filter_map(|k| p.get(k).map(|v| format!("{k}={v}")))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect();
            if rows.is_empty() {
                rows.push("No expired partitions.".into());
            }
            let schema = Schema::new(vec![Field::new("expired_partitions", DataType::Utf8, true)]);
            RecordBatch::try_new(
                Arc::new(schema),
                vec![Arc::new(StringArray::from(rows)) as ArrayRef],
            )?
        }
        "expire_snapshots" => {
            let mut expire = table.expire_snapshots();
            if let Some(n) = args.int_of(&["retain_max"])? {
                expire = expire.with_retain_max(n);
            }
            if let Some(n) = args.int_of(&["retain_min"])? {
                expire = expire.with_retain_min(n);
            }
            if let Some(n) = args.int_of(&["max_deletes"])? {
                expire = expire.with_max_deletes(n);
            }
            if let Some(t) = args.text("older_than")? {
                let millis = crate::sql::local_millis(&t)?;
                let now = chrono::Utc::now().timestamp_millis();
                let age = u64::try_from(now.saturating_sub(millis)).unwrap_or(0);
                expire = expire.with_older_than(Duration::from_millis(age));
            }
            let report = blocking(&path, move || expire.run()).await?;
            let expired = i64::try_from(report.expired.len()).unwrap_or(i64::MAX);
            let schema = Schema::new(vec![Field::new("result", DataType::Int64, false)]);
            RecordBatch::try_new(
                Arc::new(schema),
                vec![Arc::new(Int64Array::from(vec![expired])) as ArrayRef],
            )?
        }
        "compact" => {
            for refused in ["order_strategy", "order_by", "where", "options"] {
                if args.given(refused) {
                    return Err(args.fail(&format!("{refused} is not supported")));
                }
            }
            let mut compact = table.compact();
            match args.text("compact_strategy")?.as_deref() {
                None | Some("minor") => {}
                Some("full") => compact = compact.with_full(true),
                Some(other) => {
                    return Err(args.fail(&format!(
                        "compact_strategy is 'full' or 'minor', not '{other}'"
                    )))
                }
            }
            if let Some(p) = args.text("partitions")? {
                if p.contains(';') {
                    return Err(args.fail("several partitions (joined by ';') are not supported"));
                }
                let mut pairs = Vec::new();
                for kv in names(&p) {
                    let Some((k, v)) = kv.split_once('=') else {
                        return Err(args.fail(&format!("partitions: '{kv}' is not k=v")));
                    };
                    pairs.push((k.trim().to_string(), v.trim().to_string()));
                }
                compact = compact.with_partition(pairs);
            }
            blocking(&path, move || compact.run().map(|_| ())).await?;
            done()?
        }
        "create_global_index" => {
            let (column, index_type) = index_target(&args)?;
            let mut build = table.create_global_index(column.clone(), index_type);
            if let Some(options) = args.text("options")? {
                for kv in names(&options) {
                    let Some((k, v)) = kv.split_once('=') else {
                        return Err(args.fail(&format!("options: '{kv}' is not k=v")));
                    };
                    build = build.with_option(k.trim(), v.trim());
                }
            }
            let report = blocking(&path, move || build.run()).await?;
            let ranges = report
                .row_ranges
                .iter()
                .map(|(a, z)| format!("[{a}, {z}]"))
                .collect::<Vec<_>>()
                .join(", ");
            let schema = Schema::new(vec![
                Field::new("result", DataType::Boolean, false),
                Field::new("files", DataType::Int64, false),
                Field::new("rows", DataType::Int64, false),
                Field::new("row_ranges", DataType::Utf8, false),
                Field::new("snapshot", DataType::Int64, true),
            ]);
            RecordBatch::try_new(
                Arc::new(schema),
                vec![
                    Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
                    Arc::new(Int64Array::from(vec![count(report.files)])),
                    Arc::new(Int64Array::from(vec![
                        i64::try_from(report.rows).unwrap_or(i64::MAX)
                    ])),
                    Arc::new(StringArray::from(vec![ranges])),
                    Arc::new(Int64Array::from(vec![report.snapshots.last().copied()])),
                ],
            )?
        }
        "drop_global_index" => {
            let (column, index_type) = index_target(&args)?;
            let drop = table.drop_global_index(column, index_type);
            let report = blocking(&path, move || drop.run()).await?;
            let schema = Schema::new(vec![
                Field::new("result", DataType::Boolean, false),
                Field::new("files", DataType::Int64, false),
                Field::new("snapshot", DataType::Int64, true),
            ]);
            RecordBatch::try_new(
                Arc::new(schema),
                vec![
                    Arc::new(BooleanArray::from(vec![true])) as ArrayRef,
                    Arc::new(Int64Array::from(vec![count(report.files)])),
                    Arc::new(Int64Array::from(vec![report.snapshots.last().copied()])),
                ],
            )?
        }
        "reset_consumer" => {
            let id = args.required("consumer_id")?;
            let next = args.int_of(&["next_snapshot_id"])?;
            // What the call refuses once it has looked: a snapshot that is not there (Flink's
            // procedure reads it first), a consumer that is not there to delete.
            let refused = blocking(&path, move || match next {
                Some(n) => match table.meta().snapshot_manager().snapshot(n) {
                    Ok(_) => refusal(table.reset_consumer(&id, n)),
                    Err(
                        e @ (paimon_meta::Error::SnapshotNotFound { .. }
                        | paimon_meta::Error::SnapshotExpired { .. }),
                    ) => Ok(Some(format!(
                        "next_snapshot_id {n}: {e}; consumer '{id}' left as it was"
                    ))),
                    Err(e) => Err(e.into()),
                },
                None => match table.delete_consumer(&id) {
                    Ok(true) => Ok(None),
                    Ok(false) => Ok(Some(format!(
                        "consumer '{id}' does not exist, nothing deleted"
                    ))),
                    Err(e) => refusal(Err(e)),
                },
            })
            .await?;
            if let Some(why) = refused {
                return Err(args.fail(&why));
            }
            done()?
        }
        "clear_consumers" => {
            let including = args.text("including_consumers")?;
            let excluding = args.text("excluding_consumers")?;
            // A pattern that does not compile is refused before any consumer goes.
            let refused = blocking(&path, move || {
                refusal(
                    table
                        .clear_consumers(including.as_deref(), excluding.as_deref())
                        .map(|_| ()),
                )
            })
            .await?;
            if let Some(why) = refused {
                return Err(args.fail(&why));
            }
            done()?
        }
        other => return Err(plan(format!("CALL sys.{other}: not implemented"))),
    };
    Ok(Some(ctx.read_batch(batch)?))
}

/// One call's arguments, by name.
struct Args {
    procedure: &'static str,
    values: Vec<(&'static str, Value)>,
}

impl Args {
    /// The arguments of `function` for `procedure`: named, or positional in its order.
    fn of(procedure: &'static Procedure, function: &Function) -> Result<Args> {
        let fail = |why: String| plan(format!("CALL sys.{}: {why}", procedure.name));
        let list = match &function.args {
            FunctionArguments::List(l) => l.args.as_slice(),
            FunctionArguments::None => &[],
            FunctionArguments::Subquery(_) => return Err(fail("arguments are values".into())),
        };
        let mut values: Vec<(&'static str, Value)> = Vec::new();
        for (i, arg) in list.iter().enumerate() {
            let (name, expr) = match arg {
                FunctionArg::Named { name, arg, .. } => (Some(name.value.to_lowercase()), arg),
                FunctionArg::ExprNamed { name, arg, .. } => (
                    match name {
                        Expr::Identifier(id) => Some(id.value.to_lowercase()),
                        other => return Err(fail(format!("'{other}' is not an argument name"))),
                    },
                    arg,
                ),
                FunctionArg::Unnamed(arg) => (None, arg),
            };
            let slot = match name {
                Some(n) => procedure
                    .args
                    .iter()
                    .copied()
                    .find(|a| same_name(a, &n))
                    .ok_or_else(|| {
                        fail(format!(
                            "no argument '{n}' (arguments: {})",
                            procedure.args.join(", ")
                        ))
                    })?,
                None => *procedure.args.get(i).ok_or_else(|| {
                    fail(format!("takes at most {} arguments", procedure.args.len()))
                })?,
            };
            let FunctionArgExpr::Expr(e) = expr else {
                return Err(fail(format!("{slot}: not a value")));
            };
            let value =
                literal(e).ok_or_else(|| fail(format!("{slot}: '{e}' is not a literal")))?;
            if values.iter().any(|(n, _)| *n == slot) {
                return Err(fail(format!("{slot} is given twice")));
            }
            // Flink 1.18's positional calls pass '' for arguments left out.
            if !matches!(&value, Value::SingleQuotedString(s) if s.is_empty()) {
                values.push((slot, value));
            }
        }
        Ok(Args {
            procedure: procedure.name,
            values,
        })
    }

    /// An error of this call, naming its table when one was given.
    fn fail(&self, why: &str) -> DataFusionError {
        match self.text("table") {
            Ok(Some(t)) => plan(format!("CALL sys.{} on {t}: {why}", self.procedure)),
            _ => plan(format!("CALL sys.{}: {why}", self.procedure)),
        }
    }

    /// Whether `name` was given.
    fn given(&self, name: &str) -> bool {
        self.values.iter().any(|(n, _)| *n == name)
    }

    /// `name` as text (a string or a number), if given.
    fn text(&self, name: &str) -> Result<Option<String>> {
        Ok(self
            .values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| match v {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
                Value::Number(n, _) => n.clone(),
                other => other.to_string(),
            }))
    }

    /// `name` as a boolean, false when not given.
    fn flag(&self, name: &str) -> Result<bool> {
        match self.text(name)?.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(self.fail(&format!("{name} is true or false, not '{other}'"))),
        }
    }

    /// `name` as text; an error when it is missing.
    fn required(&self, name: &str) -> Result<String> {
        self.text(name)?
            .ok_or_else(|| self.fail(&format!("{name} is required")))
    }

    /// The first of `names` given, as an integer.
    fn int_of(&self, names: &[&str]) -> Result<Option<i64>> {
        for n in names {
            if let Some(t) = self.text(n)? {
                return t
                    .trim()
                    .parse::<i64>()
                    .map(Some)
                    .map_err(|_| self.fail(&format!("{n}: '{t}' is not an integer")));
            }
        }
        Ok(None)
    }
}

/// Whether argument name `given` (lower-cased) is `name`: Spark's `consumerid` is Flink's
/// `consumer_id`.
fn same_name(name: &str, given: &str) -> bool {
    name.bytes()
        .filter(|b| *b != b'_')
        .eq(given.bytes().filter(|b| *b != b'_'))
}

/// What the library refused as an invalid request (a consumer id that is not a plain name,
/// a pattern that does not compile), as the reason; other errors stay errors.
fn refusal(result: paimon_rs::Result<()>) -> paimon_rs::Result<Option<String>> {
    match result {
        Ok(()) => Ok(None),
        Err(paimon_rs::Error::Meta(m)) => match *m {
            paimon_meta::Error::InvalidArgument { reason, .. } => Ok(Some(reason)),
            other => Err(other.into()),
        },
        Err(e) => Err(e),
    }
}

/// The first line of `e`'s message, without the kind DataFusion prefixes it with.
pub(crate) fn first_line(e: &DataFusionError) -> String {
    e.message().lines().next().unwrap_or_default().to_string()
}

/// `e` when it is a literal value (a negative number too).
fn literal(e: &Expr) -> Option<Value> {
    match e {
        Expr::Value(v) => Some(v.value.clone()),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::Number(n, l) => Some(Value::Number(format!("-{n}"), *l)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The comma-separated names in `list`.
fn names(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// The `index_column` and `index_type` of a global index call (Java lowercases the type);
/// `partitions` and several columns are refused.
fn index_target(args: &Args) -> Result<(String, String)> {
    if args.given("partitions") {
        return Err(args.fail("partitions is not supported (the whole table is indexed)"));
    }
    let column = args.required("index_column")?;
    let columns: Vec<&str> = names(&column).collect();
    let [column] = columns.as_slice() else {
        return Err(args.fail(&format!(
            "index_column '{column}': one column is indexed, not several"
        )));
    };
    let index_type = args.required("index_type")?.trim().to_ascii_lowercase();
    Ok((column.to_string(), index_type))
}

/// `n` as a BIGINT cell.
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Runs `f` (blocking storage I/O) off DataFusion's async threads; its errors name `path`.
async fn blocking<T: Send + 'static>(
    path: &str,
    f: impl FnOnce() -> paimon_rs::Result<T> + Send + 'static,
) -> Result<T> {
    let path = path.to_string();
    off_runtime(move || f().map_err(|e| df_err(&path, e))).await
}

/// Spark's result of a procedure that did what it was asked: one row, `result` true.
fn done() -> Result<RecordBatch> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "result",
        DataType::Boolean,
        false,
    )]));
    let column: ArrayRef = Arc::new(BooleanArray::from(vec![true]));
    Ok(RecordBatch::try_new(schema, vec![column])?)
}

/// The result of a rollback: `previous_snapshot_id, current_snapshot_id`.
fn rollback_result(before: Option<i64>, after: i64) -> Result<RecordBatch> {
    let schema = Schema::new(vec![
        Field::new("previous_snapshot_id", DataType::Int64, true),
        Field::new("current_snapshot_id", DataType::Int64, false),
    ]);
    Ok(RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from(vec![before])) as ArrayRef,
            Arc::new(Int64Array::from(vec![after])),
        ],
    )?)
}

/// A planning error with `text`.
fn plan(text: String) -> DataFusionError {
    DataFusionError::Plan(text)
}
