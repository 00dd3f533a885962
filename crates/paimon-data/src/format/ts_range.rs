//! Detecting timestamps that Arrow's nanosecond unit cannot hold.
//!
//! Paimon TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9) map to Arrow `Timestamp(ns)`, an `i64` of
//! nanoseconds since the epoch: 1677-09-21T00:12:43.145224192 ..= 2262-04-11T23:47:16.854775807.
//! Java's `Timestamp` reaches from year 0001 to 9999, and decoders of Parquet INT96 wrap silently
//! when converting such a value to nanoseconds (0001-01-01 reads back as 1754-08-30).
//!
//! The check decodes the same column a second time at microsecond unit, which holds every year
//! Java can write, and looks at the minimum and maximum of each leaf: in the common case two
//! vectorized reductions per batch. Only when one of them lies outside the nanosecond range is
//! the offending value searched for, to be named in the error.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType as ArrowType, TimeUnit};

/// A timestamp outside Arrow's nanosecond range, found at microsecond unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutOfRange {
    /// Dotted path of the leaf column (`c_row.c_ts9`).
    pub column: String,
    /// The value, formatted as an ISO local date-time.
    pub value: String,
}

/// The first value inside `array`, a microsecond decode of a column whose main decode has
/// type `main`, that does not fit `Timestamp(ns)`. Only leaves that are `Timestamp(ns)` in
/// `main` are looked at (searching through structs, lists and maps); `column` is the
/// column's name.
pub(crate) fn find_out_of_range(
    array: &ArrayRef,
    main: &ArrowType,
    column: &str,
) -> Option<OutOfRange> {
    match (array.data_type(), main) {
        (
            ArrowType::Timestamp(TimeUnit::Microsecond, _),
            ArrowType::Timestamp(TimeUnit::Nanosecond, _),
        ) => {
            let ts = array.as_primitive::<TimestampMicrosecondType>();
            let min = arrow::compute::min(ts)?;
            let max = arrow::compute::max(ts)?;
            if fits_nanos(min) && fits_nanos(max) {
                return None;
            }
            let bad = ts.iter().flatten().find(|v| !fits_nanos(*v))?;
            Some(OutOfRange {
                column: column.to_string(),
                value: format_micros(bad),
            })
        }
        (ArrowType::Struct(fields), ArrowType::Struct(main_fields)) => {
            let s = array.as_struct();
            fields
                .iter()
                .zip(main_fields)
                .zip(s.columns())
                .find_map(|((f, m), c)| {
                    find_out_of_range(c, m.data_type(), &format!("{column}.{}", f.name()))
                })
        }
        (ArrowType::List(_), ArrowType::List(m)) => {
            find_out_of_range(array.as_list::<i32>().values(), m.data_type(), column)
        }
        (ArrowType::LargeList(_), ArrowType::LargeList(m)) => {
            find_out_of_range(array.as_list::<i64>().values(), m.data_type(), column)
        }
        (ArrowType::FixedSizeList(_, _), ArrowType::FixedSizeList(m, _)) => {
            find_out_of_range(array.as_fixed_size_list().values(), m.data_type(), column)
        }
        (ArrowType::Map(_, _), ArrowType::Map(m, _)) => {
            let entries: ArrayRef = Arc::new(array.as_map().entries().clone());
            find_out_of_range(&entries, m.data_type(), column)
        }
        _ => None,
    }
}

/// Whether every nanosecond of microsecond `us` fits an `i64` of nanoseconds. The microsecond
/// holding one end of the range counts as outside: the sub-microsecond digits that would
/// decide are not in a microsecond decode, and an error is better than a wrapped value.
fn fits_nanos(us: i64) -> bool {
    us.checked_mul(1000)
        .and_then(|ns| ns.checked_add(999))
        .is_some()
        && us > i64::MIN / 1000
}

/// `us` microseconds since the epoch as `YYYY-MM-DDTHH:MM:SS[.ffffff]` (proleptic Gregorian).
pub(crate) fn format_micros(us: i64) -> String {
    format_timestamp(us.div_euclid(1_000_000), us.rem_euclid(1_000_000) * 1000)
}

/// `secs` seconds plus `nanos` (0..1e9) nanoseconds since the epoch as
/// `YYYY-MM-DDTHH:MM:SS[.ffffff[fff]]` (proleptic Gregorian).
pub(crate) fn format_timestamp(secs: i64, nanos: i64) -> String {
    format_with(secs, nanos, civil_from_days)
}

/// As [`format_timestamp`], in the calendar of `java.sql.Timestamp`: Julian before
/// 1582-10-15. Java's ORC writer stores such instants, so 0001-01-01 as Java wrote it reads
/// back as proleptic 0000-12-30.
pub(crate) fn format_timestamp_hybrid(secs: i64, nanos: i64) -> String {
    /// 1582-10-15T00:00:00Z, the first Gregorian day.
    const CUTOVER_SECS: i64 = -12_219_292_800;
    if secs < CUTOVER_SECS {
        format_with(secs, nanos, julian_from_days)
    } else {
        format_with(secs, nanos, civil_from_days)
    }
}

fn format_with(secs: i64, nanos: i64, calendar: fn(i64) -> (i64, i64, i64)) -> String {
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, m, d) = calendar(days);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    );
    if nanos % 1000 != 0 {
        s.push_str(&format!(".{nanos:09}"));
    } else if nanos != 0 {
        s.push_str(&format!(".{:06}", nanos / 1000));
    }
    s
}

/// Days since 1970-01-01 to a Julian-calendar (year, month, day), via the Julian day number.
fn julian_from_days(days: i64) -> (i64, i64, i64) {
    let c = days + 2_440_588 + 32_082;
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2).div_euclid(153);
    let day = e - (153 * m + 2).div_euclid(5) + 1;
    let month = m + 3 - 12 * (m / 10);
    let year = d - 4800 + m / 10;
    (year, month, day)
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let (y, m, d) = paimon_spec::calendar::civil_from_days(days);
    (y, i64::from(m), i64::from(d))
}

#[cfg(test)]
mod tests {
    use arrow_array::{ListArray, TimestampMicrosecondArray};

    use super::*;

    /// 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999999 in microseconds.
    const YEAR_1: i64 = -62_135_596_800_000_000;
    const YEAR_9999: i64 = 253_402_300_799_999_999;

    #[test]
    fn formats_dates() {
        assert_eq!(format_micros(0), "1970-01-01T00:00:00");
        assert_eq!(format_micros(YEAR_1), "0001-01-01T00:00:00");
        assert_eq!(format_micros(YEAR_9999), "9999-12-31T23:59:59.999999");
        assert_eq!(format_micros(-1), "1969-12-31T23:59:59.999999");
        // What Java's ORC writer stores for 0001-01-01 (Julian), and the Gregorian cutover.
        assert_eq!(
            format_timestamp_hybrid(-62_135_769_600, 0),
            "0001-01-01T00:00:00"
        );
        assert_eq!(
            format_timestamp_hybrid(-12_219_292_800, 0),
            "1582-10-15T00:00:00"
        );
        assert_eq!(
            format_timestamp_hybrid(-12_219_292_801, 0),
            "1582-10-04T23:59:59"
        );
        assert_eq!(format_timestamp_hybrid(0, 0), "1970-01-01T00:00:00");
        assert_eq!(
            format_timestamp(253_402_300_799, 999_999_999),
            "9999-12-31T23:59:59.999999999"
        );
    }

    #[test]
    fn range_edges() {
        assert!(fits_nanos(0));
        assert!(fits_nanos(i64::MAX / 1000 - 1));
        assert!(fits_nanos(i64::MIN / 1000 + 1));
        assert!(!fits_nanos(YEAR_1));
        assert!(!fits_nanos(YEAR_9999));
    }

    #[test]
    fn finds_the_offending_value_in_nested_columns() {
        let ok: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![Some(0), None]));
        let ns = ArrowType::Timestamp(TimeUnit::Nanosecond, None);
        assert_eq!(find_out_of_range(&ok, &ns, "c"), None);
        let bad: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![Some(5), Some(YEAR_1)]));
        // A microsecond column of the main decode is not checked: it holds every year.
        assert_eq!(find_out_of_range(&bad, bad.data_type(), "c_ts6"), None);
        let hit = find_out_of_range(&bad, &ns, "c_ts9").unwrap();
        assert_eq!(hit.column, "c_ts9");
        assert_eq!(hit.value, "0001-01-01T00:00:00");
        let field = Arc::new(arrow_schema::Field::new(
            "item",
            bad.data_type().clone(),
            true,
        ));
        let main_list = ArrowType::List(Arc::new(arrow_schema::Field::new("item", ns, true)));
        let list: ArrayRef = Arc::new(ListArray::new(
            field,
            arrow_buffer::OffsetBuffer::from_lengths([2]),
            bad,
            None,
        ));
        assert_eq!(
            find_out_of_range(&list, &main_list, "c_arr").unwrap().value,
            "0001-01-01T00:00:00"
        );
    }
}
