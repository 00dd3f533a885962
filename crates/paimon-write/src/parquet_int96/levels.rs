//! The repetition and definition levels of one leaf column below ROW, ARRAY, MULTISET and MAP
//! nodes, as Parquet defines them for the schema the parquet crate derives from Arrow (an
//! optional node adds one definition level when present, a repeated node one definition and
//! one repetition level per entry; `LIST` and `MAP` have one repeated group each).

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::Array;
use arrow_schema::DataType as ArrowType;
use parquet::data_type::Int96;
use parquet::errors::ParquetError;

use super::{int96_of, Result};

/// A leaf column's values and levels.
#[derive(Debug, Default)]
pub(super) struct Levels {
    pub(super) values: Vec<Int96>,
    pub(super) defs: Vec<i16>,
    pub(super) reps: Vec<i16>,
}

/// One item of a node on the leaf's path: `array[index]`, and whether its field is nullable.
pub(super) struct Node<'a> {
    pub(super) array: &'a dyn Array,
    pub(super) index: usize,
    pub(super) nullable: bool,
}

/// What the nodes above an item give it: the definition level reached, the repetition level
/// of its first value, and how many repeated nodes lie above.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Above {
    def: i16,
    rep: i16,
    repeated: i16,
}

impl Levels {
    /// Empties the buffers.
    pub(super) fn clear(&mut self) {
        self.values.clear();
        self.defs.clear();
        self.reps.clear();
    }

    fn undefined(&mut self, above: Above) {
        self.defs.push(above.def);
        self.reps.push(above.rep);
    }

    /// Adds the levels (and values) of `node`'s item, following `path` (the child index at
    /// each ROW and MAP) down to the leaf.
    pub(super) fn visit(&mut self, node: Node<'_>, path: &[usize], mut above: Above) -> Result<()> {
        let Node {
            array,
            index: i,
            nullable,
        } = node;
        if array.is_null(i) {
            if !nullable {
                return Err(ParquetError::General(
                    "a null in a NOT NULL field on the way to an INT96 column".into(),
                ));
            }
            self.undefined(above);
            return Ok(());
        }
        if nullable {
            above.def += 1;
        }
        let step = || {
            path.first().copied().ok_or_else(|| {
                ParquetError::General("the path to an INT96 column ends early".into())
            })
        };
        match array.data_type() {
            ArrowType::Timestamp(..) => {
                let a = array
                    .as_primitive_opt::<TimestampNanosecondType>()
                    .ok_or_else(|| ParquetError::General("an INT96 leaf of another unit".into()))?;
                self.values.push(int96_of(a.value(i)));
                self.undefined(above);
            }
            ArrowType::Struct(fields) => {
                let k = step()?;
                let s = array.as_struct();
                let (child, field) = s
                    .columns()
                    .get(k)
                    .zip(fields.get(k))
                    .ok_or_else(|| ParquetError::General(format!("no ROW field {k}")))?;
                let child = Node {
                    array: child.as_ref(),
                    index: i,
                    nullable: field.is_nullable(),
                };
                self.visit(child, &path[1..], above)?;
            }
            ArrowType::List(element) => {
                let l = array.as_list::<i32>();
                let offsets = l.value_offsets();
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                self.entries(start..end, above, |levels, j, entry| {
                    let child = Node {
                        array: l.values().as_ref(),
                        index: j,
                        nullable: element.is_nullable(),
                    };
                    levels.visit(child, path, entry)
                })?;
            }
            ArrowType::Map(_, _) => {
                let k = step()?;
                let m = array.as_map();
                let offsets = m.value_offsets();
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                let entries = m.entries();
                let (child, field) = entries
                    .columns()
                    .get(k)
                    .zip(entries.fields().get(k))
                    .ok_or_else(|| ParquetError::General(format!("no MAP entry field {k}")))?;
                self.entries(start..end, above, |levels, j, entry| {
                    let child = Node {
                        array: child.as_ref(),
                        index: j,
                        nullable: field.is_nullable(),
                    };
                    levels.visit(child, &path[1..], entry)
                })?;
            }
            t => {
                return Err(ParquetError::General(format!(
                    "a {t} node on the way to an INT96 column"
                )))
            }
        }
        Ok(())
    }

    /// The entries `range` of a present list or map: none is the node defined but empty; each
    /// entry adds the repeated group's definition level, and all but the first repeat at this
    /// node's depth.
    fn entries(
        &mut self,
        range: std::ops::Range<usize>,
        above: Above,
        mut each: impl FnMut(&mut Self, usize, Above) -> Result<()>,
    ) -> Result<()> {
        if range.is_empty() {
            self.undefined(above);
            return Ok(());
        }
        let first = range.start;
        for j in range {
            let entry = Above {
                def: above.def + 1,
                rep: if j == first {
                    above.rep
                } else {
                    above.repeated + 1
                },
                repeated: above.repeated + 1,
            };
            each(self, j, entry)?;
        }
        Ok(())
    }
}
