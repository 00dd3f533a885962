//! Panics of the format libraries turned into errors naming the file.

use arrow_array::RecordBatch;

use super::BatchIter;
use crate::error::{Error, Result};

/// Runs `open` and then the batches it returns with panics turned into [`Error::Corrupt`]
/// naming the file: `orc-rust` 0.9 and the `parquet` crate panic on some damaged files
/// (unwrapped decompression errors, out-of-bounds slicing, arithmetic overflow, asserts on
/// negative column offsets), while opening them as well as while decoding. A panic ends the
/// batches.
pub(super) fn guard_panics(
    path: &str,
    library: &'static str,
    open: impl FnOnce() -> Result<BatchIter>,
) -> Result<BatchIter> {
    let panicked = |payload: Box<dyn std::any::Any + Send>| {
        Error::corrupt(
            path,
            format!(
                "the {library} reader failed on a damaged file: {}",
                panic_message(payload.as_ref())
            ),
        )
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(open)) {
        Ok(Ok(inner)) => Ok(Box::new(PanicToError {
            inner: Some(inner),
            path: path.to_string(),
            library,
        })),
        Ok(Err(e)) => Err(e),
        Err(payload) => Err(panicked(payload)),
    }
}

struct PanicToError {
    inner: Option<BatchIter>,
    path: String,
    library: &'static str,
}

impl Iterator for PanicToError {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.next())) {
            Ok(item) => item,
            Err(payload) => {
                self.inner = None;
                Some(Err(Error::corrupt(
                    &self.path,
                    format!(
                        "the {} reader failed on a damaged file: {}",
                        self.library,
                        panic_message(payload.as_ref())
                    ),
                )))
            }
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
