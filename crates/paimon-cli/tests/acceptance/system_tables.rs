//! The system tables (`t$snapshots`, `t$schemas`, `t$files`; paimon-datafusion) hold what
//! `paimon snapshots --json`, `paimon schema --json` and `paimon files --json` print for the
//! same table; and `paimon sql` reaches them by name. Their rows against Java's own system
//! tables are tested in paimon-datafusion (`tests/system_tables.rs`).

use std::collections::BTreeMap;

use paimon_cli::rows::batch_to_json_rows;
use paimon_cli::scan_args::ScanArgs;
use paimon_cli::table_cmd::{selected_schema, snapshot_json, SchemaArgs};
use paimon_datafusion::system::{local_millis, system_batch};
use paimon_spec::binary::json::format_timestamp;
use serde_json::Value;

use crate::paths::repo;

fn table(rel: &str) -> String {
    let p = repo().join("fixtures/warehouse").join(rel);
    p.canonicalize().unwrap().to_string_lossy().to_string()
}

fn rows(path: &str, name: &str) -> Vec<Value> {
    let (fields, batch) = system_batch(path, None, name).unwrap().unwrap();
    batch_to_json_rows(&batch, &fields).unwrap()
}

/// A TIMESTAMP(3) column's text for epoch millis: this zone's wall clock.
fn local_text(epoch_millis: &Value) -> Value {
    let local = local_millis(epoch_millis.as_i64().unwrap());
    Value::String(format_timestamp(local, 0, 3, false))
}

#[test]
fn snapshots_and_schemas_hold_what_the_cli_prints() {
    for rel in [
        "pk.db/many_snapshots",
        "evolution.db/columns",
        "pk.db/partitioned",
    ] {
        let path = table(rel);
        let opened = ScanArgs::default().open(&path).unwrap();
        let cli: Vec<Value> = opened
            .table
            .snapshots()
            .unwrap()
            .iter()
            .map(snapshot_json)
            .collect();
        let snapshots = rows(&path, "snapshots");
        assert!(!cli.is_empty(), "{rel}");
        assert_eq!(snapshots.len(), cli.len(), "{rel}");
        for (r, c) in snapshots.iter().zip(&cli) {
            assert_eq!(r["snapshot_id"], c["id"], "{rel}");
            assert_eq!(r["schema_id"], c["schemaId"]);
            assert_eq!(r["commit_kind"], c["commitKind"]);
            assert_eq!(r["commit_user"], c["commitUser"]);
            assert_eq!(r["total_record_count"], c["totalRecordCount"]);
            assert_eq!(r["delta_record_count"], c["deltaRecordCount"]);
            assert_eq!(r["watermark"], c["watermark"]);
            // The CLI prints the instant in UTC, the table this zone's wall clock.
            assert_eq!(r["commit_time"], local_text(&c["timeMillis"]));
        }

        let schemas = rows(&path, "schemas");
        assert!(!schemas.is_empty(), "{rel}");
        for r in &schemas {
            let args = SchemaArgs {
                table: path.clone(),
                schema_id: r["schema_id"].as_i64(),
                json: true,
            };
            let cli = selected_schema(&args).unwrap().to_json();
            let parse =
                |k: &str| -> Value { serde_json::from_str(r[k].as_str().unwrap()).unwrap() };
            assert_eq!(parse("fields"), cli["fields"], "{rel}");
            assert_eq!(parse("partition_keys"), cli["partitionKeys"]);
            assert_eq!(parse("primary_keys"), cli["primaryKeys"]);
            // Java's key order (its HashMap's) is not the CLI's: compared as JSON objects.
            assert_eq!(parse("options"), cli["options"]);
            assert_eq!(r["update_time"], local_text(&cli["timeMillis"]));
        }
    }
}

#[test]
fn files_hold_what_the_cli_prints() {
    for rel in [
        "pk.db/partitioned",
        "append.db/part_multi",
        "evolution.db/columns",
    ] {
        let path = table(rel);
        let opened = ScanArgs::default().open(&path).unwrap();
        let cli = paimon_cli::files_cmd::file_list(&opened, false).unwrap();
        let files = rows(&path, "files");
        assert!(!files.is_empty(), "{rel}");
        assert_eq!(files.len(), cli.len(), "{rel}");
        let by_path: BTreeMap<&str, &Value> = cli
            .iter()
            .map(|v| (v["path"].as_str().unwrap(), v))
            .collect();
        for r in &files {
            let c = by_path[r["file_path"].as_str().unwrap()];
            assert!(r["file_path"]
                .as_str()
                .unwrap()
                .ends_with(c["fileName"].as_str().unwrap()));
            assert_eq!(r["bucket"], c["bucket"], "{rel}");
            assert_eq!(r["level"], c["level"]);
            assert_eq!(r["record_count"], c["rowCount"]);
            assert_eq!(r["file_size_in_bytes"], c["fileSize"]);
            assert_eq!(r["schema_id"], c["schemaId"]);
            assert_eq!(r["min_sequence_number"], c["minSequenceNumber"]);
            assert_eq!(r["max_sequence_number"], c["maxSequenceNumber"]);
            assert_eq!(r["deleteRowCount"], c["deleteRowCount"]);
            assert_eq!(r["first_row_id"], c["firstRowId"]);
        }
    }
}

#[test]
fn sql_reaches_system_tables_by_name() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let warehouse = repo().join("fixtures/warehouse");
    let path = table("pk.db/many_snapshots");
    let ids: Vec<i64> = rows(&path, "snapshots")
        .iter()
        .map(|r| r["snapshot_id"].as_i64().unwrap())
        .collect();
    let tags = rows(&path, "tags").len();
    let got = rt.block_on(async {
        let ctx = paimon_datafusion::sql::session(warehouse.to_str().unwrap()).unwrap();
        let count = |q: &'static str| {
            let ctx = ctx.clone();
            async move {
                let df = paimon_datafusion::sql::query(&ctx, q).await.unwrap();
                df.collect()
                    .await
                    .unwrap()
                    .iter()
                    .map(|b| b.num_rows())
                    .sum::<usize>()
            }
        };
        (
            count("SELECT snapshot_id FROM pk.\"many_snapshots$snapshots\"").await,
            count("SELECT tag_name FROM pk.\"many_snapshots$tags\" WHERE snapshot_id > 3").await,
        )
    });
    assert_eq!(got.0, ids.len());
    assert_eq!(got.1, tags - 1, "t3 is on snapshot 3 (fixtures/README.md)");
}
