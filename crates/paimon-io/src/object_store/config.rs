//! Backend configuration from environment variables, and building one OpenDAL operator per
//! bucket (container, name node).

use opendal::Operator;

use super::location::{Location, Service};
use crate::error::{Error, Result};

/// Settings of the S3 backend. [`S3Options::from_env`] reads them as described in the crate docs;
/// fields left `None` fall back to OpenDAL's own AWS configuration chain (profile files, web
/// identity, instance metadata).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct S3Options {
    /// Endpoint URL of an S3-compatible server (`http://127.0.0.1:9000`); `None` for AWS.
    pub endpoint: Option<String>,
    /// Signing region; `us-east-1` when unset anywhere.
    pub region: Option<String>,
    /// Access key id.
    pub access_key_id: Option<String>,
    /// Secret access key.
    pub secret_access_key: Option<String>,
    /// Session token of temporary credentials.
    pub session_token: Option<String>,
    /// Path-style (`endpoint/bucket/key`) rather than virtual-hosted (`bucket.endpoint/key`)
    /// requests. `None` means path style exactly when a custom endpoint is set, as MinIO, Ceph
    /// and other S3-compatible servers expect.
    pub path_style: Option<bool>,
    /// Send unsigned requests (public buckets).
    pub anonymous: bool,
}

/// The keys [`S3Options::from_options`] reads.
pub const S3_OPTION_KEYS: &[&str] = &[
    "s3.endpoint",
    "s3.region",
    "s3.access-key",
    "s3.secret-key",
    "s3.session-token",
    "s3.path.style.access",
    "s3.anonymous",
];

impl std::fmt::Debug for S3Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Options")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .field("path_style", &self.path_style)
            .field("anonymous", &self.anonymous)
            .finish()
    }
}

impl S3Options {
    /// Reads the options from the process environment (see the crate docs for the variables).
    pub fn from_env() -> Self {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the options through `var`, which returns a variable's value (for tests).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Self {
        let first = |names: &[&str]| {
            names
                .iter()
                .filter_map(|n| var(n))
                .find(|v| !v.trim().is_empty())
        };
        S3Options {
            endpoint: first(&[
                "PAIMON_S3_ENDPOINT",
                "AWS_ENDPOINT_URL_S3",
                "AWS_ENDPOINT_URL",
            ]),
            region: first(&["PAIMON_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"]),
            access_key_id: first(&["PAIMON_S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"]),
            secret_access_key: first(&["PAIMON_S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"]),
            session_token: first(&["AWS_SESSION_TOKEN"]),
            path_style: first(&["PAIMON_S3_PATH_STYLE"]).and_then(|v| parse_bool(&v)),
            anonymous: first(&["PAIMON_S3_ANONYMOUS"])
                .and_then(|v| parse_bool(&v))
                .unwrap_or(false),
        }
    }

    /// The options given by Java Paimon's keys (`s3.endpoint`, `s3.region`, `s3.access-key`,
    /// `s3.secret-key`, `s3.session-token`, `s3.path.style.access`, `s3.anonymous`), each key
    /// not in `options` falling back to the environment as [`S3Options::from_env`] reads it.
    ///
    /// # Errors
    /// [`Error::Config`] for a key outside that list or a boolean that is not `true`/`false`.
    pub fn from_options(
        options: &std::collections::BTreeMap<String, String>,
        path: &str,
    ) -> Result<Self> {
        Self::from_env().overridden_by(options, path)
    }

    /// `self` with the options of [`S3Options::from_options`] set over it.
    fn overridden_by(
        mut self,
        options: &std::collections::BTreeMap<String, String>,
        path: &str,
    ) -> Result<Self> {
        let o = &mut self;
        for (k, v) in options {
            let bad = |reason: String| Error::Config {
                path: path.to_string(),
                reason,
            };
            let flag =
                || parse_bool(v).ok_or_else(|| bad(format!("{k}: '{v}' is not true or false")));
            match k.as_str() {
                "s3.endpoint" => o.endpoint = Some(v.clone()),
                "s3.region" => o.region = Some(v.clone()),
                "s3.access-key" => o.access_key_id = Some(v.clone()),
                "s3.secret-key" => o.secret_access_key = Some(v.clone()),
                "s3.session-token" => o.session_token = Some(v.clone()),
                "s3.path.style.access" => o.path_style = Some(flag()?),
                "s3.anonymous" => o.anonymous = flag()?,
                _ => {
                    return Err(bad(format!(
                        "unknown option '{k}' (known: {})",
                        S3_OPTION_KEYS.join(", ")
                    )))
                }
            }
        }
        Ok(self)
    }

    /// Whether requests use path style, after applying the default.
    pub fn uses_path_style(&self) -> bool {
        self.path_style.unwrap_or(self.endpoint.is_some())
    }
}

/// Per-service settings: S3 is typed, the others read their variables when an operator is built.
#[derive(Debug, Clone)]
pub(crate) enum ServiceConfig {
    /// S3 settings.
    #[cfg_attr(not(feature = "s3"), allow(dead_code))]
    S3(S3Options),
    /// Any other service, configured from the environment.
    #[cfg_attr(
        not(any(
            feature = "oss",
            feature = "gcs",
            feature = "azblob",
            feature = "hdfs-native"
        )),
        allow(dead_code)
    )]
    FromEnv(Service),
}

impl ServiceConfig {
    pub fn service(&self) -> Service {
        match self {
            ServiceConfig::S3(_) => Service::S3,
            ServiceConfig::FromEnv(s) => *s,
        }
    }

    /// Builds the operator for `loc`'s authority; `path` is the full URL, for errors.
    pub fn operator(&self, loc: &Location<'_>, path: &str) -> Result<Operator> {
        let config_err = |e: opendal::Error| Error::Config {
            path: path.to_string(),
            reason: e.to_string(),
        };
        match self {
            #[cfg(feature = "s3")]
            ServiceConfig::S3(o) => Operator::new(s3_builder(o, loc.authority)).map_err(config_err),
            #[cfg(feature = "oss")]
            ServiceConfig::FromEnv(Service::Oss) => {
                Operator::new(oss_builder(loc.authority)).map_err(config_err)
            }
            #[cfg(feature = "gcs")]
            ServiceConfig::FromEnv(Service::Gcs) => {
                Operator::new(gcs_builder(loc.authority)).map_err(config_err)
            }
            #[cfg(feature = "azblob")]
            ServiceConfig::FromEnv(Service::Azblob) => {
                Operator::new(azblob_builder(loc.authority)).map_err(config_err)
            }
            #[cfg(feature = "hdfs-native")]
            ServiceConfig::FromEnv(Service::HdfsNative) => {
                let b = opendal::services::HdfsNative::default()
                    .name_node(&format!("hdfs://{}", loc.authority))
                    .root("/");
                Operator::new(b).map_err(config_err)
            }
            #[allow(unreachable_patterns)]
            other => Err(Error::UnsupportedScheme {
                scheme: other.service().feature().to_string(),
                path: path.to_string(),
            }),
        }
    }
}

#[cfg(any(feature = "oss", feature = "gcs", feature = "azblob"))]
fn env(names: &[&str]) -> Option<String> {
    names
        .iter()
        .filter_map(|n| std::env::var(n).ok())
        .find(|v| !v.trim().is_empty())
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(feature = "s3")]
fn s3_builder(o: &S3Options, bucket: &str) -> opendal::services::S3 {
    let mut b = opendal::services::S3::default()
        .bucket(bucket)
        .root("/")
        .region(o.region.as_deref().unwrap_or("us-east-1"));
    if let Some(e) = &o.endpoint {
        b = b.endpoint(e);
    }
    if let (Some(k), Some(s)) = (&o.access_key_id, &o.secret_access_key) {
        b = b.access_key_id(k).secret_access_key(s);
        if let Some(t) = &o.session_token {
            b = b.session_token(t);
        }
    }
    if !o.uses_path_style() {
        b = b.enable_virtual_host_style();
    }
    if o.anonymous {
        b = b.skip_signature();
    }
    b
}

#[cfg(feature = "oss")]
fn oss_builder(bucket: &str) -> opendal::services::Oss {
    let mut b = opendal::services::Oss::default().bucket(bucket).root("/");
    if let Some(e) = env(&["PAIMON_OSS_ENDPOINT", "OSS_ENDPOINT"]) {
        b = b.endpoint(&e);
    }
    if let (Some(k), Some(s)) = (
        env(&["OSS_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_ID"]),
        env(&["OSS_ACCESS_KEY_SECRET", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"]),
    ) {
        b = b.access_key_id(&k).access_key_secret(&s);
    }
    b
}

#[cfg(feature = "gcs")]
fn gcs_builder(bucket: &str) -> opendal::services::Gcs {
    let mut b = opendal::services::Gcs::default().bucket(bucket).root("/");
    if let Some(e) = env(&["PAIMON_GCS_ENDPOINT"]) {
        b = b.endpoint(&e);
    }
    if let Some(p) = env(&["GOOGLE_APPLICATION_CREDENTIALS"]) {
        b = b.credential_path(&p);
    }
    b
}

#[cfg(feature = "azblob")]
fn azblob_builder(authority: &str) -> opendal::services::Azblob {
    let (container, account) = super::location::azure_authority(authority);
    let mut b = opendal::services::Azblob::default()
        .container(container)
        .root("/");
    let name = env(&["AZURE_STORAGE_ACCOUNT_NAME"]).or(account.as_ref().map(|a| a.0.clone()));
    let endpoint = env(&["AZURE_STORAGE_ENDPOINT"])
        .or(account.map(|a| a.1))
        .or(name
            .as_ref()
            .map(|n| format!("https://{n}.blob.core.windows.net")));
    if let Some(n) = &name {
        b = b.account_name(n);
    }
    if let Some(e) = &endpoint {
        b = b.endpoint(e);
    }
    if let Some(k) = env(&["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"]) {
        b = b.account_key(&k);
    }
    if let Some(t) = env(&["AZURE_STORAGE_SAS_TOKEN"]) {
        b = b.sas_token(&t);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn opts(vars: &[(&str, &str)]) -> S3Options {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        S3Options::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn s3_options_from_a_map_override_the_environment() {
        let base = opts(&[("AWS_REGION", "eu-west-1"), ("AWS_ACCESS_KEY_ID", "env-ak")]);
        let map: std::collections::BTreeMap<String, String> = [
            ("s3.endpoint", "http://127.0.0.1:9000"),
            ("s3.access-key", "ak"),
            ("s3.secret-key", "sk"),
            ("s3.path.style.access", "false"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let o = base.clone().overridden_by(&map, "s3://b/t").unwrap();
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(o.access_key_id.as_deref(), Some("ak"));
        assert_eq!(o.secret_access_key.as_deref(), Some("sk"));
        assert_eq!(o.region.as_deref(), Some("eu-west-1"));
        assert!(!o.uses_path_style());
        for (k, v) in [("s3.nope", "x"), ("s3.anonymous", "maybe")] {
            let bad = [(k.to_string(), v.to_string())].into_iter().collect();
            let e = base.clone().overridden_by(&bad, "s3://b/t").unwrap_err();
            assert!(e.to_string().contains(k), "{e}");
        }
    }

    #[test]
    fn s3_options_from_env() {
        let o = opts(&[
            ("AWS_ENDPOINT_URL", "http://aws-env"),
            ("PAIMON_S3_ENDPOINT", "http://127.0.0.1:9000"),
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_ACCESS_KEY_ID", "ak"),
            ("AWS_SECRET_ACCESS_KEY", "sk"),
        ]);
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(o.region.as_deref(), Some("eu-west-1"));
        assert_eq!(o.access_key_id.as_deref(), Some("ak"));
        assert!(o.uses_path_style());
        assert!(!format!("{o:?}").contains("sk\""));

        let aws = opts(&[("AWS_REGION", "us-west-2"), ("PAIMON_S3_PATH_STYLE", "")]);
        assert!(!aws.uses_path_style());
        let forced = opts(&[
            ("PAIMON_S3_ENDPOINT", "http://minio"),
            ("PAIMON_S3_PATH_STYLE", "false"),
            ("PAIMON_S3_ANONYMOUS", "true"),
        ]);
        assert!(!forced.uses_path_style());
        assert!(forced.anonymous);
    }
}
