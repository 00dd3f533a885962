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
