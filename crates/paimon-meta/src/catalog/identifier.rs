//! `database.object` names (Java `Identifier`).

use crate::error::{CatalogFailure, Error, Result};

/// A table's name in a catalog: its database and its object name (which may carry a branch
/// or system-table suffix, `t$branch_dev`, as in Java).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identifier {
    /// Database name.
    pub database: String,
    /// Table name, with its `$` suffixes.
    pub object: String,
}

impl Identifier {
    /// `database`.`object`.
    pub fn new(database: impl Into<String>, object: impl Into<String>) -> Self {
        Identifier {
            database: database.into(),
            object: object.into(),
        }
    }

    /// Parses `db.table` (the first `.` separates them, as Java's `Identifier.fromString`).
    ///
    /// # Errors
    /// [`Error::Catalog`] ([`CatalogFailure::InvalidOptions`]) naming the text when either
    /// part is empty or there is no `.`.
    pub fn parse(text: &str) -> Result<Self> {
        match text.split_once('.') {
            Some((d, t)) if !d.is_empty() && !t.is_empty() => Ok(Identifier::new(d, t)),
            _ => Err(Error::catalog(
                "",
                CatalogFailure::InvalidOptions,
                format!("table identifier {text:?}"),
                "expected database.table",
            )),
        }
    }

    /// The table name without a `$branch_...` or system suffix.
    pub fn table_name(&self) -> &str {
        self.object
            .split_once('$')
            .map_or(self.object.as_str(), |(t, _)| t)
    }

    /// The branch `$branch_<name>` selects, if any.
    pub fn branch(&self) -> Option<&str> {
        self.object
            .split_once("$branch_")
            .map(|(_, b)| b.split_once('$').map_or(b, |(b, _)| b))
    }

    /// `database.table` without suffixes.
    pub fn full_table_name(&self) -> String {
        format!("{}.{}", self.database, self.table_name())
    }
}

impl std::fmt::Display for Identifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.database, self.object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_database_table_and_branch() {
        let id = Identifier::parse("db.t$branch_dev").unwrap();
        assert_eq!(id.database, "db");
        assert_eq!(id.table_name(), "t");
        assert_eq!(id.branch(), Some("dev"));
        assert_eq!(Identifier::parse("db.t").unwrap().branch(), None);
        for bad in ["t", ".t", "db."] {
            let e = Identifier::parse(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }
}
