//! The partitions a commit touches, and which manifests may hold their files: a commit that
//! is no overwrite is checked only against the live files of the partitions it changes (every
//! check of `conflict` is per partition), so the manifests whose partition statistics exclude
//! all of them are not read.

use std::cmp::Ordering;

use paimon_spec::binary::{BinaryRow, Datum};
use paimon_spec::predicate::compare_datums;
use paimon_spec::types::DataType;

use crate::manifest::{ManifestEntry, ManifestFileMeta};

/// The distinct partitions of a commit's table-file changes, decoded.
#[derive(Debug)]
pub(super) struct Touched {
    /// `None` for a partition that does not decode: every manifest may hold it then.
    partitions: Vec<Option<Vec<Datum>>>,
}

impl Touched {
    /// The partitions of `changes`, typed by `types`.
    pub(super) fn of(changes: &[ManifestEntry], types: &[DataType]) -> Touched {
        let mut seen = std::collections::HashSet::new();
        let partitions = changes
            .iter()
            .filter(|e| seen.insert(&e.partition[..]))
            .map(|e| {
                BinaryRow::from_serialized(&e.partition)
                    .and_then(|r| r.to_datums(types))
                    .ok()
            })
            .collect();
        Touched { partitions }
    }

    /// Whether manifest `m` may hold a file of a touched partition, by its partition
    /// statistics; statistics that do not decode mean it may.
    pub(super) fn may_be_in(&self, m: &ManifestFileMeta, types: &[DataType]) -> bool {
        let (Ok(min), Ok(max)) = (m.partition_stats.min_row(), m.partition_stats.max_row()) else {
            return true;
        };
        if min.arity() != types.len() || max.arity() != types.len() {
            return true;
        }
        self.partitions.iter().any(|values| {
            let Some(values) = values else {
                return true;
            };
            values.iter().zip(types).enumerate().all(|(i, (v, ty))| {
                let (Ok(lo), Ok(hi)) = (min.get(i, ty), max.get(i, ty)) else {
                    return true;
                };
                if v.is_null() || lo.is_null() || hi.is_null() {
                    return true;
                }
                compare_datums(v, &lo).is_none_or(|o| o != Ordering::Less)
                    && compare_datums(v, &hi).is_none_or(|o| o != Ordering::Greater)
            })
        })
    }
}
