//! Writes rows into a copy of a bundled table two ways: in one call (write + commit), and as a
//! worker's commit messages committed by a driver; then reads the table back.
//!
//! `cargo run -p paimon-rs --example write_commit` (writes into a temporary copy of
//! `fixtures/warehouse/pk.db/dedup_compacted`).

use std::path::Path;
use std::sync::Arc;

use paimon_rs::arrow_array::{
    ArrayRef, Int32Array, Int64Array, StringArray, TimestampMillisecondArray,
};
use paimon_rs::{RecordBatch, Table};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Rows `id, v, n, ts` for `ids`.
fn batch(table: &Table, ids: &[i32], tag: &str) -> Result<RecordBatch> {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(ids.to_vec())),
        Arc::new(StringArray::from(
            ids.iter().map(|i| format!("{tag}-{i}")).collect::<Vec<_>>(),
        )),
        Arc::new(Int64Array::from(
            ids.iter().map(|i| i64::from(*i)).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampMillisecondArray::from(
            ids.iter().map(|_| 1_714_521_600_000).collect::<Vec<i64>>(),
        )),
    ];
    Ok(RecordBatch::try_new(table.arrow_schema(), cols)?)
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/warehouse/pk.db/dedup_compacted");
    let dir = std::env::temp_dir().join(format!("paimon-rs-write-{}", std::process::id()));
    copy_dir(&src, &dir)?;
    let table = Table::open_path(&dir.display().to_string())?;

    // One call: write, commit (and compact after, on tables Java's writers compact).
    let report = table
        .write()
        .batches([batch(&table, &[1, 2, 1000], "one-call")?])?;
    println!(
        "wrote {} rows into {} files: snapshots {:?}",
        report.rows,
        report.files,
        report.all_snapshots()
    );

    // A worker prepares commit messages (they travel as bytes to the driver)...
    let messages = table
        .new_write()?
        .write(&batch(&table, &[3, 2000], "worker")?)?
        .prepare_commit()?;
    let bytes: Vec<Vec<u8>> = messages
        .iter()
        .map(|m| {
            paimon_rs::split::commit::encode_commit_message(
                m,
                paimon_rs::split::commit::DEFAULT_COMMIT_MESSAGE_VERSION,
            )
        })
        .collect::<std::result::Result<_, _>>()?;
    // ...and the driver commits them once (identifier 1 of user "example-driver").
    let decoded: Vec<_> = bytes
        .iter()
        .map(|b| {
            paimon_rs::split::commit::decode_commit_message(
                b,
                paimon_rs::split::commit::DEFAULT_COMMIT_MESSAGE_VERSION,
            )
        })
        .collect::<std::result::Result<_, _>>()?;
    let ids = table.new_commit("example-driver").commit(1, &decoded)?;
    println!(
        "driver committed {} messages: snapshots {ids:?}",
        decoded.len()
    );

    let rows: usize = table
        .scan()
        .to_arrow()?
        .iter()
        .map(RecordBatch::num_rows)
        .sum();
    println!("the table now reads {rows} rows");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
