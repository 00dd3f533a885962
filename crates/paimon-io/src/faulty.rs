//! A [`FileIO`] wrapper that makes [`FileIO::publish_if_absent`] fail at random, for tests and
//! soak runs: committers must treat a failed publish as an unknown outcome (the snapshot may
//! have landed) and neither lose nor duplicate a commit. Production code wraps its storage in
//! it only when asked explicitly ([`FaultyFileIO::from_env`] with [`FAULT_PUBLISH_ENV`] set).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::{BoxFuture, FileIO, FileIORef, FileStatus, FileWriter};

/// The environment variable that turns the fault injection on: a probability in `[0, 1]`
/// that a publish fails (a test hook; never set it in production).
pub const FAULT_PUBLISH_ENV: &str = "PAIMON_TEST_FAULT_PUBLISH";

/// When an injected publish failure strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishFault {
    /// The inner publish runs, then the call fails (a timed-out request that landed).
    AfterPublish,
    /// The call fails and nothing is written.
    BeforePublish,
}

/// Wraps a [`FileIO`]; each `publish_if_absent` fails with probability `p`, half of the
/// failures after the inner publish succeeded (a timed-out request that landed) and half
/// before anything was written; or, built with [`FaultyFileIO::failing_first`], the first
/// publishes fail as told. Every other call goes straight through.
#[derive(Debug)]
pub struct FaultyFileIO {
    inner: FileIORef,
    probability: f64,
    /// Publishes still to fail as scripted, before the random ones.
    scripted: AtomicU64,
    scripted_fault: PublishFault,
    after: AtomicU64,
    before: AtomicU64,
}

impl FaultyFileIO {
    /// Wraps `inner`, failing publishes with `probability` (clamped to `[0, 1]`).
    pub fn new(inner: FileIORef, probability: f64) -> Self {
        FaultyFileIO {
            inner,
            probability: probability.clamp(0.0, 1.0),
            scripted: AtomicU64::new(0),
            scripted_fault: PublishFault::BeforePublish,
            after: AtomicU64::new(0),
            before: AtomicU64::new(0),
        }
    }

    /// Wraps `inner` so that its first `n` publishes fail with `fault` and later ones do not.
    pub fn failing_first(inner: FileIORef, n: u64, fault: PublishFault) -> Self {
        FaultyFileIO {
            scripted: AtomicU64::new(n),
            scripted_fault: fault,
            ..FaultyFileIO::new(inner, 0.0)
        }
    }

    /// `inner` wrapped when [`FAULT_PUBLISH_ENV`] is set, else `inner` itself.
    ///
    /// # Errors
    /// [`Error::Config`] (naming `path`, the table being opened) when the variable is not a
    /// number in `[0, 1]`.
    pub fn from_env(inner: FileIORef, path: &str) -> Result<FileIORef> {
        let Ok(text) = std::env::var(FAULT_PUBLISH_ENV) else {
            return Ok(inner);
        };
        match text.trim().parse::<f64>() {
            Ok(p) if (0.0..=1.0).contains(&p) => Ok(Arc::new(FaultyFileIO::new(inner, p))),
            _ => Err(Error::Config {
                path: path.to_string(),
                reason: format!("{FAULT_PUBLISH_ENV}={text:?} is not a probability in [0, 1]"),
            }),
        }
    }

    /// Failures injected so far: (after the publish landed, before it was attempted).
    pub fn injected(&self) -> (u64, u64) {
        (
            self.after.load(Ordering::Relaxed),
            self.before.load(Ordering::Relaxed),
        )
    }

    fn fault(path: &str, when: &str) -> Error {
        Error::Io {
            path: path.to_string(),
            source: std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("injected publish failure ({when}; {FAULT_PUBLISH_ENV} is set)"),
            ),
        }
    }
}

/// A uniform number in `[0, 1)` from the process's hash seed, the time and a counter.
fn uniform() -> f64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

impl FileIO for FaultyFileIO {
    fn read(&self, path: &str) -> Result<bytes::Bytes> {
        self.inner.read(path)
    }

    fn read_range(&self, path: &str, range: Range<u64>) -> Result<bytes::Bytes> {
        self.inner.read_range(path, range)
    }

    fn read_range_async<'a>(
        &'a self,
        path: &'a str,
        range: Range<u64>,
    ) -> BoxFuture<'a, Result<bytes::Bytes>> {
        self.inner.read_range_async(path, range)
    }

    fn size(&self, path: &str) -> Result<u64> {
        self.inner.size(path)
    }

    fn read_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<bytes::Bytes>> {
        self.inner.read_async(path)
    }

    fn size_async<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<u64>> {
        self.inner.size_async(path)
    }

    fn list_async<'a>(&'a self, dir: &'a str) -> BoxFuture<'a, Result<Vec<FileStatus>>> {
        self.inner.list_async(dir)
    }

    fn exists(&self, path: &str) -> Result<bool> {
        self.inner.exists(path)
    }

    fn list(&self, dir: &str) -> Result<Vec<FileStatus>> {
        self.inner.list(dir)
    }

    fn create(&self, path: &str) -> Result<Box<dyn FileWriter>> {
        self.inner.create(path)
    }

    fn write_new(&self, path: &str, data: &[u8]) -> Result<()> {
        self.inner.write_new(path, data)
    }

    fn overwrite(&self, path: &str, data: &[u8]) -> Result<()> {
        self.inner.overwrite(path, data)
    }

    fn publish_if_absent(&self, path: &str, data: &[u8]) -> Result<bool> {
        let scripted = self
            .scripted
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        let fault = if scripted {
            self.scripted_fault
        } else {
            let roll = uniform();
            if roll >= self.probability {
                return self.inner.publish_if_absent(path, data);
            }
            if roll < self.probability / 2.0 {
                PublishFault::AfterPublish
            } else {
                PublishFault::BeforePublish
            }
        };
        if fault == PublishFault::AfterPublish {
            // The publish happens (or loses its race); its answer is lost.
            self.inner.publish_if_absent(path, data)?;
            self.after.fetch_add(1, Ordering::Relaxed);
            Err(Self::fault(path, "after publishing"))
        } else {
            self.before.fetch_add(1, Ordering::Relaxed);
            Err(Self::fault(path, "before publishing"))
        }
    }

    fn delete(&self, path: &str) -> Result<bool> {
        self.inner.delete(path)
    }

    fn delete_dir(&self, path: &str) -> Result<bool> {
        self.inner.delete_dir(path)
    }

    fn rename_dir(&self, from: &str, to: &str) -> Result<()> {
        self.inner.rename_dir(from, to)
    }

    fn delete_empty_dir(&self, path: &str) -> Result<bool> {
        self.inner.delete_empty_dir(path)
    }

    fn mkdirs(&self, path: &str) -> Result<()> {
        self.inner.mkdirs(path)
    }

    fn status(&self, path: &str) -> Result<FileStatus> {
        self.inner.status(path)
    }

    fn storage_options(&self) -> Option<Result<std::collections::BTreeMap<String, String>>> {
        self.inner.storage_options()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalFileIO;

    #[test]
    fn injects_both_kinds_of_failure_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let io = FaultyFileIO::new(Arc::new(LocalFileIO::new()), 1.0);
        let (mut landed, mut missing) = (0, 0);
        for i in 0..200 {
            let p = format!("{d}/snapshot-{i}");
            assert!(io.publish_if_absent(&p, b"s").is_err());
            if io.exists(&p).unwrap() {
                landed += 1;
            } else {
                missing += 1;
            }
        }
        assert_eq!(io.injected(), (landed, missing));
        assert!(landed > 0 && missing > 0, "{landed} landed, {missing} not");
        // Other writes are untouched.
        io.write_new(&format!("{d}/f"), b"x").unwrap();
        assert_eq!(&io.read(&format!("{d}/f")).unwrap()[..], b"x");

        let never = FaultyFileIO::new(Arc::new(LocalFileIO::new()), 0.0);
        for i in 0..50 {
            assert!(never
                .publish_if_absent(&format!("{d}/ok-{i}"), b"s")
                .unwrap());
        }
        assert_eq!(never.injected(), (0, 0));

        let first = FaultyFileIO::failing_first(
            Arc::new(LocalFileIO::new()),
            2,
            PublishFault::AfterPublish,
        );
        assert!(first.publish_if_absent(&format!("{d}/a"), b"s").is_err());
        assert!(
            first.exists(&format!("{d}/a")).unwrap(),
            "landed before failing"
        );
        assert!(first.publish_if_absent(&format!("{d}/a"), b"s").is_err());
        assert!(!first.publish_if_absent(&format!("{d}/a"), b"s").unwrap());
        assert!(first.publish_if_absent(&format!("{d}/b"), b"s").unwrap());
        assert_eq!(first.injected(), (2, 0));
    }

    #[test]
    fn the_environment_switch_is_validated() {
        // One test touches the variable, so no other test sees it change.
        let inner: FileIORef = Arc::new(LocalFileIO::new());
        std::env::remove_var(FAULT_PUBLISH_ENV);
        let plain = FaultyFileIO::from_env(inner.clone(), "/t").unwrap();
        assert!(!format!("{plain:?}").contains("FaultyFileIO"));
        std::env::set_var(FAULT_PUBLISH_ENV, "0.25");
        let wrapped = FaultyFileIO::from_env(inner.clone(), "/t").unwrap();
        assert!(format!("{wrapped:?}").contains("FaultyFileIO"));
        std::env::set_var(FAULT_PUBLISH_ENV, "often");
        let e = FaultyFileIO::from_env(inner, "/t").unwrap_err();
        assert!(e.to_string().contains(FAULT_PUBLISH_ENV), "{e}");
        std::env::remove_var(FAULT_PUBLISH_ENV);
    }
}
