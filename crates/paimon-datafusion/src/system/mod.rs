//! Java's system tables of one table (`t$snapshots`, `t$files`, ...).

use std::sync::Arc;

use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result};

/// The system table `name` of the table at `table_path`; `None` when `name` is not one.
///
/// # Errors
/// Until the system tables land, every name is refused.
pub fn system_table(
    table_path: &str,
    _branch: Option<&str>,
    name: &str,
) -> Result<Option<Arc<dyn TableProvider>>> {
    Err(DataFusionError::NotImplemented(format!(
        "{table_path}: system table '{name}' is not available yet"
    )))
}
