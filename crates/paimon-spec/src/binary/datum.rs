//! Typed values decoded from (or encoded into) binary rows.

/// One value of a Paimon type, as Java's internal data structures hold it.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// BOOLEAN
    Boolean(bool),
    /// TINYINT
    TinyInt(i8),
    /// SMALLINT
    SmallInt(i16),
    /// INT
    Int(i32),
    /// BIGINT
    BigInt(i64),
    /// FLOAT
    Float(f32),
    /// DOUBLE
    Double(f64),
    /// DECIMAL(p, s) as its unscaled value.
    Decimal {
        /// Unscaled value; the number is `unscaled / 10^scale`.
        unscaled: i128,
        /// Precision.
        precision: u32,
        /// Scale.
        scale: u32,
    },
    /// CHAR / VARCHAR
    String(String),
    /// BINARY / VARBINARY / BLOB
    Binary(Vec<u8>),
    /// DATE: days since epoch.
    Date(i32),
    /// TIME: millis of day.
    Time(i32),
    /// TIMESTAMP: wall-clock millis since epoch plus nanos within the milli.
    Timestamp {
        /// Millis since 1970-01-01T00:00.
        millis: i64,
        /// Nanoseconds within the millisecond, 0..=999_999.
        nanos: i32,
    },
    /// TIMESTAMP WITH LOCAL TIME ZONE: an instant.
    LocalZonedTimestamp {
        /// Millis since the epoch (UTC).
        millis: i64,
        /// Nanoseconds within the millisecond.
        nanos: i32,
    },
    /// ARRAY / VECTOR
    Array(Vec<Datum>),
    /// MAP / MULTISET as (key, value) pairs in stored order.
    Map(Vec<(Datum, Datum)>),
    /// ROW
    Row(Vec<Datum>),
    /// VARIANT
    Variant {
        /// Encoded value.
        value: Vec<u8>,
        /// Encoded metadata.
        metadata: Vec<u8>,
    },
}

impl Datum {
    /// Whether this is [`Datum::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    /// The value as i64 for any integer-like variant (incl. DATE, TIME).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Datum::TinyInt(v) => Some(i64::from(*v)),
            Datum::SmallInt(v) => Some(i64::from(*v)),
            Datum::Int(v) | Datum::Date(v) | Datum::Time(v) => Some(i64::from(*v)),
            Datum::BigInt(v) => Some(*v),
            _ => None,
        }
    }

    /// The text of a string datum.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Datum::String(s) => Some(s),
            _ => None,
        }
    }
}
