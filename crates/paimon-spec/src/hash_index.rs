//! Hash index files of dynamic-bucket tables (Java `HashIndexFile`, `IntFileUtils`).
//!
//! A file holds the key hashes of one (partition, bucket): each key's trimmed primary key as a
//! `BinaryRow`, hashed as `BinaryRow.hashCode()` does, written as a big-endian `i32`, with no
//! header, count or checksum. The order is that of the writer's hash set and carries no
//! meaning; readers take the file as a set.

use crate::error::{Error, Result};

/// The bytes of a hash index file holding `hashes`, in the order given.
pub fn encode_hash_index(hashes: impl IntoIterator<Item = i32>) -> Vec<u8> {
    hashes.into_iter().flat_map(i32::to_be_bytes).collect()
}

/// The hashes of a hash index file read from `path`.
///
/// # Errors
/// [`Error::Corrupt`] when the length is not a whole number of 4-byte ints (Java would stop
/// at a partial int with an `EOFException`; a file cut mid-int was not written whole).
pub fn decode_hash_index(path: &str, bytes: &[u8]) -> Result<Vec<i32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::corrupt(
            format!("hash index file {path}"),
            format!(
                "{} bytes is not a whole number of 4-byte hashes (the last {} bytes are a cut int)",
                bytes.len(),
                bytes.len() % 4
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_big_endian() {
        let bytes = encode_hash_index([1, -2, i32::MIN]);
        assert_eq!(
            bytes,
            [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0x80, 0, 0, 0].to_vec()
        );
        assert_eq!(
            decode_hash_index("f", &bytes).unwrap(),
            vec![1, -2, i32::MIN]
        );
    }

    #[test]
    fn cut_file_is_refused_naming_it() {
        let err = decode_hash_index("index/index-x-0", &[0, 0, 0, 1, 0]).unwrap_err();
        assert!(err.to_string().contains("index/index-x-0"), "{err}");
    }
}
