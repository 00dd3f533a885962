//! Scans whose splits are the rows of their input ([`PaimonSplitReadExec`], what a session with
//! [`SplitsAsInput`] plans, as paimon-ballista's do): the rows equal Java's, and an input cut
//! into slices the way a distributed engine hands them to its tasks reads each split in exactly
//! one slice.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, AsArray, BinaryArray, RecordBatch};
use arrow::datatypes::Int32Type;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_plan::{collect, replace_children_if_necessary, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use paimon_datafusion::exec::split_input_schema;
use paimon_datafusion::sql::session_with_config;
use paimon_datafusion::{PaimonScanExec, PaimonSplitReadExec, SplitsAsInput};
use paimon_test_utils::repo;
use serde_json::Value;

fn session(extension: bool) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(3);
    if extension {
        config = config.with_extension(Arc::new(SplitsAsInput));
    }
    session_with_config(
        &repo().join("fixtures/warehouse").display().to_string(),
        config,
    )
    .unwrap()
}

/// Java's rows of `pk/partitioned` as (dt, hr, id) -> v.
fn java_rows() -> BTreeMap<(String, i32, i32), String> {
    let p = repo().join("fixtures/expected/pk/partitioned/latest.jsonl");
    std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).unwrap();
            let int = |c: &str| i32::try_from(r[c].as_i64().unwrap()).unwrap();
            (
                (r["dt"].as_str().unwrap().to_string(), int("hr"), int("id")),
                r["v"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn rows(batches: &[RecordBatch]) -> Vec<((String, i32, i32), String)> {
    let mut out = Vec::new();
    for b in batches {
        let dt = b.column(0).as_string::<i32>();
        let hr = b.column(1).as_primitive::<Int32Type>();
        let id = b.column(2).as_primitive::<Int32Type>();
        let v = b.column(3).as_string::<i32>();
        for i in 0..b.num_rows() {
            out.push((
                (dt.value(i).to_string(), hr.value(i), id.value(i)),
                v.value(i).to_string(),
            ));
        }
    }
    out
}

const SQL: &str = "SELECT dt, hr, id, v FROM pk.partitioned";

async fn plan(ctx: &SessionContext) -> Arc<dyn ExecutionPlan> {
    ctx.sql(SQL)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

fn find<T: ExecutionPlan + Clone>(plan: &Arc<dyn ExecutionPlan>) -> Option<T> {
    let mut found = None;
    plan.apply(|p| {
        if let Some(n) = p.downcast_ref::<T>() {
            found = Some(n.clone());
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .unwrap();
    found
}

#[tokio::test]
async fn rows_equal_javas_and_the_plain_scans() {
    let ctx = session(true);
    let plan = plan(&ctx).await;
    let read: PaimonSplitReadExec = find(&plan).expect("a PaimonSplitReadExec in the plan");
    assert!(
        find::<PaimonScanExec>(&plan).is_none(),
        "no leaf scan as well"
    );
    let plain: PaimonScanExec = find(&self::plan(&session(false)).await).unwrap();
    assert_eq!(read.input_split_count(), Some(plain.split_count()));
    assert_eq!(
        read.properties().output_partitioning().partition_count(),
        plain.node().partitions.len()
    );

    let mut got = rows(&collect(plan, ctx.task_ctx()).await.unwrap());
    got.sort();
    let want: Vec<_> = java_rows().into_iter().collect();
    assert_eq!(got, want);
}

/// The input's split rows, cut into single-row partitions.
fn split_rows(read: &PaimonSplitReadExec) -> Vec<Vec<u8>> {
    let source = read.input().downcast_ref::<DataSourceExec>().unwrap();
    let source: &dyn std::any::Any = source.data_source().as_ref();
    let memory = source.downcast_ref::<MemorySourceConfig>().unwrap();
    let mut out = Vec::new();
    for b in memory.partitions().iter().flatten() {
        let col = b.column(0).as_any().downcast_ref::<BinaryArray>().unwrap();
        out.extend(col.iter().map(|v| v.unwrap().to_vec()));
    }
    out
}

fn input_of(splits: &[Vec<u8>]) -> Arc<dyn ExecutionPlan> {
    let partitions: Vec<Vec<RecordBatch>> = splits
        .iter()
        .map(|s| {
            let col = BinaryArray::from_iter_values([s.as_slice()]);
            vec![RecordBatch::try_new(split_input_schema(), vec![Arc::new(col)]).unwrap()]
        })
        .collect();
    DataSourceExec::from_data_source(
        MemorySourceConfig::try_new(&partitions, split_input_schema(), None).unwrap(),
    )
}

#[tokio::test]
async fn each_split_is_read_by_the_slice_that_holds_it() {
    let ctx = session(true);
    let read: PaimonSplitReadExec = find(&plan(&ctx).await).unwrap();
    let splits = split_rows(&read);
    assert!(splits.len() >= 2, "{} splits", splits.len());
    let all: Arc<dyn ExecutionPlan> = Arc::new(read);
    let mut union = Vec::new();
    // Two tasks' slices: the first split, and the rest.
    for slice in [&splits[..1], &splits[1..]] {
        let node = replace_children_if_necessary(Arc::clone(&all), vec![input_of(slice)]).unwrap();
        assert_eq!(
            node.properties().output_partitioning().partition_count(),
            slice.len()
        );
        let got = rows(&collect(node, ctx.task_ctx()).await.unwrap());
        assert!(
            !got.is_empty(),
            "a slice of {} splits read no rows",
            slice.len()
        );
        union.extend(got);
    }
    union.sort();
    let want: Vec<_> = java_rows().into_iter().collect();
    assert_eq!(union, want, "the slices together read every row once");

    // An empty slice (a task of no partitions of this scan) reads nothing.
    let none = replace_children_if_necessary(all, vec![input_of(&[])]).unwrap();
    assert_eq!(none.properties().output_partitioning().partition_count(), 0);
}

#[tokio::test]
async fn an_input_of_other_columns_is_refused() {
    let ctx = session(true);
    let read: PaimonSplitReadExec = find(&plan(&ctx).await).unwrap();
    let other = arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new(
        "x",
        arrow::datatypes::DataType::Int32,
        false,
    )]);
    let input = DataSourceExec::from_data_source(
        MemorySourceConfig::try_new(&[vec![]], Arc::new(other), None).unwrap(),
    );
    let err = replace_children_if_necessary(Arc::new(read), vec![input]).unwrap_err();
    assert!(err.to_string().contains("one column `split`"), "{err}");
}

#[tokio::test]
async fn a_corrupt_split_row_is_an_error_naming_the_table() {
    let ctx = session(true);
    let read: PaimonSplitReadExec = find(&plan(&ctx).await).unwrap();
    let node =
        replace_children_if_necessary(Arc::new(read), vec![input_of(&[b"not a split".to_vec()])])
            .unwrap();
    let err = collect(node, ctx.task_ctx()).await.unwrap_err().to_string();
    assert!(
        err.contains("partitioned") && err.contains("split bytes"),
        "{err}"
    );
}
