//! `SHOW CREATE TABLE t` of a Paimon table: the `CREATE TABLE` statement of the schema the
//! name reads (the latest, or a branch's), in Flink's form:
//!
//! ```sql
//! CREATE TABLE db.t (
//!   `id` INT NOT NULL COMMENT 'the key',
//!   `tags` MAP<STRING, ARRAY<INT>>,
//!   `dt` STRING NOT NULL,
//!   PRIMARY KEY (`id`, `dt`) NOT ENFORCED
//! ) COMMENT 'orders'
//! PARTITIONED BY (`dt`)
//! WITH (
//!   'bucket' = '2'
//! )
//! ```
//!
//! Column types are Paimon's type names; `paimon sql` runs the text back into the same
//! schema. DataFusion answers `SHOW CREATE TABLE` from `information_schema`, which holds a
//! definition only for views: views and other tables keep its answer. The result has
//! DataFusion's columns: `table_catalog`, `table_schema`, `table_name`, `definition`.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use datafusion::common::TableReference;
use datafusion::error::Result;
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::Statement;
use datafusion::sql::sqlparser::ast::{ShowCreateObject, Statement as Sql};
use paimon_spec::schema::TableSchema;
use paimon_spec::type_sql::{quote_name, quote_string, sql_type_text};

use crate::table::PaimonTableProvider;

/// Answers `statement` when it is `SHOW CREATE TABLE` of a Paimon table; `None` leaves it to
/// DataFusion.
///
/// # Errors
/// A name that does not resolve is left to DataFusion's own error.
pub(crate) async fn run(ctx: &SessionContext, statement: &Statement) -> Result<Option<DataFrame>> {
    let Statement::Statement(s) = statement else {
        return Ok(None);
    };
    let Sql::ShowCreate {
        obj_type: ShowCreateObject::Table,
        obj_name,
    } = s.as_ref()
    else {
        return Ok(None);
    };
    let name = obj_name.to_string();
    let Ok(provider) = ctx.table_provider(name.as_str()).await else {
        return Ok(None);
    };
    let Some(paimon) = provider.downcast_ref::<PaimonTableProvider>() else {
        return Ok(None);
    };
    let state = ctx.state();
    let defaults = &state.config().options().catalog;
    let resolved = TableReference::from(name.as_str())
        .resolve(&defaults.default_catalog, &defaults.default_schema);
    let definition = create_statement(&name, paimon.table_schema());
    let schema = Arc::new(Schema::new(
        ["table_catalog", "table_schema", "table_name", "definition"]
            .map(|c| Field::new(c, DataType::Utf8, false))
            .to_vec(),
    ));
    let column = |v: &str| -> ArrayRef { Arc::new(StringArray::from(vec![v.to_string()])) };
    let batch = RecordBatch::try_new(
        schema,
        vec![
            column(&resolved.catalog),
            column(&resolved.schema),
            column(&resolved.table),
            column(&definition),
        ],
    )?;
    Ok(Some(ctx.read_batch(batch)?))
}

/// The `CREATE TABLE name (..)` statement of `schema` (see the module docs).
pub(crate) fn create_statement(name: &str, schema: &TableSchema) -> String {
    let mut lines: Vec<String> = schema
        .fields
        .iter()
        .map(|f| {
            let mut line = format!("  {} {}", quote_name(&f.name), sql_type_text(&f.data_type));
            if let Some(d) = &f.description {
                line.push_str(&format!(" COMMENT {}", quote_string(d)));
            }
            line
        })
        .collect();
    let names = |keys: &[String]| {
        keys.iter()
            .map(|k| quote_name(k))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !schema.primary_keys.is_empty() {
        lines.push(format!(
            "  PRIMARY KEY ({}) NOT ENFORCED",
            names(&schema.primary_keys)
        ));
    }
    let mut out = format!("CREATE TABLE {name} (\n{}\n)", lines.join(",\n"));
    if let Some(c) = &schema.comment {
        out.push_str(&format!(" COMMENT {}", quote_string(c)));
    }
    if !schema.partition_keys.is_empty() {
        out.push_str(&format!(
            "\nPARTITIONED BY ({})",
            names(&schema.partition_keys)
        ));
    }
    if !schema.options.is_empty() {
        let options: Vec<String> = schema
            .options
            .iter()
            .map(|(k, v)| format!("  {} = {}", quote_string(k), quote_string(v)))
            .collect();
        out.push_str(&format!("\nWITH (\n{}\n)", options.join(",\n")));
    }
    out
}
