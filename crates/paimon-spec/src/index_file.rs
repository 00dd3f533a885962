//! Index-file metadata (Java `IndexFileMeta`, `DeletionVectorMeta`, `GlobalIndexMeta`) and the
//! BinaryRow layouts Java's serializers have used for it.
//!
//! The same record is carried by commit messages (as a BinaryRow, [`IndexFileLayout`] picks the
//! field list) and by index manifests (as Avro). Each layout is a prefix-compatible extension of
//! the one before, except that [`IndexFileLayout::V1`] stores deletion-vector ranges without a
//! cardinality and [`IndexFileLayout::Legacy07`] stores no ranges at all.

use crate::binary::{encode_row, BinaryRow, Datum, RowKind};
use crate::error::{Error, Result};
use crate::types::{DataField, DataType, TypeKind};

/// `_INDEX_TYPE` of deletion-vector index files (Java `DeletionVectorsIndexFile.DELETION_VECTORS_INDEX`).
pub const DELETION_VECTORS_INDEX: &str = "DELETION_VECTORS";
/// `_INDEX_TYPE` of dynamic-bucket hash index files (Java `HashIndexFile.HASH_INDEX`).
pub const HASH_INDEX: &str = "HASH";

/// One index file of a bucket (Java `IndexFileMeta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexFileMeta {
    /// `DELETION_VECTORS`, `HASH` or a global index type.
    pub index_type: String,
    /// File name in the table's `index/` directory.
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Entries in the file (deletion vectors for a DV file, keys for a hash index).
    pub row_count: i64,
    /// Deletion vectors in the file, one per data file, in insertion order (Java keeps them in
    /// a `LinkedHashMap` keyed by data file name; [`IndexFileMeta::from_row`] merges repeated
    /// names the way that map does). `None` for index types without ranges.
    pub dv_ranges: Option<Vec<DeletionVectorMeta>>,
    /// Absolute path when the file lives outside the table directory (1.0+).
    pub external_path: Option<String>,
    /// Row range and field of a global index file (1.4+).
    pub global_index: Option<GlobalIndexMeta>,
}

/// One deletion vector inside a DV index file (Java `DeletionVectorMeta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeletionVectorMeta {
    /// The data file the vector applies to.
    pub data_file_name: String,
    /// Offset of the vector's length prefix in the index file.
    pub offset: i32,
    /// Length of the serialized vector.
    pub length: i32,
    /// Deleted rows, when known (not stored by layout V1).
    pub cardinality: Option<i64>,
}

/// Metadata of a global index file (Java `GlobalIndexMeta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GlobalIndexMeta {
    /// First row id covered.
    pub row_range_start: i64,
    /// Last row id covered.
    pub row_range_end: i64,
    /// Id of the indexed field.
    pub index_field_id: i32,
    /// Ids of further fields the index stores.
    pub extra_field_ids: Option<Vec<i32>>,
    /// Index-specific metadata.
    pub index_meta: Option<Vec<u8>>,
    /// Metadata about the index's source (Java 2.0+, layout V5).
    pub source_meta: Option<Vec<u8>>,
    /// Schema the index was built under (`_BUILD_SCHEMA_ID`, Java after 2.0 and paimon-rust
    /// 0.4 in index manifests). Carried through index manifests; no commit-message layout
    /// read here has a place for it (pypaimon 2.1's version 14 has six global-index fields),
    /// so [`IndexFileMeta::check_layout`] refuses it there by name.
    pub build_schema_id: Option<i64>,
}

/// The field lists Java's `IndexFileMeta` serializers have written, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexFileLayout {
    /// Paimon 0.7 (`CommitMessageLegacyV2Serializer`): type, name, size, row count.
    Legacy07,
    /// `IndexFileMetaV1Deserializer`: + DV ranges `(name, offset, length)`.
    V1,
    /// `IndexFileMetaV2Deserializer`: DV ranges gain `_CARDINALITY`.
    V2,
    /// `IndexFileMetaV3Deserializer`: + `_EXTERNAL_PATH`.
    V3,
    /// `IndexFileMetaV4Deserializer` (Java 1.4's `IndexFileMetaSerializer`): + `_GLOBAL_INDEX`
    /// of five fields.
    V4,
    /// Java 2.0's `IndexFileMetaSerializer`: `_GLOBAL_INDEX` gains `_SOURCE_META`.
    V5,
}

impl IndexFileLayout {
    /// Number of top-level fields of the row.
    pub fn arity(self) -> usize {
        match self {
            IndexFileLayout::Legacy07 => 4,
            IndexFileLayout::V1 | IndexFileLayout::V2 => 5,
            IndexFileLayout::V3 => 6,
            IndexFileLayout::V4 | IndexFileLayout::V5 => 7,
        }
    }

    fn dv_arity(self) -> usize {
        if self == IndexFileLayout::V1 {
            3
        } else {
            4
        }
    }

    fn global_arity(self) -> usize {
        if self == IndexFileLayout::V5 {
            6
        } else {
            5
        }
    }

    /// The row's field types.
    pub fn row_types(self) -> Vec<DataType> {
        let nn = DataType::not_null;
        let mut dv = vec![
            DataField::new(0, "f0", DataType::string().with_nullable(false)),
            DataField::new(1, "f1", nn(TypeKind::Int)),
            DataField::new(2, "f2", nn(TypeKind::Int)),
            DataField::new(3, "_CARDINALITY", DataType::nullable(TypeKind::BigInt)),
        ];
        dv.truncate(self.dv_arity());
        let mut global = vec![
            DataField::new(0, "_ROW_RANGE_START", nn(TypeKind::BigInt)),
            DataField::new(1, "_ROW_RANGE_END", nn(TypeKind::BigInt)),
            DataField::new(2, "_INDEX_FIELD_ID", nn(TypeKind::Int)),
            DataField::new(
                3,
                "_EXTRA_FIELD_IDS",
                DataType::nullable(TypeKind::Array(Box::new(nn(TypeKind::Int)))),
            ),
            DataField::new(4, "_INDEX_META", DataType::bytes()),
            DataField::new(5, "_SOURCE_META", DataType::bytes()),
        ];
        global.truncate(self.global_arity());
        let all = vec![
            DataType::string().with_nullable(false),
            DataType::string().with_nullable(false),
            nn(TypeKind::BigInt),
            nn(TypeKind::BigInt),
            DataType::nullable(TypeKind::Array(Box::new(DataType::nullable(
                TypeKind::Row(dv),
            )))),
            DataType::string(),
            DataType::nullable(TypeKind::Row(global)),
        ];
        all.into_iter().take(self.arity()).collect()
    }
}

fn corrupt(reason: impl Into<String>) -> Error {
    Error::corrupt("IndexFileMeta", reason)
}

fn cannot_carry(file: &str, what: &str, layout: IndexFileLayout) -> Error {
    Error::Encode {
        what: format!("index file {file}"),
        reason: format!("{what} cannot be carried by index-file layout {layout:?}"),
    }
}

/// The `_BUILD_SCHEMA_ID` of a `_GLOBAL_INDEX` row read as the six fields of layout V5, when
/// the row holds a seventh. Java after 2.0 writes `GlobalIndexMeta` with seven fields (its
/// `_BUILD_SCHEMA_ID`), pypaimon 2.1 with six, under the same commit-message version; the
/// first six sit at the same offsets either way, and the row's fixed part tells the two
/// apart: out-of-line data starts right after it (8-byte null bits, 8 bytes a field), and a
/// row with none ends there.
fn build_schema_id_of(six: &BinaryRow<'_>) -> Result<Option<i64>> {
    const FIXED_6: usize = 8 + 6 * 8;
    const FIXED_7: usize = 8 + 7 * 8;
    let bytes = six.bytes();
    let mut fixed_end = bytes.len();
    // `_EXTRA_FIELD_IDS`, `_INDEX_META`, `_SOURCE_META`: out of line unless null, or inline
    // (the slot's top bit set, 7 bytes at most).
    for pos in 3..6 {
        if six.is_null_at(pos)? {
            continue;
        }
        let slot = six.get_long(pos)? as u64;
        if slot & (1 << 63) == 0 {
            let offset = usize::try_from(slot >> 32).unwrap_or(usize::MAX);
            fixed_end = fixed_end.min(offset);
        }
    }
    match fixed_end {
        FIXED_6 => Ok(None),
        FIXED_7 => {
            let seven = BinaryRow::new(bytes, 7)?;
            if seven.is_null_at(6)? {
                Ok(None)
            } else {
                Ok(Some(seven.get_long(6)?))
            }
        }
        other => Err(corrupt(format!(
            "global index row of {} bytes whose fixed part ends at {other}: neither six nor \
             seven fields",
            bytes.len()
        ))),
    }
}

impl IndexFileMeta {
    /// Decodes an index-file row of `layout`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the row does not hold the layout's fields.
    pub fn from_row(row: &BinaryRow<'_>, layout: IndexFileLayout) -> Result<Self> {
        if row.arity() != layout.arity() {
            return Err(corrupt(format!(
                "row of arity {} for layout {layout:?} (arity {})",
                row.arity(),
                layout.arity()
            )));
        }
        let mut meta = Self::from_datums(row.to_datums(&layout.row_types())?)?;
        if layout == IndexFileLayout::V5 {
            if let Some(g) = meta.global_index.as_mut() {
                g.build_schema_id = build_schema_id_of(&row.get_row(6, 6)?)?;
            }
        }
        Ok(meta)
    }

    /// Builds from the decoded fields of any layout (4 to 7 values).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when a required field is missing or ill-typed.
    pub fn from_datums(d: Vec<Datum>) -> Result<Self> {
        let bad = |f: &str| corrupt(format!("field {f} is missing or ill-typed"));
        let mut it = d.into_iter();
        let mut next = || it.next().unwrap_or(Datum::Null);
        let string = |d: Datum, f: &str| match d {
            Datum::String(s) => Ok(s),
            _ => Err(bad(f)),
        };
        let long = |d: Datum, f: &str| match d {
            Datum::BigInt(v) => Ok(v),
            _ => Err(bad(f)),
        };
        let index_type = string(next(), "_INDEX_TYPE")?;
        let file_name = string(next(), "_FILE_NAME")?;
        let file_size = long(next(), "_FILE_SIZE")?;
        let row_count = long(next(), "_ROW_COUNT")?;
        let dv_ranges = match next() {
            Datum::Null => None,
            Datum::Array(items) => Some(dv_ranges_from(items)?),
            _ => return Err(bad("_DELETIONS_VECTORS_RANGES")),
        };
        let external_path = match next() {
            Datum::Null => None,
            d => Some(string(d, "_EXTERNAL_PATH")?),
        };
        let global_index = match next() {
            Datum::Null => None,
            Datum::Row(f) => Some(GlobalIndexMeta::from_datums(f)?),
            _ => return Err(bad("_GLOBAL_INDEX")),
        };
        Ok(IndexFileMeta {
            index_type,
            file_name,
            file_size,
            row_count,
            dv_ranges,
            external_path,
            global_index,
        })
    }

    /// Checks that every set field fits `layout`.
    ///
    /// # Errors
    /// [`Error::Encode`] naming the first field the layout has no place for.
    pub fn check_layout(&self, layout: IndexFileLayout) -> Result<()> {
        use IndexFileLayout as L;
        let name = &self.file_name;
        if layout == L::Legacy07 && self.dv_ranges.is_some() {
            return Err(cannot_carry(name, "deletion-vector ranges", layout));
        }
        if layout == L::V1
            && self
                .dv_ranges
                .iter()
                .flatten()
                .any(|r| r.cardinality.is_some())
        {
            return Err(cannot_carry(name, "a deletion-vector cardinality", layout));
        }
        if matches!(layout, L::Legacy07 | L::V1 | L::V2) && self.external_path.is_some() {
            return Err(cannot_carry(name, "an external path", layout));
        }
        if let Some(g) = &self.global_index {
            if layout.arity() < 7 {
                return Err(cannot_carry(name, "global index metadata", layout));
            }
            if layout == L::V4 && g.source_meta.is_some() {
                return Err(cannot_carry(name, "global index source metadata", layout));
            }
            if g.build_schema_id.is_some() {
                return Err(cannot_carry(
                    name,
                    "a global index build schema id (_BUILD_SCHEMA_ID)",
                    layout,
                ));
            }
        }
        Ok(())
    }

    /// The field values of `layout` (see [`IndexFileMeta::check_layout`] for what must fit).
    pub fn to_datums(&self, layout: IndexFileLayout) -> Vec<Datum> {
        let dv_arity = layout.dv_arity();
        let dv = self.dv_ranges.as_ref().map(|ranges| {
            Datum::Array(
                ranges
                    .iter()
                    .map(|r| {
                        let mut f = vec![
                            Datum::String(r.data_file_name.clone()),
                            Datum::Int(r.offset),
                            Datum::Int(r.length),
                            r.cardinality.map(Datum::BigInt).unwrap_or(Datum::Null),
                        ];
                        f.truncate(dv_arity);
                        Datum::Row(f)
                    })
                    .collect(),
            )
        });
        let global = self.global_index.as_ref().map(|g| {
            let mut f = vec![
                Datum::BigInt(g.row_range_start),
                Datum::BigInt(g.row_range_end),
                Datum::Int(g.index_field_id),
                g.extra_field_ids
                    .as_ref()
                    .map(|ids| Datum::Array(ids.iter().map(|i| Datum::Int(*i)).collect()))
                    .unwrap_or(Datum::Null),
                g.index_meta
                    .clone()
                    .map(Datum::Binary)
                    .unwrap_or(Datum::Null),
                g.source_meta
                    .clone()
                    .map(Datum::Binary)
                    .unwrap_or(Datum::Null),
            ];
            f.truncate(layout.global_arity());
            Datum::Row(f)
        });
        let all = vec![
            Datum::String(self.index_type.clone()),
            Datum::String(self.file_name.clone()),
            Datum::BigInt(self.file_size),
            Datum::BigInt(self.row_count),
            dv.unwrap_or(Datum::Null),
            self.external_path
                .clone()
                .map(Datum::String)
                .unwrap_or(Datum::Null),
            global.unwrap_or(Datum::Null),
        ];
        all.into_iter().take(layout.arity()).collect()
    }

    /// Encodes the BinaryRow of `layout`, as Java's serializer of that layout writes it.
    ///
    /// # Errors
    /// [`Error::Encode`] when a set field does not fit the layout.
    pub fn to_row_bytes(&self, layout: IndexFileLayout) -> Result<Vec<u8>> {
        self.check_layout(layout)?;
        encode_row(
            RowKind::Insert,
            &self.to_datums(layout),
            &layout.row_types(),
        )
    }
}

/// Mirrors `LinkedHashMap.put` keyed by data file name: a repeated name keeps its first
/// position and takes the later value.
fn dv_ranges_from(items: Vec<Datum>) -> Result<Vec<DeletionVectorMeta>> {
    let mut out: Vec<DeletionVectorMeta> = Vec::with_capacity(items.len());
    for item in items {
        let Datum::Row(f) = item else {
            return Err(corrupt("a deletion-vector range is null or not a row"));
        };
        let mut it = f.into_iter();
        let (Some(Datum::String(name)), Some(Datum::Int(offset)), Some(Datum::Int(length))) =
            (it.next(), it.next(), it.next())
        else {
            return Err(corrupt("a deletion-vector range is ill-typed"));
        };
        let cardinality = match it.next() {
            None | Some(Datum::Null) => None,
            Some(Datum::BigInt(c)) => Some(c),
            Some(_) => return Err(corrupt("a deletion-vector cardinality is ill-typed")),
        };
        let meta = DeletionVectorMeta {
            data_file_name: name,
            offset,
            length,
            cardinality,
        };
        match out
            .iter_mut()
            .find(|m| m.data_file_name == meta.data_file_name)
        {
            Some(existing) => *existing = meta,
            None => out.push(meta),
        }
    }
    Ok(out)
}

impl GlobalIndexMeta {
    fn from_datums(f: Vec<Datum>) -> Result<Self> {
        let bad = |what: &str| corrupt(format!("global index field {what} is ill-typed"));
        let mut it = f.into_iter();
        let mut next = || it.next().unwrap_or(Datum::Null);
        let opt_bytes = |d: Datum, what: &str| match d {
            Datum::Null => Ok(None),
            Datum::Binary(b) => Ok(Some(b)),
            _ => Err(bad(what)),
        };
        let Datum::BigInt(row_range_start) = next() else {
            return Err(bad("_ROW_RANGE_START"));
        };
        let Datum::BigInt(row_range_end) = next() else {
            return Err(bad("_ROW_RANGE_END"));
        };
        let Datum::Int(index_field_id) = next() else {
            return Err(bad("_INDEX_FIELD_ID"));
        };
        let extra_field_ids = match next() {
            Datum::Null => None,
            Datum::Array(a) => Some(
                a.into_iter()
                    .map(|d| match d {
                        Datum::Int(i) => Ok(i),
                        _ => Err(bad("_EXTRA_FIELD_IDS")),
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            _ => return Err(bad("_EXTRA_FIELD_IDS")),
        };
        Ok(GlobalIndexMeta {
            row_range_start,
            row_range_end,
            index_field_id,
            extra_field_ids,
            index_meta: opt_bytes(next(), "_INDEX_META")?,
            source_meta: opt_bytes(next(), "_SOURCE_META")?,
            build_schema_id: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> IndexFileMeta {
        IndexFileMeta {
            index_type: DELETION_VECTORS_INDEX.into(),
            file_name: "index-1".into(),
            file_size: 100,
            row_count: 2,
            dv_ranges: Some(vec![
                DeletionVectorMeta {
                    data_file_name: "a".into(),
                    offset: 1,
                    length: 2,
                    cardinality: Some(3),
                },
                DeletionVectorMeta {
                    data_file_name: "b".into(),
                    offset: 5,
                    length: 6,
                    cardinality: None,
                },
            ]),
            external_path: Some("s3://x/index-1".into()),
            global_index: Some(GlobalIndexMeta {
                row_range_start: 1,
                row_range_end: 9,
                index_field_id: 3,
                extra_field_ids: Some(vec![4, 5]),
                index_meta: Some(vec![1, 2]),
                source_meta: Some(vec![7]),
                build_schema_id: None,
            }),
        }
    }

    /// Java after 2.0 writes `GlobalIndexMeta` with a seventh field, `_BUILD_SCHEMA_ID`, under
    /// the same commit-message layout as pypaimon 2.1's six: a seven-field row keeps its build
    /// schema id, a six-field row reads as before. Values: the global indexes Java's
    /// `ManifestCommittableSerializerCompatibilityTest` builds for its v14 and v13 goldens.
    #[test]
    fn a_seven_field_global_index_row_keeps_its_build_schema_id() {
        let java_v14 = GlobalIndexMeta {
            row_range_start: 0,
            row_range_end: 9,
            index_field_id: 7,
            extra_field_ids: None,
            index_meta: None,
            source_meta: None,
            build_schema_id: Some(11),
        };
        let java_v13 = GlobalIndexMeta {
            extra_field_ids: Some(vec![8, 9]),
            index_meta: Some(vec![0x12, 0x34]),
            source_meta: Some(vec![0x56, 0x78]),
            build_schema_id: None,
            ..java_v14.clone()
        };
        // Out-of-line source meta: more than seven bytes.
        let long_source = GlobalIndexMeta {
            source_meta: Some((0u8..20).collect()),
            build_schema_id: Some(-3),
            ..java_v13.clone()
        };
        let mut seven_types = IndexFileLayout::V5.row_types();
        if let TypeKind::Row(fields) = &mut seven_types[6].kind {
            fields.push(DataField::new(
                6,
                "_BUILD_SCHEMA_ID",
                DataType::nullable(TypeKind::BigInt),
            ));
        }
        for g in [java_v14, java_v13, long_source] {
            let meta = IndexFileMeta {
                index_type: "index-type".into(),
                file_name: "index-file".into(),
                file_size: 100,
                row_count: 10,
                dv_ranges: None,
                external_path: None,
                global_index: Some(g.clone()),
            };
            // Seven fields, as Java's `GlobalIndexMeta.SCHEMA` after 2.0.
            let mut datums = {
                let mut six = meta.clone();
                six.global_index.as_mut().unwrap().build_schema_id = None;
                six.to_datums(IndexFileLayout::V5)
            };
            if let Datum::Row(f) = &mut datums[6] {
                f.push(g.build_schema_id.map_or(Datum::Null, Datum::BigInt));
            }
            let bytes = encode_row(RowKind::Insert, &datums, &seven_types).unwrap();
            let row = BinaryRow::new(&bytes, 7).unwrap();
            let back = IndexFileMeta::from_row(&row, IndexFileLayout::V5).unwrap();
            assert_eq!(back, meta);
            // Six fields, as pypaimon 2.1: no build schema id.
            let mut six = meta.clone();
            six.global_index.as_mut().unwrap().build_schema_id = None;
            let bytes = six.to_row_bytes(IndexFileLayout::V5).unwrap();
            let row = BinaryRow::new(&bytes, 7).unwrap();
            assert_eq!(
                IndexFileMeta::from_row(&row, IndexFileLayout::V5).unwrap(),
                six
            );
        }
    }

    #[test]
    fn round_trips_and_refuses_what_a_layout_cannot_carry() {
        let m = sample();
        let bytes = m.to_row_bytes(IndexFileLayout::V5).unwrap();
        let row = BinaryRow::new(&bytes, 7).unwrap();
        assert_eq!(
            IndexFileMeta::from_row(&row, IndexFileLayout::V5).unwrap(),
            m
        );
        assert!(m.to_row_bytes(IndexFileLayout::V4).is_err());
        assert!(m.to_row_bytes(IndexFileLayout::V1).is_err());
        // `_BUILD_SCHEMA_ID` has no place in any commit-message layout: refused by name.
        let mut built = m.clone();
        built.global_index.as_mut().unwrap().build_schema_id = Some(11);
        let err = built
            .to_row_bytes(IndexFileLayout::V5)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("_BUILD_SCHEMA_ID") && err.contains("index-1"),
            "{err}"
        );
        let mut v3 = m.clone();
        v3.global_index = None;
        let bytes = v3.to_row_bytes(IndexFileLayout::V3).unwrap();
        let row = BinaryRow::new(&bytes, 6).unwrap();
        assert_eq!(
            IndexFileMeta::from_row(&row, IndexFileLayout::V3).unwrap(),
            v3
        );
        assert!(IndexFileMeta::from_row(&row, IndexFileLayout::V4).is_err());
    }

    #[test]
    fn repeated_data_file_names_merge_like_a_linked_hash_map() {
        let mut m = sample();
        m.global_index = None;
        let ranges = m.dv_ranges.as_mut().unwrap();
        let mut again = ranges[0].clone();
        again.offset = 40;
        ranges.push(again);
        let bytes = m.to_row_bytes(IndexFileLayout::V3).unwrap();
        let back =
            IndexFileMeta::from_row(&BinaryRow::new(&bytes, 6).unwrap(), IndexFileLayout::V3)
                .unwrap();
        let r = back.dv_ranges.unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].data_file_name.as_str(), r[0].offset), ("a", 40));
        assert_eq!(r[1].data_file_name, "b");
    }
}
