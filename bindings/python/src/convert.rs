//! Small conversions between Python values and the crates' types.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::errors::{invalid, py};

/// A JSON value as the Python value `json.loads` would give.
pub fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any().unbind(),
            _ => n
                .as_f64()
                .unwrap_or(f64::NAN)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(json_to_py(py, i)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// FileIO options from a Python dict of strings (values may be any object with `str()`).
pub fn options_map(options: Option<&Bound<'_, PyDict>>) -> PyResult<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| invalid(format!("options: key {k} is not a string")))?;
            let value = match v.extract::<bool>() {
                Ok(b) => b.to_string(),
                Err(_) => v.str()?.to_string(),
            };
            out.insert(key, value);
        }
    }
    Ok(out)
}

/// The FileIO for `path` with `options`.
pub fn file_io(path: &str, options: &BTreeMap<String, String>) -> PyResult<paimon_io::FileIORef> {
    py(paimon_io::file_io_with_options(path, options))
}

/// `path` without trailing slashes (the form every crate joins paths with).
pub fn table_location(path: &str) -> String {
    let t = path.trim_end_matches('/');
    if t.is_empty() {
        "/".into()
    } else {
        t.to_string()
    }
}

/// The threads to read with: `None` is every core.
pub fn threads(n: Option<usize>) -> PyResult<usize> {
    match n {
        Some(0) => Err(invalid("threads must be at least 1 (None: all cores)")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
