//! The catalog metadata calls: catalogs, databases, tables (with their Arrow schemas), table
//! types, primary keys and the server's SQL info, each showing only what the caller may read.

use std::sync::{Arc, LazyLock};

use arrow::array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow_flight::sql::metadata::{SqlInfoData, SqlInfoDataBuilder};
use arrow_flight::sql::{
    CommandGetDbSchemas, CommandGetPrimaryKeys, CommandGetTables, SqlInfo, SqlSupportedTransaction,
};
use datafusion::catalog::CatalogProvider;
use datafusion::error::{DataFusionError, Result};
use paimon_datafusion::sql::CATALOG;
use paimon_datafusion::{PaimonCatalogProvider, PaimonTableProvider};

use super::caller::Caller;

/// The only table type the catalog has.
pub(crate) const TABLE_TYPE: &str = "TABLE";

/// What `GetSqlInfo` answers.
pub(crate) static SQL_INFO: LazyLock<Result<SqlInfoData, String>> = LazyLock::new(|| {
    let mut b = SqlInfoDataBuilder::new();
    b.append(SqlInfo::FlightSqlServerName, "paimon-rs");
    b.append(SqlInfo::FlightSqlServerVersion, env!("CARGO_PKG_VERSION"));
    b.append(SqlInfo::FlightSqlServerArrowVersion, "1.3");
    // INSERT through CommandStatementUpdate, for users with a write grant.
    b.append(SqlInfo::FlightSqlServerReadOnly, false);
    b.append(SqlInfo::FlightSqlServerSql, true);
    b.append(SqlInfo::FlightSqlServerSubstrait, false);
    b.append(
        SqlInfo::FlightSqlServerTransaction,
        SqlSupportedTransaction::None as i32,
    );
    b.append(SqlInfo::FlightSqlServerCancel, false);
    b.append(SqlInfo::SqlDdlCatalog, false);
    b.append(SqlInfo::SqlDdlSchema, false);
    b.append(SqlInfo::SqlDdlTable, false);
    b.append(SqlInfo::SqlIdentifierQuoteChar, "\"");
    b.append(SqlInfo::SqlSchemaTerm, "database");
    b.append(SqlInfo::SqlCatalogTerm, "catalog");
    b.build().map_err(|e| e.to_string())
});

fn flight_err(e: arrow_flight::error::FlightError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// The databases `caller` sees, sorted.
pub(crate) fn databases(catalog: &PaimonCatalogProvider, caller: &Caller) -> Vec<String> {
    let mut names: Vec<String> = catalog
        .schema_names()
        .into_iter()
        .filter(|d| caller.sees_database(d))
        .collect();
    names.sort();
    names
}

/// Whether a catalog filter of a request admits our one catalog.
fn catalog_matches(filter: Option<&str>) -> bool {
    filter.is_none_or(|c| c.is_empty() || c == CATALOG)
}

/// `GetDbSchemas`.
pub(crate) fn db_schemas(
    catalog: &PaimonCatalogProvider,
    caller: &Caller,
    query: CommandGetDbSchemas,
) -> Result<RecordBatch> {
    let matches = catalog_matches(query.catalog.as_deref());
    let mut builder = query.into_builder();
    if matches {
        for db in databases(catalog, caller) {
            builder.append(CATALOG, db);
        }
    }
    builder.build().map_err(flight_err)
}

/// `GetTables`: the tables `caller` may read, with their Arrow schemas when asked.
pub(crate) async fn tables(
    catalog: &PaimonCatalogProvider,
    caller: &Caller,
    query: CommandGetTables,
) -> Result<RecordBatch> {
    let matches = catalog_matches(query.catalog.as_deref())
        && (query.table_types.is_empty() || query.table_types.iter().any(|t| t == TABLE_TYPE));
    let with_schema = query.include_schema;
    let mut builder = query.into_builder();
    if matches {
        for db in databases(catalog, caller) {
            let Some(schema) = catalog.schema(&db) else {
                continue;
            };
            let mut names = schema.table_names();
            names.sort();
            for name in names {
                if !caller.may_read(&db, &name) {
                    continue;
                }
                let arrow_schema = match with_schema {
                    false => Schema::empty(),
                    true => match schema.table(&name).await? {
                        Some(t) => t.schema().as_ref().clone(),
                        None => continue,
                    },
                };
                builder
                    .append(CATALOG, &db, &name, TABLE_TYPE, &arrow_schema)
                    .map_err(flight_err)?;
            }
        }
    }
    builder.build().map_err(flight_err)
}

/// The schema of a `GetPrimaryKeys` answer (Flight SQL's).
pub(crate) fn primary_keys_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("catalog_name", DataType::Utf8, true),
        Field::new("db_schema_name", DataType::Utf8, true),
        Field::new("table_name", DataType::Utf8, false),
        Field::new("column_name", DataType::Utf8, false),
        Field::new("key_name", DataType::Utf8, true),
        Field::new("key_sequence", DataType::Int32, false),
    ]))
}

/// `GetPrimaryKeys`: the primary-key columns of one table, in key order (none for an append
/// table).
pub(crate) fn primary_keys(
    catalog: &PaimonCatalogProvider,
    caller: &Caller,
    query: &CommandGetPrimaryKeys,
) -> Result<RecordBatch> {
    let db = query.db_schema.as_deref().unwrap_or("default");
    let table = query.table.as_str();
    let mut columns = Vec::new();
    if catalog_matches(query.catalog.as_deref()) {
        if !caller.may_read(db, table) {
            return Err(DataFusionError::Plan(format!(
                "{} reading {db}.{table} needs the read grant on it",
                super::query::DENIED
            )));
        }
        if let Some(provider) = catalog.table_provider(db, table)? {
            if let Some(p) = provider.downcast_ref::<PaimonTableProvider>() {
                columns = p.table_schema().primary_keys.clone();
            }
        }
    }
    let n = columns.len();
    let seq = (1..=i32::try_from(n).unwrap_or(i32::MAX)).collect::<Vec<_>>();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![Some(CATALOG); n])),
        Arc::new(StringArray::from(vec![Some(db); n])),
        Arc::new(StringArray::from(vec![table; n])),
        Arc::new(StringArray::from(columns)),
        Arc::new(StringArray::from(vec![None::<&str>; n])),
        Arc::new(Int32Array::from(seq)),
    ];
    Ok(RecordBatch::try_new(primary_keys_schema(), cols)?)
}
