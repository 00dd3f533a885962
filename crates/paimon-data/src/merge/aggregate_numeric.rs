//! `sum` and `product` (Java `FieldSumAgg`, `FieldProductAgg`).
//!
//! Integers overflow with an error like Java's `Math.addExact`; decimals that no longer fit
//! their precision become null like Java's `Decimal.fromBigDecimal`; floats follow IEEE.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use arrow_array::{
    ArrayRef, Decimal128Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array,
    Int8Array,
};
use arrow_schema::DataType;

use super::aggregate::{AggOut, FieldAgg};
use super::cell::Cell;
use super::error::{merge_failed, Result};

pub(crate) fn is_numeric(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Decimal128(_, _)
    )
}

/// A number computed by `sum` or `product`, in the column's own type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Dec(i128, u8, i8),
}

pub(crate) fn read(c: Cell<'_>) -> Result<Num> {
    let (a, r) = match c {
        Cell::Num(n) => return Ok(n),
        Cell::At(a, r) => (a, r),
    };
    Ok(match a.data_type() {
        DataType::Int8 => Num::I8(a.as_primitive::<Int8Type>().value(r)),
        DataType::Int16 => Num::I16(a.as_primitive::<Int16Type>().value(r)),
        DataType::Int32 => Num::I32(a.as_primitive::<Int32Type>().value(r)),
        DataType::Int64 => Num::I64(a.as_primitive::<Int64Type>().value(r)),
        DataType::Float32 => Num::F32(a.as_primitive::<Float32Type>().value(r)),
        DataType::Float64 => Num::F64(a.as_primitive::<Float64Type>().value(r)),
        DataType::Decimal128(p, s) => Num::Dec(a.as_primitive::<Decimal128Type>().value(r), *p, *s),
        other => return Err(merge_failed(format!("sum/product over {other}"))),
    })
}

#[inline]
fn to_out(n: Option<Num>) -> Result<AggOut> {
    Ok(match n {
        None => AggOut::Null,
        Some(n) => AggOut::Num(n),
    })
}

/// Java's order of two numbers of one type (floats as `Double.compare`).
pub(crate) fn compare_nums(a: Num, b: Num) -> Result<std::cmp::Ordering> {
    Ok(match (a, b) {
        (Num::I8(x), Num::I8(y)) => x.cmp(&y),
        (Num::I16(x), Num::I16(y)) => x.cmp(&y),
        (Num::I32(x), Num::I32(y)) => x.cmp(&y),
        (Num::I64(x), Num::I64(y)) => x.cmp(&y),
        (Num::F32(x), Num::F32(y)) => x.total_cmp(&y),
        (Num::F64(x), Num::F64(y)) => x.total_cmp(&y),
        (Num::Dec(x, _, _), Num::Dec(y, _, _)) => x.cmp(&y),
        _ => return Err(merge_failed("comparing numbers of different types")),
    })
}

/// The column of computed numbers `nums` (all of `data_type`).
pub(crate) fn nums_to_array(nums: &[Num], data_type: &DataType) -> Result<ArrayRef> {
    fn collect<T>(nums: &[Num], f: impl Fn(Num) -> Option<T>) -> Result<Vec<T>> {
        nums.iter()
            .map(|n| f(*n).ok_or_else(|| merge_failed(format!("a computed {n:?} of another type"))))
            .collect()
    }
    Ok(match data_type {
        DataType::Int8 => Arc::new(Int8Array::from(collect(nums, |n| match n {
            Num::I8(v) => Some(v),
            _ => None,
        })?)),
        DataType::Int16 => Arc::new(Int16Array::from(collect(nums, |n| match n {
            Num::I16(v) => Some(v),
            _ => None,
        })?)),
        DataType::Int32 => Arc::new(Int32Array::from(collect(nums, |n| match n {
            Num::I32(v) => Some(v),
            _ => None,
        })?)),
        DataType::Int64 => Arc::new(Int64Array::from(collect(nums, |n| match n {
            Num::I64(v) => Some(v),
            _ => None,
        })?)),
        DataType::Float32 => Arc::new(Float32Array::from(collect(nums, |n| match n {
            Num::F32(v) => Some(v),
            _ => None,
        })?)),
        DataType::Float64 => Arc::new(Float64Array::from(collect(nums, |n| match n {
            Num::F64(v) => Some(v),
            _ => None,
        })?)),
        DataType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from(collect(nums, |n| match n {
                Num::Dec(v, _, _) => Some(v),
                _ => None,
            })?)
            .with_precision_and_scale(*p, *s)?,
        ),
        other => return Err(merge_failed(format!("computed numbers of type {other}"))),
    })
}

fn overflow(
    op: &str,
    a: impl std::fmt::Display,
    b: impl std::fmt::Display,
) -> super::error::MergeError {
    merge_failed(format!("overflow: {a} {op} {b}"))
}

/// Null when `v` does not fit `precision` digits (Java `fromBigDecimal` returns null).
fn fit(v: i128, p: u8, s: i8) -> Option<Num> {
    let limit = 10i128.checked_pow(u32::from(p))?;
    (v.unsigned_abs() < limit.unsigned_abs()).then_some(Num::Dec(v, p, s))
}

/// `v / 10^shift` rounded half-up (away from zero on .5), like `BigDecimal.setScale(HALF_UP)`.
fn div_round_half_up(v: i128, d: i128) -> Option<i128> {
    if d == 0 {
        return None;
    }
    let q = v / d;
    let r = v % d;
    if r.unsigned_abs().checked_mul(2)? >= d.unsigned_abs() {
        Some(if (v < 0) != (d < 0) { q - 1 } else { q + 1 })
    } else {
        Some(q)
    }
}

macro_rules! int_op {
    ($a:expr, $b:expr, $op:ident, $sym:expr, $var:ident) => {
        $a.$op($b)
            .map(Num::$var)
            .ok_or_else(|| overflow($sym, $a, $b))?
    };
}

fn add(a: Num, b: Num, negate: bool) -> Result<Option<Num>> {
    let sym = if negate { "-" } else { "+" };
    Ok(Some(match (a, b) {
        (Num::I8(x), Num::I8(y)) if negate => int_op!(x, y, checked_sub, sym, I8),
        (Num::I8(x), Num::I8(y)) => int_op!(x, y, checked_add, sym, I8),
        (Num::I16(x), Num::I16(y)) if negate => int_op!(x, y, checked_sub, sym, I16),
        (Num::I16(x), Num::I16(y)) => int_op!(x, y, checked_add, sym, I16),
        (Num::I32(x), Num::I32(y)) if negate => int_op!(x, y, checked_sub, sym, I32),
        (Num::I32(x), Num::I32(y)) => int_op!(x, y, checked_add, sym, I32),
        (Num::I64(x), Num::I64(y)) if negate => int_op!(x, y, checked_sub, sym, I64),
        (Num::I64(x), Num::I64(y)) => int_op!(x, y, checked_add, sym, I64),
        (Num::F32(x), Num::F32(y)) => Num::F32(if negate { x - y } else { x + y }),
        (Num::F64(x), Num::F64(y)) => Num::F64(if negate { x - y } else { x + y }),
        (Num::Dec(x, p, s), Num::Dec(y, _, _)) => {
            let v = if negate {
                x.checked_sub(y)
            } else {
                x.checked_add(y)
            };
            return Ok(v.and_then(|v| fit(v, p, s)));
        }
        _ => return Err(merge_failed("sum over mismatched types")),
    }))
}

fn negative(a: Num) -> Result<Option<Num>> {
    Ok(Some(match a {
        Num::I8(x) => Num::I8(x.checked_neg().ok_or_else(|| overflow("-", "", x))?),
        Num::I16(x) => Num::I16(x.checked_neg().ok_or_else(|| overflow("-", "", x))?),
        Num::I32(x) => Num::I32(x.checked_neg().ok_or_else(|| overflow("-", "", x))?),
        Num::I64(x) => Num::I64(x.checked_neg().ok_or_else(|| overflow("-", "", x))?),
        Num::F32(x) => Num::F32(-x),
        Num::F64(x) => Num::F64(-x),
        Num::Dec(x, p, s) => return Ok(fit(-x, p, s)),
    }))
}

fn mul(a: Num, b: Num) -> Result<Option<Num>> {
    Ok(Some(match (a, b) {
        (Num::I8(x), Num::I8(y)) => int_op!(x, y, checked_mul, "*", I8),
        (Num::I16(x), Num::I16(y)) => int_op!(x, y, checked_mul, "*", I16),
        (Num::I32(x), Num::I32(y)) => int_op!(x, y, checked_mul, "*", I32),
        (Num::I64(x), Num::I64(y)) => int_op!(x, y, checked_mul, "*", I64),
        (Num::F32(x), Num::F32(y)) => Num::F32(x * y),
        (Num::F64(x), Num::F64(y)) => Num::F64(x * y),
        (Num::Dec(x, p, s), Num::Dec(y, _, _)) => {
            // x*y carries scale 2s; round back to s.
            let scale = 10i128.checked_pow(s.max(0) as u32);
            let v = x
                .checked_mul(y)
                .zip(scale)
                .and_then(|(v, d)| div_round_half_up(v, d));
            return Ok(v.and_then(|v| fit(v, p, s)));
        }
        _ => return Err(merge_failed("product over mismatched types")),
    }))
}

fn div(a: Num, b: Num) -> Result<Option<Num>> {
    let by_zero = || merge_failed("division by zero while retracting a product");
    Ok(Some(match (a, b) {
        (Num::I8(x), Num::I8(y)) => Num::I8(x.checked_div(y).ok_or_else(by_zero)?),
        (Num::I16(x), Num::I16(y)) => Num::I16(x.checked_div(y).ok_or_else(by_zero)?),
        (Num::I32(x), Num::I32(y)) => Num::I32(x.checked_div(y).ok_or_else(by_zero)?),
        (Num::I64(x), Num::I64(y)) => Num::I64(x.checked_div(y).ok_or_else(by_zero)?),
        (Num::F32(x), Num::F32(y)) => Num::F32(x / y),
        (Num::F64(x), Num::F64(y)) => Num::F64(x / y),
        (Num::Dec(x, p, s), Num::Dec(y, _, _)) => {
            if y == 0 {
                return Err(by_zero());
            }
            // (x / 10^s) / (y / 10^s) at scale s is x * 10^s / y.
            let scale = 10i128.checked_pow(s.max(0) as u32);
            let v = scale
                .and_then(|d| x.checked_mul(d))
                .and_then(|v| div_round_half_up(v, y));
            return Ok(v.and_then(|v| fit(v, p, s)));
        }
        _ => return Err(merge_failed("product over mismatched types")),
    }))
}

/// Java `FieldSumAgg`: nulls are skipped; retraction subtracts (negating into a null sum).
#[derive(Debug)]
pub(crate) struct SumAgg;

impl FieldAgg for SumAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        };
        to_out(add(read(a)?, read(i)?, false)?)
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        match (acc, input) {
            (_, None) => Ok(if acc.is_none() {
                AggOut::Null
            } else {
                AggOut::KeepAcc
            }),
            (None, Some(i)) => to_out(negative(read(i)?)?),
            (Some(a), Some(i)) => to_out(add(read(a)?, read(i)?, true)?),
        }
    }
    fn name(&self) -> &'static str {
        "sum"
    }
}

/// Java `FieldProductAgg`: nulls are skipped; retraction divides (a null side keeps the
/// accumulator).
#[derive(Debug)]
pub(crate) struct ProductAgg;

impl FieldAgg for ProductAgg {
    fn agg(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(if acc.is_none() {
                AggOut::TakeInput
            } else {
                AggOut::KeepAcc
            });
        };
        to_out(mul(read(a)?, read(i)?)?)
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(AggOut::KeepAcc);
        };
        to_out(div(read(a)?, read(i)?)?)
    }
    fn name(&self) -> &'static str {
        "product"
    }
}
