//! The codecs without a cluster: plans over a fixture table go through protobuf bytes and
//! back (as between client, scheduler and executors), keep their scan node exactly, and read
//! the rows Java wrote.

use std::sync::Arc;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};
use paimon_ballista::{
    check_executor_plan, PaimonLogicalCodec, PaimonPhysicalCodec, SCAN_TAG, TABLE_TAG,
};
use paimon_datafusion::{PaimonScanExec, ScanNode};

use crate::cluster::{java_rows, rows, text, warehouse};

const SQL: &str = "SELECT id, name, amount FROM append.fixed_bucket \
                   WHERE id < 40 AND name LIKE 'name-1%' AND amount > 0 AND NOT (id IN (12, 13))";

fn scan_nodes(plan: &Arc<dyn ExecutionPlan>) -> Vec<ScanNode> {
    let mut out = Vec::new();
    plan.apply(|p| {
        if let Some(s) = p.downcast_ref::<PaimonScanExec>() {
            out.push(s.node().clone());
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .unwrap();
    out
}

fn java_answer() -> Vec<Vec<String>> {
    let mut want: Vec<Vec<String>> = java_rows("append", "fixed_bucket")
        .into_iter()
        .filter(|r| {
            let id = r["id"].as_i64();
            let name = r["name"].as_str().unwrap_or("");
            let amount: f64 = r["amount"].as_str().map_or(0.0, |a| a.parse().unwrap());
            id.is_some_and(|i| i < 40 && i != 12 && i != 13)
                && name.starts_with("name-1")
                && amount > 0.0
        })
        .map(|r| vec![text(&r["id"]), text(&r["name"]), text(&r["amount"])])
        .collect();
    want.sort();
    want
}

#[tokio::test]
async fn physical_plan_round_trips_through_the_codec() {
    let ctx = paimon_datafusion::sql::session(&warehouse()).unwrap();
    let plan = ctx
        .sql(SQL)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let nodes = scan_nodes(&plan);
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    assert!(
        nodes[0].predicate.is_some(),
        "the filter is pushed into the scan"
    );
    let codec = PaimonPhysicalCodec::default();
    let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &codec).unwrap();
    let back =
        physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
    assert_eq!(scan_nodes(&back), nodes);
    let got = rows(&collect(back, ctx.task_ctx()).await.unwrap());
    assert_eq!(got, rows(&collect(plan, ctx.task_ctx()).await.unwrap()));
    assert_eq!(got, java_answer());
}

#[tokio::test]
async fn logical_plan_round_trips_through_the_codec() {
    let ctx = paimon_datafusion::sql::session(&warehouse()).unwrap();
    let plan = ctx.sql(SQL).await.unwrap().into_unoptimized_plan();
    let codec = PaimonLogicalCodec::default();
    let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
    assert!(
        bytes.windows(TABLE_TAG.len()).any(|w| w == TABLE_TAG),
        "the provider travels as a Paimon table"
    );
    let back =
        logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap();
    let got = rows(
        &ctx.execute_logical_plan(back)
            .await
            .unwrap()
            .collect()
            .await
            .unwrap(),
    );
    assert_eq!(got, java_answer());
}

#[test]
fn hostile_bytes_give_errors() {
    let ctx = datafusion::prelude::SessionContext::new();
    let physical = PaimonPhysicalCodec::default();
    let logical = PaimonLogicalCodec::default();
    let conv = DefaultPhysicalProtoConverter {};
    let schema = Arc::new(datafusion::arrow::datatypes::Schema::empty());
    for body in [&b""[..], b"{", b"{\"version\":9}", b"\xff\xff", b"[]"] {
        let scan = [SCAN_TAG, body].concat();
        let e = physical
            .try_decode(&scan, &[], &ctx.task_ctx(), &conv)
            .unwrap_err();
        assert!(e.to_string().contains("scan node"), "{e}");
        let table = [TABLE_TAG, body].concat();
        let e = logical
            .try_decode_table_provider(&table, &"t".into(), Arc::clone(&schema), &ctx.task_ctx())
            .unwrap_err();
        assert!(e.to_string().contains("table provider"), "{e}");
        // Without our tag the bytes are Ballista's, which refuses them too.
        assert!(physical
            .try_decode(body, &[], &ctx.task_ctx(), &conv)
            .is_err());
    }
}

/// A physical plan as an executor decodes it.
fn decoded(
    plan: Arc<dyn ExecutionPlan>,
    ctx: &datafusion::prelude::SessionContext,
) -> Arc<dyn ExecutionPlan> {
    let codec = PaimonPhysicalCodec::default();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &codec).unwrap();
    physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &codec).unwrap()
}

/// Decoded on an executor, a Parquet scan of a local file and a COPY's file sink are refused,
/// naming the file; a Paimon scan is accepted under the executor's warehouse and refused
/// under another one.
#[tokio::test]
async fn executors_refuse_plans_other_than_paimon_scans() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secret.parquet");
    let ctx = datafusion::prelude::SessionContext::new();
    ctx.sql(&format!(
        "COPY (SELECT 42 AS a) TO '{}' STORED AS PARQUET",
        file.display()
    ))
    .await
    .unwrap()
    .collect()
    .await
    .unwrap();
    ctx.register_parquet("secret", file.display().to_string(), Default::default())
        .await
        .unwrap();
    let scan = ctx
        .sql("SELECT a + 1 FROM secret")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let scan = decoded(scan, &ctx);
    let e = check_executor_plan(&scan, &warehouse())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("file scan") && e.contains("secret.parquet"),
        "{e}"
    );

    let out = dir.path().join("out.parquet");
    let copy = ctx
        .sql(&format!(
            "COPY (SELECT 1 AS a) TO '{}' STORED AS PARQUET",
            out.display()
        ))
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let copy = decoded(copy, &ctx);
    let e = check_executor_plan(&copy, &warehouse())
        .unwrap_err()
        .to_string();
    assert!(e.contains("sink"), "{e}");
    assert!(!out.exists());

    let paimon = paimon_datafusion::sql::session(&warehouse()).unwrap();
    let plan = paimon
        .sql(SQL)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let plan = decoded(plan, &paimon);
    check_executor_plan(&plan, &warehouse()).unwrap();
    let elsewhere = dir.path().display().to_string();
    let e = check_executor_plan(&plan, &elsewhere)
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside the executor's warehouse"), "{e}");
}

/// A scheduler decodes a client's plans with the codecs of its warehouse: a logical plan
/// naming a table outside that warehouse, and a physical plan scanning one, are refused
/// naming the table's path, before the table is opened; the same plans decode, and read
/// Java's rows, under the warehouse that holds the table.
#[tokio::test]
async fn the_scheduler_refuses_tables_outside_its_warehouse() {
    let ctx = paimon_datafusion::sql::session(&warehouse()).unwrap();
    let df = ctx.sql(SQL).await.unwrap();
    let logical_bytes = logical_plan_to_bytes_with_extension_codec(
        &df.clone().into_unoptimized_plan(),
        &PaimonLogicalCodec::default(),
    )
    .unwrap();
    let physical = df.create_physical_plan().await.unwrap();
    let physical_bytes =
        physical_plan_to_bytes_with_extension_codec(physical, &PaimonPhysicalCodec::default())
            .unwrap();
    let table = format!("{}/append.db/fixed_bucket", warehouse());

    let elsewhere = tempfile::tempdir().unwrap();
    for other in [
        elsewhere.path().display().to_string(),
        // A prefix of the path that is not one of its directories.
        warehouse().trim_end_matches("house").to_string(),
        // The table itself: a table lies strictly below the warehouse.
        table.clone(),
    ] {
        let (logical, physical) = paimon_ballista::warehouse_codecs(&other);
        let e = logical_plan_from_bytes_with_extension_codec(
            &logical_bytes,
            &ctx.task_ctx(),
            logical.as_ref(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("outside the warehouse") && e.contains(&table) && e.contains("table_path"),
            "{other}: {e}"
        );
        let e = physical_plan_from_bytes_with_extension_codec(
            &physical_bytes,
            &ctx.task_ctx(),
            physical.as_ref(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("outside the warehouse") && e.contains(&table) && e.contains("table_path"),
            "{other}: {e}"
        );
    }

    for inside in [warehouse(), format!("{}/", warehouse())] {
        let (logical, physical) = paimon_ballista::warehouse_codecs(&inside);
        let back = logical_plan_from_bytes_with_extension_codec(
            &logical_bytes,
            &ctx.task_ctx(),
            logical.as_ref(),
        )
        .unwrap();
        let got = rows(
            &ctx.execute_logical_plan(back)
                .await
                .unwrap()
                .collect()
                .await
                .unwrap(),
        );
        assert_eq!(got, java_answer(), "{inside}");
        let back = physical_plan_from_bytes_with_extension_codec(
            &physical_bytes,
            &ctx.task_ctx(),
            physical.as_ref(),
        )
        .unwrap();
        let got = rows(&collect(back, ctx.task_ctx()).await.unwrap());
        assert_eq!(got, java_answer(), "{inside}");
    }
}
