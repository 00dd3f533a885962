//! Bucket assignment for fixed-bucket tables (Java `FixedBucketRowKeyExtractor` with
//! `DefaultBucketFunction`).
//!
//! The bucket-key columns of a row are projected into a `BinaryRow` (row kind `+I`), hashed
//! with `MurmurHashUtils.hashBytesByWords` over all its bytes, and the bucket is
//! `Math.abs(hash % numBuckets)`. Java's `%` truncates toward zero, so the remainder lies in
//! `-(n-1)..=n-1` and `abs` never overflows.

use arrow_array::{ArrayRef, RecordBatch};
use paimon_spec::binary::{encode_row, murmur_hash_words, Datum, RowKind};
use paimon_spec::types::DataField;

use crate::arrow_datum::datum_at;
use crate::error::{Error, Result};

/// Java `DefaultBucketFunction.bucket(hash, numBuckets)`.
pub fn bucket_of_hash(hash: i32, num_buckets: i32) -> i32 {
    (hash % num_buckets).abs()
}

/// The bucket of one bucket-key row given as values of `fields`.
///
/// # Errors
/// [`Error::Encode`] when a value does not fit its field's type.
pub fn bucket_of_row(
    table: &str,
    values: &[Datum],
    fields: &[DataField],
    num_buckets: i32,
) -> Result<i32> {
    let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
    let bytes = encode_row(RowKind::Insert, values, &types).map_err(|source| Error::Encode {
        table: table.to_string(),
        source,
    })?;
    Ok(bucket_of_hash(murmur_hash_words(&bytes), num_buckets))
}

/// Assigns rows of batches to the buckets of a fixed-bucket table.
#[derive(Debug, Clone)]
pub struct BucketAssigner {
    table: String,
    num_buckets: i32,
    /// Bucket-key fields with their column index in the batch.
    keys: Vec<(usize, DataField)>,
}

impl BucketAssigner {
    /// An assigner for `num_buckets` buckets over the bucket-key fields, each given with its
    /// column index in the batches to come.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when `num_buckets` is not positive or there is no bucket key.
    pub fn try_new(table: &str, num_buckets: i32, keys: Vec<(usize, DataField)>) -> Result<Self> {
        if num_buckets <= 0 {
            return Err(Error::Unsupported {
                feature: format!(
                    "table {table}: fixed-bucket assignment with bucket = {num_buckets}"
                ),
            });
        }
        if keys.is_empty() {
            return Err(Error::Unsupported {
                feature: format!(
                    "table {table}: a fixed-bucket table without bucket-key or primary key"
                ),
            });
        }
        Ok(BucketAssigner {
            table: table.to_string(),
            num_buckets,
            keys,
        })
    }

    /// The bucket of every row of `batch`.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for a bucket-key column of a type that cannot be a key;
    /// [`Error::Encode`] when a value does not fit its type.
    pub fn assign(&self, batch: &RecordBatch) -> Result<Vec<i32>> {
        Ok(key_hashes(&self.table, "bucket-key", &self.keys, batch)?
            .into_iter()
            .map(|h| bucket_of_hash(h, self.num_buckets))
            .collect())
    }
}

/// Java `BinaryRow.hashCode()` of the row each row of `batch` projects onto `keys` (fields
/// with their column index; `what` names them in errors).
///
/// # Errors
/// [`Error::SchemaMismatch`] for a column of a type that cannot be a key; [`Error::Encode`]
/// when a value does not fit its type.
pub(crate) fn key_hashes(
    table: &str,
    what: &str,
    keys: &[(usize, DataField)],
    batch: &RecordBatch,
) -> Result<Vec<i32>> {
    let columns: Vec<&ArrayRef> = keys.iter().map(|(i, _)| batch.column(*i)).collect();
    let types: Vec<_> = keys.iter().map(|(_, f)| f.data_type.clone()).collect();
    let mut values = Vec::with_capacity(keys.len());
    let mut out = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        values.clear();
        for (col, (_, f)) in columns.iter().zip(keys) {
            values.push(
                datum_at(col, row, &f.data_type).ok_or_else(|| Error::SchemaMismatch {
                    table: table.to_string(),
                    reason: format!(
                        "{what} column {} of type {} cannot be hashed",
                        f.name, f.data_type
                    ),
                })?,
            );
        }
        let bytes =
            encode_row(RowKind::Insert, &values, &types).map_err(|source| Error::Encode {
                table: table.to_string(),
                source,
            })?;
        out.push(murmur_hash_words(&bytes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paimon_spec::types::{DataType, TypeKind};

    /// Java `FixedBucketRowKeyExtractorTest.testBucket`: row (5, 6, 7) of INT columns a, b, c
    /// in 100 buckets lands in bucket 96 keyed by a, 27 by (a, b), 40 by (a, b, c).
    #[test]
    fn java_extractor_test_rows() {
        let f = |id, n: &str| DataField::new(id, n, DataType::nullable(TypeKind::Int));
        let (a, b, c) = (f(0, "a"), f(1, "b"), f(2, "c"));
        let bucket = |vals: &[i32], fields: &[DataField]| {
            let d: Vec<_> = vals.iter().map(|v| Datum::Int(*v)).collect();
            bucket_of_row("t", &d, fields, 100).unwrap()
        };
        assert_eq!(bucket(&[5], std::slice::from_ref(&a)), 96);
        assert_eq!(bucket(&[5, 6], &[a.clone(), b.clone()]), 27);
        assert_eq!(bucket(&[5, 6, 7], &[a, b, c]), 40);
    }

    #[test]
    fn remainder_sign_as_java() {
        assert_eq!(bucket_of_hash(-7, 5), 2);
        assert_eq!(bucket_of_hash(i32::MIN, 7), (i32::MIN % 7).abs());
        assert_eq!(bucket_of_hash(7, 5), 2);
    }
}
