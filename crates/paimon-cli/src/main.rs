//! `paimon`: inspect, plan, read and write Apache Paimon tables and splits.
//!
//! Every failure exits with code 1 and one line on stderr naming the file and the problem.

use clap::{Parser, Subcommand};
use paimon_cli::{
    alter_cmd, catalog_cmd, compact_cmd, create_cmd, files_cmd, global_index_cmd, maintenance_cmd,
    read_cmd, serve_cmd, split_cmd, sql_cmd, table_cmd, versions_cmd, write_cmd,
};

#[derive(Debug, Parser)]
#[command(
    name = "paimon",
    version,
    about = "Read and write Apache Paimon tables and splits"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    catalog: catalog_cmd::CatalogArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with serialized DataSplits.
    #[command(subcommand)]
    Split(split_cmd::SplitCommand),
    /// List a table's snapshots.
    Snapshots(table_cmd::SnapshotsArgs),
    /// Print a table's schema.
    Schema(table_cmd::SchemaArgs),
    /// List the live data files of a snapshot.
    Files(files_cmd::FilesArgs),
    /// Plan a scan into splits (optionally written as Java-compatible split files).
    Plan(table_cmd::PlanArgs),
    /// Plan and read a table.
    Read(read_cmd::ReadArgs),
    /// Read split files (the worker command).
    ReadSplit(read_cmd::ReadSplitArgs),
    /// Compact a table's files (Java's compaction pickers) and commit a COMPACT snapshot.
    Compact(compact_cmd::CompactArgs),
    /// Run compaction task files written by `compact --plan-only` into commit message files
    /// (the worker command; `commit` commits them).
    CompactTask(compact_cmd::CompactTaskArgs),
    /// Build a BTree or bitmap global index over a row-tracked table's column and commit it
    /// (only the rows not indexed yet).
    CreateGlobalIndex(global_index_cmd::CreateGlobalIndexArgs),
    /// Drop a global index of one column and type (one commit; files go with expiry).
    DropGlobalIndex(global_index_cmd::DropGlobalIndexArgs),
    /// Remove old snapshots and the files only they use (Java `ExpireSnapshotsImpl`).
    ExpireSnapshots(maintenance_cmd::ExpireArgs),
    /// Drop the partitions older than the table's `partition.expiration-time` (Java
    /// `PartitionExpire`).
    ExpirePartitions(maintenance_cmd::ExpirePartitionsArgs),
    /// Remove files no snapshot, tag, branch or changelog uses (Java `LocalOrphanFilesClean`).
    RemoveOrphanFiles(maintenance_cmd::OrphanArgs),
    /// Create, delete, rename and list tags (files as Java's `TagManager` writes them).
    Tag(versions_cmd::TagArgs),
    /// Create, delete, list and fast-forward branches (as Java's `BranchManager`).
    Branch(versions_cmd::BranchArgs),
    /// Roll the table back to a snapshot or tag (Java `Table.rollbackTo`).
    Rollback(versions_cmd::RollbackArgs),
    /// Compare two JSON-lines row files as multisets, typed by a table's schema (for scripts).
    CompareRows(read_cmd::CompareRowsArgs),
    /// Create a table from a schema JSON or a Parquet file's schema.
    CreateTable(create_cmd::CreateTableArgs),
    /// Change a table's schema: options, added, renamed, dropped and widened columns.
    AlterTable(alter_cmd::AlterTableArgs),
    /// Write rows from a file and commit them (or only prepare the commit messages).
    Write(write_cmd::WriteArgs),
    /// Plan a distributed write: the write context workers give `write --context`.
    WriteContext(write_cmd::WriteContextArgs),
    /// Commit message files written by `write --prepare-only`.
    ///
    /// Test hook: with PAIMON_TEST_FAULT_PUBLISH=P set (P a probability), `write` and `commit`
    /// fail each snapshot publish with probability P, half of the failures after the snapshot
    /// landed, to prove that every commit lands exactly once (scripts/soak.sh). Never set it
    /// in production.
    Commit(write_cmd::CommitArgs),
    /// Run SQL over a warehouse or catalog (DataFusion; tables are `db.table`).
    Sql(sql_cmd::SqlArgs),
    /// List the catalog's databases (needs --catalog-option).
    Databases(catalog_cmd::DatabasesArgs),
    /// List a database's tables (needs --catalog-option).
    Tables(catalog_cmd::TablesArgs),
    /// Create a database in the catalog.
    CreateDatabase(catalog_cmd::CreateDatabaseArgs),
    /// Drop a database from the catalog.
    DropDatabase(catalog_cmd::DropDatabaseArgs),
    /// Drop a table (`db.table`) and its files.
    DropTable(catalog_cmd::DropTableArgs),
    /// Rename a table (`db.a db.b`).
    RenameTable(catalog_cmd::RenameTableArgs),
    /// Serve the warehouse's tables: Paimon's REST catalog (Java's `RESTCatalog`, pypaimon).
    Serve(serve_cmd::ServeArgs),
}

fn main() {
    let cli = Cli::parse();
    // Libraries turn third-party decoder panics on damaged bytes into errors
    // (`catch_unwind`); the default hook would still print them. Any panic that escapes is a
    // bug, reported as one `error:` line and exit code 101.
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(info.to_string().replace('\n', " "));
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)))
        .unwrap_or_else(|_| {
            let msg = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut m| m.take())
                .unwrap_or_default();
            eprintln!("error: internal error (a bug in paimon-rs): {msg}");
            std::process::exit(101);
        });
    if let Err(e) = result {
        // The whole source chain on one line: `a: b: c`.
        eprintln!("error: {}", paimon_rs::error::chain_of(e.as_ref()));
        std::process::exit(1);
    }
}

/// The message of the latest panic, for the one-line report of an escaped panic.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn run(cli: Cli) -> anyhow::Result<()> {
    catalog_cmd::set_catalog_args(cli.catalog);
    match cli.command {
        Command::Split(c) => split_cmd::run(c),
        Command::Snapshots(a) => table_cmd::snapshots(a),
        Command::Schema(a) => table_cmd::schema(a),
        Command::Files(a) => files_cmd::files(a),
        Command::Plan(a) => table_cmd::plan(a),
        Command::Read(a) => read_cmd::read(a),
        Command::ReadSplit(a) => read_cmd::read_split(a),
        Command::CompareRows(a) => read_cmd::compare_rows(a),
        Command::Compact(a) => compact_cmd::compact(a),
        Command::CompactTask(a) => compact_cmd::compact_task(a),
        Command::CreateGlobalIndex(a) => global_index_cmd::create_global_index(a),
        Command::DropGlobalIndex(a) => global_index_cmd::drop_global_index(a),
        Command::ExpireSnapshots(a) => maintenance_cmd::expire_snapshots(a),
        Command::ExpirePartitions(a) => maintenance_cmd::expire_partitions(a),
        Command::RemoveOrphanFiles(a) => maintenance_cmd::remove_orphan_files(a),
        Command::Tag(a) => versions_cmd::tag(a),
        Command::Branch(a) => versions_cmd::branch(a),
        Command::Rollback(a) => versions_cmd::rollback(a),
        Command::CreateTable(a) => create_cmd::create_table(a),
        Command::AlterTable(a) => alter_cmd::alter_table(a),
        Command::Write(a) => write_cmd::write(a),
        Command::WriteContext(a) => write_cmd::write_context(a),
        Command::Commit(a) => write_cmd::commit(a),
        Command::Sql(a) => sql_cmd::sql(a),
        Command::Databases(a) => catalog_cmd::databases(a),
        Command::Tables(a) => catalog_cmd::tables(a),
        Command::CreateDatabase(a) => catalog_cmd::create_database(a),
        Command::DropDatabase(a) => catalog_cmd::drop_database(a),
        Command::DropTable(a) => catalog_cmd::drop_table(a),
        Command::RenameTable(a) => catalog_cmd::rename_table(a),
        Command::Serve(a) => serve_cmd::serve(a),
    }
}
