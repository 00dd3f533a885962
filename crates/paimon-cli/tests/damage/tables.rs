//! Fixture tables damaged in every layer, read with `paimon read --format jsonl`.
//!
//! Every file of each table gets the damages that fit its layer; each case runs on a fresh
//! copy. A case passes when the reader either fails with one line naming the damaged file (and
//! prints no rows) or, where the damage cannot change the answer (a file the latest snapshot
//! no longer uses, a garbage `LATEST` hint), returns exactly Java's rows.

use std::path::{Path, PathBuf};

use crate::harness::{
    copy_dir, expected_latest, files_under, judge_read, latest_schema, repo, run_paimon, Outcome,
};

/// The tables damaged: one per data-file format, primary-key merge, both deletion-vector kinds.
pub const TABLES: &[(&str, &str)] = &[
    ("append", "unaware"),
    ("append", "fmt_orc_zstd"),
    ("append", "fmt_avro_zstd"),
    ("append", "fmt_parquet_none"),
    ("pk", "dedup_uncompacted"),
    ("pk", "dv32"),
    ("append", "dv_append"),
];

/// The layer a table file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Data,
    Manifest,
    ManifestList,
    IndexManifest,
    DeletionVectors,
    Snapshot,
    Schema,
    Hint,
}

impl Layer {
    fn of(rel: &Path) -> Option<Layer> {
        let name = rel.file_name()?.to_str()?;
        let dir = rel.parent()?.file_name()?.to_str()?;
        Some(match (dir, name) {
            (d, n) if d.starts_with("bucket-") && n.starts_with("data-") => Layer::Data,
            ("manifest", n) if n.starts_with("manifest-list-") => Layer::ManifestList,
            ("manifest", n) if n.starts_with("index-manifest-") => Layer::IndexManifest,
            ("manifest", n) if n.starts_with("manifest-") => Layer::Manifest,
            ("index", n) if n.starts_with("index-") => Layer::DeletionVectors,
            ("snapshot", "LATEST" | "EARLIEST") => Layer::Hint,
            ("snapshot", n) if n.starts_with("snapshot-") => Layer::Snapshot,
            ("schema", n) if n.starts_with("schema-") => Layer::Schema,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Layer::Data => "data file",
            Layer::Manifest => "manifest",
            Layer::ManifestList => "manifest list",
            Layer::IndexManifest => "index manifest",
            Layer::DeletionVectors => "DV index file",
            Layer::Snapshot => "snapshot",
            Layer::Schema => "schema",
            Layer::Hint => "hint",
        }
    }
}

/// One way of damaging a file.
#[derive(Debug, Clone)]
pub enum Damage {
    /// Keep the first half.
    TruncateHalf,
    /// Drop the last byte.
    TruncateLastByte,
    /// Zero bytes.
    Empty,
    /// Flip every bit of the byte at `len * num / den`.
    Flip { num: usize, den: usize },
    /// Flip the byte `back` bytes before the end (footers, postscripts, CRCs).
    FlipFromEnd(usize),
    /// Flip the byte at this offset (magic numbers, version bytes).
    FlipAt(usize),
    /// Remove the file.
    Delete,
    /// Replace the content.
    Replace(String),
    /// Replace `from` with `to` in the (JSON) text.
    Edit { from: String, to: String },
}

impl Damage {
    pub fn label(&self) -> String {
        match self {
            Damage::TruncateHalf => "truncated to half".into(),
            Damage::TruncateLastByte => "last byte cut".into(),
            Damage::Empty => "emptied".into(),
            Damage::Flip { num, den } => format!("byte flipped at {num}/{den}"),
            Damage::FlipFromEnd(n) => format!("byte flipped {n} from the end"),
            Damage::FlipAt(n) => format!("byte flipped at offset {n}"),
            Damage::Delete => "deleted".into(),
            Damage::Replace(s) => format!("replaced by {:?}", truncate(s, 24)),
            Damage::Edit { from, to } => {
                format!("{:?} -> {:?}", truncate(from, 28), truncate(to, 28))
            }
        }
    }

    /// Applies the damage; `false` when it does not apply (an edit whose text is absent, a
    /// flip in an empty file).
    pub fn apply(&self, path: &Path) -> bool {
        let bytes = std::fs::read(path).expect("read file to damage");
        let len = bytes.len();
        let flip = |i: usize| {
            if i >= len {
                return false;
            }
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            std::fs::write(path, b).expect("write");
            true
        };
        match self {
            Damage::TruncateHalf => write(path, &bytes[..len / 2]),
            Damage::TruncateLastByte => len > 0 && write(path, &bytes[..len - 1]),
            Damage::Empty => write(path, &[]),
            Damage::Flip { num, den } => flip(len * num / den),
            Damage::FlipFromEnd(n) => len >= *n && flip(len - n),
            Damage::FlipAt(n) => flip(*n),
            Damage::Delete => {
                std::fs::remove_file(path).expect("delete");
                true
            }
            Damage::Replace(s) => write(path, s.as_bytes()),
            Damage::Edit { from, to } => {
                let text = String::from_utf8_lossy(&bytes);
                text.contains(from.as_str()) && write(path, text.replacen(from, to, 1).as_bytes())
            }
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> bool {
    std::fs::write(path, bytes).expect("write");
    true
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        format!("{}...", s.chars().take(n).collect::<String>())
    } else {
        s.to_string()
    }
}

/// What a case may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Fail naming the file, or return exactly Java's rows.
    ErrorOrExact,
    /// Return exactly Java's rows (Java survives this damage too).
    Exact,
}

/// One damage case.
#[derive(Debug, Clone)]
pub struct Case {
    pub db: &'static str,
    pub table: &'static str,
    /// The damaged file, relative to the table directory.
    pub file: PathBuf,
    pub layer: Layer,
    pub damage: Damage,
    pub expect: Expect,
}

impl Case {
    pub fn name(&self) -> String {
        format!(
            "{}/{} {} {}",
            self.db,
            self.table,
            self.file.display(),
            self.damage.label()
        )
    }
}

/// The damages of a binary file (data files, manifests, manifest lists, index manifests).
fn binary_damages(layer: Layer) -> Vec<Damage> {
    let mut v = vec![
        Damage::TruncateHalf,
        Damage::TruncateLastByte,
        Damage::Empty,
        Damage::Flip { num: 1, den: 2 },
        Damage::Flip { num: 1, den: 3 },
        Damage::FlipFromEnd(12),
        Damage::FlipAt(0),
        Damage::Delete,
    ];
    if layer == Layer::Data {
        // Parquet's footer length, ORC's postscript length, Avro's last sync marker.
        v.push(Damage::FlipFromEnd(5));
    }
    v
}

/// The damages of a deletion-vector index file (`[version][len][magic][bitmap][crc]...`).
fn dv_damages() -> Vec<Damage> {
    vec![
        Damage::TruncateHalf,
        Damage::TruncateLastByte,
        Damage::Empty,
        Damage::FlipAt(0),               // version byte
        Damage::FlipAt(1),               // length of the first vector
        Damage::FlipAt(6),               // magic of the first vector
        Damage::FlipAt(12),              // bitmap body
        Damage::FlipFromEnd(1),          // CRC of the last vector
        Damage::Flip { num: 1, den: 2 }, // somewhere in the middle
        Damage::Delete,
    ]
}

fn json_damages(layer: Layer) -> Vec<Damage> {
    let mut v = vec![
        Damage::TruncateHalf,
        Damage::Empty,
        Damage::Replace("\u{0}garbage{\"".into()),
        Damage::Replace("[]".into()),
        Damage::Replace("{}".into()),
        Damage::Edit {
            from: "\"version\" : 3".into(),
            to: "\"version\" : 99".into(),
        },
        Damage::Edit {
            from: "\"version\" : 3".into(),
            to: "\"version\" : \"three\"".into(),
        },
        Damage::Delete,
    ];
    match layer {
        Layer::Snapshot => v.extend([
            Damage::Edit {
                from: "\"baseManifestList\" : \"".into(),
                to: "\"baseManifestList\" : \"manifest-list-missing-".into(),
            },
            Damage::Edit {
                from: "\"deltaManifestList\" : \"".into(),
                to: "\"deltaManifestList\" : \"manifest-list-missing-".into(),
            },
            Damage::Edit {
                from: "\"indexManifest\" : \"".into(),
                to: "\"indexManifest\" : \"index-manifest-missing-".into(),
            },
            Damage::Edit {
                from: "\"schemaId\" : 0".into(),
                to: "\"schemaId\" : 77".into(),
            },
            Damage::Edit {
                from: "\"baseManifestList\" : \"".into(),
                to: "\"baseManifestList\" : \"../../../../etc/".into(),
            },
        ]),
        Layer::Schema => v.extend([
            Damage::Edit {
                from: "\"type\" : \"INT\"".into(),
                to: "\"type\" : \"INTEGRAL\"".into(),
            },
            Damage::Edit {
                from: "\"fields\" : [".into(),
                to: "\"fields\" : 7, \"x\" : [".into(),
            },
        ]),
        _ => {}
    }
    v
}

fn hint_damages() -> Vec<Damage> {
    ["garbage", "", "-5", "0", "1", "99", "1e3", "\u{0}\u{1}"]
        .iter()
        .map(|s| Damage::Replace((*s).into()))
        .chain([Damage::Delete])
        .collect()
}

/// Every case over every table.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for &(db, table) in TABLES {
        let dir = fixture(db, table);
        for rel in files_under(&dir) {
            let Some(layer) = Layer::of(&rel) else {
                continue;
            };
            let (damages, expect) = match layer {
                Layer::Data | Layer::Manifest | Layer::ManifestList | Layer::IndexManifest => {
                    (binary_damages(layer), Expect::ErrorOrExact)
                }
                Layer::DeletionVectors => (dv_damages(), Expect::ErrorOrExact),
                Layer::Snapshot | Layer::Schema => (json_damages(layer), Expect::ErrorOrExact),
                Layer::Hint => (hint_damages(), Expect::Exact),
            };
            for damage in damages {
                // Java trusts a LATEST hint whose successor does not exist, and fails when the
                // snapshot it names is missing; so do we.
                let expect = match &damage {
                    Damage::Replace(s) if s == "99" => Expect::ErrorOrExact,
                    _ => expect,
                };
                out.push(Case {
                    db,
                    table,
                    file: rel.clone(),
                    layer,
                    damage,
                    expect,
                });
            }
        }
    }
    out
}

pub fn fixture(db: &str, table: &str) -> PathBuf {
    repo()
        .join("fixtures/warehouse")
        .join(format!("{db}.db"))
        .join(table)
}

/// Names an edited snapshot may point at, each acceptable in the error instead of the snapshot.
const REFERENCED: &[&str] = &[
    "manifest-list-missing-",
    "index-manifest-missing-",
    "schema-77",
    "../../../../etc/",
];

/// Runs one case in its own copy of the table; `None` when the damage does not apply.
pub fn run_case(case: &Case, scratch: &Path) -> Option<Outcome> {
    let src = fixture(case.db, case.table);
    let dir = scratch.join(case.table);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("clean scratch");
    }
    copy_dir(&src, &dir);
    if !case.damage.apply(&dir.join(&case.file)) {
        return None;
    }
    let run = run_paimon(&[
        "read".into(),
        dir.to_string_lossy().into_owned(),
        "--format".into(),
        "jsonl".into(),
    ]);
    let schema = latest_schema(&src);
    let expected = expected_latest(case.db, case.table);
    let name = case
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    // An edit that points at another file may be reported by the file it points at.
    let mut names = vec![name.as_str()];
    if let Damage::Edit { to, .. } = &case.damage {
        names.extend(REFERENCED.iter().filter(|r| to.contains(*r)));
    }
    // A LATEST hint past the last snapshot is reported by the snapshot it names.
    if case.layer == Layer::Hint && matches!(&case.damage, Damage::Replace(s) if s == "99") {
        names.push("snapshot-99");
    }
    Some(judge_read(
        &run,
        &expected,
        &schema.fields,
        &names,
        case.expect == Expect::ErrorOrExact,
    ))
}
