//! Tables (Java `FileStoreTable`); the filesystem catalog is [`crate::catalog::FileSystemCatalog`].

use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_spec::layout::{self, TableLayout};
use paimon_spec::options::CoreOptions;
use paimon_spec::schema::TableSchemaRef;

use crate::catalog::{PartitionModification, RenamingSnapshotCommit, SnapshotCommit};
use crate::error::{Error, Result};
use crate::query_auth::QueryAuthSource;
use crate::scan::{LiveFile, ScanBuilder};
use crate::schema_manager::{SchemaManager, TagManager};
use crate::snapshot::{Snapshot, SnapshotManager};

/// The default branch.
pub const MAIN_BRANCH: &str = layout::MAIN_BRANCH;
/// Suffix of database directories.
pub const DB_SUFFIX: &str = ".db";

/// One Paimon table at one branch: its storage, latest schema and options.
#[derive(Debug, Clone)]
pub struct Table {
    inner: Arc<TableInner>,
    /// How commits publish their snapshot (the filesystem's, or the catalog's).
    snapshot_commit: Arc<dyn SnapshotCommit>,
    /// Where the caller's query-auth rules come from (the catalog's), if anywhere.
    query_auth: Option<Arc<dyn QueryAuthSource>>,
    /// The catalog's record of the partitions, kept in step by commits and drops (the Hive
    /// catalog's under `metastore.partitioned-table`), if any.
    partition_modification: Option<Arc<dyn PartitionModification>>,
}

#[derive(Debug)]
struct TableInner {
    file_io: FileIORef,
    path: String,
    layout: TableLayout,
    branch: String,
    schema: TableSchemaRef,
    options: CoreOptions,
    schemas: SchemaManager,
    snapshots: SnapshotManager,
    tags: TagManager,
}

/// Checks the options that place files (issue 39): `data-file.path-directory` must be a
/// relative directory below the table and each `data-file.external-paths` root an absolute path
/// or URL without `..`, so that neither writers nor maintenance (orphan cleanup lists and
/// deletes below these roots) ever reach another table's files.
///
/// # Errors
/// [`paimon_spec::Error::PathNotAllowed`] naming the option.
pub fn check_path_options(options: &CoreOptions) -> paimon_spec::Result<()> {
    if let Some(d) = &options.data_file_path_directory {
        layout::check_relative_dir("data-file.path-directory", d)?;
    }
    for r in &options.data_file_external_paths {
        layout::check_external_root("data-file.external-paths", r.trim())?;
    }
    Ok(())
}

/// Directory holding a branch's snapshot, schema and tag directories.
pub fn branch_root(table_path: &str, branch: &str) -> String {
    layout::branch_root(table_path, branch)
}

/// The error for a branch without schema files: the schema file its latest snapshot needs
/// when there is one (a table whose schema files were lost), else the schema directory (not
/// a table).
fn missing_schema(file_io: &FileIORef, root: &str) -> Error {
    let snapshots = SnapshotManager::new(file_io.clone(), root);
    let path = match snapshots.latest() {
        Ok(Some(s)) => snapshots.layout().schema_path(s.schema_id),
        // A damaged snapshot is reported when the table is read; here only the schema is.
        _ => snapshots.layout().schema_dir(),
    };
    Error::NotFound { path }
}

impl Table {
    /// Opens the table at `path` (main branch).
    ///
    /// # Errors
    /// [`Error::NotFound`] when the directory has no schema; decoding errors otherwise.
    pub fn open(file_io: FileIORef, path: &str) -> Result<Table> {
        Self::open_branch(file_io, path, MAIN_BRANCH)
    }

    /// Opens `branch` of the table at `path`. Data, manifest and index directories are shared
    /// at the table root; snapshots, schemas and tags are per branch.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the branch has no schema: naming the schema file its latest
    /// snapshot needs (`schema/schema-N`), or the schema directory when it has no snapshot.
    pub fn open_branch(file_io: FileIORef, path: &str, branch: &str) -> Result<Table> {
        let table_layout = TableLayout::new(path);
        let path = table_layout.root().to_string();
        let branch_layout = table_layout.branch(branch);
        let root = branch_layout.root().to_string();
        let schemas = SchemaManager::new(file_io.clone(), &root);
        let Some(schema) = schemas.latest()? else {
            return Err(missing_schema(&file_io, &root));
        };
        let options = CoreOptions::try_new(&schema.options)
            .map_err(|e| Error::spec(branch_layout.schema_dir(), e))?;
        check_path_options(&options)
            .map_err(|e| Error::spec(branch_layout.schema_path(schema.id), e))?;
        // The fallback branch becomes the directory name `branch/branch-<name>`.
        if let Some(b) = options
            .scan_fallback_branch
            .as_deref()
            .filter(|b| b.contains(['/', '\\']))
        {
            return Err(Error::corrupt(
                branch_layout.schema_path(schema.id),
                format!(
                    "option scan.fallback-branch {b:?} contains '/' or '\\', so it cannot name \
                     a branch directory"
                ),
            ));
        }
        Ok(Table {
            inner: Arc::new(TableInner {
                snapshots: SnapshotManager::new(file_io.clone(), &root),
                tags: TagManager::new(file_io.clone(), &root),
                file_io,
                path,
                layout: table_layout,
                branch: branch.to_string(),
                schema,
                options,
                schemas,
            }),
            snapshot_commit: Arc::new(RenamingSnapshotCommit),
            query_auth: None,
            partition_modification: None,
        })
    }

    /// This table with commits published by `commit` (a catalog's, e.g. the REST server's)
    /// instead of writing `snapshot-N` on the file system.
    pub fn with_snapshot_commit(&self, commit: Arc<dyn SnapshotCommit>) -> Table {
        Table {
            snapshot_commit: commit,
            ..self.clone()
        }
    }

    /// This table with its partitions kept in a catalog's record by `modification`: commits
    /// add the partitions they write to, drops remove them (Java `CatalogEnvironment`'s
    /// `PartitionModification`).
    pub fn with_partition_modification(
        &self,
        modification: Arc<dyn PartitionModification>,
    ) -> Table {
        Table {
            partition_modification: Some(modification),
            ..self.clone()
        }
    }

    /// The catalog's record of this table's partitions, when its catalog keeps one and the
    /// table asks for it (`metastore.partitioned-table` on a partitioned table, as Java's
    /// `AbstractFileStore` checks before adding its partition callback).
    pub fn partition_modification(&self) -> Option<&Arc<dyn PartitionModification>> {
        let wanted = self.inner.options.metastore_partitioned_table
            && !self.inner.schema.partition_keys.is_empty();
        self.partition_modification.as_ref().filter(|_| wanted)
    }

    /// `(key, value text)` pairs of a partition's values, as a catalog names the partition
    /// ([`paimon_spec::layout::partition_spec_text`] with this table's default partition name
    /// and `partition.legacy-name`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a value this crate cannot print as Java does.
    pub fn partition_values_text(
        &self,
        values: &[paimon_spec::binary::Datum],
    ) -> Result<crate::catalog::PartitionValues> {
        let fields = self.inner.schema.partition_fields();
        let o = &self.inner.options;
        layout::partition_spec_text(
            &fields,
            values,
            &o.partition_default_name,
            o.partition_legacy_name,
        )
        .ok_or_else(|| {
            Error::unsupported(format!(
                "partition {values:?} of {}: a value that cannot be named as Java names it",
                self.inner.path
            ))
        })
    }

    /// This table with its query-auth rules coming from `source` (the catalog's, which
    /// attaches it when the table's options, its own or those its server answered with, say
    /// `query-auth.enabled`; see [`crate::query_auth`]).
    pub fn with_query_auth(&self, source: Arc<dyn QueryAuthSource>) -> Table {
        Table {
            query_auth: Some(source),
            ..self.clone()
        }
    }

    /// Where this table's query-auth rules come from, when its catalog put it under query
    /// auth.
    pub fn query_auth(&self) -> Option<&dyn QueryAuthSource> {
        self.query_auth.as_deref()
    }

    /// How commits on this table publish their snapshot.
    pub fn snapshot_commit(&self) -> &dyn SnapshotCommit {
        self.snapshot_commit.as_ref()
    }

    /// The same table at another branch.
    ///
    /// # Errors
    /// As [`Table::open_branch`].
    pub fn with_branch(&self, branch: &str) -> Result<Table> {
        let table = Self::open_branch(self.inner.file_io.clone(), &self.inner.path, branch)?
            .with_snapshot_commit(self.snapshot_commit.clone());
        Ok(Table {
            query_auth: self.query_auth.clone(),
            partition_modification: self.partition_modification.clone(),
            ..table
        })
    }

    /// The roots this table's files may lie under: its directory and its
    /// `data-file.external-paths` (see [`paimon_spec::layout::TableRoots`]).
    pub fn roots(&self) -> layout::TableRoots {
        layout::TableRoots::new(&self.inner.path)
            .with_external(&self.inner.options.data_file_external_paths)
    }

    /// Table root directory (data, manifests and indexes live here for every branch).
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// The table's directories and file names.
    pub fn layout(&self) -> &TableLayout {
        &self.inner.layout
    }

    /// Branch name.
    pub fn branch(&self) -> &str {
        &self.inner.branch
    }

    /// Storage.
    pub fn file_io(&self) -> &FileIORef {
        &self.inner.file_io
    }

    /// The latest schema.
    pub fn schema(&self) -> &TableSchemaRef {
        &self.inner.schema
    }

    /// The types of the partition columns, in order (what partition rows are serialized by).
    pub fn partition_types(&self) -> Vec<paimon_spec::types::DataType> {
        self.schema()
            .partition_fields()
            .into_iter()
            .map(|f| f.data_type)
            .collect()
    }

    /// Options of the latest schema.
    pub fn options(&self) -> &CoreOptions {
        &self.inner.options
    }

    /// Schema files of this branch.
    pub fn schema_manager(&self) -> &SchemaManager {
        &self.inner.schemas
    }

    /// Snapshot files of this branch.
    pub fn snapshot_manager(&self) -> &SnapshotManager {
        &self.inner.snapshots
    }

    /// Tag files of this branch.
    pub fn tag_manager(&self) -> &TagManager {
        &self.inner.tags
    }

    /// Streaming consumers of this branch (`consumer/`).
    pub fn consumer_manager(&self) -> crate::consumer::ConsumerManager {
        crate::consumer::ConsumerManager::new(
            self.file_io().clone(),
            self.snapshot_manager().layout().root(),
        )
    }

    /// Every snapshot, ascending.
    ///
    /// # Errors
    /// Storage or decoding errors.
    pub fn snapshots(&self) -> Result<Vec<Snapshot>> {
        self.inner.snapshots.snapshots()
    }

    /// Whether this is a primary-key table.
    pub fn is_primary_key_table(&self) -> bool {
        !self.inner.schema.primary_keys.is_empty()
    }

    /// A scan builder over this table.
    pub fn scan(&self) -> ScanBuilder {
        ScanBuilder::new(self.clone())
    }

    /// The live data files of the latest snapshot (or the snapshot `scan` selects), with
    /// their partition and bucket; for the `files` command.
    ///
    /// # Errors
    /// As [`ScanBuilder::plan`].
    pub fn live_files(&self, scan: Option<ScanBuilder>) -> Result<Vec<LiveFile>> {
        scan.unwrap_or_else(|| self.scan()).live_files()
    }

    /// The deletion-vector index files `snapshot` holds, by serialized partition and bucket
    /// (empty when it has no index manifest).
    ///
    /// # Errors
    /// Storage errors; a corrupt index manifest.
    pub fn deletion_vector_index(&self, snapshot: &Snapshot) -> Result<DeletionVectorIndex> {
        use crate::manifest::{FileKind, IndexManifestEntry, DELETION_VECTORS_INDEX};
        let mut out: std::collections::HashMap<_, Vec<_>> = std::collections::HashMap::new();
        let Some(name) = &snapshot.index_manifest else {
            return Ok(out);
        };
        let path = self.layout().manifest_path(name);
        let bytes = self.file_io().read(&path).map_err(Error::io)?;
        for e in IndexManifestEntry::decode_index_manifest(&path, bytes)? {
            if e.kind == FileKind::Add && e.index_file.index_type == DELETION_VECTORS_INDEX {
                out.entry((e.partition, e.bucket))
                    .or_default()
                    .push(e.index_file);
            }
        }
        Ok(out)
    }
}

/// Deletion-vector index files by serialized partition and bucket
/// ([`Table::deletion_vector_index`]).
pub type DeletionVectorIndex =
    std::collections::HashMap<(Vec<u8>, i32), Vec<crate::manifest::IndexFileMeta>>;

/// The filesystem catalog, by its former name.
pub use crate::catalog::FileSystemCatalog as Catalog;

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the Java-written fixture table `append.db/unaware` (three snapshots).
    fn copy_fixture() -> tempfile::TempDir {
        fn copy(from: &std::path::Path, to: &std::path::Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    copy(&e.path(), &to.join(e.file_name()));
                } else {
                    std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/warehouse/append.db/unaware");
        copy(&src, dir.path());
        dir
    }

    fn edit_json(path: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        edit(&mut v);
        std::fs::write(path, v.to_string()).unwrap();
    }

    fn io() -> FileIORef {
        Arc::new(paimon_io::LocalFileIO::new())
    }

    /// A manifest-list name that climbs out of `manifest/` stops planning with an error naming
    /// the snapshot file and the name, before any file outside the table is read.
    #[test]
    fn plan_rejects_a_snapshot_naming_a_path() {
        let dir = copy_fixture();
        let root = dir.path().to_str().unwrap();
        let table = Table::open(io(), root).unwrap();
        assert_eq!(table.scan().plan().unwrap().snapshot_id, Some(3));
        let snap = dir.path().join("snapshot/snapshot-3");
        edit_json(&snap, |v| v["deltaManifestList"] = "../../outside".into());
        let e = table.scan().plan().unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Corrupt { .. }), "{msg}");
        assert!(msg.contains(&snap.display().to_string()), "{msg}");
        assert!(msg.contains("\"../../outside\""), "{msg}");
    }

    /// A snapshot whose manifests add the same data file twice (here: its delta list is its
    /// base list) is reported against the snapshot file, naming its lists and the data file.
    #[test]
    fn plan_names_the_snapshot_whose_manifests_add_a_file_twice() {
        let dir = copy_fixture();
        let root = dir.path().to_str().unwrap();
        let snap = dir.path().join("snapshot/snapshot-3");
        let mut base = String::new();
        edit_json(&snap, |v| {
            base = v["baseManifestList"].as_str().unwrap().to_string();
            v["deltaManifestList"] = base.clone().into();
        });
        let e = Table::open(io(), root).unwrap().scan().plan().unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Corrupt { .. }), "{msg}");
        assert!(msg.contains(&snap.display().to_string()), "{msg}");
        assert!(msg.contains(&base), "{msg}");
        assert!(
            msg.contains("data file data-") && msg.contains("twice"),
            "{msg}"
        );
    }

    /// `scan.fallback-branch` becomes a directory name; one with a separator is refused with an
    /// error naming the schema file.
    #[test]
    fn open_rejects_a_fallback_branch_with_a_separator() {
        let dir = copy_fixture();
        let root = dir.path().to_str().unwrap();
        let schema = dir.path().join("schema/schema-0");
        edit_json(&schema, |v| {
            v["options"]["scan.fallback-branch"] = "x/../../../other".into()
        });
        let e = Table::open(io(), root).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Corrupt { .. }), "{msg}");
        assert!(msg.contains(&schema.display().to_string()), "{msg}");
        assert!(msg.contains("x/../../../other"), "{msg}");
        edit_json(&schema, |v| {
            v["options"]["scan.fallback-branch"] = "dev".into()
        });
        Table::open(io(), root).unwrap();
    }
}
