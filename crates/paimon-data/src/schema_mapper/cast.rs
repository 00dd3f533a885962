//! Leaf casts with Java Paimon's semantics (Java `CastExecutors` and its `*CastRule`s).
//!
//! The input array must already have the Arrow type of the *file* type
//! ([`crate::arrow_schema::to_arrow_type`]); the output has the Arrow type of the table type.
//! Where Java returns null (a decimal that does not fit) the result is null; where Java throws
//! (`CAST('x' AS INT)`) the read fails with [`Error::Cast`].

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, PrimitiveArray, StringArray,
};
use arrow_cast::cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use paimon_spec::types::{DataType, TypeKind};

use super::text;
use crate::arrow_schema::{timestamp_unit, to_arrow_type, LTZ_TIMEZONE};
use crate::error::{Error, Result};

/// Java's cast families.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fam {
    Int,
    Float,
    Double,
    Bool,
    Str,
    Bin,
    Decimal(u32, u32),
    Date,
    Time,
    Ts { ltz: bool, precision: u32 },
    Other,
}

fn fam(t: &DataType) -> Fam {
    match &t.kind {
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => Fam::Int,
        TypeKind::Float => Fam::Float,
        TypeKind::Double => Fam::Double,
        TypeKind::Boolean => Fam::Bool,
        TypeKind::Char { .. } | TypeKind::VarChar { .. } => Fam::Str,
        TypeKind::Binary { .. } | TypeKind::VarBinary { .. } => Fam::Bin,
        TypeKind::Decimal { precision, scale } => Fam::Decimal(*precision, *scale),
        TypeKind::Date => Fam::Date,
        TypeKind::Time { .. } => Fam::Time,
        TypeKind::Timestamp { precision } => Fam::Ts {
            ltz: false,
            precision: *precision,
        },
        TypeKind::LocalZonedTimestamp { precision } => Fam::Ts {
            ltz: true,
            precision: *precision,
        },
        _ => Fam::Other,
    }
}

/// Casts `array` (of `from`'s Arrow type) to `to` the way Java's `CastExecutors.resolve(from,
/// to)` does. `path` names the data file in errors.
///
/// # Errors
/// [`Error::Unsupported`] for a type change Java does not allow; [`Error::Cast`] for a value
/// Java's cast throws on.
pub fn java_cast(array: &ArrayRef, from: &DataType, to: &DataType, path: &str) -> Result<ArrayRef> {
    let target = to_arrow_type(to);
    let ferr = |v: &dyn std::fmt::Display| Error::Cast {
        path: path.to_string(),
        reason: format!("'{v}' cannot be cast from {from} to {to}"),
    };
    let out: ArrayRef = match (fam(from), fam(to)) {
        (Fam::Int, Fam::Int) => narrow_ints(&ints(array, path)?, to),
        (Fam::Int, Fam::Float) => arc(ints(array, path)?
            .iter()
            .map(|v| v.map(|v| v as f32))
            .collect::<Float32Array>()),
        (Fam::Int, Fam::Double) => arc(ints(array, path)?
            .iter()
            .map(|v| v.map(|v| v as f64))
            .collect::<Float64Array>()),
        (Fam::Float | Fam::Double, Fam::Int) => {
            // Java (byte)/(short)/(int) on a double go through int: NaN -> 0, saturate, wrap.
            let d = doubles(array, path)?;
            let longs: Int64Array = match to.kind {
                TypeKind::BigInt => d.iter().map(|v| v.map(|v| v as i64)).collect(),
                _ => d.iter().map(|v| v.map(|v| i64::from(v as i32))).collect(),
            };
            narrow_ints(&longs, to)
        }
        (Fam::Float | Fam::Double, Fam::Float) => arc(doubles(array, path)?
            .iter()
            .map(|v| v.map(|v| v as f32))
            .collect::<Float32Array>()),
        (Fam::Float | Fam::Double, Fam::Double) => arc(doubles(array, path)?),
        (Fam::Int, Fam::Bool) => arc(ints(array, path)?
            .iter()
            .map(|v| v.map(|v| v != 0))
            .collect::<BooleanArray>()),
        (Fam::Float | Fam::Double, Fam::Bool) => arc(doubles(array, path)?
            .iter()
            .map(|v| v.map(|v| (v as i64) != 0))
            .collect::<BooleanArray>()),
        (Fam::Bool, Fam::Int | Fam::Float | Fam::Double | Fam::Decimal(..)) => {
            let as_int: Int64Array = array
                .as_boolean_opt()
                .ok_or_else(|| mismatch(path, array))?
                .iter()
                .map(|v| v.map(i64::from))
                .collect();
            java_cast(
                &arc(as_int),
                &DataType::nullable(TypeKind::BigInt),
                to,
                path,
            )?
        }
        (Fam::Int, Fam::Decimal(p, s)) => arc(decimals(
            ints(array, path)?
                .iter()
                .map(|v| v.and_then(|v| text::rescale_half_up(i128::from(v), 0, p, s))),
            p,
            s,
        )?),
        (Fam::Float | Fam::Double, Fam::Decimal(p, s)) => {
            let d = doubles(array, path)?;
            let mut vals = Vec::with_capacity(d.len());
            for v in d.iter() {
                vals.push(match v {
                    None => None,
                    Some(x) if !x.is_finite() => return Err(ferr(&x)),
                    // BigDecimal.valueOf(double) goes through Double.toString.
                    Some(x) => text::parse_big_decimal(&format!("{x:e}"))
                        .and_then(|(u, sc)| text::rescale_half_up(u, sc, p, s)),
                });
            }
            arc(decimals(vals.into_iter(), p, s)?)
        }
        (Fam::Decimal(_, fs), Fam::Decimal(p, s)) => {
            let d = dec(array, path)?;
            arc(decimals(
                d.iter()
                    .map(|v| v.and_then(|v| text::rescale_half_up(v, fs as i32, p, s))),
                p,
                s,
            )?)
        }
        (Fam::Decimal(_, fs), Fam::Int) => {
            let pow = 10i128.pow(fs);
            let longs: Int64Array = dec(array, path)?
                .iter()
                .map(|v| v.map(|v| (v / pow) as i64))
                .collect();
            narrow_ints(&longs, to)
        }
        (Fam::Decimal(fp, fs), Fam::Float | Fam::Double) => {
            let d: Float64Array = dec(array, path)?
                .iter()
                .map(|v| {
                    v.map(|v| {
                        if fp <= 18 {
                            v as f64 / 10f64.powi(fs as i32)
                        } else {
                            text::decimal_plain_string(v, fs)
                                .parse()
                                .unwrap_or(f64::NAN)
                        }
                    })
                })
                .collect();
            if matches!(to.kind, TypeKind::Float) {
                arc(d
                    .iter()
                    .map(|v| v.map(|v| v as f32))
                    .collect::<Float32Array>())
            } else {
                arc(d)
            }
        }
        (f, Fam::Str) if f != Fam::Other => {
            let strings = to_java_strings(array, from, path)?;
            arc(fit_strings(strings, to))
        }
        (Fam::Str, Fam::Bool) => {
            let s = strs(array, path)?;
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v.map(|v| v.to_lowercase()) {
                    None => None,
                    Some(l) if matches!(l.as_str(), "t" | "true" | "y" | "yes" | "1") => Some(true),
                    Some(l) if matches!(l.as_str(), "f" | "false" | "n" | "no" | "0") => {
                        Some(false)
                    }
                    Some(_) => return Err(ferr(&v.unwrap_or_default())),
                });
            }
            arc(BooleanArray::from(out))
        }
        (Fam::Str, Fam::Int) => {
            let s = strs(array, path)?;
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v {
                    None => None,
                    Some(t) => {
                        let l = text::parse_java_long(t).ok_or_else(|| ferr(&t))?;
                        // toInt/toShort/toByte reject values outside the target's range.
                        let fits = match to.kind {
                            TypeKind::TinyInt => i8::try_from(l).is_ok(),
                            TypeKind::SmallInt => i16::try_from(l).is_ok(),
                            TypeKind::Int => i32::try_from(l).is_ok(),
                            _ => true,
                        };
                        if !fits {
                            return Err(ferr(&t));
                        }
                        Some(l)
                    }
                });
            }
            narrow_ints(&Int64Array::from(out), to)
        }
        (Fam::Str, Fam::Float | Fam::Double) => {
            let s = strs(array, path)?;
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v {
                    None => None,
                    Some(t) => Some(text::parse_java_double(t).ok_or_else(|| ferr(&t))?),
                });
            }
            let d = Float64Array::from(out);
            if matches!(to.kind, TypeKind::Float) {
                arc(d
                    .iter()
                    .map(|v| v.map(|v| v as f32))
                    .collect::<Float32Array>())
            } else {
                arc(d)
            }
        }
        (Fam::Str, Fam::Decimal(p, s)) => {
            let strs_ = strs(array, path)?;
            let mut out = Vec::with_capacity(strs_.len());
            for v in strs_.iter() {
                out.push(match v {
                    None => None,
                    Some(t) => {
                        let (u, sc) = text::parse_big_decimal(t).ok_or_else(|| ferr(&t))?;
                        text::rescale_half_up(u, sc, p, s)
                    }
                });
            }
            arc(decimals(out.into_iter(), p, s)?)
        }
        (Fam::Str, Fam::Date) => {
            let s = strs(array, path)?;
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v {
                    None => None,
                    Some(t) if is_numeric(t) => {
                        let l = text::parse_java_long(t).and_then(|l| i32::try_from(l).ok());
                        Some(l.ok_or_else(|| ferr(&t))?)
                    }
                    Some(t) => {
                        let d = text::parse_date(t).and_then(|d| i32::try_from(d).ok());
                        Some(d.ok_or_else(|| ferr(&t))?)
                    }
                });
            }
            arc(Date32Array::from(out))
        }
        (Fam::Str, Fam::Ts { ltz, precision }) => {
            let s = strs(array, path)?;
            let mut out = Vec::with_capacity(s.len());
            for v in s.iter() {
                out.push(match v {
                    None => None,
                    Some(t) if !ltz && is_numeric(t) => {
                        let l = text::parse_java_long(t).ok_or_else(|| ferr(&t))?;
                        let nanos = match precision {
                            0 => i128::from(l) * 1_000_000_000,
                            3 => i128::from(l) * 1_000_000,
                            6 => i128::from(l) * 1_000,
                            9 => i128::from(l),
                            _ => return Err(ferr(&t)),
                        };
                        Some(nanos)
                    }
                    Some(t) => Some(text::parse_timestamp(t, precision).ok_or_else(|| ferr(&t))?),
                });
            }
            timestamps_from_nanos(out, precision, ltz, path)?
        }
        (Fam::Str, Fam::Bin) => {
            let s = strs(array, path)?;
            arc(fit_binary(
                s.iter().map(|v| v.map(|v| v.as_bytes().to_vec())),
                to,
            ))
        }
        (Fam::Bin, Fam::Bin) => {
            let b = array
                .as_binary_opt::<i32>()
                .ok_or_else(|| mismatch(path, array))?;
            arc(fit_binary(b.iter().map(|v| v.map(<[u8]>::to_vec)), to))
        }
        (Fam::Date, Fam::Ts { ltz, precision }) => {
            let d = array
                .as_primitive_opt::<Date32Type>()
                .ok_or_else(|| mismatch(path, array))?;
            let nanos = d
                .iter()
                .map(|v| v.map(|v| i128::from(v) * i128::from(text::MILLIS_PER_DAY) * 1_000_000))
                .collect();
            timestamps_from_nanos(nanos, precision, ltz, path)?
        }
        (Fam::Ts { ltz, .. }, Fam::Date) => {
            let n = ts_nanos(array, path)?;
            let per_day = i128::from(text::MILLIS_PER_DAY);
            // Java `TimestampToDateCastRule`: a TIMESTAMP's epoch millis divided by the millis
            // of a day with Java's truncating `/`, so an instant just before the epoch
            // becomes 1970-01-01 (a Java quirk, reproduced); LTZ goes through a calendar
            // date in the zone (UTC here) and floors.
            arc(n
                .into_iter()
                .map(|v| {
                    v.map(|v| {
                        let millis = v.div_euclid(1_000_000);
                        if ltz {
                            millis.div_euclid(per_day) as i32
                        } else {
                            (millis / per_day) as i32
                        }
                    })
                })
                .collect::<Date32Array>())
        }
        (Fam::Ts { .. }, Fam::Ts { ltz, precision }) => {
            // Wall clock and instants coincide in the reader's zone, UTC.
            let n = ts_nanos(array, path)?;
            let unit = 10i128.pow(9 - precision.min(9));
            timestamps_from_nanos(
                n.into_iter()
                    .map(|v| v.map(|v| v - v.rem_euclid(unit)))
                    .collect(),
                precision,
                ltz,
                path,
            )?
        }
        (Fam::Ts { .. }, Fam::Int) if matches!(to.kind, TypeKind::Int | TypeKind::BigInt) => {
            // DateTimeUtils.unixTimestamp: millis / 1000, truncating toward zero.
            let n = ts_nanos(array, path)?;
            let longs: Int64Array = n
                .into_iter()
                .map(|v| v.map(|v| (v.div_euclid(1_000_000) as i64) / 1000))
                .collect();
            narrow_ints(&longs, to)
        }
        (Fam::Int, Fam::Ts { ltz, precision })
            if matches!(from.kind, TypeKind::Int | TypeKind::BigInt) =>
        {
            let n = ints(array, path)?
                .iter()
                .map(|v| v.map(|v| i128::from(v.wrapping_mul(1000)) * 1_000_000))
                .collect();
            timestamps_from_nanos(n, precision, ltz, path)?
        }
        _ => {
            return Err(Error::unsupported(format!(
                "schema evolution from {from} to {to} (file {path})"
            )))
        }
    };
    if out.data_type() != &target {
        return cast_with_options(&out, &target, &CastOptions::default())
            .map_err(|e| Error::arrow(path, e));
    }
    Ok(out)
}

fn arc(a: impl Array + 'static) -> ArrayRef {
    Arc::new(a)
}

fn mismatch(path: &str, array: &ArrayRef) -> Error {
    Error::Internal(format!(
        "cast input from {path} has unexpected Arrow type {}",
        array.data_type()
    ))
}

fn is_numeric(s: &str) -> bool {
    // Java StringUtils.isNumeric: non-empty, all Unicode digits (no sign).
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

fn ints(array: &ArrayRef, path: &str) -> Result<Int64Array> {
    let c = cast_with_options(array, &ArrowType::Int64, &CastOptions::default())
        .map_err(|e| Error::arrow(path, e))?;
    Ok(c.as_primitive::<Int64Type>().clone())
}

fn doubles(array: &ArrayRef, path: &str) -> Result<Float64Array> {
    let c = cast_with_options(array, &ArrowType::Float64, &CastOptions::default())
        .map_err(|e| Error::arrow(path, e))?;
    Ok(c.as_primitive::<Float64Type>().clone())
}

fn dec<'a>(array: &'a ArrayRef, path: &str) -> Result<&'a Decimal128Array> {
    array
        .as_primitive_opt::<Decimal128Type>()
        .ok_or_else(|| mismatch(path, array))
}

fn strs<'a>(array: &'a ArrayRef, path: &str) -> Result<&'a StringArray> {
    array
        .as_string_opt::<i32>()
        .ok_or_else(|| mismatch(path, array))
}

fn decimals(vals: impl Iterator<Item = Option<i128>>, p: u32, s: u32) -> Result<Decimal128Array> {
    vals.collect::<Decimal128Array>()
        .with_precision_and_scale(u8::try_from(p).unwrap_or(38), i8::try_from(s).unwrap_or(0))
        .map_err(|e| Error::Internal(format!("decimal({p}, {s}) array: {e}")))
}

/// Keeps the low bits, like Java's `(byte)` / `(short)` / `(int)` narrowing.
fn narrow_ints(longs: &Int64Array, to: &DataType) -> ArrayRef {
    match to.kind {
        TypeKind::TinyInt => arc(longs
            .iter()
            .map(|v| v.map(|v| v as i8))
            .collect::<Int8Array>()),
        TypeKind::SmallInt => arc(longs
            .iter()
            .map(|v| v.map(|v| v as i16))
            .collect::<Int16Array>()),
        TypeKind::Int => arc(longs
            .iter()
            .map(|v| v.map(|v| v as i32))
            .collect::<Int32Array>()),
        _ => arc(longs.clone()),
    }
}

/// Epoch nanoseconds of a timestamp array of any unit.
fn ts_nanos(array: &ArrayRef, path: &str) -> Result<Vec<Option<i128>>> {
    Ok(match array.data_type() {
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => array
            .as_primitive::<TimestampMillisecondType>()
            .iter()
            .map(|v| v.map(|v| i128::from(v) * 1_000_000))
            .collect(),
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => array
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .map(|v| v.map(|v| i128::from(v) * 1_000))
            .collect(),
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => array
            .as_primitive::<TimestampNanosecondType>()
            .iter()
            .map(|v| v.map(i128::from))
            .collect(),
        _ => return Err(mismatch(path, array)),
    })
}

/// Timestamps of `precision` from epoch nanoseconds.
///
/// # Errors
/// [`Error::TimestampOutOfRange`] (its column left empty for the caller to name) for a value
/// the target unit cannot hold in an `i64`: nanoseconds reach only 1677..2262.
fn timestamps_from_nanos(
    nanos: Vec<Option<i128>>,
    precision: u32,
    ltz: bool,
    path: &str,
) -> Result<ArrayRef> {
    let tz = ltz.then_some(LTZ_TIMEZONE);
    let unit = timestamp_unit(precision);
    let div: i128 = match unit {
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        _ => 1,
    };
    let mut values = Vec::with_capacity(nanos.len());
    for v in &nanos {
        values.push(match v {
            None => None,
            Some(v) => Some(i64::try_from(v.div_euclid(div)).map_err(|_| {
                let secs = v.div_euclid(1_000_000_000);
                let frac = v.rem_euclid(1_000_000_000) as i64;
                Error::TimestampOutOfRange {
                    path: path.to_string(),
                    column: String::new(),
                    value: i64::try_from(secs)
                        .map(|s| crate::format::format_timestamp(s, frac))
                        .unwrap_or_else(|_| format!("{v} ns since the epoch")),
                }
            })?),
        });
    }
    Ok(match unit {
        TimeUnit::Millisecond => {
            arc(PrimitiveArray::<TimestampMillisecondType>::from(values).with_timezone_opt(tz))
        }
        TimeUnit::Microsecond => {
            arc(PrimitiveArray::<TimestampMicrosecondType>::from(values).with_timezone_opt(tz))
        }
        _ => arc(PrimitiveArray::<TimestampNanosecondType>::from(values).with_timezone_opt(tz)),
    })
}

/// Java's `toString` of each value of a non-string type (`NumericToStringCastRule`, ...).
fn to_java_strings(array: &ArrayRef, from: &DataType, path: &str) -> Result<Vec<Option<String>>> {
    Ok(match (fam(from), array.data_type()) {
        (Fam::Str, _) => strs(array, path)?
            .iter()
            .map(|v| v.map(str::to_string))
            .collect(),
        (Fam::Int, _) => ints(array, path)?
            .iter()
            .map(|v| v.map(|v| v.to_string()))
            .collect(),
        (Fam::Float, _) => array
            .as_primitive_opt::<Float32Type>()
            .ok_or_else(|| mismatch(path, array))?
            .iter()
            .map(|v| v.map(|v| text::java_float_string(&format!("{v:e}"))))
            .collect(),
        (Fam::Double, _) => doubles(array, path)?
            .iter()
            .map(|v| v.map(|v| text::java_float_string(&format!("{v:e}"))))
            .collect(),
        (Fam::Bool, _) => array
            .as_boolean_opt()
            .ok_or_else(|| mismatch(path, array))?
            .iter()
            .map(|v| v.map(|v| v.to_string()))
            .collect(),
        (Fam::Decimal(_, s), _) => dec(array, path)?
            .iter()
            .map(|v| v.map(|v| text::decimal_plain_string(v, s)))
            .collect(),
        (Fam::Date, _) => array
            .as_primitive_opt::<Date32Type>()
            .ok_or_else(|| mismatch(path, array))?
            .iter()
            .map(|v| v.map(|v| text::format_date(i64::from(v))))
            .collect(),
        (Fam::Ts { precision, .. }, _) => ts_nanos(array, path)?
            .into_iter()
            .map(|v| v.map(|v| text::format_timestamp(v, precision)))
            .collect(),
        (Fam::Bin, _) => array
            .as_binary_opt::<i32>()
            .ok_or_else(|| mismatch(path, array))?
            .iter()
            .map(|v| v.map(|v| String::from_utf8_lossy(v).into_owned()))
            .collect(),
        (Fam::Time, _) => {
            let c = cast_with_options(array, &ArrowType::Int32, &CastOptions::default())
                .map_err(|e| Error::arrow(path, e))?;
            c.as_primitive::<Int32Type>()
                .iter()
                .map(|v| {
                    v.map(|ms| {
                        let p = match from.kind {
                            TypeKind::Time { precision } => precision.min(3),
                            _ => 0,
                        };
                        text::format_time_millis(ms, p)
                    })
                })
                .collect()
        }
        _ => {
            return Err(Error::unsupported(format!(
                "casting {from} to a string (file {path})"
            )))
        }
    })
}

/// Java `BinaryStringUtils.toCharacterString`: truncate to the length, pad CHAR with blanks.
fn fit_strings(values: Vec<Option<String>>, to: &DataType) -> StringArray {
    let (len, pad) = match to.kind {
        TypeKind::Char { length } => (length as usize, true),
        TypeKind::VarChar { length } => (length as usize, false),
        _ => (usize::MAX, false),
    };
    values
        .into_iter()
        .map(|v| {
            v.map(|s| {
                let n = s.chars().count();
                if n > len {
                    s.chars().take(len).collect()
                } else if pad && n < len {
                    let mut s = s;
                    s.extend(std::iter::repeat_n(' ', len - n));
                    s
                } else {
                    s
                }
            })
        })
        .collect()
}

/// Java `BinaryStringUtils.toBinaryString`: BINARY(n) pads/truncates to n, VARBINARY truncates.
fn fit_binary(values: impl Iterator<Item = Option<Vec<u8>>>, to: &DataType) -> BinaryArray {
    let (len, fixed) = match to.kind {
        TypeKind::Binary { length } => (length as usize, true),
        TypeKind::VarBinary { length } => (length as usize, false),
        _ => (usize::MAX, false),
    };
    let fitted: Vec<Option<Vec<u8>>> = values
        .map(|v| {
            v.map(|mut b| {
                if b.len() > len || (fixed && b.len() < len) {
                    b.resize(len, 0);
                }
                b
            })
        })
        .collect();
    fitted.iter().map(|v| v.as_deref()).collect()
}
