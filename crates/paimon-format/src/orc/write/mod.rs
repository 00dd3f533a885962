//! An ORC (v0.12) file encoder for the writers of data files and manifests: every type Java
//! Paimon maps to ORC, nested ones included.
//!
//! The caller declares the row as a tree of [`OrcType`]s, then fills the columns (numbered in
//! pre-order, the root struct being column 0) value slot by value slot through
//! [`OrcWriter::column`], and ends each batch of rows with [`OrcWriter::end_rows`]. A child
//! column gets a slot for every non-null value of its struct parent and for every element of
//! its list or map parent, as ORC lays them out. Stripes are closed at a buffered size; the
//! file carries no row index and no column statistics (readers then read every stripe, which
//! Java's and orc-rust's do), with `UTC` as the writer time zone.

mod column;
mod compress;
mod proto;
pub mod rle;

use std::io::Write;

use column::Layout;
pub use column::OrcColumn;
pub use compress::OrcCodec;
use proto::Message;

/// A column type of an ORC file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrcType {
    /// boolean
    Boolean,
    /// tinyint
    Byte,
    /// smallint
    Short,
    /// int
    Int,
    /// bigint
    Long,
    /// float
    Float,
    /// double
    Double,
    /// string
    String,
    /// binary
    Binary,
    /// date (days since 1970-01-01)
    Date,
    /// decimal(precision, scale)
    Decimal {
        /// Digits.
        precision: u32,
        /// Digits after the point.
        scale: u32,
    },
    /// timestamp (without time zone)
    Timestamp,
    /// timestamp with local time zone (an instant)
    TimestampInstant,
    /// array of the element type
    List(Box<OrcType>),
    /// map of key and value types
    Map(Box<OrcType>, Box<OrcType>),
    /// struct of named fields
    Struct(Vec<(String, OrcType)>),
}

impl OrcType {
    /// Columns of this type's subtree, itself included (its children take the column ids
    /// after its own, in pre-order).
    pub fn column_count(&self) -> usize {
        1 + match self {
            OrcType::List(e) => e.column_count(),
            OrcType::Map(k, v) => k.column_count() + v.column_count(),
            OrcType::Struct(fields) => fields.iter().map(|(_, t)| t.column_count()).sum(),
            _ => 0,
        }
    }

    /// `Type.Kind` of the footer.
    fn kind(&self) -> u64 {
        match self {
            OrcType::Boolean => 0,
            OrcType::Byte => 1,
            OrcType::Short => 2,
            OrcType::Int => 3,
            OrcType::Long => 4,
            OrcType::Float => 5,
            OrcType::Double => 6,
            OrcType::String => 7,
            OrcType::Binary => 8,
            OrcType::Timestamp => 9,
            OrcType::List(_) => 10,
            OrcType::Map(..) => 11,
            OrcType::Struct(_) => 12,
            OrcType::Decimal { .. } => 14,
            OrcType::Date => 15,
            OrcType::TimestampInstant => 18,
        }
    }

    fn layout(&self) -> Layout {
        match self {
            OrcType::Boolean => Layout::Boolean,
            OrcType::Byte => Layout::Byte,
            OrcType::Short | OrcType::Int | OrcType::Long | OrcType::Date => Layout::Integer,
            OrcType::Float | OrcType::Double => Layout::Floating,
            OrcType::String | OrcType::Binary => Layout::Bytes,
            OrcType::Decimal { scale, .. } => Layout::Decimal { scale: *scale },
            OrcType::Timestamp | OrcType::TimestampInstant => Layout::Timestamp,
            OrcType::List(_) | OrcType::Map(..) => Layout::Lengths,
            OrcType::Struct(_) => Layout::Struct,
        }
    }

    /// Appends this type and its children in pre-order as footer `Type` messages, with their
    /// column layouts; returns this type's column id.
    fn flatten(&self, types: &mut Vec<Message>, layouts: &mut Vec<Layout>) -> u64 {
        let id = types.len();
        types.push(Message::default());
        layouts.push(self.layout());
        let mut children = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        match self {
            OrcType::List(e) => children.push(e.flatten(types, layouts)),
            OrcType::Map(k, v) => {
                children.push(k.flatten(types, layouts));
                children.push(v.flatten(types, layouts));
            }
            OrcType::Struct(fields) => {
                for (name, t) in fields {
                    children.push(t.flatten(types, layouts));
                    names.push(name);
                }
            }
            _ => {}
        }
        let mut m = Message::default().uint(1, self.kind()).packed(2, &children);
        for n in names {
            m = m.bytes(3, n.as_bytes());
        }
        if let OrcType::Decimal { precision, scale } = self {
            m = m.uint(5, u64::from(*precision)).uint(6, u64::from(*scale));
        }
        types[id] = m;
        id as u64
    }
}

/// A stripe written: its place and sizes, for the footer.
struct Stripe {
    offset: u64,
    data_length: u64,
    footer_length: u64,
    rows: u64,
}

/// Errors of the encoder.
#[derive(Debug, thiserror::Error)]
pub enum OrcWriteError {
    /// The output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// An ORC file being written to `W`.
pub struct OrcWriter<W: Write> {
    out: W,
    position: u64,
    codec: OrcCodec,
    types: Vec<Vec<u8>>,
    columns: Vec<OrcColumn>,
    stripes: Vec<Stripe>,
    stripe_rows: u64,
    stripe_size: usize,
}

impl<W: Write> std::fmt::Debug for OrcWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrcWriter")
            .field("position", &self.position)
            .field("columns", &self.columns.len())
            .field("stripes", &self.stripes.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write> OrcWriter<W> {
    /// Starts a file of rows of `fields` on `out` (writing the magic), compressed with `codec`,
    /// closing a stripe whenever its buffered values pass `stripe_size` bytes.
    ///
    /// # Errors
    /// The output's error.
    pub fn try_new(
        mut out: W,
        fields: Vec<(String, OrcType)>,
        codec: OrcCodec,
        stripe_size: usize,
    ) -> Result<Self, OrcWriteError> {
        let root = OrcType::Struct(fields);
        let mut types = Vec::new();
        let mut layouts = Vec::new();
        root.flatten(&mut types, &mut layouts);
        out.write_all(b"ORC")?;
        Ok(OrcWriter {
            out,
            position: 3,
            codec,
            types: types.into_iter().map(Message::finish).collect(),
            columns: layouts.into_iter().map(OrcColumn::new).collect(),
            stripes: Vec::new(),
            stripe_rows: 0,
            stripe_size,
        })
    }

    /// Column `id` (pre-order; 0 is the root, whose slots [`Self::end_rows`] counts).
    pub fn column(&mut self, id: usize) -> Option<&mut OrcColumn> {
        self.columns.get_mut(id)
    }

    /// All columns, in pre-order.
    pub fn columns(&mut self) -> &mut [OrcColumn] {
        &mut self.columns
    }

    /// Ends `rows` rows whose values were pushed, closing the stripe if it is full.
    ///
    /// # Errors
    /// The output's error.
    pub fn end_rows(&mut self, rows: u64) -> Result<(), OrcWriteError> {
        self.stripe_rows += rows;
        let buffered: usize = self.columns.iter().map(OrcColumn::buffered).sum();
        if buffered >= self.stripe_size {
            self.flush_stripe()?;
        }
        Ok(())
    }

    /// Bytes written to the output so far (the open stripe is not counted).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Bytes of values buffered for the open stripe, before encoding and compression.
    pub fn buffered(&self) -> u64 {
        self.columns.iter().map(OrcColumn::buffered).sum::<usize>() as u64
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), OrcWriteError> {
        self.out.write_all(bytes)?;
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// Writes the open stripe, if it has rows.
    ///
    /// # Errors
    /// The output's error.
    pub fn flush_stripe(&mut self) -> Result<(), OrcWriteError> {
        if self.stripe_rows == 0 {
            return Ok(());
        }
        let offset = self.position;
        let mut footer = Message::default();
        let mut data_length = 0u64;
        let mut encodings = Vec::with_capacity(self.columns.len());
        for id in 0..self.columns.len() {
            let (streams, encoding) = {
                let c = &mut self.columns[id];
                (c.take_streams(), c.encoding())
            };
            encodings.push(encoding);
            for (kind, raw) in streams {
                let stored = compress::frame(self.codec, &raw)?;
                self.write(&stored)?;
                data_length += stored.len() as u64;
                footer = footer.message(
                    1,
                    Message::default()
                        .uint(1, kind)
                        .uint(2, id as u64)
                        .uint(3, stored.len() as u64),
                );
            }
        }
        for e in encodings {
            footer = footer.message(2, Message::default().uint(1, e));
        }
        footer = footer.bytes(3, b"UTC");
        let footer = compress::frame(self.codec, &footer.finish())?;
        self.write(&footer)?;
        self.stripes.push(Stripe {
            offset,
            data_length,
            footer_length: footer.len() as u64,
            rows: self.stripe_rows,
        });
        self.stripe_rows = 0;
        Ok(())
    }

    /// Writes the last stripe, the footer and the postscript; the output and the file's size.
    ///
    /// # Errors
    /// The output's error.
    pub fn finish(mut self) -> Result<(W, u64), OrcWriteError> {
        self.flush_stripe()?;
        let mut footer = Message::default().uint(1, 3).uint(2, self.position);
        for s in &self.stripes {
            footer = footer.message(
                3,
                Message::default()
                    .uint(1, s.offset)
                    .uint(2, 0)
                    .uint(3, s.data_length)
                    .uint(4, s.footer_length)
                    .uint(5, s.rows),
            );
        }
        for t in &self.types {
            footer = footer.bytes(4, t);
        }
        let rows: u64 = self.stripes.iter().map(|s| s.rows).sum();
        // No row index stride (no index); the writer is no registered implementation.
        footer = footer.uint(6, rows).uint(9, u64::from(u32::MAX));
        let footer = compress::frame(self.codec, &footer.finish())?;
        let metadata = compress::frame(self.codec, &[])?;
        self.write(&metadata)?;
        self.write(&footer)?;
        let mut ps = Message::default()
            .uint(1, footer.len() as u64)
            .uint(2, self.codec.kind());
        if self.codec != OrcCodec::None {
            ps = ps.uint(3, compress::BLOCK_SIZE as u64);
        }
        let ps = ps
            .packed(4, &[0, 12])
            .uint(5, metadata.len() as u64)
            .uint(6, u64::from(u32::MAX))
            .bytes(8000, b"ORC")
            .finish();
        let len = u8::try_from(ps.len())
            .map_err(|_| std::io::Error::other(format!("ORC postscript of {} bytes", ps.len())))?;
        self.write(&ps)?;
        self.write(&[len])?;
        let size = self.position;
        Ok((self.out, size))
    }
}

#[cfg(test)]
mod tests;
