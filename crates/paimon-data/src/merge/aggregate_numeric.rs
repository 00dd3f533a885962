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
    Array, ArrayRef, Decimal128Array, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, Int8Array,
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

#[derive(Debug, Clone, Copy)]
enum Num {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Dec(i128, u8, i8),
}

fn read(c: Cell<'_>) -> Result<Num> {
    let a = c.array;
    let r = c.row;
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

fn to_array(n: Option<Num>, data_type: &DataType) -> Result<AggOut> {
    let Some(n) = n else {
        return Ok(AggOut::Null);
    };
    let a: ArrayRef = match n {
        Num::I8(v) => Arc::new(Int8Array::from(vec![v])),
        Num::I16(v) => Arc::new(Int16Array::from(vec![v])),
        Num::I32(v) => Arc::new(Int32Array::from(vec![v])),
        Num::I64(v) => Arc::new(Int64Array::from(vec![v])),
        Num::F32(v) => Arc::new(Float32Array::from(vec![v])),
        Num::F64(v) => Arc::new(Float64Array::from(vec![v])),
        Num::Dec(v, p, s) => {
            Arc::new(Decimal128Array::from(vec![v]).with_precision_and_scale(p, s)?)
        }
    };
    debug_assert_eq!(a.data_type(), data_type);
    Ok(AggOut::Value(a))
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
        to_array(add(read(a)?, read(i)?, false)?, a.array.data_type())
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        match (acc, input) {
            (_, None) => Ok(if acc.is_none() {
                AggOut::Null
            } else {
                AggOut::KeepAcc
            }),
            (None, Some(i)) => to_array(negative(read(i)?)?, i.array.data_type()),
            (Some(a), Some(i)) => to_array(add(read(a)?, read(i)?, true)?, a.array.data_type()),
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
        to_array(mul(read(a)?, read(i)?)?, a.array.data_type())
    }
    fn retract(&mut self, acc: Option<Cell<'_>>, input: Option<Cell<'_>>) -> Result<AggOut> {
        let (Some(a), Some(i)) = (acc, input) else {
            return Ok(AggOut::KeepAcc);
        };
        to_array(div(read(a)?, read(i)?)?, a.array.data_type())
    }
    fn name(&self) -> &'static str {
        "product"
    }
}
