//! Table maintenance: compaction planning (Java `AppendCompactCoordinator`,
//! `BucketedAppendCompactManager`, `CompactStrategy`), snapshot expiry (Java `ExpireSnapshotsImpl`, `SnapshotDeletion`) and
//! orphan-file cleanup (Java `OrphanFilesClean`, `LocalOrphanFilesClean`).
//!
//! Both read the same metadata (manifest lists, manifests, index manifests) and resolve the
//! same file paths; one private reader holds that shared reading.

mod abort;
mod compact;
#[cfg(test)]
mod confine_tests;
mod expire;
mod orphan;
mod partition_expire;
mod rollback;
#[cfg(test)]
mod sidecar_tests;
mod tags;

pub use abort::abort_messages;
pub use compact::{CompactPlan, CompactPlanner};
pub use expire::{ExpireConfig, ExpireReport};
pub use orphan::{OrphanReport, RemoveOrphanFiles};
pub use partition_expire::{PartitionExpireConfig, PartitionExpireReport, PartitionExpireStrategy};
pub use rollback::RollbackReport;
pub use tags::TagDeleteReport;

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::layout;

use crate::error::{Error, Result};
use crate::manifest::{IndexManifestEntry, ManifestEntry, ManifestFileMeta};
use crate::scan::partition_path::bucket_path;
use crate::scan::PartitionDecoder;
use crate::table::Table;

/// A table option of a maintenance run that does not parse, named by its key.
fn invalid_option(key: &str, value: &str, reason: &str) -> Error {
    Error::spec(
        key,
        paimon_spec::Error::InvalidOption {
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        },
    )
}

/// Reads a table's metadata files and resolves the paths of the files they name (Java
/// `FileStorePathFactory` / `DataFilePathFactory`), treating a missing metadata file as empty
/// the way Java's `FileDeletionBase` does (a crashed earlier expiry may have removed it).
///
/// Every path it resolves from metadata is checked first (issue 39): file names must be plain
/// names and external paths must lie below the table or one of its `data-file.external-paths`
/// roots, so expiry, abort and orphan cleanup never delete outside the table, whatever a
/// manifest or message says.
#[derive(Debug)]
struct Files {
    table: Table,
    partitions: PartitionDecoder,
    roots: layout::TableRoots,
}

impl Files {
    fn new(table: &Table) -> Self {
        Files {
            table: table.clone(),
            partitions: PartitionDecoder::new(table.schema().partition_fields()),
            roots: table.roots(),
        }
    }

    fn manifest_path(&self, name: &str) -> String {
        self.table.layout().manifest_path(name)
    }

    fn read_optional(&self, path: &str) -> Result<Option<bytes::Bytes>> {
        match self.table.file_io().read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(Error::io(e)),
        }
    }

    /// The manifests of a manifest list; empty when the list is gone.
    fn list(&self, name: &str) -> Result<Vec<ManifestFileMeta>> {
        let path = self.manifest_path(name);
        match self.read_optional(&path)? {
            Some(b) => ManifestFileMeta::decode_list(&path, b),
            None => Ok(Vec::new()),
        }
    }

    /// The entries of one manifest; empty when it is gone.
    fn manifest(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let path = self.manifest_path(name);
        match self.read_optional(&path)? {
            Some(b) => {
                let entries = ManifestEntry::decode_manifest(&path, b)?;
                for (i, e) in entries.iter().enumerate() {
                    crate::commit::check_data_file(
                        &self.roots,
                        &format!("entry {i} _FILE"),
                        &e.file,
                    )
                    .map_err(|err| Error::spec(&path, err))?;
                }
                Ok(entries)
            }
            None => Ok(Vec::new()),
        }
    }

    /// Every entry of every manifest of a manifest list, in order.
    fn list_entries(&self, name: &str) -> Result<Vec<ManifestEntry>> {
        let mut out = Vec::new();
        for m in self.list(name)? {
            out.extend(self.manifest(&m.file_name)?);
        }
        Ok(out)
    }

    /// The entries of an index manifest; empty when it is gone.
    fn index_manifest(&self, name: &str) -> Result<Vec<IndexManifestEntry>> {
        let path = self.manifest_path(name);
        match self.read_optional(&path)? {
            Some(b) => {
                let entries = IndexManifestEntry::decode_index_manifest(&path, b)?;
                for (i, e) in entries.iter().enumerate() {
                    let f = &e.index_file;
                    let field = format!("entry {i} _INDEX_FILE");
                    layout::check_file_name(&format!("{field}._FILE_NAME"), &f.file_name)
                        .and_then(|()| match &f.external_path {
                            Some(p) => self.roots.check(&format!("{field}._EXTERNAL_PATH"), p),
                            None => Ok(()),
                        })
                        .map_err(|err| Error::spec(&path, err))?;
                }
                Ok(entries)
            }
            None => Ok(Vec::new()),
        }
    }

    /// The bucket directory of an entry's partition and bucket.
    fn bucket_dir(&self, partition: &[u8], bucket: i32, context: &str) -> Result<String> {
        let values = self
            .partitions
            .decode(partition)
            .map_err(|e| Error::spec(context, e))?;
        bucket_path(&self.table, &values, bucket).ok_or_else(|| {
            Error::unsupported(format!(
                "partition directory name for values {values:?} (in {context})"
            ))
        })
    }

    /// The data file of an entry and its extra files (file-index sidecars), which live next to
    /// it (Java `DataFilePathFactory.toPath` / `toAlignedPath`).
    fn data_paths(&self, e: &ManifestEntry, context: &str) -> Result<(String, Vec<String>)> {
        self.data_file_paths(&e.partition, e.bucket, &e.file, context)
    }

    /// [`Files::data_paths`] of a file of `partition` and `bucket`.
    fn data_file_paths(
        &self,
        partition: &[u8],
        bucket: i32,
        file: &DataFileMeta,
        context: &str,
    ) -> Result<(String, Vec<String>)> {
        crate::commit::check_data_file(&self.roots, "_FILE", file)
            .map_err(|e| Error::spec(context, e))?;
        let (dir, path) = match &file.external_path {
            Some(p) => {
                let dir = p.rsplit_once('/').map_or("", |(d, _)| d).to_string();
                (dir, p.clone())
            }
            None => {
                let dir = self.bucket_dir(partition, bucket, context)?;
                let path = layout::join(&dir, &file.file_name);
                (dir, path)
            }
        };
        let extras = file
            .extra_files
            .iter()
            .map(|x| layout::join(&dir, x))
            .collect();
        Ok((path, extras))
    }

    /// Where an index file lives (Java `IndexPathFactory`).
    fn index_path(&self, e: &IndexManifestEntry, context: &str) -> Result<String> {
        let f = &e.index_file;
        self.index_file_path(
            &e.partition,
            e.bucket,
            f.external_path.as_deref(),
            &f.file_name,
            context,
        )
    }

    /// [`Files::index_path`] of the index file `name` (or `external`) of `partition` and
    /// `bucket`.
    fn index_file_path(
        &self,
        partition: &[u8],
        bucket: i32,
        external: Option<&str>,
        name: &str,
        context: &str,
    ) -> Result<String> {
        layout::check_file_name("_FILE_NAME", name).map_err(|e| Error::spec(context, e))?;
        if let Some(p) = external {
            self.roots
                .check("_EXTERNAL_PATH", p)
                .map_err(|e| Error::spec(context, e))?;
            return Ok(p.to_string());
        }
        if self.table.options().index_file_in_data_file_dir {
            let dir = self.bucket_dir(partition, bucket, context)?;
            return Ok(layout::join(&dir, name));
        }
        Ok(self.table.layout().index_path(name))
    }
}

/// Deletes `path`, an absent file counting as deleted (Java `FileIO.deleteQuietly` minus the
/// quiet: storage errors other than absence stop the maintenance run).
fn delete(table: &Table, path: &str) -> Result<()> {
    match table.file_io().delete(path) {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(Error::io(e)),
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
