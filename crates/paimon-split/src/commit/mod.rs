//! Commit messages: what a writer hands the committer (Java `CommitMessageImpl`,
//! `CommitMessageSerializer`, `ManifestCommittable`, `ManifestCommittableSerializer`).
//!
//! A writer (data plane) writes data files for one partition and bucket and describes them in a
//! [`CommitMessage`]; the committer (control plane) turns the messages into manifests and a
//! snapshot. The bytes are Java Paimon's own, so messages written here can be committed by Java
//! (Flink, Spark) and Java's messages by us.
//!
//! # Versions
//!
//! Java's commit-message bytes do **not** say which version they are: the reader must be told
//! (Java's `VersionedSerializer.deserialize(version, bytes)`). Hence every decoder here takes a
//! version, and [`encode_versioned_commit_message`] / [`decode_versioned_commit_message`] offer a
//! self-describing form, `[version: i32][length: i32][bytes]`, which is Flink's
//! `SimpleVersionedSerialization` envelope (how Paimon's Flink sink ships them). A
//! [`ManifestCommittable`] records the version of the messages it holds, but not its own.
//!
//! | commit message version | written by | DataFileMeta fields | index-file layout |
//! |---|---|---|---|
//! | 2 | 0.7, 0.8 | 15 (0.7: 13, see below) | V1 (0.7: [`IndexFileLayout::Legacy07`]) |
//! | 3 | 0.9 | 16 | V1 |
//! | 4, 5 | -, 1.0 dev | 17 | V1 (4), V2 (5) |
//! | 6, 7 | 1.0; 1.1, 1.2 | 18 | V2 |
//! | 8 | 1.3 dev | 19 | V2 |
//! | 9, 10 | 1.3 dev; 1.3 | 20 | V3 |
//! | 11 | **1.4** | 20 | V4 |
//! | 12 | 2.0 | 20 | V5 |
//! | 13 | Java master, Aug. 2026 (`_WRITE_COLS_SEQUENCES`) | 21 | V5 |
//! | 14 | **pypaimon 2.1, paimon-rust 0.4** (Java 2.1) | 21 | V5, + `checkFromSnapshot` |
//!
//! Every version 2..=14 is read and written. Version 2 bytes written by Paimon 0.7 use other
//! field lists; like Java, [`decode_manifest_committable`] falls back to them when the 0.8 layout
//! does not parse; they are read only. [`DEFAULT_COMMIT_MESSAGE_VERSION`] is 14, what pypaimon
//! 2.1 and paimon-rust 0.4 read and write (the only version they accept) and what the Java 2.1
//! line exchanges; Java 1.4.2 reads commit messages up to version 11
//! ([`COMMIT_MESSAGE_VERSION_JAVA_1_4`]) and Java 2.0 up to 12, so messages for them are
//! written at that version explicitly.
//!
//! ## Version 14
//!
//! Version 14 is version 13 (same 21-field `DataFileMeta` row, Java `DataFileMetaSerializer`;
//! same 7-field index-file row with deletion-vector ranges and the 6-field `_GLOBAL_INDEX`
//! row, Java `IndexFileMetaSerializer` / `GlobalIndexMeta`) followed by one more field after
//! the compact increment: `checkFromSnapshot`, a flag byte (0 or 1) and, when 1, a
//! big-endian i64 ([`CommitMessage::check_from_snapshot`]). It is the snapshot a row-id
//! (data-evolution) or postpone-bucket writer based its files on; the committer checks
//! row-id conflicts from it. The Java 2.1 source of `CommitMessageSerializer` was not
//! available here (the stored apache/paimon history ends at version 13, August 2026): the
//! layout is the one pypaimon 2.1.0 (`pypaimon/write/commit_message_serializer.py`) and
//! paimon-rust 0.4.0 (`CommitMessage.serialize`) write, and the tests compare bytes with
//! theirs. `ManifestCommittableSerializer` stays at version 5 around version-14 messages.
//!
//! Versions below 10 keep one list of new and one of deleted index files per message (Java's
//! old `IndexIncrement`); Java's reader attaches them to the compact increment when that has any
//! file, else to the data increment. Encoding at such a version therefore requires the index
//! files to be on that side (see [`CommitMessage::check_version`]).
//!
//! ```
//! use paimon_split::commit::{
//!     decode_commit_message, encode_commit_message, CommitMessage, DEFAULT_COMMIT_MESSAGE_VERSION,
//! };
//! let msg = CommitMessage::new(paimon_spec::stats::empty_serialized_row(), 0)
//!     .with_total_buckets(Some(1));
//! let bytes = encode_commit_message(&msg, DEFAULT_COMMIT_MESSAGE_VERSION).unwrap();
//! assert_eq!(decode_commit_message(&bytes, DEFAULT_COMMIT_MESSAGE_VERSION).unwrap(), msg);
//! ```

mod committable;
pub(crate) mod message;

use paimon_spec::data_file::DataFileMeta;
use paimon_spec::index_file::IndexFileMeta;

pub use paimon_spec::index_file::{DeletionVectorMeta, GlobalIndexMeta, IndexFileLayout};

pub use committable::{
    decode_manifest_committable, encode_manifest_committable, ManifestCommittable,
};

use crate::error::{Error, Result};
use crate::wire::{WireReader, WireWriter};

/// Oldest commit-message version read and written (Paimon 0.7 / 0.8).
pub const OLDEST_COMMIT_MESSAGE_VERSION: i32 = 2;
/// The commit-message version Java 1.4.x writes; the newest it reads.
pub const COMMIT_MESSAGE_VERSION_JAVA_1_4: i32 = 11;
/// The commit-message version Java 2.0 writes; the newest it reads.
pub const COMMIT_MESSAGE_VERSION_JAVA_2_0: i32 = 12;
/// The commit-message version that added `_WRITE_COLS_SEQUENCES` (Java master, August 2026).
pub const COMMIT_MESSAGE_VERSION_WRITE_COLS_SEQUENCES: i32 = 13;
/// The commit-message version pypaimon 2.1 and paimon-rust 0.4 write and read (the only one
/// they accept); adds [`CommitMessage::check_from_snapshot`].
pub const COMMIT_MESSAGE_VERSION_2_1: i32 = 14;
/// The newest commit-message version read and written.
pub const NEWEST_COMMIT_MESSAGE_VERSION: i32 = COMMIT_MESSAGE_VERSION_2_1;
/// What we write unless told otherwise: version 14, the one the current Java release line
/// (2.1) and both 2.x-era peers (pypaimon 2.1, paimon-rust 0.4) read. Java 1.4.x reads up to
/// [`COMMIT_MESSAGE_VERSION_JAVA_1_4`] and Java 2.0 up to [`COMMIT_MESSAGE_VERSION_JAVA_2_0`]:
/// pass that version explicitly for them.
pub const DEFAULT_COMMIT_MESSAGE_VERSION: i32 = COMMIT_MESSAGE_VERSION_2_1;

/// Oldest `ManifestCommittableSerializer` version read and written (Paimon 0.7).
pub const OLDEST_MANIFEST_COMMITTABLE_VERSION: i32 = 2;
/// The `ManifestCommittableSerializer` version Java 1.4, 2.0 and 2.1 write (no log
/// offsets), around any commit-message version; also the newest.
pub const MANIFEST_COMMITTABLE_VERSION: i32 = 5;

/// Files a writer added or removed by writing (Java `DataIncrement`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DataIncrement {
    /// New data files.
    pub new_files: Vec<DataFileMeta>,
    /// Data files removed (a row-level delete rewrote them).
    pub deleted_files: Vec<DataFileMeta>,
    /// Changelog files produced by the write.
    pub changelog_files: Vec<DataFileMeta>,
    /// New index files (deletion vectors, hash index).
    pub new_index_files: Vec<IndexFileMeta>,
    /// Index files replaced by the new ones.
    pub deleted_index_files: Vec<IndexFileMeta>,
}

/// Files a compaction replaced (Java `CompactIncrement`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CompactIncrement {
    /// Files the compaction read and retires.
    pub compact_before: Vec<DataFileMeta>,
    /// Files the compaction wrote.
    pub compact_after: Vec<DataFileMeta>,
    /// Changelog files produced by the compaction.
    pub changelog_files: Vec<DataFileMeta>,
    /// New index files.
    pub new_index_files: Vec<IndexFileMeta>,
    /// Index files replaced by the new ones.
    pub deleted_index_files: Vec<IndexFileMeta>,
}

impl DataIncrement {
    /// Whether no list holds anything (Java `DataIncrement.isEmpty`).
    pub fn is_empty(&self) -> bool {
        self.new_files.is_empty()
            && self.deleted_files.is_empty()
            && self.changelog_files.is_empty()
            && self.new_index_files.is_empty()
            && self.deleted_index_files.is_empty()
    }
}

impl CompactIncrement {
    /// Whether no list holds anything (Java `CompactIncrement.isEmpty`).
    pub fn is_empty(&self) -> bool {
        self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.changelog_files.is_empty()
            && self.new_index_files.is_empty()
            && self.deleted_index_files.is_empty()
    }

    fn has_data_files(&self) -> bool {
        !(self.compact_before.is_empty()
            && self.compact_after.is_empty()
            && self.changelog_files.is_empty())
    }
}

/// The files one writer changed in one partition and bucket (Java `CommitMessageImpl`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommitMessage {
    /// The partition, serialized as `[arity: i32 BE][BinaryRow bytes]` (Java
    /// `SerializationUtils.serializeBinaryRow`); build it with
    /// `paimon_spec::binary::BinaryRowBuilder`. The empty row (12 bytes) for unpartitioned
    /// tables.
    pub partition: Vec<u8>,
    /// Bucket id; -1 for bucket-unaware append tables.
    pub bucket: i32,
    /// Buckets of the partition when the files were written (version 7+); the committer
    /// checks it against the table (Java's `ConflictDetection`).
    pub total_buckets: Option<i32>,
    /// Files written.
    pub data_increment: DataIncrement,
    /// Files compacted.
    pub compact_increment: CompactIncrement,
    /// The snapshot the writer based its files on, from which the committer checks row-id
    /// conflicts (version 14+; set by row-id updates and postpone-bucket writers of
    /// pypaimon 2.1 / paimon-rust 0.4). Carried unchanged; `None` below version 14.
    pub check_from_snapshot: Option<i64>,
}

impl CommitMessage {
    /// A message with empty increments.
    pub fn new(partition: Vec<u8>, bucket: i32) -> Self {
        CommitMessage {
            partition,
            bucket,
            total_buckets: None,
            data_increment: DataIncrement::default(),
            compact_increment: CompactIncrement::default(),
            check_from_snapshot: None,
        }
    }

    /// Sets the total bucket count.
    pub fn with_total_buckets(mut self, total_buckets: Option<i32>) -> Self {
        self.total_buckets = total_buckets;
        self
    }

    /// Sets the data increment.
    pub fn with_data_increment(mut self, increment: DataIncrement) -> Self {
        self.data_increment = increment;
        self
    }

    /// Sets the compact increment.
    pub fn with_compact_increment(mut self, increment: CompactIncrement) -> Self {
        self.compact_increment = increment;
        self
    }

    /// Sets the snapshot the committer checks row-id conflicts from (version 14+).
    pub fn with_check_from_snapshot(mut self, snapshot: Option<i64>) -> Self {
        self.check_from_snapshot = snapshot;
        self
    }

    /// Whether both increments are empty (Java `CommitMessageImpl.isEmpty`).
    pub fn is_empty(&self) -> bool {
        self.data_increment.is_empty() && self.compact_increment.is_empty()
    }

    /// Checks that `version` can carry everything this message holds, so that Java reading
    /// the bytes sees this message and nothing less.
    ///
    /// # Errors
    /// [`Error::UnsupportedVersion`] for an unknown version; [`Error::Encode`] naming what
    /// does not fit: total buckets before v7, a check-from snapshot before v14, DataFileMeta or index-file fields the version
    /// has no place for, deleted index files at v2, or (below v10) index files on the side
    /// Java's reader would not put them.
    pub fn check_version(&self, version: i32) -> Result<()> {
        message::check(self, version)
    }
}

fn unsupported_version(what: &'static str, found: i32, oldest: i32, newest: i32) -> Error {
    Error::UnsupportedVersion {
        what,
        found,
        supported: format!("{oldest}..={newest}"),
    }
}

pub(crate) fn check_message_version(version: i32) -> Result<()> {
    if (OLDEST_COMMIT_MESSAGE_VERSION..=NEWEST_COMMIT_MESSAGE_VERSION).contains(&version) {
        Ok(())
    } else {
        Err(unsupported_version(
            "CommitMessage",
            version,
            OLDEST_COMMIT_MESSAGE_VERSION,
            NEWEST_COMMIT_MESSAGE_VERSION,
        ))
    }
}

fn no_trailing(r: &WireReader<'_>, what: &str) -> Result<()> {
    if r.remaining() != 0 {
        return Err(r.corrupt(format!("{} trailing bytes after the {what}", r.remaining())));
    }
    Ok(())
}

/// Encodes one message at `version` (Java `CommitMessageSerializer.serialize`).
///
/// # Errors
/// As [`CommitMessage::check_version`].
pub fn encode_commit_message(message: &CommitMessage, version: i32) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    message::write(&mut w, message, version)?;
    Ok(w.buf)
}

/// Decodes one message of `version` (Java `CommitMessageSerializer.deserialize`).
///
/// # Errors
/// [`Error::UnsupportedVersion`] for an unknown version; [`Error::Corrupt`] /
/// [`Error::Spec`] with the byte offset on malformed bytes or trailing bytes.
pub fn decode_commit_message(bytes: &[u8], version: i32) -> Result<CommitMessage> {
    check_message_version(version)?;
    let mut r = WireReader::new(bytes);
    let m = message::read(&mut r, version)?;
    no_trailing(&r, "commit message")?;
    Ok(m)
}

/// Encodes a list as `[count: i32][message]*` (Java `CommitMessageSerializer.serializeList`).
///
/// # Errors
/// As [`encode_commit_message`].
pub fn encode_commit_message_list(messages: &[CommitMessage], version: i32) -> Result<Vec<u8>> {
    let mut w = WireWriter::default();
    message::write_list(&mut w, messages, version)?;
    Ok(w.buf)
}

/// Decodes `[count: i32][message]*` (Java `CommitMessageSerializer.deserializeList`).
///
/// # Errors
/// As [`decode_commit_message`].
pub fn decode_commit_message_list(bytes: &[u8], version: i32) -> Result<Vec<CommitMessage>> {
    check_message_version(version)?;
    let mut r = WireReader::new(bytes);
    let list = message::read_list(&mut r, version)?;
    no_trailing(&r, "commit message list")?;
    Ok(list)
}

/// Encodes `[version: i32][length: i32][message bytes]` (Flink's
/// `SimpleVersionedSerialization.writeVersionAndSerialize` over `CommitMessageSerializer`):
/// bytes that name their own version, for message files and cross-process hand-off.
///
/// # Errors
/// As [`encode_commit_message`].
pub fn encode_versioned_commit_message(message: &CommitMessage, version: i32) -> Result<Vec<u8>> {
    let body = encode_commit_message(message, version)?;
    let mut w = WireWriter::default();
    w.i32(version);
    w.len(body.len())?;
    w.bytes(&body);
    Ok(w.buf)
}

/// Decodes bytes written by [`encode_versioned_commit_message`]; returns the message and its
/// version.
///
/// # Errors
/// As [`decode_commit_message`], and [`Error::Corrupt`] when the length does not match.
pub fn decode_versioned_commit_message(bytes: &[u8]) -> Result<(CommitMessage, i32)> {
    let mut r = WireReader::new(bytes);
    let version = r.i32("commit message version")?;
    check_message_version(version)?;
    let len = r.count("commit message length", 1)?;
    if len != r.remaining() {
        return Err(r.corrupt(format!(
            "commit message length {len} but {} bytes follow",
            r.remaining()
        )));
    }
    let body = r.take(len, "commit message")?;
    let at = r.position() - len;
    let mut inner = WireReader::new(body);
    let m = message::read(&mut inner, version).map_err(|e| e.shifted(at))?;
    no_trailing(&inner, "commit message").map_err(|e| e.shifted(at))?;
    Ok((m, version))
}
