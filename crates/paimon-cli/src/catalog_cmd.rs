//! Catalog options on every command (`--catalog-option KEY=VALUE`, repeatable, and
//! `--catalog-options FILE`, Java properties) and the catalog commands: `databases`,
//! `tables DB`, `create-database`, `drop-database`, `drop-table`, `rename-table`.
//!
//! The options are Java's catalog options (`metastore` = `filesystem` | `rest`, `warehouse`,
//! `uri`, `token.provider`, `token`, `header.*`, storage options), so a user's existing
//! catalog configuration works unchanged. Under a catalog, TABLE is `db.table`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use paimon_rs::Catalog;

/// The catalog options given on the command line (global: before or after the command).
#[derive(Debug, Clone, Default, Args)]
pub struct CatalogArgs {
    /// A catalog option `KEY=VALUE` (repeatable; Java's names: `metastore=rest`, `uri=...`,
    /// `token=...`, `warehouse=...`, `header.NAME=...`). Wins over `--catalog-options`.
    #[arg(long = "catalog-option", global = true, value_name = "KEY=VALUE")]
    pub catalog_option: Vec<String>,
    /// A Java properties file of catalog options (`key=value` or `key: value` lines, `#`
    /// and `!` comments).
    #[arg(long = "catalog-options", global = true, value_name = "FILE")]
    pub catalog_options: Option<PathBuf>,
}

impl CatalogArgs {
    /// The options, the file's first then each `--catalog-option`; empty when none given.
    ///
    /// # Errors
    /// An unreadable file; an option without `=`.
    pub fn options(&self) -> Result<BTreeMap<String, String>> {
        let mut out = BTreeMap::new();
        if let Some(f) = &self.catalog_options {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("--catalog-options {}", f.display()))?;
            out.extend(parse_properties(&text));
        }
        for kv in &self.catalog_option {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| anyhow!("--catalog-option {kv:?}: expected KEY=VALUE"))?;
            out.insert(k.trim().to_string(), v.trim().to_string());
        }
        Ok(out)
    }

    /// The catalog the options describe, or `None` without options.
    ///
    /// # Errors
    /// As [`Catalog::open`].
    pub fn catalog(&self) -> Result<Option<Catalog>> {
        let options = self.options()?;
        if options.is_empty() {
            return Ok(None);
        }
        Ok(Some(
            Catalog::open(options).map_err(|e| anyhow!("{}", e.chain()))?,
        ))
    }
}

/// `key=value` / `key: value` / `key value` lines of a Java properties file (comments with
/// `#` or `!`; no line continuations or escapes).
pub fn parse_properties(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| {
            let i = l.find(['=', ':', ' ', '\t'])?;
            let (k, v) = l.split_at(i);
            let v = v[1..].trim_start_matches([' ', '\t']);
            let v = v.strip_prefix(['=', ':']).unwrap_or(v);
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// The catalog of this process's command line, set once by `main`.
static CATALOG: OnceLock<CatalogArgs> = OnceLock::new();

/// Records the command line's catalog options (for [`catalog`]).
pub fn set_catalog_args(args: CatalogArgs) {
    let _ = CATALOG.set(args);
}

/// The command line's catalog options (empty without any).
///
/// # Errors
/// As [`CatalogArgs::options`].
pub fn catalog_options() -> Result<BTreeMap<String, String>> {
    CATALOG.get().cloned().unwrap_or_default().options()
}

/// The catalog of the command line, `None` without catalog options.
///
/// # Errors
/// As [`CatalogArgs::catalog`].
pub fn catalog() -> Result<Option<Catalog>> {
    // Opened once per process (a REST catalog's handshake is a request).
    static OPENED: OnceLock<Option<Catalog>> = OnceLock::new();
    if let Some(c) = OPENED.get() {
        return Ok(c.clone());
    }
    let c = CATALOG.get().cloned().unwrap_or_default().catalog()?;
    Ok(OPENED.get_or_init(|| c).clone())
}

/// The catalog of the command line and TABLE checked as its `db.table`, or `None` without a
/// catalog (TABLE is then a path or URL). Every command resolves its table through this.
///
/// # Errors
/// A catalog given with a TABLE that is a path or URL (it has a `/`): refused, naming it,
/// rather than sent to the catalog as a name or opened around the catalog's commit.
pub fn catalog_for(table: &str) -> Result<Option<Catalog>> {
    let Some(c) = catalog()? else {
        return Ok(None);
    };
    if table.contains('/') || table.contains('\\') {
        bail!(
            "{table}: a path, but a catalog is given (--catalog-option/--catalog-options): \
             name the table as db.table, or drop the catalog options to open the path"
        );
    }
    Ok(Some(c))
}

fn required() -> Result<Catalog> {
    catalog()?.ok_or_else(|| {
        anyhow!(
            "this command needs a catalog: --catalog-option KEY=VALUE or --catalog-options FILE"
        )
    })
}

/// `paimon databases`.
#[derive(Debug, Args)]
pub struct DatabasesArgs {}

/// `paimon tables DB`.
#[derive(Debug, Args)]
pub struct TablesArgs {
    /// The database.
    pub database: String,
}

/// `paimon create-database DB [--if-not-exists] [--option k=v]...`.
#[derive(Debug, Args)]
pub struct CreateDatabaseArgs {
    /// The database.
    pub database: String,
    /// Succeed without changes when it exists.
    #[arg(long = "if-not-exists")]
    pub if_not_exists: bool,
    /// A database option `KEY=VALUE` (repeatable).
    #[arg(long = "option")]
    pub option: Vec<String>,
}

/// `paimon drop-database DB [--cascade] [--if-exists]`.
#[derive(Debug, Args)]
pub struct DropDatabaseArgs {
    /// The database.
    pub database: String,
    /// Drop its tables too (else it must be empty).
    #[arg(long)]
    pub cascade: bool,
    /// Succeed when it does not exist.
    #[arg(long = "if-exists")]
    pub if_exists: bool,
}

/// `paimon drop-table db.t [--if-exists]`.
#[derive(Debug, Args)]
pub struct DropTableArgs {
    /// The table, `db.table`.
    pub table: String,
    /// Succeed when it does not exist.
    #[arg(long = "if-exists")]
    pub if_exists: bool,
}

/// `paimon rename-table db.a db.b`.
#[derive(Debug, Args)]
pub struct RenameTableArgs {
    /// The table, `db.table`.
    pub from: String,
    /// Its new name, `db.table`.
    pub to: String,
}

fn chain(e: paimon_rs::Error) -> anyhow::Error {
    anyhow!("{}", e.chain())
}

/// Prints each database name.
pub fn databases(_: DatabasesArgs) -> Result<()> {
    for d in required()?.list_databases().map_err(chain)? {
        crate::outln!("{d}");
    }
    Ok(())
}

/// Prints each table name of a database.
pub fn tables(a: TablesArgs) -> Result<()> {
    for t in required()?.list_tables(&a.database).map_err(chain)? {
        crate::outln!("{t}");
    }
    Ok(())
}

/// Creates a database.
pub fn create_database(a: CreateDatabaseArgs) -> Result<()> {
    let mut options = BTreeMap::new();
    for kv in &a.option {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--option {kv:?}: expected KEY=VALUE");
        };
        options.insert(k.trim().to_string(), v.trim().to_string());
    }
    required()?
        .create_database(&a.database, a.if_not_exists, &options)
        .map_err(chain)?;
    crate::outln!("created database {}", a.database);
    Ok(())
}

/// Drops a database.
pub fn drop_database(a: DropDatabaseArgs) -> Result<()> {
    required()?
        .drop_database(&a.database, a.if_exists, a.cascade)
        .map_err(chain)?;
    crate::outln!("dropped database {}", a.database);
    Ok(())
}

/// Drops a table.
pub fn drop_table(a: DropTableArgs) -> Result<()> {
    required()?
        .drop_table(&a.table, a.if_exists)
        .map_err(chain)?;
    crate::outln!("dropped table {}", a.table);
    Ok(())
}

/// Renames a table.
pub fn rename_table(a: RenameTableArgs) -> Result<()> {
    required()?
        .rename_table(&a.from, &a.to, false)
        .map_err(chain)?;
    crate::outln!("renamed table {} to {}", a.from, a.to);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_properties_lines() {
        let p = parse_properties("# c\n! c\nmetastore=rest\nuri: http://h:1\ntoken  t0\n\n");
        let want: BTreeMap<String, String> = [
            ("metastore", "rest"),
            ("uri", "http://h:1"),
            ("token", "t0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(p, want);
    }
}
