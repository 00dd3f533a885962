//! Java's `HashSet` / `HashMap` iteration order, for aggregates whose results Java builds
//! through one (`collect` with `distinct`, `merge_map`).
//!
//! The order is deterministic: a `java.util.HashMap` keeps a table of `2^n` buckets (16 at
//! first, doubled when the size passes 3/4 of the table, or when one bucket reaches 9 entries
//! while the table is smaller than 64), puts a key in bucket `(h ^ h >>> 16) & (n - 1)` where
//! `h` is the key's `hashCode()`, and iterates buckets in index order, each bucket in insertion
//! order (resizing splits buckets without reordering them). So the iteration order is
//! "final bucket, then first insertion", once the final table size is known.
//!
//! Keys are Paimon's internal objects, whose `hashCode()` this module reproduces:
//!
//! | Paimon type | Java class | `hashCode()` |
//! |---|---|---|
//! | STRING, CHAR, VARCHAR | `BinaryString` | Murmur3 (seed 42) over the UTF-8 bytes |
//! | TINYINT, SMALLINT, INT, DATE, TIME | `Byte`, `Short`, `Integer` | the value |
//! | BIGINT | `Long` | `(int) (v ^ v >>> 32)` |
//! | BOOLEAN | `Boolean` | 1231 / 1237 |
//! | FLOAT, DOUBLE | `Float`, `Double` | of the raw bits (NaN canonical) |
//! | DECIMAL | `Decimal` → `BigDecimal` | `31 * unscaled.hashCode() + scale` |
//! | TIMESTAMP(_LTZ) | `Timestamp` | `31 * (int)(ms ^ ms >> 32) + nanoOfMillisecond` |
//! | NULL | | 0 |
//!
//! BINARY keys are `byte[]`, whose hash is an identity hash: Java's order is not reproducible,
//! and [`hash_codes`] returns `None` for them (and for nested types), leaving the caller's order.
//! Buckets that Java turns into trees (9+ colliding keys in a table of 64+) are not modelled.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_schema::{DataType, TimeUnit};
use paimon_spec::binary::murmur_hash_bytes;

/// The Java `hashCode()` of every element of `array` (0 for nulls), or `None` when Java's hash
/// of this type is not deterministic or not modelled.
pub(crate) fn hash_codes(array: &dyn Array) -> Option<Vec<i32>> {
    fn prim<T: ArrowPrimitiveType>(
        array: &dyn Array,
        f: impl Fn(T::Native) -> i32,
    ) -> Option<Vec<i32>> {
        let a: &PrimitiveArray<T> = array.as_primitive_opt::<T>()?;
        Some(
            (0..a.len())
                .map(|i| if a.is_null(i) { 0 } else { f(a.value(i)) })
                .collect(),
        )
    }
    fn strings<'a>(
        len: usize,
        is_null: impl Fn(usize) -> bool,
        value: impl Fn(usize) -> &'a [u8],
    ) -> Vec<i32> {
        (0..len)
            .map(|i| {
                if is_null(i) {
                    0
                } else {
                    murmur_hash_bytes(value(i))
                }
            })
            .collect()
    }
    let long_hash = |v: i64| (v ^ ((v as u64) >> 32) as i64) as i32;
    Some(match array.data_type() {
        DataType::Null => vec![0; array.len()],
        DataType::Boolean => {
            let a = array.as_boolean();
            (0..a.len())
                .map(|i| match (a.is_null(i), a.value(i)) {
                    (true, _) => 0,
                    (false, true) => 1231,
                    (false, false) => 1237,
                })
                .collect()
        }
        DataType::Int8 => prim::<Int8Type>(array, i32::from)?,
        DataType::Int16 => prim::<Int16Type>(array, i32::from)?,
        DataType::Int32 => prim::<Int32Type>(array, |v| v)?,
        DataType::Date32 => prim::<Date32Type>(array, |v| v)?,
        DataType::Int64 => prim::<Int64Type>(array, long_hash)?,
        DataType::Float32 => prim::<Float32Type>(array, |v| {
            if v.is_nan() {
                0x7fc0_0000
            } else {
                v.to_bits() as i32
            }
        })?,
        DataType::Float64 => prim::<Float64Type>(array, |v| {
            let bits = if v.is_nan() {
                0x7ff8_0000_0000_0000_i64
            } else {
                v.to_bits() as i64
            };
            long_hash(bits)
        })?,
        DataType::Time32(TimeUnit::Second) => {
            prim::<Time32SecondType>(array, |v| v.wrapping_mul(1000))?
        }
        DataType::Time32(_) => prim::<Time32MillisecondType>(array, |v| v)?,
        DataType::Time64(TimeUnit::Microsecond) => {
            prim::<Time64MicrosecondType>(array, |v| v.div_euclid(1000) as i32)?
        }
        DataType::Time64(_) => {
            prim::<Time64NanosecondType>(array, |v| v.div_euclid(1_000_000) as i32)?
        }
        DataType::Timestamp(unit, _) => {
            let ts = |ms: i64, nano_of_ms: i64| {
                31_i32
                    .wrapping_mul((ms as i32) ^ ((ms >> 32) as i32))
                    .wrapping_add(nano_of_ms as i32)
            };
            match unit {
                TimeUnit::Second => {
                    prim::<TimestampSecondType>(array, |v| ts(v.wrapping_mul(1000), 0))?
                }
                TimeUnit::Millisecond => prim::<TimestampMillisecondType>(array, |v| ts(v, 0))?,
                TimeUnit::Microsecond => prim::<TimestampMicrosecondType>(array, |v| {
                    ts(v.div_euclid(1000), v.rem_euclid(1000) * 1000)
                })?,
                TimeUnit::Nanosecond => prim::<TimestampNanosecondType>(array, |v| {
                    ts(v.div_euclid(1_000_000), v.rem_euclid(1_000_000))
                })?,
            }
        }
        DataType::Decimal128(_, scale) => {
            let scale = i32::from(*scale);
            prim::<Decimal128Type>(array, |v| {
                31_i32.wrapping_mul(big_integer_hash(v)).wrapping_add(scale)
            })?
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            strings(a.len(), |i| a.is_null(i), |i| a.value(i).as_bytes())
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            strings(a.len(), |i| a.is_null(i), |i| a.value(i).as_bytes())
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            strings(a.len(), |i| a.is_null(i), |i| a.value(i).as_bytes())
        }
        _ => return None,
    })
}

/// The positions `0..hashes.len()` in the order a Java `HashMap` (created empty, then filled
/// with distinct keys of these hash codes, in this order) iterates them.
pub(crate) fn iteration_order(hashes: &[i32]) -> Vec<usize> {
    const TREEIFY_THRESHOLD: usize = 8;
    const MIN_TREEIFY_CAPACITY: usize = 64;
    let spread = |h: i32| (h ^ ((h as u32) >> 16) as i32) as u32 as usize;
    let mut capacity = 16usize;
    let mut counts = vec![0usize; capacity];
    let resize = |capacity: &mut usize, counts: &mut Vec<usize>, inserted: &[i32]| {
        *capacity *= 2;
        *counts = vec![0; *capacity];
        for &h in inserted {
            counts[spread(h) & (*capacity - 1)] += 1;
        }
    };
    for (n, &h) in hashes.iter().enumerate() {
        let bucket = spread(h) & (capacity - 1);
        let before = counts[bucket];
        counts[bucket] += 1;
        // A bucket that reaches 9 nodes asks for a tree, which a small table answers by resizing.
        if before > TREEIFY_THRESHOLD - 1 && capacity < MIN_TREEIFY_CAPACITY {
            resize(&mut capacity, &mut counts, &hashes[..=n]);
        }
        if n + 1 > capacity / 4 * 3 {
            resize(&mut capacity, &mut counts, &hashes[..=n]);
        }
    }
    let mut order: Vec<usize> = (0..hashes.len()).collect();
    order.sort_by_key(|&i| spread(hashes[i]) & (capacity - 1));
    order
}

/// Java `BigInteger.hashCode` of `v`: over the big-endian 32-bit words of the magnitude, without
/// leading zero words, `h = 31 * h + word`, times the sign.
fn big_integer_hash(v: i128) -> i32 {
    let magnitude = v.unsigned_abs();
    let mut h: i32 = 0;
    let mut started = false;
    for shift in [96u32, 64, 32, 0] {
        let word = (magnitude >> shift) as u32;
        if word == 0 && !started {
            continue;
        }
        started = true;
        h = h.wrapping_mul(31).wrapping_add(word as i32);
    }
    match v.signum() {
        -1 => h.wrapping_neg(),
        0 => 0,
        _ => h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, StringArray};

    fn order_of(values: &[&str]) -> Vec<String> {
        let a = StringArray::from(values.to_vec());
        let hashes = hash_codes(&a).unwrap_or_default();
        iteration_order(&hashes)
            .into_iter()
            .map(|i| values[i].to_string())
            .collect()
    }

    #[test]
    fn string_sets_iterate_as_java() {
        // Orders printed by Java 17 for `new HashSet<>()` of BinaryStrings (fixture pk/aggregation).
        assert_eq!(order_of(&["x0", "y", "x1"]), ["y", "x1", "x0"]);
        assert_eq!(order_of(&["c0", "k", "c1", "c2"]), ["c2", "c1", "c0", "k"]);
    }

    #[test]
    fn big_decimal_hash_matches_java() {
        // new BigDecimal("1.50").hashCode() == 31 * 150 + 2; negative values negate the
        // unscaled hash; values beyond 32 bits fold the words.
        let a = Decimal128Array::from(vec![150_i128, -150, 1 << 40])
            .with_precision_and_scale(38, 2)
            .unwrap_or_else(|_| Decimal128Array::from(vec![0_i128]));
        let h = hash_codes(&a).unwrap_or_default();
        assert_eq!(h, vec![31 * 150 + 2, 31 * -150 + 2, 31 * (256 * 31) + 2]);
    }

    #[test]
    fn growing_tables_reorder_by_the_final_size() {
        // 13 keys grow the table to 32 buckets, where hash 16 no longer shares bucket 0.
        let mut hashes: Vec<i32> = vec![16, 1];
        hashes.extend(100..111);
        let order = iteration_order(&hashes);
        let mut expected: Vec<usize> = (1..13).collect();
        expected.push(0);
        assert_eq!(order, expected);
    }
}
