//! Paimon errors as DataFusion errors: the message keeps the table or file it names.

use datafusion::error::DataFusionError;

/// `e` as a DataFusion execution error prefixed with `context` (usually the table path).
pub(crate) fn df_err(context: &str, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{context}: {e}"))
}
