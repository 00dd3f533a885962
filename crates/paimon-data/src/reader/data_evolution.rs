//! Data-evolution splits (Java `DataEvolutionSplitRead`): the files covering one row-id range
//! each hold some columns; they are read in step and zipped column by column.
//!
//! ```text
//!  rows 0..3   file A (seq 1): id, name, age     file B (seq 2): age      → id, name, age
//!              1  x  10                           11                        1  x  11
//!              2  y  20                           21                        2  y  21
//! ```
//! Each field comes from the newest file (highest `max_sequence_number`) whose columns contain
//! its id. A BLOB column's `.blob` files and the vector-store files (`….vector.<format>`,
//! Java's `vector.file.format` for VECTOR columns) may split a range into several files: they
//! are read one after another and must cover the whole range, as Java 1.4.2 requires (it has
//! no placeholder rows for a gap and fails such a read). A column no file of the range has
//! (a column added after the range was written) reads as null.
//! The group's deletion vector belongs to its *anchor* file, the oldest normal file by
//! `(max_sequence_number, file_name)`, and is applied to every file shifted by that file's
//! offset inside the anchor's row range, so all readers drop the same rows.

use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use paimon_spec::types::DataField;

use super::file::{read_file, FileTask, ROW_ID_FIELD_ID, SEQUENCE_NUMBER_FIELD_ID};
use super::{SplitContext, Task};
use crate::arrow_schema::to_arrow_schema;
use crate::error::{Error, Result};
use crate::format::{BatchIter, FileFormat, RowRanges};

pub(super) fn tasks(ctx: &Arc<SplitContext>, read: &[DataField]) -> Result<Vec<Task>> {
    let files = &ctx.split.data_files;
    let range = |i: usize| -> Result<(i64, i64)> {
        let f = &files[i];
        let first = f.first_row_id.ok_or_else(|| {
            Error::corrupt(&f.file_name, "data-evolution file without _FIRST_ROW_ID")
        })?;
        Ok((first, first + f.row_count - 1))
    };
    let mut order: Vec<usize> = (0..files.len()).collect();
    let mut keyed = Vec::with_capacity(order.len());
    for &i in &order {
        keyed.push((range(i)?, i));
    }
    keyed.sort();
    order = keyed.iter().map(|(_, i)| *i).collect();
    // Merge overlapping ranges into groups.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_end = i64::MIN;
    for (r, i) in keyed {
        match groups.last_mut() {
            Some(g) if r.0 <= group_end => {
                g.push(i);
                group_end = group_end.max(r.1);
            }
            _ => {
                groups.push(vec![i]);
                group_end = r.1;
            }
        }
    }
    let _ = order;
    let descriptors = super::blob_descriptors::columns_to_resolve(ctx, read);
    Ok(groups
        .into_iter()
        .map(|group| {
            let ctx = ctx.clone();
            let read = read.to_vec();
            let descriptors = descriptors.clone();
            Box::new(move || {
                let batches = read_group(&ctx, &group, &read)?;
                Ok(super::blob_descriptors::resolve(ctx, descriptors, batches))
            }) as Task
        })
        .collect())
}

/// A `.blob` file: one BLOB column of a row-id range, possibly split over several files.
fn is_blob(name: &str) -> bool {
    matches!(FileFormat::from_file_name(name), Ok(FileFormat::Blob))
}

/// A vector-store file (Java `VectorType.isVectorStoreFile`): the VECTOR columns of a row-id
/// range in the table's `vector.file.format`, named `….vector.<format>`.
fn is_vector_store(name: &str) -> bool {
    name.contains(".vector.")
}

/// Blob and vector-store files: they never anchor a deletion vector, and a range's files of
/// one kind are read one after another as one column source.
fn is_special(name: &str) -> bool {
    is_blob(name) || is_vector_store(name)
}

fn read_group(ctx: &SplitContext, group: &[usize], read: &[DataField]) -> Result<BatchIter> {
    let files = &ctx.split.data_files;
    if group.len() == 1 {
        let task = ctx.file_task(group[0])?;
        return read_file(&ctx.io, &task, &ctx.file_output(read, false));
    }
    // Newest first; blob and vector-store files after the normal ones.
    let mut sorted = group.to_vec();
    sorted.sort_by(|&a, &b| {
        let (fa, fb) = (&files[a], &files[b]);
        is_special(&fa.file_name)
            .cmp(&is_special(&fb.file_name))
            .then(fb.max_sequence_number.cmp(&fa.max_sequence_number))
    });
    let anchor = group
        .iter()
        .copied()
        .filter(|&i| !is_special(&files[i].file_name))
        .min_by(|&a, &b| {
            (files[a].max_sequence_number, &files[a].file_name)
                .cmp(&(files[b].max_sequence_number, &files[b].file_name))
        })
        .ok_or_else(|| {
            Error::unsupported(format!(
                "data-evolution group without a normal file in {}",
                ctx.bucket_dir
            ))
        })?;
    let anchor_first = files[anchor].first_row_id.unwrap_or(0);
    // Java 1.4 (`DataEvolutionSplitRead.mergeRangesAndSort`) refuses a range whose normal
    // files cover different row ids: their columns could not be lined up row by row.
    let anchor_rows = files[anchor].row_count;
    for &i in group {
        let f = &files[i];
        let first = f.first_row_id.unwrap_or(anchor_first);
        if !is_special(&f.file_name) && (first, f.row_count) != (anchor_first, anchor_rows) {
            return Err(Error::corrupt(
                ctx.file_task(i)?.path,
                format!(
                    "covers row ids [{first}, {}) but {} of the same data-evolution range \
                     covers [{anchor_first}, {})",
                    first.saturating_add(f.row_count),
                    files[anchor].file_name,
                    anchor_first.saturating_add(anchor_rows)
                ),
            ));
        }
    }
    let dv = ctx.deletion_vector(anchor)?;
    // Readers: each normal file on its own, newest first, then one per blob field over its
    // blob files in row-id order, then one per set of vector-store columns over its files.
    // Each field is read from the first reader that has it.
    let mut readers: Vec<Vec<FileTask>> = Vec::with_capacity(sorted.len());
    let mut blobs: Vec<FileTask> = Vec::new();
    let mut vectors: Vec<FileTask> = Vec::new();
    for &i in &sorted {
        let task = ctx.file_task(i)?;
        if is_blob(&task.meta.file_name) {
            blobs.push(task);
        } else if is_vector_store(&task.meta.file_name) {
            vectors.push(task);
        } else {
            readers.push(vec![task]);
        }
    }
    let expected_rows = files[anchor].row_count;
    readers.extend(special_bunches(blobs, anchor_first, expected_rows)?);
    readers.extend(special_bunches(vectors, anchor_first, expected_rows)?);
    let mut assigned: Vec<Vec<DataField>> = vec![Vec::new(); readers.len()];
    let mut source_of: Vec<Option<usize>> = Vec::with_capacity(read.len());
    for f in read {
        let system = f.id == ROW_ID_FIELD_ID || f.id == SEQUENCE_NUMBER_FIELD_ID;
        let constant = ctx.constants.iter().any(|(id, _)| *id == f.id);
        let pos = if system || constant {
            Some(0)
        } else {
            readers.iter().position(|r| {
                r.first()
                    .is_some_and(|t| t.file_fields.iter().any(|ff| ff.id == f.id))
            })
        };
        if let Some(p) = pos {
            assigned[p].push(f.clone());
        }
        source_of.push(pos);
    }
    // Read every reader that has fields, with the anchor's deletion vector shifted onto each
    // of its files.
    let mut columns: Vec<Option<RecordBatch>> = vec![None; readers.len()];
    let mut rows = None;
    for (k, reader) in readers.iter_mut().enumerate() {
        if assigned[k].is_empty() && k != 0 {
            continue;
        }
        let out = ctx.file_output(&assigned[k], false);
        let schema = out.schema();
        let mut batches = Vec::new();
        for task in reader.iter_mut() {
            let offset = task.meta.first_row_id.unwrap_or(anchor_first) - anchor_first;
            let total = u64::try_from(task.meta.row_count).unwrap_or(0);
            task.rows = dv.as_ref().map(|dv| {
                let shift = u64::try_from(offset).unwrap_or(0);
                RowRanges::excluding(total, dv.iter().filter(|p| *p >= shift).map(|p| p - shift))
            });
            for b in read_file(&ctx.io, task, &out)? {
                batches.push(b?);
            }
        }
        let path = reader.first().map(|t| t.path.as_str()).unwrap_or("");
        let batch = arrow_select::concat::concat_batches(&schema, &batches)
            .map_err(|e| Error::arrow(path, e))?;
        match rows {
            None => rows = Some(batch.num_rows()),
            Some(n) if n != batch.num_rows() => {
                return Err(Error::corrupt(
                    path,
                    format!(
                        "has {} rows{} but its row-range group has {n}",
                        batch.num_rows(),
                        if dv.is_some() { " after deletions" } else { "" }
                    ),
                ))
            }
            Some(_) => {}
        }
        columns[k] = Some(batch);
    }
    let n = rows.unwrap_or(0);
    let schema = Arc::new(to_arrow_schema(read));
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(read.len());
    for (f, src) in read.iter().zip(&source_of) {
        let col = src
            .and_then(|k| columns[k].as_ref())
            .and_then(|b| b.column_by_name(&f.name).cloned());
        cols.push(match col {
            Some(c) => c,
            None => new_null_array(schema.field(cols.len()).data_type(), n),
        });
    }
    let options = RecordBatchOptions::new().with_row_count(Some(n));
    let whole = RecordBatch::try_new_with_options(schema, cols, &options)
        .map_err(|e| Error::arrow(&ctx.bucket_dir, e))?;
    let size = ctx.batch_size;
    let chunks: Vec<Result<RecordBatch>> = (0..n)
        .step_by(size)
        .map(|start| Ok(whole.slice(start, size.min(n - start))))
        .collect();
    Ok(Box::new(chunks.into_iter()))
}

/// Which files of a group are read one after another as one column source (Java
/// `SpecialFieldBunch`): a blob file by its one column, a vector-store file by its schema,
/// format and written columns.
#[derive(PartialEq)]
enum BunchKey {
    Blob(i32),
    VectorStore(i64, FileFormat, Vec<i32>),
}

fn bunch_key(task: &FileTask) -> Result<BunchKey> {
    if is_vector_store(&task.meta.file_name) {
        let format = FileFormat::from_file_name(&task.meta.file_name)?;
        let mut ids: Vec<i32> = task.file_fields.iter().map(|f| f.id).collect();
        ids.sort_unstable();
        return Ok(BunchKey::VectorStore(task.meta.schema_id, format, ids));
    }
    match task.file_fields.as_slice() {
        [f] => Ok(BunchKey::Blob(f.id)),
        _ => Err(Error::corrupt(
            &task.path,
            format!(
                "a blob file must write one column, its _WRITE_COLS give {}",
                task.file_fields.len()
            ),
        )),
    }
}

/// The blob (or vector-store) files of a group as one reader per bunch (Java
/// `SpecialFieldBunch`): files in row-id order, of the files starting at the same row id only
/// the newest, and a file that starts inside rows already covered (an older overlapping write)
/// left out. Together they must cover exactly the group's `expected_rows` rows from
/// `first_row_id`: Java 1.4.2 fails such a read otherwise ("All files in a field merge split
/// should have the same row count"), it has no placeholder rows for a gap.
fn special_bunches(
    mut blobs: Vec<FileTask>,
    first_row_id: i64,
    expected_rows: i64,
) -> Result<Vec<Vec<FileTask>>> {
    let first = |t: &FileTask| t.meta.first_row_id.unwrap_or(first_row_id);
    blobs.sort_by(|a, b| {
        first(a)
            .cmp(&first(b))
            .then(b.meta.max_sequence_number.cmp(&a.meta.max_sequence_number))
    });
    let mut bunches: Vec<(BunchKey, i64, Vec<FileTask>)> = Vec::new();
    for task in blobs {
        let key = bunch_key(&task)?;
        let start = first(&task);
        let idx = match bunches.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                bunches.push((key, first_row_id, Vec::new()));
                bunches.len() - 1
            }
        };
        let (_, next, files) = &mut bunches[idx];
        if start < *next {
            continue;
        }
        if start > *next {
            return Err(Error::corrupt(
                &task.path,
                format!("file starts at row id {start}, expected {next}"),
            ));
        }
        *next = start + task.meta.row_count;
        files.push(task);
    }
    for (_, next, files) in &bunches {
        if *next != first_row_id + expected_rows {
            let path = files.first().map(|t| t.path.as_str()).unwrap_or("");
            return Err(Error::corrupt(
                path,
                format!(
                    "files cover row ids {first_row_id}..{next}, the group has {expected_rows} rows"
                ),
            ));
        }
    }
    Ok(bunches.into_iter().map(|(_, _, files)| files).collect())
}

#[cfg(test)]
mod tests {
    use paimon_spec::data_file::DataFileMeta;
    use paimon_spec::stats::SimpleStats;
    use paimon_spec::types::{DataType, TypeKind};

    use super::*;

    fn task(name: &str, first_row_id: i64, rows: i64, seq: i64, field: i32) -> FileTask {
        FileTask {
            path: name.to_string(),
            meta: DataFileMeta {
                file_name: name.to_string(),
                file_size: 1,
                row_count: rows,
                min_key: Vec::new().into(),
                max_key: Vec::new().into(),
                key_stats: SimpleStats::empty(),
                value_stats: SimpleStats::empty(),
                min_sequence_number: seq,
                max_sequence_number: seq,
                schema_id: 0,
                level: 0,
                extra_files: vec![],
                creation_time: None,
                delete_row_count: None,
                embedded_index: None,
                file_source: None,
                value_stats_cols: None,
                external_path: None,
                first_row_id: Some(first_row_id),
                write_cols: None,
                write_cols_sequences: None,
            },
            file_fields: vec![DataField::new(
                field,
                format!("f{field}"),
                DataType::nullable(TypeKind::Blob),
            )],
            rows: None,
        }
    }

    fn names(bunches: &[Vec<FileTask>]) -> Vec<Vec<&str>> {
        bunches
            .iter()
            .map(|b| b.iter().map(|t| t.meta.file_name.as_str()).collect())
            .collect()
    }

    #[test]
    fn vector_store_files_of_one_column_set_are_read_in_row_id_order() {
        // As `append/vector_store` snapshot 1: the writer rolled after 1000 of 1100 rows.
        let files = vec![
            task("d-2.vector.avro", 1000, 100, 1, 3),
            task("d-1.vector.avro", 0, 1000, 1, 3),
        ];
        let bunches = special_bunches(files, 0, 1100).unwrap();
        assert_eq!(
            names(&bunches),
            vec![vec!["d-1.vector.avro", "d-2.vector.avro"]]
        );
    }

    #[test]
    fn one_bunch_per_blob_field_and_the_newest_file_of_a_start_wins() {
        let files = vec![
            task("old.blob", 0, 2, 1, 5),
            task("b.blob", 2, 1, 1, 5),
            task("new.blob", 0, 2, 4, 5),
            task("other.blob", 0, 3, 1, 6),
        ];
        let bunches = special_bunches(files, 0, 3).unwrap();
        assert_eq!(
            names(&bunches),
            vec![vec!["new.blob", "b.blob"], vec!["other.blob"]]
        );
    }

    /// Java 1.4.2 refuses both ("Blob/vector-store file first row id should be continuous" and
    /// "All files in a field merge split should have the same row count"): no placeholder rows.
    #[test]
    fn blob_files_leaving_a_gap_are_an_error() {
        let hole = vec![task("a.blob", 0, 5, 1, 5), task("b.blob", 6, 4, 1, 5)];
        let err = special_bunches(hole, 0, 10).unwrap_err().to_string();
        assert!(
            err.contains("b.blob") && err.contains("starts at row id 6, expected 5"),
            "{err}"
        );

        let short = vec![task("a.blob", 0, 5, 1, 5)];
        let err = special_bunches(short, 0, 10).unwrap_err().to_string();
        assert!(
            err.contains("cover row ids 0..5, the group has 10 rows"),
            "{err}"
        );
    }
}
