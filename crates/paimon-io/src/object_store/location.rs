//! Splitting object-store URLs into the backend, the bucket (or container, or name node) and
//! the key inside it.

/// The object-store services paimon-io can be built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Service {
    /// Amazon S3 and S3-compatible stores (`s3://`, `s3a://`, `s3n://`).
    S3,
    /// Alibaba Cloud OSS (`oss://`).
    Oss,
    /// Google Cloud Storage (`gs://`, `gcs://`).
    Gcs,
    /// Azure Blob Storage (`wasb[s]://container@account.host/`, `abfs[s]://...`, `azblob://`).
    Azblob,
    /// HDFS through the native Rust client (`hdfs://namenode:port/`).
    HdfsNative,
}

impl Service {
    /// The service a URL scheme selects, if paimon-io knows it (whether compiled in or not).
    pub fn for_scheme(scheme: &str) -> Option<Service> {
        Some(match scheme.to_ascii_lowercase().as_str() {
            "s3" | "s3a" | "s3n" => Service::S3,
            "oss" => Service::Oss,
            "gs" | "gcs" => Service::Gcs,
            "wasb" | "wasbs" | "abfs" | "abfss" | "azblob" => Service::Azblob,
            "hdfs" => Service::HdfsNative,
            _ => return None,
        })
    }

    /// Whether the storage has real directories, which must be created (HDFS), rather than
    /// key prefixes.
    pub fn has_directories(self) -> bool {
        self == Service::HdfsNative
    }

    /// The cargo feature of paimon-io that compiles this service in.
    pub fn feature(self) -> &'static str {
        match self {
            Service::S3 => "s3",
            Service::Oss => "oss",
            Service::Gcs => "gcs",
            Service::Azblob => "azblob",
            Service::HdfsNative => "hdfs-native",
        }
    }
}

/// An object-store URL taken apart: `s3://bucket/a/b` is authority `bucket`, key `a/b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location<'a> {
    /// The URL scheme as written (`s3a`, `abfss`, ...).
    pub scheme: &'a str,
    /// Everything between `://` and the next `/`: the bucket, `container@account.host`, or
    /// `namenode:port`.
    pub authority: &'a str,
    /// The object key or path below the authority, without leading or trailing `/`.
    pub key: &'a str,
}

impl<'a> Location<'a> {
    /// Parses `scheme://authority/key`; `None` when `path` is not such a URL or has no authority.
    pub fn parse(path: &'a str) -> Option<Location<'a>> {
        let (scheme, rest) = path.split_once("://")?;
        let (authority, key) = rest.split_once('/').unwrap_or((rest, ""));
        if scheme.is_empty() || authority.is_empty() {
            return None;
        }
        Some(Location {
            scheme,
            authority,
            key: key.trim_matches('/'),
        })
    }

    /// The key as a directory prefix (`a/b/`), or empty for the bucket root.
    pub fn dir_key(&self) -> String {
        if self.key.is_empty() {
            String::new()
        } else {
            format!("{}/", self.key)
        }
    }
}

/// Splits an Azure authority `container@account.host` into container, account name and the
/// Blob endpoint (`https://account.blob.core.windows.net`; ADLS `dfs` hosts map to their
/// Blob host, which serves the same data).
#[cfg(feature = "azblob")]
pub(crate) fn azure_authority(authority: &str) -> (&str, Option<(String, String)>) {
    let Some((container, host)) = authority.split_once('@') else {
        return (authority, None);
    };
    let account = host.split('.').next().unwrap_or(host).to_string();
    let host = host.replacen(".dfs.", ".blob.", 1);
    (container, Some((account, format!("https://{host}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let l = Location::parse("s3://bucket/warehouse/db.db/t/").unwrap();
        assert_eq!(l.scheme, "s3");
        assert_eq!(l.authority, "bucket");
        assert_eq!(l.key, "warehouse/db.db/t");
        assert_eq!(l.dir_key(), "warehouse/db.db/t/");
        let root = Location::parse("s3://bucket").unwrap();
        assert_eq!(root.key, "");
        assert_eq!(root.dir_key(), "");
        assert!(Location::parse("s3:///key").is_none());
        assert!(Location::parse("/tmp/x").is_none());
        assert_eq!(Service::for_scheme("S3A"), Some(Service::S3));
        assert_eq!(Service::for_scheme("abfss"), Some(Service::Azblob));
        assert_eq!(Service::for_scheme("ftp"), None);
    }

    #[cfg(feature = "azblob")]
    #[test]
    fn azure_authorities() {
        let (c, acct) = azure_authority("data@acct.dfs.core.windows.net");
        assert_eq!(c, "data");
        assert_eq!(
            acct,
            Some((
                "acct".to_string(),
                "https://acct.blob.core.windows.net".to_string()
            ))
        );
        assert_eq!(azure_authority("data"), ("data", None));
    }
}
