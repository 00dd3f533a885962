//! The one error of the codecs.

/// Errors raised while decoding or encoding Paimon's file formats.
///
/// Every variant names what was being read or written (`what`: the format and, where one
/// applies, the field or block) and what is wrong. Codecs see bytes, never paths: callers add
/// the file's path when they wrap this error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes that do not follow the format.
    #[error("{what}: {reason}")]
    Corrupt {
        /// What was being decoded (e.g. "Avro container header", "ORC footer").
        what: String,
        /// What is wrong, with an offset or a value where one applies.
        reason: String,
    },
    /// A valid file using a feature this implementation does not handle.
    #[error("{what}: unsupported {feature}")]
    Unsupported {
        /// What was being decoded or encoded.
        what: String,
        /// The feature (a codec, a type, a schema shape).
        feature: String,
    },
    /// A value that cannot be written in the format.
    #[error("cannot encode {what}: {reason}")]
    Encode {
        /// What was being encoded (e.g. "ORC column 'a'").
        what: String,
        /// Why it failed.
        reason: String,
    },
}

/// Result with [`Error`] as default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds an [`Error::Corrupt`].
    pub fn corrupt(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::Unsupported`].
    pub fn unsupported(what: impl Into<String>, feature: impl Into<String>) -> Self {
        Error::Unsupported {
            what: what.into(),
            feature: feature.into(),
        }
    }

    /// Builds an [`Error::Encode`].
    pub fn encode(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Encode {
            what: what.into(),
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    /// Each codec's error is typed and names what it was reading or writing.
    #[test]
    fn codec_errors_name_what_and_why() {
        let e = crate::avro::read_container(b"Obj").unwrap_err();
        assert!(
            matches!(&e, Error::Corrupt { what, reason } if what == "Avro container" && reason.contains("magic")),
            "{e:?}"
        );
        let e = crate::orc::tail::check_type_tree(b"ORC").unwrap_err();
        assert!(
            matches!(&e, Error::Corrupt { what, .. } if what == "ORC footer"),
            "{e:?}"
        );
        let e = crate::parquet::read_parquet(bytes::Bytes::from_static(b"PAR1")).unwrap_err();
        assert!(
            matches!(&e, Error::Corrupt { what, .. } if what == "Parquet file"),
            "{e:?}"
        );
        let e = crate::avro::encode::codec_for("lzo").unwrap_err();
        assert!(
            matches!(&e, Error::Unsupported { what, feature } if what == "Avro manifest" && feature.contains("\"lzo\"")),
            "{e:?}"
        );
        assert!(crate::orc::manifest_encode::orc_codec("brotli").is_err());
        assert_eq!(
            crate::parquet::manifest_encode::parquet_codec("lzo")
                .unwrap_err()
                .to_string(),
            "Parquet manifest: unsupported manifest compression \"lzo\" (it has zstd, snappy, lz4 or none)"
        );
    }
}
