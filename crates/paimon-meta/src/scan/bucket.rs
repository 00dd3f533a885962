//! Fixed-bucket assignment (Java `FixedBucketRowKeyExtractor`, `DefaultBucketFunction`).

use paimon_spec::binary::{encode_row, murmur_hash_words, Datum, RowKind};
use paimon_spec::types::DataType;

use crate::error::{Error, Result};

/// Java `BinaryRow.hashCode` of the bucket-key row built from `values` (RowKind INSERT).
///
/// # Errors
/// [`Error::Unsupported`] when a value cannot be encoded with its type.
pub fn bucket_key_hash(values: &[Datum], types: &[DataType]) -> Result<i32> {
    let row = encode_row(RowKind::Insert, values, types)
        .map_err(|e| Error::unsupported(format!("bucket key encoding: {e}")))?;
    Ok(murmur_hash_words(&row))
}

/// The bucket of a key with the default bucket function: `abs(hash % num_buckets)`.
///
/// # Errors
/// [`Error::Unsupported`] for a non-positive bucket count or an unencodable key.
pub fn bucket_id(values: &[Datum], types: &[DataType], num_buckets: i32) -> Result<i32> {
    if num_buckets <= 0 {
        return Err(Error::unsupported(format!(
            "bucket id for bucket count {num_buckets}"
        )));
    }
    let h = bucket_key_hash(values, types)?;
    Ok((h % num_buckets).abs())
}

/// Bucket pruning from equality predicates on every bucket-key column (Java `BucketSelector`):
/// the hashes of every key combination the filter admits.
#[derive(Debug, Clone)]
pub struct BucketSelector {
    hashes: Vec<i32>,
}

/// Most key combinations considered; beyond that no bucket is pruned.
const MAX_COMBINATIONS: usize = 1024;

impl BucketSelector {
    /// A selector when `filter`'s conjuncts fix every bucket key to finitely many non-null
    /// values; `None` otherwise (no pruning).
    pub fn try_new(
        filter: &paimon_spec::predicate::Predicate,
        keys: &[String],
        types: &[DataType],
    ) -> Option<Self> {
        use paimon_spec::predicate::{LeafOp, Predicate};
        if keys.is_empty() || keys.len() != types.len() {
            return None;
        }
        let conjuncts = filter.conjuncts();
        let mut choices: Vec<Vec<Datum>> = Vec::with_capacity(keys.len());
        for key in keys {
            let values = conjuncts.iter().find_map(|p| match p {
                Predicate::Leaf {
                    column,
                    op: LeafOp::Eq | LeafOp::In,
                    literals,
                } if column == key
                    && !literals.is_empty()
                    && literals.iter().all(|l| !l.is_null()) =>
                {
                    Some(literals.clone())
                }
                _ => None,
            })?;
            choices.push(values);
        }
        let mut combos: Vec<Vec<Datum>> = vec![Vec::new()];
        for values in choices {
            if combos.len().saturating_mul(values.len()) > MAX_COMBINATIONS {
                return None;
            }
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push(v.clone());
                        c
                    })
                })
                .collect();
        }
        let hashes = combos
            .iter()
            .map(|c| bucket_key_hash(c, types).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(BucketSelector { hashes })
    }

    /// Whether `bucket` of a table written with `total_buckets` may hold a selected key.
    pub fn may_contain(&self, bucket: i32, total_buckets: i32) -> bool {
        total_buckets <= 0
            || self
                .hashes
                .iter()
                .any(|h| (h % total_buckets).abs() == bucket)
    }
}
