//! The protobuf messages of an ORC file's tail and stripe footers, encoded by hand (the few
//! fields written here are varints, strings and nested messages).

use super::rle::varint;

/// A message being built: fields are appended in field-number order.
#[derive(Default)]
pub struct Message(Vec<u8>);

impl Message {
    /// A varint field (uint32, uint64, enum).
    pub fn uint(mut self, field: u32, v: u64) -> Self {
        varint(u64::from(field) << 3, &mut self.0);
        varint(v, &mut self.0);
        self
    }

    /// A length-delimited field (string, bytes, nested message).
    pub fn bytes(mut self, field: u32, v: &[u8]) -> Self {
        varint((u64::from(field) << 3) | 2, &mut self.0);
        varint(v.len() as u64, &mut self.0);
        self.0.extend_from_slice(v);
        self
    }

    /// A nested message field.
    pub fn message(self, field: u32, m: Message) -> Self {
        self.bytes(field, &m.0)
    }

    /// A packed repeated varint field (omitted when empty).
    pub fn packed(self, field: u32, values: &[u64]) -> Self {
        if values.is_empty() {
            return self;
        }
        let mut body = Vec::new();
        for &v in values {
            varint(v, &mut body);
        }
        self.bytes(field, &body)
    }

    /// The encoded message.
    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}
