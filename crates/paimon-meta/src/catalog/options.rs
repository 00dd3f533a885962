//! Choosing and configuring a catalog from Java's option names (`CatalogOptions`,
//! `RESTCatalogOptions`), so a user's existing catalog configuration works unchanged.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Catalog, FileSystemCatalog};
use crate::error::{CatalogFailure, Error, Result};

/// `metastore`: which catalog the options describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metastore {
    /// `filesystem` (the default): a warehouse directory.
    FileSystem,
    /// `rest`: Paimon's REST catalog at `uri`.
    Rest,
    /// `jdbc`: Java's `JdbcCatalog` tables in the database at `uri` (PostgreSQL).
    Jdbc,
    /// `hive`: Java's `HiveCatalog` registrations in the Hive Metastore at `uri`.
    Hive,
}

/// Catalog options (Java's keys; see [`CatalogOptions::from_map`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogOptions {
    /// `metastore`.
    pub metastore: Metastore,
    /// All options as given (`warehouse`, `uri`, `token`, `header.*`, FileIO keys...).
    pub options: BTreeMap<String, String>,
}

/// Option keys (Java `CatalogOptions` / `RESTCatalogOptions`).
pub mod keys {
    /// `filesystem` (default) or `rest`.
    pub const METASTORE: &str = "metastore";
    /// The warehouse: a directory for `filesystem`, the catalog's name for `rest`.
    pub const WAREHOUSE: &str = "warehouse";
    /// The REST server's base URI.
    pub const URI: &str = "uri";
    /// `bear` (bearer token) or `dlf`.
    pub const TOKEN_PROVIDER: &str = "token.provider";
    /// The bearer token.
    pub const TOKEN: &str = "token";
    /// Prefix of extra HTTP headers (`header.X-Name = value`).
    pub const HEADER_PREFIX: &str = "header.";
    /// Whether a REST table's files are read with the server's data token.
    pub const DATA_TOKEN_ENABLED: &str = "data-token.enabled";
    /// DLF: the region requests are signed for (default: taken from `uri`).
    pub const DLF_REGION: &str = "dlf.region";
    /// DLF: the access key id.
    pub const DLF_ACCESS_KEY_ID: &str = "dlf.access-key-id";
    /// DLF: the access key secret.
    pub const DLF_ACCESS_KEY_SECRET: &str = "dlf.access-key-secret";
    /// DLF: the STS security token that goes with a temporary access key.
    pub const DLF_SECURITY_TOKEN: &str = "dlf.security-token";
    /// DLF: a JSON token file (`AccessKeyId`, `AccessKeySecret`, `SecurityToken`,
    /// `Expiration`), read again before it expires and when it changes.
    pub const DLF_TOKEN_PATH: &str = "dlf.token-path";
    /// DLF: where the token comes from: `local_file` (`dlf.token-path`) or `ecs`.
    pub const DLF_TOKEN_LOADER: &str = "dlf.token-loader";
    /// DLF: the ECS instance's RAM role (default: the one the metadata service names).
    pub const DLF_TOKEN_ECS_ROLE_NAME: &str = "dlf.token-ecs-role-name";
    /// DLF: the ECS metadata service's credentials URL.
    pub const DLF_TOKEN_ECS_METADATA_URL: &str = "dlf.token-ecs-metadata-url";
    /// DLF: `default` (v4-style) or `openapi` (default: `openapi` for `dlfnext` hosts).
    pub const DLF_SIGNING_ALGORITHM: &str = "dlf.signing-algorithm";
}

impl CatalogOptions {
    /// Reads `metastore` from `options`.
    ///
    /// # Errors
    /// [`Error::Catalog`] ([`CatalogFailure::InvalidOptions`]) for a `metastore` this build
    /// does not know.
    pub fn from_map(options: BTreeMap<String, String>) -> Result<Self> {
        let metastore = match options.get(keys::METASTORE).map(|s| s.trim()) {
            None | Some("filesystem") => Metastore::FileSystem,
            Some("rest") => Metastore::Rest,
            Some("jdbc") => Metastore::Jdbc,
            Some("hive") => Metastore::Hive,
            Some(other) => {
                return Err(invalid(
                    keys::METASTORE,
                    format!(
                        "metastore {other:?} is not supported (supported: filesystem, rest, \
                         jdbc, hive)"
                    ),
                ))
            }
        };
        Ok(CatalogOptions { metastore, options })
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    /// The value of `key`, or an error naming the option.
    ///
    /// # Errors
    /// [`Error::Catalog`] ([`CatalogFailure::InvalidOptions`]) when it is not set.
    pub fn require(&self, key: &str) -> Result<&str> {
        self.get(key)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| invalid(key, format!("option {key:?} is required")))
    }
}

/// `lock.enabled` of a JDBC or Hive catalog; unset, Java's default: whether the warehouse is
/// on an object store (a local or HDFS path is not).
///
/// # Errors
/// A value other than `true` or `false` (naming `uri`).
#[cfg_attr(not(any(feature = "jdbc", feature = "hive")), allow(dead_code))]
pub(super) fn lock_enabled(opts: &CatalogOptions, warehouse: &str, uri: &str) -> Result<bool> {
    match opts.get("lock.enabled").map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(Error::catalog(
            uri,
            CatalogFailure::InvalidOptions,
            "option lock.enabled",
            format!("{v:?} is not true or false"),
        )),
        None => Ok(!matches!(
            paimon_io::scheme_of(warehouse),
            None | Some("file" | "hdfs" | "viewfs")
        )),
    }
}

/// A duration option (`30 s`, `8 min`, millis), `default` when unset.
///
/// # Errors
/// A value that is not a duration.
#[cfg_attr(not(any(feature = "jdbc", feature = "hive")), allow(dead_code))]
pub(super) fn duration_option(
    opts: &CatalogOptions,
    key: &str,
    default: std::time::Duration,
) -> Result<std::time::Duration> {
    match opts.get(key) {
        None => Ok(default),
        Some(v) => paimon_spec::options::parse_duration_millis(v)
            .map(std::time::Duration::from_millis)
            .ok_or_else(|| {
                invalid(
                    key,
                    format!("{v:?} is not a duration (such as '30 s' or '8 min')"),
                )
            }),
    }
}

fn invalid(key: &str, reason: String) -> Error {
    Error::catalog(
        "",
        CatalogFailure::InvalidOptions,
        format!("option {key}"),
        reason,
    )
}

/// The catalog `options` describe: a [`FileSystemCatalog`] over `warehouse`, (with the
/// `rest` feature) a `RestCatalog` at `uri`, after its `GET /v1/config` handshake, or (with
/// the `jdbc` feature) a `JdbcCatalog` in the PostgreSQL database at `uri`, or (with the
/// `hive` feature) a `HiveCatalog` on the Hive Metastore at `uri`.
///
/// # Errors
/// Missing or invalid options; the REST handshake's errors; a storage scheme this build
/// leaves out.
pub fn open_catalog(options: &BTreeMap<String, String>) -> Result<Arc<dyn Catalog>> {
    let opts = CatalogOptions::from_map(options.clone())?;
    match opts.metastore {
        Metastore::FileSystem => {
            let warehouse = opts.require(keys::WAREHOUSE)?.trim_end_matches('/');
            let io = paimon_io::file_io_with_options(warehouse, &file_io_options(&opts.options))
                .map_err(Error::io)?;
            Ok(Arc::new(FileSystemCatalog::new(io, warehouse)))
        }
        #[cfg(feature = "jdbc")]
        Metastore::Jdbc => Ok(Arc::new(super::jdbc::JdbcCatalog::open(&opts)?)),
        #[cfg(not(feature = "jdbc"))]
        Metastore::Jdbc => Err(invalid(
            keys::METASTORE,
            "this build has no JDBC catalog (cargo feature `jdbc` of paimon-meta)".to_string(),
        )),
        #[cfg(feature = "hive")]
        Metastore::Hive => Ok(Arc::new(super::hive::HiveCatalog::open(&opts)?)),
        #[cfg(not(feature = "hive"))]
        Metastore::Hive => Err(invalid(
            keys::METASTORE,
            "this build has no Hive catalog (cargo feature `hive` of paimon-meta)".to_string(),
        )),
        #[cfg(feature = "rest")]
        Metastore::Rest => Ok(Arc::new(super::rest::RestCatalog::open(opts)?)),
        #[cfg(not(feature = "rest"))]
        Metastore::Rest => Err(invalid(
            keys::METASTORE,
            "this build has no REST catalog (cargo feature `rest` of paimon-meta)".to_string(),
        )),
    }
}

/// The options meant for storage (FileIO): everything but the catalog's own keys.
pub fn file_io_options(options: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    const CATALOG_KEYS: &[&str] = &[
        keys::METASTORE,
        keys::WAREHOUSE,
        keys::URI,
        keys::TOKEN_PROVIDER,
        keys::TOKEN,
        keys::DATA_TOKEN_ENABLED,
        "prefix",
        "catalog-key",
        "lock.enabled",
        "lock-acquire-timeout",
        "lock-check-max-sleep",
        "lock-key-max-length",
        "hive-conf-dir",
        "hadoop-conf-dir",
        "client-pool-size",
        "cache-enabled",
    ];
    options
        .iter()
        .filter(|(k, _)| {
            !CATALOG_KEYS.contains(&k.as_str())
                && !k.starts_with(keys::HEADER_PREFIX)
                && !k.starts_with("dlf.")
                && !k.starts_with("rest.")
                && !k.starts_with("jdbc.")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn metastore_chooses_the_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().to_str().unwrap();
        let c = open_catalog(&map(&[("warehouse", w)])).unwrap();
        assert_eq!(c.location(), w);
        let c = open_catalog(&map(&[("metastore", "filesystem"), ("warehouse", w)])).unwrap();
        assert_eq!(c.list_databases().unwrap(), Vec::<String>::new());
        let e = open_catalog(&map(&[("metastore", "glue")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("metastore \"glue\" is not supported"), "{e}");
        let e = open_catalog(&map(&[])).unwrap_err().to_string();
        assert!(e.contains("option \"warehouse\" is required"), "{e}");
    }

    /// `metastore = jdbc` is Java's JDBC catalog: its options are checked before any
    /// connection (the URI's protocol, the warehouse), and `jdbc.*` never reaches storage.
    #[cfg(feature = "jdbc")]
    #[test]
    fn metastore_jdbc_checks_its_options_first() {
        let e = open_catalog(&map(&[("metastore", "jdbc"), ("warehouse", "/tmp/w")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("option \"uri\" is required"), "{e}");
        let e = open_catalog(&map(&[
            ("metastore", "jdbc"),
            ("uri", "jdbc:mysql://h/db"),
            ("warehouse", "/tmp/w"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("JDBC protocol \"mysql\" is not supported"),
            "{e}"
        );
    }

    /// `metastore = hive` checks its options before any connection: `uri` must be
    /// `thrift://host:port`, `lock.enabled` a boolean.
    #[cfg(feature = "hive")]
    #[test]
    fn metastore_hive_checks_its_options_first() {
        let e = open_catalog(&map(&[("metastore", "hive"), ("warehouse", "/tmp/w")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("option \"uri\" is required"), "{e}");
        let e = open_catalog(&map(&[
            ("metastore", "hive"),
            ("uri", "http://127.0.0.1:9083"),
            ("warehouse", "/tmp/w"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("is not a thrift://host:port metastore URI"),
            "{e}"
        );
        let e = open_catalog(&map(&[
            ("metastore", "hive"),
            ("uri", "thrift://127.0.0.1:9083"),
            ("warehouse", "/tmp/w"),
            ("lock.enabled", "yes"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(e.contains("\"yes\" is not true or false"), "{e}");
    }

    #[test]
    fn storage_options_leave_the_catalog_keys_out() {
        let m = map(&[
            ("metastore", "rest"),
            ("uri", "http://x"),
            ("token", "t"),
            ("header.X-A", "1"),
            ("jdbc.password", "secret"),
            ("s3.endpoint", "http://s3"),
        ]);
        assert_eq!(file_io_options(&m), map(&[("s3.endpoint", "http://s3")]));
    }
}
