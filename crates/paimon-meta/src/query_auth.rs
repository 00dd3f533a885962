//! Query auth (Java `TableQueryAuth`): for a table whose options say
//! `query-auth.enabled = true`, planning asks the catalog the table came from for the
//! caller's row filters and column masks (Java `Catalog.authTableQuery`; the REST catalog's
//! `POST .../auth`) and wraps every split of the plan in a query-auth split (Java
//! `QueryAuthSplit`), so that whichever reader gets the split, here or on a worker, applies
//! them. A table opened without a catalog that answers (a path) is read as Java reads it
//! then: without rules.

use std::fmt::Debug;

use paimon_split::frame::QueryAuth;

use crate::error::Result;

/// The table option that turns query auth on (Java `CoreOptions.QUERY_AUTH_ENABLED`).
pub const QUERY_AUTH_ENABLED: &str = "query-auth.enabled";

/// Where a table's query-auth rules come from (Java `TableQueryAuth`).
pub trait QueryAuthSource: Debug + Send + Sync {
    /// The caller's rules for a read of `select` (`None`: every column); `None` when the
    /// caller reads without rules.
    ///
    /// # Errors
    /// When the rules cannot be had (a refusal, an unreachable catalog): the read must fail,
    /// never go on without them.
    fn auth(&self, select: Option<&[String]>) -> Result<Option<QueryAuth>>;
}

/// Whether `options` (a table's) turn query auth on.
pub fn query_auth_enabled(options: &std::collections::BTreeMap<String, String>) -> bool {
    options
        .get(QUERY_AUTH_ENABLED)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}
