//! `--filter EXPR`: SQL predicates, parsed by the facade ([`paimon_rs::scan::parse_filter`],
//! shared with the Python package and engines) and reported as `--filter "...": reason`.

use anyhow::{anyhow, Result};
use paimon_spec::predicate::Predicate;
use paimon_spec::schema::TableSchema;

/// Parses `text` against `schema`'s columns.
///
/// # Errors
/// A message naming the unsupported construct, unknown column or ill-typed literal.
pub fn parse_filter(text: &str, schema: &TableSchema) -> Result<Predicate> {
    paimon_rs::scan::parse_filter(text, schema).map_err(scan_error)
}

/// A facade scan error in the command line's words: a filter as `--filter "...": reason`, an
/// unknown projected column as `--select: ...`, anything else as the facade says it.
pub fn scan_error(e: paimon_rs::Error) -> anyhow::Error {
    match e {
        paimon_rs::Error::Filter { filter, source } => match *source {
            paimon_spec::Error::InvalidFilter { reason, .. } => {
                anyhow!("--filter {filter:?}: {reason}")
            }
            other => anyhow!("--filter {filter:?}: {other}"),
        },
        paimon_rs::Error::InvalidArgument { argument, reason } if argument == "with_projection" => {
            anyhow!("--select: {reason}")
        }
        other => anyhow!("{other}"),
    }
}
