//! Bucket assignment for fixed-bucket tables (Java `FixedBucketRowKeyExtractor` with
//! `DefaultBucketFunction`).
//!
//! The bucket-key columns of a row are projected into a `BinaryRow` (row kind `+I`), hashed
//! with `MurmurHashUtils.hashBytesByWords` over all its bytes, and the bucket is
//! `Math.abs(hash % numBuckets)`. Java's `%` truncates toward zero, so the remainder lies in
//! `-(n-1)..=n-1` and `abs` never overflows.

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use paimon_spec::binary::{encode_row, murmur_hash_words, Datum, RowKind, RowWriter};
use paimon_spec::types::{DataField, DataType, TypeKind};

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
    let columns: Vec<KeyColumn> = keys
        .iter()
        .map(|(i, f)| KeyColumn::new(batch.column(*i), &f.data_type))
        .collect();
    let encode = |source| Error::Encode {
        table: table.to_string(),
        source,
    };
    let mut row = RowWriter::new(keys.len());
    let mut out = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        row.reset(RowKind::Insert);
        for (pos, (col, (_, f))) in columns.iter().zip(keys).enumerate() {
            let written = match col {
                _ if col.array().is_null(r) => row.write(pos, &f.data_type, &Datum::Null),
                KeyColumn::Int(a) => row.write_int(pos, a.value(r)),
                KeyColumn::Long(a) => row.write_long(pos, a.value(r)),
                KeyColumn::Str(a) => row.write_bytes(pos, a.value(r).as_bytes()),
                KeyColumn::Other(a) => match datum_at(a, r, &f.data_type) {
                    Some(d) => row.write(pos, &f.data_type, &d),
                    None => {
                        return Err(Error::SchemaMismatch {
                            table: table.to_string(),
                            reason: format!(
                                "{what} column {} of type {} cannot be hashed",
                                f.name, f.data_type
                            ),
                        })
                    }
                },
            };
            written.map_err(encode)?;
        }
        out.push(murmur_hash_words(row.bytes()));
    }
    Ok(out)
}

/// A key column read row by row: the common key types straight from their Arrow arrays,
/// the others through their [`Datum`].
enum KeyColumn<'a> {
    /// INT in an Int32 array.
    Int(&'a Int32Array),
    /// BIGINT in an Int64 array.
    Long(&'a Int64Array),
    /// CHAR/VARCHAR in a Utf8 array.
    Str(&'a StringArray),
    Other(&'a ArrayRef),
}

impl<'a> KeyColumn<'a> {
    fn new(array: &'a ArrayRef, ty: &DataType) -> Self {
        let any = array.as_any();
        match &ty.kind {
            TypeKind::Int => any.downcast_ref().map(KeyColumn::Int),
            TypeKind::BigInt => any.downcast_ref().map(KeyColumn::Long),
            TypeKind::Char { .. } | TypeKind::VarChar { .. } => {
                any.downcast_ref().map(KeyColumn::Str)
            }
            _ => None,
        }
        .unwrap_or(KeyColumn::Other(array))
    }

    fn array(&self) -> &dyn Array {
        match self {
            KeyColumn::Int(a) => *a,
            KeyColumn::Long(a) => *a,
            KeyColumn::Str(a) => *a,
            KeyColumn::Other(a) => a.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
