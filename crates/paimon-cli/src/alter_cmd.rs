//! `paimon alter-table`: the next schema of a table from a list of changes, published through
//! paimon-meta's `Table::alter` (Java `SchemaManager.commitChanges`). Changes apply in the
//! order of the flags' kinds below, each kind in the order given.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use paimon_io::file_io_for;
use paimon_meta::catalog::Identifier;
use paimon_meta::commit::SchemaChange;
use paimon_meta::table::Table;
use paimon_spec::types::DataType;

use crate::scan_args::table_location;

/// `paimon alter-table TABLE [CHANGE]...`.
#[derive(Debug, Args)]
pub struct AlterTableArgs {
    /// Table directory (`db.table` under a catalog).
    pub table: String,
    /// Set an option: `KEY=VALUE` (repeatable).
    #[arg(long = "set-option")]
    pub set_option: Vec<String>,
    /// Remove an option (repeatable).
    #[arg(long = "remove-option")]
    pub remove_option: Vec<String>,
    /// Add a nullable column at the end: `NAME TYPE`, e.g. `price DECIMAL(10, 2)` (repeatable).
    #[arg(long = "add-column")]
    pub add_column: Vec<String>,
    /// Rename a column: `OLD=NEW` (repeatable).
    #[arg(long = "rename-column")]
    pub rename_column: Vec<String>,
    /// Drop a column (repeatable).
    #[arg(long = "drop-column")]
    pub drop_column: Vec<String>,
    /// Widen a column's type: `NAME TYPE` (repeatable).
    #[arg(long = "update-column-type")]
    pub update_column_type: Vec<String>,
}

/// `NAME TYPE` split at the first space; the type in Paimon's type text.
fn name_and_type(s: &str, flag: &str) -> Result<(String, DataType)> {
    let (name, ty) = s
        .trim()
        .split_once(' ')
        .ok_or_else(|| anyhow!("{flag} {s:?}: expected `NAME TYPE`"))?;
    let ty = DataType::from_json_str(&serde_json::Value::String(ty.trim().to_string()).to_string())
        .map_err(|e| anyhow!("{flag} {s:?}: {e}"))?;
    Ok((name.to_string(), ty))
}

fn changes(a: &AlterTableArgs) -> Result<Vec<SchemaChange>> {
    let mut out = Vec::new();
    for kv in &a.set_option {
        let (key, value) = kv
            .split_once('=')
            .ok_or_else(|| anyhow!("--set-option {kv:?}: expected KEY=VALUE"))?;
        out.push(SchemaChange::SetOption {
            key: key.to_string(),
            value: value.to_string(),
        });
    }
    for key in &a.remove_option {
        out.push(SchemaChange::RemoveOption { key: key.clone() });
    }
    for c in &a.add_column {
        let (name, data_type) = name_and_type(c, "--add-column")?;
        out.push(SchemaChange::AddColumn {
            name,
            data_type,
            description: None,
            position: None,
        });
    }
    for r in &a.rename_column {
        let (from, to) = r
            .split_once('=')
            .ok_or_else(|| anyhow!("--rename-column {r:?}: expected OLD=NEW"))?;
        out.push(SchemaChange::RenameColumn {
            from: from.to_string(),
            to: to.to_string(),
        });
    }
    for name in &a.drop_column {
        out.push(SchemaChange::DropColumn { name: name.clone() });
    }
    for c in &a.update_column_type {
        let (name, data_type) = name_and_type(c, "--update-column-type")?;
        out.push(SchemaChange::UpdateColumnType { name, data_type });
    }
    if out.is_empty() {
        bail!("no change given");
    }
    Ok(out)
}

pub fn alter_table(a: AlterTableArgs) -> Result<()> {
    let path = table_location(&a.table);
    let changes = changes(&a).with_context(|| format!("alter table {path}"))?;
    let schema = match crate::catalog_cmd::catalog_for(&path)? {
        // `db.table`: the catalog alters it (a REST server commits the schema).
        Some(c) => {
            let id = Identifier::parse(&path).map_err(|e| anyhow!("{e}"))?;
            c.catalog()
                .alter_table(&id, &changes, false)
                .map_err(|e| anyhow!("alter table {path}: {e}"))?;
            let t = c
                .table(&path)
                .map_err(|e| anyhow!("alter table {path}: {}", e.chain()))?;
            t.meta().schema().as_ref().clone()
        }
        None => {
            let io = file_io_for(&path).map_err(|e| anyhow!("{path}: {e}"))?;
            let table = Table::open(io, &path).map_err(|e| anyhow!("{e}"))?;
            table.alter(&changes).map_err(|e| anyhow!("{e}"))?
        }
    };
    crate::outln!(
        "altered {path}: schema {} with {} fields",
        schema.id,
        schema.fields.len()
    );
    Ok(())
}
