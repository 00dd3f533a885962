//! Murmur3 as Java's `MurmurHashUtils` computes it (seed 42): over 4-byte words
//! (`hashBytesByWords`, `BinaryRow.hashCode`, used for bucketing) and over any bytes
//! (`hashBytes`, `BinaryString.hashCode`).

const SEED: u32 = 42;
const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

/// Murmur3's mixing of one 4-byte word into the running hash.
fn mix(h: u32, word: u32) -> u32 {
    let k = word.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

/// Murmur3's finalizer (Java `fmix`), after the length in bytes has been mixed in.
fn fmix(mut h: u32, len: u32) -> i32 {
    h ^= len;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// Hashes `bytes` word by word (little-endian 32-bit words) as Java's `BinaryRow.hashCode`.
///
/// Trailing bytes that do not fill a word are ignored, as in Java (row sizes are multiples of 8).
pub fn murmur_hash_words(bytes: &[u8]) -> i32 {
    let mut h = SEED;
    for chunk in bytes.chunks_exact(4) {
        h = mix(
            h,
            u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
        );
    }
    // Java passes the byte length (a multiple of 4) to fmix.
    fmix(h, (bytes.len() / 4 * 4) as u32)
}

/// Java `MurmurHashUtils.hashBytes` with seed 42 (what `BinaryString.hashCode` computes):
/// Murmur3 over little-endian 4-byte words, then the tail bytes one by one, sign-extended.
pub fn murmur_hash_bytes(bytes: &[u8]) -> i32 {
    let mut h = SEED;
    let words = bytes.chunks_exact(4);
    let tail = words.remainder();
    for w in words {
        h = mix(h, u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    }
    for &b in tail {
        h = mix(h, b as i8 as i32 as u32);
    }
    fmix(h, bytes.len() as u32)
}
