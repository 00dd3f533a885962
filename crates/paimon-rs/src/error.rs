//! [`Error`]: every failure of the facade, the planes' errors kept whole as sources.
//!
//! A plane's error passes through unchanged ([`Error::Meta`], [`Error::Data`], ...: their
//! message is the plane's), so a caller can still match on it (`Error::Meta(e)` with
//! `paimon_meta::Error::CommitConflict`, say). The facade's own variants add what the call
//! was about and keep the cause as [`std::error::Error::source`]; print the chain with
//! [`Error::chain`].

/// The facade's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a facade call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The format's own rules (paimon-spec): schemas, options, paths, predicates.
    #[error(transparent)]
    Spec(Box<paimon_spec::Error>),
    /// Split, commit-message and compaction-task bytes (paimon-split).
    #[error(transparent)]
    Split(Box<paimon_split::Error>),
    /// The storage (paimon-io).
    #[error(transparent)]
    Io(Box<paimon_io::Error>),
    /// The control plane (paimon-meta): metadata, planning, commits and their conflicts,
    /// maintenance.
    #[error(transparent)]
    Meta(Box<paimon_meta::Error>),
    /// The data plane's reader (paimon-data).
    #[error(transparent)]
    Data(Box<paimon_data::Error>),
    /// The data plane's writers and compaction rewrites (paimon-write).
    #[error(transparent)]
    Write(Box<paimon_write::Error>),
    /// A SQL filter that does not parse or type against the table's columns.
    #[error("filter {filter:?}")]
    Filter {
        /// The filter text.
        filter: String,
        /// What is wrong with it.
        #[source]
        source: Box<paimon_spec::Error>,
    },
    /// An argument of a builder that cannot be used (names the argument and why).
    #[error("{argument}: {reason}")]
    InvalidArgument {
        /// The argument, e.g. `with_projection` or `expire_partitions`.
        argument: String,
        /// What is wrong.
        reason: String,
    },
    /// A worker's write context names another table than the one the worker writes
    /// ([`crate::write_context::write_context_for`]): nothing is written.
    #[error("the write context is for table {found}, not {expected}")]
    ContextForOtherTable {
        /// The table the worker was told to write.
        expected: String,
        /// The table the context names.
        found: String,
    },
    /// The write was committed, but the lookup compaction that follows it on this table
    /// failed: the rows stay committed in level 0 and become visible to batch reads (and
    /// their changelog is written) after a compaction ([`crate::Table::compact`]).
    #[error(
        "{}; the rows are committed in level 0 and become visible after a compaction",
        describe(snapshots)
    )]
    CompactAfterWrite {
        /// The snapshots the write committed.
        snapshots: Vec<i64>,
        /// Why the compaction failed.
        #[source]
        source: Box<Error>,
    },
}

/// `committed snapshot N` / `committed snapshots N,M`.
fn describe(ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    match ids.len() {
        1 => format!("committed snapshot {}", list.join(",")),
        _ => format!("committed snapshots {}", list.join(",")),
    }
}

impl Error {
    /// An [`Error::InvalidArgument`].
    pub fn invalid(argument: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            argument: argument.into(),
            reason: reason.into(),
        }
    }

    /// The message and every source's, on one line: `a: b: c` (a source whose message the
    /// previous one already ends with is left out).
    pub fn chain(&self) -> String {
        chain_of(self)
    }

    /// Whether this is a commit conflict (nothing was committed; planning again may
    /// succeed), wherever in the chain paimon-meta reported it.
    pub fn is_commit_conflict(&self) -> bool {
        self.meta_in_chain(|m| matches!(m, paimon_meta::Error::CommitConflict { .. }))
    }

    /// Whether a commit in the chain may or may not have landed
    /// ([`paimon_meta::Error::CommitOutcomeUnknown`]): its files must be kept, never aborted.
    pub fn is_commit_outcome_unknown(&self) -> bool {
        self.meta_in_chain(|m| matches!(m, paimon_meta::Error::CommitOutcomeUnknown { .. }))
    }

    /// Whether a failed commit in the chain may reference its files (its outcome is unknown,
    /// or it landed and only the catalog's bookkeeping after it failed): they must be kept,
    /// never aborted ([`paimon_meta::Error::keeps_commit_files`]).
    pub fn keeps_commit_files(&self) -> bool {
        self.meta_in_chain(paimon_meta::Error::keeps_commit_files)
    }

    /// Whether some paimon-meta error in the chain satisfies `test`.
    fn meta_in_chain(&self, test: impl Fn(&paimon_meta::Error) -> bool) -> bool {
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cur {
            if let Some(m) = e.downcast_ref::<paimon_meta::Error>() {
                if test(m) {
                    return true;
                }
            }
            if let Some(Error::Meta(m)) = e.downcast_ref::<Error>() {
                if test(m) {
                    return true;
                }
            }
            cur = e.source();
        }
        false
    }
}

/// [`Error::chain`] of any error.
pub fn chain_of(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let msg = s.to_string();
        if !out.ends_with(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        cur = s.source();
    }
    out
}

macro_rules! from_plane {
    ($($ty:ty => $variant:ident),* $(,)?) => {$(
        impl From<$ty> for Error {
            fn from(e: $ty) -> Self {
                Error::$variant(Box::new(e))
            }
        }
    )*};
}

from_plane!(
    paimon_spec::Error => Spec,
    paimon_split::Error => Split,
    paimon_io::Error => Io,
    paimon_meta::Error => Meta,
    paimon_data::Error => Data,
    paimon_write::Error => Write,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_names_every_cause_once() {
        let inner = Error::from(paimon_meta::Error::InvalidScan {
            reason: "two selections".into(),
        });
        let inner_text = inner.to_string();
        let e = Error::CompactAfterWrite {
            snapshots: vec![4],
            source: Box::new(inner),
        };
        assert_eq!(
            e.chain(),
            format!(
                "committed snapshot 4; the rows are committed in level 0 and become visible \
                 after a compaction: {inner_text}"
            )
        );
        assert!(!e.is_commit_conflict());
    }
}
