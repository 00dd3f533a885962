//! Generic decoded values of manifest records, shared by the Avro and ORC readers.
//!
//! Both manifest formats decode into [`Value`] trees; the manifest types map fields **by name**
//! (Java `FieldReaderFactory.RowReader`), so old files with fewer fields stay readable.

use std::sync::Arc;

/// One decoded value (Avro datum or ORC/Arrow cell).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// null (also an absent field).
    Null,
    /// boolean
    Boolean(bool),
    /// int (also TINYINT / SMALLINT / DATE / TIME)
    Int(i32),
    /// long (also timestamps as their physical value)
    Long(i64),
    /// float
    Float(f32),
    /// double
    Double(f64),
    /// bytes / fixed
    Bytes(Vec<u8>),
    /// string / enum symbol
    String(String),
    /// array
    Array(Vec<Value>),
    /// map with string keys
    Map(Vec<(String, Value)>),
    /// record
    Record(Record),
}

/// A record: field names shared with its schema, and values in schema order.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    names: Arc<[String]>,
    values: Vec<Value>,
}

static NULL: Value = Value::Null;

impl Record {
    /// A record from names and values of equal length.
    pub fn new(names: Arc<[String]>, values: Vec<Value>) -> Self {
        Record { names, values }
    }

    /// The field called `name`, or null when the writer did not have it.
    pub fn get(&self, name: &str) -> &Value {
        self.names
            .iter()
            .position(|n| n == name)
            .and_then(|i| self.values.get(i))
            .unwrap_or(&NULL)
    }

    /// Whether the writer schema had field `name`.
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Field names in writer order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Consumes the record into its values.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }

    /// Removes and returns the field `name` (null when absent).
    pub fn take(&mut self, name: &str) -> Value {
        match self.names.iter().position(|n| n == name) {
            Some(i) => self
                .values
                .get_mut(i)
                .map(|v| std::mem::replace(v, Value::Null))
                .unwrap_or(Value::Null),
            None => Value::Null,
        }
    }
}

impl Value {
    /// Whether this is null.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Integer value of an int or long.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(i64::from(*v)),
            Value::Long(v) => Some(*v),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The record, if this is one.
    pub fn as_record(&self) -> Option<&Record> {
        match self {
            Value::Record(r) => Some(r),
            _ => None,
        }
    }
}
