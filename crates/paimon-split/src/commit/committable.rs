//! `ManifestCommittableSerializer` versions 2 through 5.
//!
//! ```text
//! identifier i64 | watermark: isNull byte (+ i64)
//! [log offsets: count i32, (bucket i32, offset i64)*]      (v2..=4)
//! [properties: count i32, (key UTF, value UTF)*]            (v4+)
//! commit message version i32 | [count i32][message]*
//! ```

use super::message;
use super::{
    check_message_version, no_trailing, unsupported_version, CommitMessage,
    MANIFEST_COMMITTABLE_VERSION, OLDEST_MANIFEST_COMMITTABLE_VERSION,
};
use crate::error::{Error, Result};
use crate::wire::{WireReader, WireWriter};

/// The messages of one commit and what identifies it (Java `ManifestCommittable`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ManifestCommittable {
    /// The commit identifier (a checkpoint id, or `Long.MAX_VALUE` for batch commits); with
    /// the commit user it makes a retried commit apply once.
    pub identifier: i64,
    /// The watermark, when the engine has one.
    pub watermark: Option<i64>,
    /// Per-bucket log offsets of versions 2..=4 (the removed log system), kept so that such
    /// bytes re-encode exactly. Java 1.4+ ignores them; version 5 cannot carry them.
    pub log_offsets: Vec<(i32, i64)>,
    /// Commit properties in stored order (version 4+).
    pub properties: Vec<(String, String)>,
    /// The commit-message version of `messages` on the wire.
    pub message_version: i32,
    /// The messages.
    pub messages: Vec<CommitMessage>,
}

impl ManifestCommittable {
    /// A committable of `messages`, to be written at the default commit-message version.
    pub fn new(identifier: i64, messages: Vec<CommitMessage>) -> Self {
        ManifestCommittable {
            identifier,
            watermark: None,
            log_offsets: Vec::new(),
            properties: Vec::new(),
            message_version: super::DEFAULT_COMMIT_MESSAGE_VERSION,
            messages,
        }
    }

    /// Sets the watermark.
    pub fn with_watermark(mut self, watermark: Option<i64>) -> Self {
        self.watermark = watermark;
        self
    }

    /// Adds a property (Java `addProperty`; a repeated key replaces the value in place).
    pub fn with_property(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let (key, value) = (key.into(), value.into());
        match self.properties.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.properties.push((key, value)),
        }
        self
    }

    /// Sets the commit-message version the messages are written at.
    pub fn with_message_version(mut self, version: i32) -> Self {
        self.message_version = version;
        self
    }
}

fn check_committable_version(version: i32) -> Result<()> {
    if (OLDEST_MANIFEST_COMMITTABLE_VERSION..=MANIFEST_COMMITTABLE_VERSION).contains(&version) {
        Ok(())
    } else {
        Err(unsupported_version(
            "ManifestCommittable",
            version,
            OLDEST_MANIFEST_COMMITTABLE_VERSION,
            MANIFEST_COMMITTABLE_VERSION,
        ))
    }
}

/// Encodes `committable` at committable `version` (Java
/// `ManifestCommittableSerializer.serialize` of that version), its messages at
/// `committable.message_version`.
///
/// # Errors
/// [`Error::UnsupportedVersion`] for an unknown version; [`Error::Encode`] when log offsets
/// are set at v5, properties below v4, or a message does not fit its version.
pub fn encode_manifest_committable(
    committable: &ManifestCommittable,
    version: i32,
) -> Result<Vec<u8>> {
    check_committable_version(version)?;
    check_message_version(committable.message_version)?;
    let mut w = WireWriter::default();
    w.i64(committable.identifier);
    match committable.watermark {
        None => w.bool(true),
        Some(v) => {
            w.bool(false);
            w.i64(v);
        }
    }
    if version <= 4 {
        w.len(committable.log_offsets.len())?;
        for (bucket, offset) in &committable.log_offsets {
            w.i32(*bucket);
            w.i64(*offset);
        }
    } else if !committable.log_offsets.is_empty() {
        return Err(Error::Encode {
            reason: format!("ManifestCommittable v{version} cannot carry log offsets"),
        });
    }
    if version >= 4 {
        w.len(committable.properties.len())?;
        for (k, v) in &committable.properties {
            w.utf(k)?;
            w.utf(v)?;
        }
    } else if !committable.properties.is_empty() {
        return Err(Error::Encode {
            reason: format!("ManifestCommittable v{version} cannot carry properties (v4+)"),
        });
    }
    w.i32(committable.message_version);
    message::write_list(&mut w, &committable.messages, committable.message_version)?;
    Ok(w.buf)
}

/// Decodes committable bytes of committable `version` (Java
/// `ManifestCommittableSerializer.deserialize`), which the bytes do not record. Like Java,
/// version-2 messages that do not parse in the 0.8 layout are read in Paimon 0.7's.
///
/// # Errors
/// [`Error::UnsupportedVersion`] for an unknown committable or message version;
/// [`Error::Corrupt`] / [`Error::Spec`] with the byte offset on malformed or trailing bytes.
pub fn decode_manifest_committable(bytes: &[u8], version: i32) -> Result<ManifestCommittable> {
    check_committable_version(version)?;
    let mut r = WireReader::new(bytes);
    let identifier = r.i64("identifier")?;
    let watermark = if r.bool("watermark is-null flag")? {
        None
    } else {
        Some(r.i64("watermark")?)
    };
    let mut log_offsets = Vec::new();
    if version <= 4 {
        let n = r.count("log offset count", 12)?;
        log_offsets.reserve(n);
        for _ in 0..n {
            log_offsets.push((r.i32("log offset bucket")?, r.i64("log offset")?));
        }
    }
    let mut properties: Vec<(String, String)> = Vec::new();
    if version >= 4 {
        let n = r.count("property count", 4)?;
        for _ in 0..n {
            let k = r.utf("property key")?;
            let v = r.utf("property value")?;
            // A repeated key replaces the value, as Java's HashMap does.
            match properties.iter_mut().find(|(pk, _)| *pk == k) {
                Some(entry) => entry.1 = v,
                None => properties.push((k, v)),
            }
        }
    }
    let message_version = r.i32("commit message version")?;
    check_message_version(message_version)?;
    let list_start = r.position();
    let messages = match read_messages(&bytes[list_start..], message_version) {
        Ok(m) => m,
        Err(first) if message_version == 2 => {
            let mut legacy = WireReader::new(&bytes[list_start..]);
            match message::read_legacy_07_list(&mut legacy)
                .and_then(|m| no_trailing(&legacy, "commit messages").map(|()| m))
            {
                Ok(m) => m,
                Err(_) => return Err(first.shifted(list_start)),
            }
        }
        Err(e) => return Err(e.shifted(list_start)),
    };
    Ok(ManifestCommittable {
        identifier,
        watermark,
        log_offsets,
        properties,
        message_version,
        messages,
    })
}

fn read_messages(bytes: &[u8], version: i32) -> Result<Vec<CommitMessage>> {
    let mut r = WireReader::new(bytes);
    let m = message::read_list(&mut r, version)?;
    no_trailing(&r, "commit messages")?;
    Ok(m)
}
