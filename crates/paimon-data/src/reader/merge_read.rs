//! Merge-on-read of primary-key splits that are not raw-convertible (Java
//! `MergeFileSplitRead.createMergeReader`): files are grouped into key-disjoint sections of
//! sorted runs, each file is read as `value columns + _SEQUENCE_NUMBER + _VALUE_KIND` (mapped
//! to the current schema), and [`crate::merge`] merges each section.
//!
//! Key columns are not read: a record's key equals its primary-key value columns, which the
//! merge finds by name (the thin-mode layout), so key and value copies are read once.
//!
//! Only the columns the merge needs are decoded (Java `MergeFileSplitRead.adjustReadType`):
//! the read's columns (projection and predicate), the primary keys, the `sequence.field`
//! columns and what the merge engine adds for them
//! ([`MergeEngineSpec::required_value_columns`]); the merged batches carry just those.

use std::sync::Arc;

use paimon_spec::options::CoreOptions;
use paimon_spec::types::{DataField, DataType, TypeKind};

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema};

use super::file::{read_file, SEQUENCE_NUMBER, SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND};
use super::{SplitContext, Task};
use crate::error::{Error, Result};
use crate::format::BatchIter;
use crate::merge::{
    interval_partition, merge_sorted_runs, with_level, with_level_field, MergeEngineSpec,
    MergeError, MergeOptions, RowKindColumn, RunLayout, SortedRun,
};

/// The types of the table's (trimmed) primary key, in key order.
pub(super) fn key_types(ctx: &SplitContext) -> Vec<DataType> {
    ctx.table
        .trimmed_primary_key_fields()
        .iter()
        .map(|f| f.data_type.clone())
        .collect()
}

/// What a merge of all columns reads of every file: the table's columns, then the file's
/// physical `_SEQUENCE_NUMBER`. The incremental diff read uses it as is.
pub(super) fn merge_input_fields(ctx: &SplitContext) -> Vec<DataField> {
    let mut fields = ctx.table.fields.clone();
    fields.push(DataField::new(
        SEQUENCE_NUMBER_FIELD_ID,
        SEQUENCE_NUMBER,
        DataType::not_null(TypeKind::BigInt),
    ));
    fields
}

/// What a merge of `read` reads of every file, and its engine: [`merge_input_fields`] cut to
/// the columns the merge needs, and the engine (resolved against all columns, as Java checks
/// the options) projected to them.
fn projected_merge(
    ctx: &SplitContext,
    read: &[DataField],
    core: &CoreOptions,
) -> std::result::Result<(Vec<DataField>, MergeEngineSpec), MergeError> {
    let pk = ctx.table.trimmed_primary_keys();
    let all = merge_input_fields(ctx);
    let schema = ctx.file_output(&all, true).schema();
    let layout = RunLayout::from_schema(
        &schema,
        &pk,
        &core.sequence_fields,
        core.sequence_field_descending,
    )?;
    let value_fields = layout.value_fields(&schema)?;
    let engine = MergeEngineSpec::try_new(core, &pk, &value_fields)?;
    let wanted: Vec<usize> = value_fields
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            let name = f.name().as_str();
            read.iter().any(|r| r.name == name)
                || pk.iter().any(|k| k == name)
                || core.sequence_fields.iter().any(|s| s == name)
        })
        .map(|(i, _)| i)
        .collect();
    let kept = engine.required_value_columns(&wanted);
    let engine = engine.project(&kept)?;
    let names: Vec<&str> = kept
        .iter()
        .filter_map(|&i| value_fields.get(i).map(|f| f.name().as_str()))
        .collect();
    // The value columns in table order, then `_SEQUENCE_NUMBER`, as in `all`.
    let fields = all
        .iter()
        .filter(|f| f.id == SEQUENCE_NUMBER_FIELD_ID || names.contains(&f.name.as_str()))
        .cloned()
        .collect();
    Ok((fields, engine))
}

pub(super) fn tasks(
    ctx: &Arc<SplitContext>,
    read: &[DataField],
    core: &CoreOptions,
) -> Result<Vec<Task>> {
    let merr = |e| Error::Merge {
        bucket: ctx.bucket_dir.clone(),
        source: e,
    };
    let pk = ctx.table.trimmed_primary_keys();
    let key_types = key_types(ctx);
    let sections = interval_partition(&ctx.split.data_files, &key_types).map_err(merr)?;
    let (fields, engine) = projected_merge(ctx, read, core).map_err(merr)?;
    let out = ctx.file_output(&fields, true);
    let levels = core.lookup_merge();
    let schema = match levels {
        true => with_level_field(&out.schema()),
        false => out.schema(),
    };
    let layout = RunLayout::from_schema(
        &schema,
        &pk,
        &core.sequence_fields,
        core.sequence_field_descending,
    )
    .map_err(merr)?;
    Ok(sections
        .into_iter()
        .map(|runs| {
            let ctx = ctx.clone();
            // Under a memory budget each run reads its share of a batch: one per run is held.
            let out = out.clone().shared_by(runs.len());
            let schema = schema.clone();
            let layout = layout.clone();
            let engine = engine.clone();
            Box::new(move || {
                let sorted: Vec<SortedRun<Error>> = runs
                    .into_iter()
                    .map(|files| chain_files(ctx.clone(), files, out.clone(), levels))
                    .collect();
                // Java's merged rows carry the kind of the merge result (`+U` when the last
                // record of a deduplicated key was one).
                let kinds = ctx.options.with_row_kind;
                let options = MergeOptions::default()
                    .with_batch_size(ctx.batch_size)
                    .with_row_kind(kinds.then_some(RowKindColumn::Int8));
                let bucket = ctx.bucket_dir.clone();
                let reader =
                    merge_sorted_runs(sorted, &schema, layout, &engine, options).map_err(|e| {
                        Error::Merge {
                            bucket: bucket.clone(),
                            source: e,
                        }
                    })?;
                Ok(Box::new(reader.map(move |r| {
                    r.map_err(|e| Error::Merge {
                        bucket: bucket.clone(),
                        source: e,
                    })
                    .and_then(|b| {
                        if kinds {
                            kind_as_value_kind(b)
                        } else {
                            Ok(b)
                        }
                    })
                })) as BatchIter)
            }) as Task
        })
        .collect())
}

/// `batch` with the merge's Int8 `_ROW_KIND` column named `_VALUE_KIND`, the column the
/// reader takes row kinds from.
fn kind_as_value_kind(batch: RecordBatch) -> Result<RecordBatch> {
    let schema = batch.schema();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let f = f.as_ref().clone();
            if f.name() == crate::merge::ROW_KIND {
                f.with_name(VALUE_KIND)
            } else {
                f
            }
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), batch.columns().to_vec())
        .map_err(|e| Error::arrow("<merged batch>", e))
}

/// The batches of `files` (indices into the split), opened one after another; with `levels`,
/// each batch ends with a `_LEVEL` column holding its file's level (for a lookup merge,
/// [`crate::merge::RunLayout::level_index`]).
pub(super) fn chain_files(
    ctx: Arc<SplitContext>,
    files: Vec<usize>,
    out: super::file::FileOutput,
    levels: bool,
) -> BatchIter {
    Box::new(files.into_iter().flat_map(move |i| {
        let opened = ctx
            .file_task(i)
            .and_then(|task| read_file(&ctx.io, &task, &out));
        let level = ctx.split.data_files.get(i).map_or(0, |f| f.level);
        match opened {
            Ok(it) if levels => Box::new(it.map(move |b| {
                b.and_then(|b| {
                    with_level(&b, level).map_err(|e| Error::arrow("<merge input batch>", e))
                })
            })),
            Ok(it) => it,
            Err(e) => Box::new(std::iter::once(Err(e))) as BatchIter,
        }
    }))
}
