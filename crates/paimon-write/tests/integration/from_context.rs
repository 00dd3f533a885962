//! `TableWrite::from_context`: a writer built from a planner's write context alone continues
//! the context's sequence numbers (none for an overwrite) and refuses paths the layout rule
//! refuses, before anything is written.

use std::sync::Arc;

use paimon_io::LocalFileIO;
use paimon_spec::index_file::IndexFileMeta;
use paimon_spec::stats::serialize_datums;
use paimon_split::WriteContext;
use paimon_write::{Error, TableWrite};

use crate::append::{batch, rows};
use crate::pk::pk_schema;

fn context(dir: &std::path::Path, overwrite: bool) -> WriteContext {
    let schema =
        paimon_spec::schema::TableSchema::from_json_str(&pk_schema(r#""bucket":"1""#)).unwrap();
    let unpartitioned = serialize_datums(&[], &[]).unwrap();
    WriteContext {
        table_path: dir.to_str().unwrap().to_string(),
        schema,
        snapshot_id: Some(3),
        overwrite,
        compact_after: false,
        commit_user: None,
        restored_sequence_numbers: vec![(unpartitioned, 0, 41)],
        hash_index_files: vec![],
    }
}

/// The smallest sequence number of the files `ctx`'s writer writes for the test's rows.
fn first_sequence_number(ctx: &WriteContext) -> i64 {
    let io = Arc::new(LocalFileIO::new());
    let mut w = TableWrite::from_context(io, ctx).unwrap();
    w.write(&batch(&ctx.schema, &rows())).unwrap();
    let msgs = w.prepare_commit().unwrap();
    msgs.iter()
        .flat_map(|m| &m.data_increment.new_files)
        .map(|f| f.min_sequence_number)
        .min()
        .unwrap()
}

#[test]
fn a_context_writer_continues_the_restored_sequence_numbers() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(first_sequence_number(&context(dir.path(), false)), 42);
    // An overwrite starts from nothing, as Java's does.
    assert_eq!(first_sequence_number(&context(dir.path(), true)), 0);
}

#[test]
fn a_context_naming_a_hostile_index_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = context(dir.path(), false);
    let partition = ctx.restored_sequence_numbers[0].0.clone();
    ctx.hash_index_files.push((
        partition,
        0,
        IndexFileMeta {
            index_type: "HASH".into(),
            file_name: "../../escape".into(),
            file_size: 4,
            row_count: 1,
            dv_ranges: None,
            external_path: None,
            global_index: None,
        },
    ));
    match TableWrite::from_context(Arc::new(LocalFileIO::new()), &ctx) {
        Err(Error::Spec(paimon_spec::Error::PathNotAllowed { field, .. })) => {
            assert_eq!(field, "WriteContext.hashIndexFiles.fileName")
        }
        other => panic!("{other:?}"),
    }
}
