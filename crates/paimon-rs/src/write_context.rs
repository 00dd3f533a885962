//! A worker's write context, taken only for the table the worker was told to write.
//!
//! The planner's bytes ([`paimon_meta::Table::write_context`], encoded by paimon-split) name
//! the table directory every file of the write goes under. A worker that took that path from
//! the bytes alone would create files wherever hostile bytes point; so the worker names the
//! table it writes (its own argument, not the bytes') and a context for any other table is
//! refused before any I/O. `paimon write --context`, Python's `TableWrite.from_context` and
//! `run_compact_task` all go through [`write_context_for`].

use paimon_spec::layout::TableLayout;
use paimon_split::WriteContext;

use crate::error::{Error, Result};

/// Decodes the write-context `bytes` for the table at `table` (a location as the caller
/// gave it; a trailing `/` is ignored) and checks the paths the context names
/// ([`WriteContext::check_paths`]).
///
/// # Errors
/// [`Error::Split`] for bytes that are no write context; [`Error::ContextForOtherTable`]
/// when the context's table is not `table`; [`Error::Spec`] for a path the context may not
/// name.
pub fn write_context_for(bytes: &[u8], table: &str) -> Result<WriteContext> {
    let ctx = paimon_split::decode_write_context(bytes)?;
    let expected = TableLayout::new(table);
    if ctx.table_path != expected.root() {
        return Err(Error::ContextForOtherTable {
            expected: expected.root().to_string(),
            found: ctx.table_path,
        });
    }
    ctx.check_paths()?;
    Ok(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paimon_spec::schema::TableSchema;

    fn context_of(table_path: &str) -> Vec<u8> {
        let ctx = WriteContext {
            table_path: table_path.to_string(),
            schema: TableSchema {
                version: 3,
                id: 0,
                fields: Vec::new(),
                highest_field_id: -1,
                partition_keys: Vec::new(),
                primary_keys: Vec::new(),
                options: Default::default(),
                comment: None,
                time_millis: 0,
            },
            snapshot_id: None,
            overwrite: false,
            compact_after: false,
            commit_user: None,
            restored_sequence_numbers: Vec::new(),
            hash_index_files: Vec::new(),
        };
        match paimon_split::encode_write_context(&ctx) {
            Ok(b) => b,
            Err(e) => panic!("encode: {e}"),
        }
    }

    #[test]
    fn a_context_for_the_table_is_taken() {
        let bytes = context_of("/wh/db.db/t");
        let ctx = write_context_for(&bytes, "/wh/db.db/t/").map_err(|e| e.chain());
        assert_eq!(ctx.map(|c| c.table_path), Ok("/wh/db.db/t".to_string()));
    }

    #[test]
    fn a_context_for_another_table_is_refused() {
        for other in [
            "/etc",
            "/wh/db.db/t/../../../etc",
            "/wh/db.db/t2",
            "/wh/db.db",
        ] {
            let bytes = context_of(other);
            match write_context_for(&bytes, "/wh/db.db/t") {
                Err(Error::ContextForOtherTable { expected, found }) => {
                    assert_eq!((expected.as_str(), found.as_str()), ("/wh/db.db/t", other));
                }
                other => panic!("want ContextForOtherTable, got {other:?}"),
            }
        }
    }
}
