//! Murmur3 over 4-byte words (Java `MurmurHashUtils.hashBytesByWords`), used for bucketing.

const SEED: u32 = 42;
const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

/// Hashes `bytes` word by word (little-endian 32-bit words) as Java's `BinaryRow.hashCode`.
///
/// Trailing bytes that do not fill a word are ignored, as in Java (row sizes are multiples of 8).
pub fn murmur_hash_words(bytes: &[u8]) -> i32 {
    let mut h = SEED;
    for chunk in bytes.chunks_exact(4) {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(C1);
        k = k.rotate_left(15);
        k = k.wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13);
        h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    // Java passes the byte length (a multiple of 4) to fmix.
    h ^= (bytes.len() / 4 * 4) as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}
