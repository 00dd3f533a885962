//! Format tables (`type = format-table`, Java `FormatTable`): Hive-style directories of plain
//! data files, partitioned by `k=v/` path segments, with no snapshots or manifests.
//!
//! Reading lists the data files of every partition directory (pruned by the predicate's
//! conjuncts over partition columns) and decodes them with the table's schema
//! ([`paimon_data::format_table`]). Writing puts one new file per partition under the
//! partition's `_temporary/` ([`paimon_write::format_table`]) and commits by renaming each into
//! place; an overwrite then deletes the files the replaced partitions held before. Parquet, ORC,
//! CSV and JSON are read and written.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use paimon_data::format_table::{
    decode_format_file, partition_batch, FormatFile, FormatTableFormat, DEFAULT_BATCH_ROWS,
};
use paimon_io::FileIORef;
use paimon_meta::schema_manager::SchemaManager;
use paimon_spec::layout::{
    check_file_name, format_partition_dir, is_format_data_dir, is_format_data_file, join,
    parse_format_partition_dir, DEFAULT_PARTITION_NAME, FORMAT_TABLE_TEMP_DIR,
    PARTITION_PATH_ONLY_VALUE,
};
use paimon_spec::options::{is_format_table, parse_memory_size};
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchemaRef;
use paimon_spec::types::DataType;
use paimon_write::format_table::{FormatTableLayout, FormatTableWriter, PendingFormatFile};

use crate::error::{Error, Result};

/// A format table: its directory, storage and latest schema.
#[derive(Debug, Clone)]
pub struct FormatTable {
    io: FileIORef,
    path: String,
    schema: TableSchemaRef,
    format: FormatTableFormat,
    only_value: bool,
    default_name: String,
}

impl FormatTable {
    /// The format table at `path`, or `None` when the table there is not a format table.
    ///
    /// # Errors
    /// No schema there; unreadable or malformed schema; an unknown `file.format`.
    pub fn open(io: FileIORef, path: &str) -> Result<Option<FormatTable>> {
        let path = path.trim_end_matches('/');
        let schema = SchemaManager::new(Arc::clone(&io), path)
            .latest()?
            .ok_or_else(|| Error::invalid("table", format!("no table at {path} (no schema)")))?;
        if !is_format_table(&schema.options) {
            return Ok(None);
        }
        let option = |k: &str| schema.options.get(k).map(|v| v.trim().to_string());
        let format = FormatTableFormat::from_options(&schema.options)?;
        let only_value =
            option(PARTITION_PATH_ONLY_VALUE).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let default_name =
            option("partition.default-name").unwrap_or_else(|| DEFAULT_PARTITION_NAME.to_string());
        Ok(Some(FormatTable {
            path: path.to_string(),
            io,
            schema,
            format,
            only_value,
            default_name,
        }))
    }

    /// [`FormatTable::open`] at a location (a local path or an object-store URL).
    ///
    /// # Errors
    /// As [`FormatTable::open`]; a scheme this build leaves out.
    pub fn open_path(location: &str) -> Result<Option<FormatTable>> {
        FormatTable::open(paimon_io::file_io_for(location)?, location)
    }

    /// The table directory.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The latest schema.
    pub fn schema(&self) -> &TableSchemaRef {
        &self.schema
    }

    /// The file format (`file.format`).
    pub fn format(&self) -> &FormatTableFormat {
        &self.format
    }

    /// The Arrow schema rows are read as and written with (every column).
    pub fn arrow_schema(&self) -> SchemaRef {
        Arc::new(paimon_data::arrow_schema::to_arrow_schema(
            &self.schema.fields,
        ))
    }

    fn type_of(&self, name: &str) -> Option<DataType> {
        self.schema.field(name).map(|f| f.data_type.clone())
    }

    /// The data files of the table, in path order, with their partitions; the partitions for
    /// which `filter`'s conjuncts over partition columns are not true are left out.
    ///
    /// # Errors
    /// Storage errors; a partition value that does not cast to its column's type.
    pub fn files(&self, filter: Option<&Predicate>) -> Result<Vec<FormatFile>> {
        let keys = &self.schema.partition_keys;
        let pruning: Vec<Predicate> = filter
            .map(|p| {
                p.conjuncts()
                    .into_iter()
                    .filter(|c| {
                        let cols = c.columns();
                        !cols.is_empty() && cols.iter().all(|col| keys.iter().any(|k| k == col))
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let pruning = (!pruning.is_empty()).then(|| Predicate::and(pruning));
        let mut out = Vec::new();
        self.list(&self.path, &mut Vec::new(), pruning.as_ref(), &mut out)?;
        Ok(out)
    }

    /// Lists `dir` at the partition level `values.len()`.
    fn list(
        &self,
        dir: &str,
        values: &mut Vec<Option<String>>,
        pruning: Option<&Predicate>,
        out: &mut Vec<FormatFile>,
    ) -> Result<()> {
        let keys = &self.schema.partition_keys;
        // The table's own directory must be there; a partition may be gone since it was listed.
        let entries = list_plain(&self.io, dir, dir != self.path)?;
        let depth = values.len();
        for PlainEntry {
            name,
            child,
            is_dir,
        } in entries
        {
            let name = name.as_str();
            if is_dir {
                if depth >= keys.len() || !is_format_data_dir(name) {
                    continue;
                }
                let Some(value) = parse_format_partition_dir(name, &keys[depth], self.only_value)
                else {
                    continue;
                };
                values.push((value != self.default_name).then_some(value));
                let keep = values.len() < keys.len() || self.partition_matches(values, pruning)?;
                if keep {
                    self.list(&child, values, pruning, out)?;
                }
                values.pop();
            } else if depth == keys.len() && is_format_data_file(name) {
                out.push(FormatFile {
                    path: child,
                    partition: values.clone(),
                });
            }
        }
        Ok(())
    }

    fn partition_matches(
        &self,
        values: &[Option<String>],
        pruning: Option<&Predicate>,
    ) -> Result<bool> {
        let Some(pred) = pruning else {
            return Ok(true);
        };
        let probe = FormatFile {
            path: self.path.clone(),
            partition: values.to_vec(),
        };
        let row = partition_batch(&probe, &self.schema.fields, &self.schema.partition_keys)?;
        let mask = paimon_data::filter::evaluate(pred, &row, &|c| self.type_of(c))?;
        Ok(mask.len() == 1 && mask.is_valid(0) && mask.value(0))
    }

    /// Reads the table: every row for which `filter` is true (partitions pruned first), with
    /// the columns of `projection` (default: all), at most `limit` rows.
    ///
    /// # Errors
    /// Storage and format errors naming the file; an unknown column in `projection`.
    pub fn read(
        &self,
        filter: Option<&Predicate>,
        projection: Option<&[String]>,
        limit: Option<usize>,
    ) -> Result<Vec<RecordBatch>> {
        let indices = match projection {
            None => None,
            Some(cols) => Some(
                cols.iter()
                    .map(|c| {
                        self.schema
                            .fields
                            .iter()
                            .position(|f| &f.name == c)
                            .ok_or_else(|| Error::invalid("projection", format!("no column {c}")))
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        let mut out = Vec::new();
        let mut left = limit.unwrap_or(usize::MAX);
        for file in self.files(filter)? {
            if left == 0 {
                break;
            }
            let data = self.io.read(&file.path)?;
            let batches = decode_format_file(
                &self.format,
                &file,
                data,
                &self.schema.fields,
                &self.schema.partition_keys,
                DEFAULT_BATCH_ROWS,
            )?;
            for batch in batches {
                let batch = match filter {
                    Some(p) => paimon_data::filter::filter_batch(p, &batch, &|c| self.type_of(c))?,
                    None => batch,
                };
                let batch = match &indices {
                    Some(i) => batch
                        .project(i)
                        .map_err(|e| Error::invalid("projection", e.to_string()))?,
                    None => batch,
                };
                let n = batch.num_rows().min(left);
                left -= n;
                if n > 0 {
                    out.push(batch.slice(0, n));
                }
                if left == 0 {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// A write of new rows (appended unless [`FormatWrite::with_overwrite`]).
    ///
    /// # Errors
    /// Text format tables; a codec the format's writer does not have (CSV and JSON are
    /// written uncompressed); a column type the format is not written with here; an invalid
    /// `target-file-size`.
    pub fn write(&self) -> Result<FormatWrite> {
        let option = |k: &str| self.schema.options.get(k).map(|v| v.trim().to_string());
        // Java `CoreOptions.formatTableFileCompression`: `file.compression`, else
        // `format-table.file.compression`, else `compression`, else the format's default
        // (Parquet snappy, ORC zstd, CSV and JSON none).
        let compression = option("file.compression")
            .or_else(|| option("format-table.file.compression"))
            .or_else(|| option("compression"))
            .unwrap_or_else(|| {
                match self.format {
                    FormatTableFormat::Parquet => "snappy",
                    FormatTableFormat::Orc => "zstd",
                    _ => "none",
                }
                .to_string()
            });
        let level = option("file.compression.zstd-level")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        // Java `targetFileSize(false)`: `target-file-size`, else 256 MiB.
        let target_file_size = match option("target-file-size") {
            None => 256 << 20,
            Some(v) => parse_memory_size(&v).filter(|n| *n > 0).ok_or_else(|| {
                Error::invalid("target-file-size", format!("{v:?} is not a size"))
            })?,
        };
        let layout = FormatTableLayout {
            table_path: self.path.clone(),
            fields: self.schema.fields.clone(),
            partition_keys: self.schema.partition_keys.clone(),
            only_value: self.only_value,
            default_name: self.default_name.clone(),
            legacy_name: option("partition.legacy-name")
                .is_none_or(|v| !v.eq_ignore_ascii_case("false")),
            format: self.format.clone(),
            compression: (compression, level),
            target_file_size,
        };
        Ok(FormatWrite {
            table: self.clone(),
            writer: FormatTableWriter::new(Arc::clone(&self.io), layout)?,
            overwrite: None,
        })
    }
}

/// What an overwrite replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Replace {
    /// The partitions the write puts files in (Java's `dynamic-partition-overwrite`).
    Written,
    /// The partition of these leading partition columns' values, whatever the write holds.
    Partition(Vec<(String, String)>),
}

/// A write into a format table in progress: [`FormatWrite::write`] batches, then
/// [`FormatWrite::commit`] (or [`FormatWrite::abort`]).
#[derive(Debug)]
pub struct FormatWrite {
    table: FormatTable,
    writer: FormatTableWriter,
    overwrite: Option<Replace>,
}

/// What a committed format-table write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatWriteReport {
    /// Rows written.
    pub rows: u64,
    /// The files committed.
    pub files: Vec<String>,
    /// The files an overwrite deleted.
    pub deleted: Vec<String>,
}

impl FormatWrite {
    /// Replaces data instead of appending: `partition` (values of leading partition columns,
    /// every row must lie in it), or with `None` the partitions the rows are written to.
    ///
    /// # Errors
    /// A column that is not a partition column, or columns that are not a prefix of them.
    pub fn with_overwrite(mut self, partition: Option<Vec<(String, String)>>) -> Result<Self> {
        let keys = &self.table.schema.partition_keys;
        self.overwrite = Some(match partition {
            None => Replace::Written,
            Some(pairs) => {
                for (i, (k, _)) in pairs.iter().enumerate() {
                    if keys.get(i) != Some(k) {
                        return Err(Error::invalid(
                            "overwrite partition",
                            format!(
                                "{k} is not partition column {} of {:?} (a prefix of the \
                                 partition columns, in order)",
                                i + 1,
                                keys
                            ),
                        ));
                    }
                }
                Replace::Partition(pairs)
            }
        });
        Ok(self)
    }

    /// The Arrow schema of the rows [`FormatWrite::write`] takes.
    pub fn input_schema(&self) -> &SchemaRef {
        self.writer.input_schema()
    }

    /// Writes a batch (columns by name; partition columns included).
    ///
    /// # Errors
    /// As [`FormatTableWriter::write`]; the write must then be aborted.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        Ok(self.writer.write(batch)?)
    }

    /// Abandons the write: its files are removed, nothing becomes visible.
    pub fn abort(self) {
        self.writer.abort();
    }

    /// Renames every file into place; an overwrite then deletes what the replaced partitions
    /// held before (listed before the new files appear). When a rename fails, the files
    /// already renamed and the others are removed and nothing is deleted.
    ///
    /// # Errors
    /// Rows outside the overwritten partition; storage errors.
    pub fn commit(self) -> Result<FormatWriteReport> {
        let table = self.table;
        let pending = self.writer.finish()?;
        let discard = |files: &[PendingFormatFile]| {
            for f in files {
                let _ = table.io.delete(&f.temp);
                let _ = table.io.delete(&f.target);
            }
        };
        let old = match table.replaced_files(self.overwrite.as_ref(), &pending) {
            Ok(old) => old,
            Err(e) => {
                discard(&pending);
                return Err(e);
            }
        };
        for (i, f) in pending.iter().enumerate() {
            if let Err(e) = publish(&table.io, &f.temp, &f.target) {
                // The renamed files go as well as the others.
                discard(&pending[..=i]);
                discard(&pending[i + 1..]);
                table.clean_temp_dirs(&pending);
                return Err(e);
            }
        }
        table.clean_temp_dirs(&pending);
        let mut deleted = Vec::new();
        for path in old {
            if table.io.delete(&path)? {
                deleted.push(path);
            }
        }
        Ok(FormatWriteReport {
            rows: pending.iter().map(|f| f.rows).sum(),
            files: pending.into_iter().map(|f| f.target).collect(),
            deleted,
        })
    }
}

/// One entry of a format table directory: its name, its path and whether it is a directory.
struct PlainEntry {
    name: String,
    child: String,
    is_dir: bool,
}

/// The entries of `dir` whose names are one plain name (any other listed name is never
/// followed); none when `dir` is not there and `missing_is_empty`.
fn list_plain(io: &FileIORef, dir: &str, missing_is_empty: bool) -> Result<Vec<PlainEntry>> {
    let entries = match io.list(dir) {
        Ok(e) => e,
        Err(paimon_io::Error::NotFound { .. }) if missing_is_empty => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let plain = entries.into_iter().filter_map(|entry| {
        let name = entry.path.rsplit('/').next().unwrap_or_default();
        check_file_name("listed file", name).ok()?;
        Some(PlainEntry {
            name: name.to_string(),
            child: join(dir, name),
            is_dir: entry.is_dir,
        })
    });
    Ok(plain.collect())
}

/// Moves `temp` to `target`: a rename where the storage has one, else a copy then a delete.
fn publish(io: &FileIORef, temp: &str, target: &str) -> Result<()> {
    match io.rename_dir(temp, target) {
        Ok(()) => Ok(()),
        Err(paimon_io::Error::Unsupported { .. }) => {
            let bytes = io.read(temp)?;
            io.write_new(target, &bytes)?;
            io.delete(temp)?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

impl FormatTable {
    /// The data files an overwrite replaces (listed before the new files are renamed in).
    fn replaced_files(
        &self,
        replace: Option<&Replace>,
        pending: &[PendingFormatFile],
    ) -> Result<Vec<String>> {
        let keys = &self.schema.partition_keys;
        let prefix_dirs = |values: &[Option<String>]| -> String {
            keys.iter()
                .zip(values)
                .map(|(k, v)| {
                    let v = v.as_deref().unwrap_or(&self.default_name);
                    format_partition_dir(k, v, self.only_value)
                })
                .fold(self.path.clone(), |dir, level| join(&dir, &level))
        };
        let mut dirs: Vec<(String, usize)> = Vec::new();
        match replace {
            None => return Ok(Vec::new()),
            Some(Replace::Written) => {
                for f in pending {
                    let dir = prefix_dirs(&f.partition);
                    if !dirs.iter().any(|(d, _)| d == &dir) {
                        dirs.push((dir, 0));
                    }
                }
            }
            Some(Replace::Partition(pairs)) => {
                let wanted: Vec<Option<String>> =
                    pairs.iter().map(|(_, v)| Some(v.clone())).collect();
                for f in pending {
                    let inside = f.partition.iter().zip(&wanted).all(|(have, want)| {
                        have.as_deref().unwrap_or(&self.default_name)
                            == want.as_deref().unwrap_or_default()
                    });
                    if !inside {
                        return Err(Error::invalid(
                            "overwrite partition",
                            format!(
                                "rows of partition {:?} are outside the overwritten partition {pairs:?}",
                                f.partition
                            ),
                        ));
                    }
                }
                dirs.push((prefix_dirs(&wanted), keys.len() - pairs.len()));
            }
        }
        let mut old = Vec::new();
        for (dir, levels) in dirs {
            self.data_files_below(&dir, levels, &mut old)?;
        }
        Ok(old)
    }

    /// The data files in `dir` and in its partition directories `levels` deep.
    fn data_files_below(&self, dir: &str, levels: usize, out: &mut Vec<String>) -> Result<()> {
        for PlainEntry {
            name,
            child,
            is_dir,
        } in list_plain(&self.io, dir, true)?
        {
            if is_dir {
                if levels > 0 && is_format_data_dir(&name) {
                    self.data_files_below(&child, levels - 1, out)?;
                }
            } else if levels == 0 && is_format_data_file(&name) {
                out.push(child);
            }
        }
        Ok(())
    }

    /// Removes the `_temporary` directories the write left empty.
    fn clean_temp_dirs(&self, files: &[PendingFormatFile]) {
        for f in files {
            if let Some((dir, _)) = f.target.rsplit_once('/') {
                let _ = self.io.delete_empty_dir(&join(dir, FORMAT_TABLE_TEMP_DIR));
            }
        }
    }
}
