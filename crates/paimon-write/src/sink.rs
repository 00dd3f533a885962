//! The storage stream of a data file, shared between a format encoder (which owns a writer
//! and may keep it after finishing) and the file's owner, who must still close or abort it.

use std::io::Write;
use std::sync::{Arc, Mutex};

use paimon_io::FileWriter;

/// A [`FileWriter`] behind a shared handle; writes fail once it has been taken.
#[derive(Debug, Clone)]
pub(crate) struct Sink(Arc<Mutex<Option<Box<dyn FileWriter>>>>);

impl Sink {
    pub(crate) fn new(out: Box<dyn FileWriter>) -> Self {
        Sink(Arc::new(Mutex::new(Some(out))))
    }

    /// The stream, for closing or aborting; `None` once taken.
    pub(crate) fn take(&self) -> Option<Box<dyn FileWriter>> {
        self.0.lock().ok().and_then(|mut g| g.take())
    }

    /// Bytes accepted so far (Java `PositionOutputStream.getPos`); 0 once taken.
    pub(crate) fn position(&self) -> u64 {
        self.0
            .lock()
            .ok()
            .and_then(|g| g.as_ref().map(|w| w.position()))
            .unwrap_or(0)
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned sink"))?
            .as_mut()
        {
            Some(w) => w.write(buf),
            None => Err(std::io::Error::other("file already closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned sink"))?
            .as_mut()
        {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}
