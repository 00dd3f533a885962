//! `--filter EXPR`: SQL predicates, parsed by paimon-spec's [`paimon_spec::predicate::sql`]
//! (shared with the Python package) and reported as `--filter "...": reason`.

use anyhow::{anyhow, Result};
use paimon_spec::error::Error;
use paimon_spec::predicate::sql::parse_sql_filter;
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchema;

/// Parses `text` against `schema`'s columns.
///
/// # Errors
/// A message naming the unsupported construct, unknown column or ill-typed literal.
pub fn parse_filter(text: &str, schema: &TableSchema) -> Result<Predicate> {
    parse_sql_filter(text, schema).map_err(|e| match e {
        Error::InvalidFilter { reason, .. } => anyhow!("--filter {text:?}: {reason}"),
        other => anyhow!("--filter {text:?}: {other}"),
    })
}
