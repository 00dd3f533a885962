//! Deletion-vector index files (Java `DeletionFileWriter`, `BucketedDvMaintainer`): the
//! vectors of one bucket, restored from its index files, changed by a compaction, and written
//! again as one new index file.
//!
//! ```text
//! index/index-<uuid>-0:  [version 1] { [len i32 BE][magic][bitmap][crc32 BE] }*
//! IndexFileMeta(DELETION_VECTORS, name, size, vectors, dvRanges{data file -> offset, length})
//! ```
//!
//! A fixed-bucket table keeps one such file per bucket: the committer lets a new one replace
//! the bucket's previous file. Where Java writes an empty file once a bucket has no vector
//! left, [`BucketVectors::write`] writes none and the message only retires the old files.

use std::collections::BTreeMap;

use paimon_data::deletion_vector::{DeletionVector, INDEX_FILE_VERSION};
use paimon_io::FileIORef;
use paimon_spec::index_file::{DeletionVectorMeta, IndexFileMeta, DELETION_VECTORS_INDEX};
use paimon_spec::layout::{self, TableLayout, TableRoots};

use crate::error::{Error, Result};

/// The deletion vectors of one bucket, by data file name.
#[derive(Debug, Default)]
pub struct BucketVectors {
    vectors: BTreeMap<String, DeletionVector>,
    modified: bool,
}

impl BucketVectors {
    /// The vectors stored in the bucket's `index_files` (all of them: the bucket's current
    /// state), read from the table whose files lie under `roots`. `rows` gives the row count
    /// of a data file the task names: its vector must delete rows below it (a vector of
    /// another file is only bounded by its bytes). Only each vector's entry is read.
    ///
    /// # Errors
    /// [`Error::Spec`] ([`paimon_spec::Error::PathNotAllowed`]) when an index file's name is
    /// not one plain name or its external path lies outside `roots`, before any I/O;
    /// [`Error::Read`] naming the index file when it cannot be read or a vector is corrupt.
    pub fn restore(
        file_io: &FileIORef,
        roots: &TableRoots,
        table: &str,
        index_files: &[IndexFileMeta],
        rows: &dyn Fn(&str) -> Option<u64>,
    ) -> Result<Self> {
        let layout = TableLayout::new(roots.table_root());
        let mut vectors = BTreeMap::new();
        for f in index_files {
            if f.index_type != DELETION_VECTORS_INDEX {
                continue;
            }
            layout::check_file_name("IndexFileMeta.fileName", &f.file_name)?;
            let path = match &f.external_path {
                Some(p) => {
                    roots.check("IndexFileMeta.externalPath", p)?;
                    p.clone()
                }
                None => layout.index_path(&f.file_name),
            };
            for r in f.dv_ranges.iter().flatten() {
                let dv = DeletionVector::read_in_file(
                    file_io.as_ref(),
                    &path,
                    i64::from(r.offset),
                    i64::from(r.length),
                    rows(&r.data_file_name).unwrap_or(u64::MAX),
                )
                .map_err(|source| Error::Read {
                    table: table.to_string(),
                    source: Box::new(source),
                })?;
                vectors.insert(r.data_file_name.clone(), dv);
            }
        }
        Ok(BucketVectors {
            vectors,
            modified: false,
        })
    }

    /// Marks row `pos` of `file` deleted (Java `notifyNewDeletion`).
    pub fn delete(&mut self, file: &str, pos: u64) {
        if self
            .vectors
            .entry(file.to_string())
            .or_default()
            .insert(pos)
        {
            self.modified = true;
        }
    }

    /// Forgets the vector of a file the compaction removed (Java `removeDeletionVectorOf`).
    pub fn remove(&mut self, file: &str) {
        if self.vectors.remove(file).is_some() {
            self.modified = true;
        }
    }

    /// The vector of `file`, if it has one.
    pub fn of(&self, file: &str) -> Option<&DeletionVector> {
        self.vectors.get(file)
    }

    /// Whether a vector was added to, changed or removed since [`BucketVectors::restore`].
    pub fn is_modified(&self) -> bool {
        self.modified
    }

    /// Writes every vector into one new index file under `root`'s `index/` directory, named
    /// `index-<uuid>-0`; `None` when there is no vector. The caller deletes the file again if
    /// its commit fails.
    ///
    /// # Errors
    /// [`Error::Io`] on storage failures; [`Error::Internal`] when a vector does not fit the
    /// layout.
    pub fn write(
        &self,
        file_io: &FileIORef,
        root: &str,
        table: &str,
        bitmap64: bool,
    ) -> Result<Option<IndexFileMeta>> {
        if self.vectors.values().all(|v| v.cardinality() == 0) {
            return Ok(None);
        }
        let name = layout::index_file_name(&uuid::Uuid::new_v4().to_string(), 0);
        let path = TableLayout::new(root).index_path(&name);
        let mut bytes = vec![INDEX_FILE_VERSION];
        let mut ranges = Vec::new();
        for (file, dv) in &self.vectors {
            if dv.cardinality() == 0 {
                continue;
            }
            let (framed, length) = dv
                .encode(bitmap64)
                .map_err(|e| Error::Internal(format!("deletion vector of {file}: {e}")))?;
            let too_big = || Error::Internal(format!("index file {name} exceeds 2 GiB"));
            ranges.push(DeletionVectorMeta {
                data_file_name: file.clone(),
                offset: i32::try_from(bytes.len()).map_err(|_| too_big())?,
                length: i32::try_from(length).map_err(|_| too_big())?,
                cardinality: Some(dv.cardinality() as i64),
            });
            bytes.extend_from_slice(&framed);
        }
        file_io
            .write_new(&path, &bytes)
            .map_err(|source| Error::Io {
                table: table.to_string(),
                path: path.clone(),
                source,
            })?;
        Ok(Some(IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.to_string(),
            file_name: name,
            file_size: bytes.len() as i64,
            row_count: ranges.len() as i64,
            dv_ranges: Some(ranges),
            external_path: None,
            global_index: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn written_vectors_restore_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let io: FileIORef = Arc::new(paimon_io::LocalFileIO::new());
        for bitmap64 in [false, true] {
            let mut v = BucketVectors::default();
            v.delete("data-b.parquet", 7);
            v.delete("data-a.parquet", 2);
            v.delete("data-a.parquet", 3);
            v.delete("data-c.parquet", 1);
            v.remove("data-c.parquet");
            assert!(v.is_modified());
            let meta = v.write(&io, root, "t", bitmap64).unwrap().unwrap();
            assert_eq!(meta.row_count, 2);
            let ranges = meta.dv_ranges.clone().unwrap();
            assert_eq!(ranges[0].data_file_name, "data-a.parquet");
            assert_eq!(ranges[0].offset, 1);
            assert_eq!(ranges[0].cardinality, Some(2));
            let path = TableLayout::new(root).index_path(&meta.file_name);
            assert_eq!(
                std::fs::metadata(&path).unwrap().len() as i64,
                meta.file_size
            );
            let roots = TableRoots::new(root);
            let back = BucketVectors::restore(&io, &roots, "t", &[meta], &|_| Some(8)).unwrap();
            assert!(!back.is_modified());
            let a: Vec<u64> = back.of("data-a.parquet").unwrap().iter().collect();
            assert_eq!(a, [2, 3]);
            assert!(back.of("data-b.parquet").unwrap().is_deleted(7));
            assert!(back.of("data-c.parquet").is_none());
        }
        assert!(BucketVectors::default()
            .write(&io, root, "t", false)
            .unwrap()
            .is_none());
    }
}
