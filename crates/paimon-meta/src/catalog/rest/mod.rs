//! Paimon's REST catalog (OpenAPI 1.0) as Java 1.4.2's `RESTCatalog` / `RESTApi` speak it:
//! the `GET /v1/config` handshake (defaults, overrides, prefix), databases, tables, load
//! table (schema, path, id), create/drop/rename/alter, data tokens, and commits through
//! `POST .../tables/{t}/commit` ([`RestSnapshotCommit`]). Bearer authentication, or Alibaba
//! DLF request signing (`token.provider = dlf`).
//!
//! Tables are read from the path the server returns, with the storage options of the
//! catalog (or, under `data-token.enabled`, the server's data token); their commits go
//! through the server. A table whose options say `query-auth.enabled` is planned with the
//! caller's row filters and column masks from `POST .../auth` ([`RestQueryAuth`]).

mod client;
mod commit;
mod dlf;
pub mod messages;
mod paths;
mod query_auth;
#[cfg(test)]
mod test_http;
mod token_io;

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_io::FileIORef;
use paimon_spec::schema::TableSchema;
use serde_json::{json, Value};

use super::options::{file_io_options, keys};
use super::{BranchStart, Catalog, CatalogOptions, Database, Identifier, Partition};
use crate::commit::SchemaChange;
use crate::error::{CatalogFailure, Error, Result};
use crate::schema_manager::Tag;
use crate::table::{Table, MAIN_BRANCH};
use client::{Object, RestClient};
pub use commit::RestSnapshotCommit;
/// The DLF token reader's fuzzing entry points (`fuzz/fuzz_targets/dlf_token.rs`); not an API.
#[doc(hidden)]
pub use dlf::{fuzz_check_token, fuzz_token_json};
use messages::Response;
use paths::Paths;
pub use query_auth::RestQueryAuth;

use crate::query_auth::query_auth_enabled;

/// A REST catalog server (Java `RESTCatalog`).
#[derive(Debug, Clone)]
pub struct RestCatalog {
    client: RestClient,
    paths: Paths,
    /// The client's options merged with the server's defaults and overrides.
    options: BTreeMap<String, String>,
}

/// The table a `GET .../tables/{t}` describes (Java `GetTableResponse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// The server's table id (what commits name).
    pub id: String,
    /// Where its files are.
    pub path: String,
    /// Whether the files are outside the catalog's warehouse.
    pub is_external: bool,
    /// Its latest schema id.
    pub schema_id: i64,
    /// Whether the options the server returned turn query auth on (`query-auth.enabled`): a
    /// server sets it for tables under a policy, in its answer only, not in the schema files.
    pub query_auth: bool,
}

impl RestCatalog {
    /// Connects to `uri` (`GET /v1/config`, with `warehouse` as Java sends it) and merges
    /// the server's defaults and overrides with `options` as Java's `ConfigResponse.merge`.
    ///
    /// # Errors
    /// Missing `uri` or `token`; `token.provider` other than `bear` and `dlf`; DLF options
    /// missing or wrong (naming the option); the handshake's errors (unreachable, not
    /// authorized, malformed).
    pub fn open(opts: CatalogOptions) -> Result<Self> {
        let uri = opts.require(keys::URI)?.to_string();
        let invalid = |what: &str, reason: String| {
            Error::catalog(&uri, CatalogFailure::InvalidOptions, what, reason)
        };
        let mut headers = headers_of(&opts.options);
        let mut dlf = None;
        match opts.get(keys::TOKEN_PROVIDER).map(str::trim) {
            None | Some("bear") => {
                if let Some(t) = opts.get(keys::TOKEN) {
                    headers.insert("Authorization".into(), format!("Bearer {}", t.trim()));
                } else if opts.get(keys::TOKEN_PROVIDER).is_some() {
                    return Err(invalid(
                        "option token",
                        "token.provider bear needs option \"token\"".into(),
                    ));
                }
            }
            Some("dlf") => dlf = Some(dlf::DlfAuth::from_options(&uri, &opts.options)?),
            Some(p) => {
                return Err(invalid(
                    "option token.provider",
                    format!("token provider {p:?} is not supported (supported: bear, dlf)"),
                ))
            }
        }
        let mut client = RestClient::new(&uri, headers, dlf)?;
        let query: Vec<(&str, &str)> = opts
            .get(keys::WAREHOUSE)
            .map(|w| vec![(keys::WAREHOUSE, w)])
            .unwrap_or_default();
        let body = client.get(Paths::config(), &query, &Object::catalog())?;
        let r = Response {
            uri: client.uri(),
            what: format!("GET {}", Paths::config()),
            body: &body,
        };
        let mut options = r.map("defaults")?;
        options.extend(opts.options.clone());
        options.extend(r.map("overrides")?);
        client.add_headers(headers_of(&options));
        let paths = Paths::new(options.get("prefix").map(String::as_str));
        Ok(RestCatalog {
            client,
            paths,
            options,
        })
    }

    /// The options in effect (the client's, with the server's defaults and overrides).
    pub fn options(&self) -> &BTreeMap<String, String> {
        &self.options
    }

    /// `GET .../tables/{t}`: the table's id, path and schema id.
    ///
    /// # Errors
    /// [`Error::CatalogObjectNotFound`] naming the table; transport and server errors.
    pub fn load_table(&self, id: &Identifier) -> Result<TableInfo> {
        let path = self.paths.table(&id.database, id.table_name());
        let body = self
            .client
            .get(&path, &[], &Object::table(id.full_table_name()))?;
        let r = self.response(format!("GET {path}"), &body);
        Ok(TableInfo {
            id: r.str("id")?.to_string(),
            path: local_path(r.str("path")?),
            is_external: r
                .body
                .get("isExternal")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            schema_id: r.body.get("schemaId").and_then(Value::as_i64).unwrap_or(0),
            query_auth: r
                .body
                .pointer("/schema/options")
                .and_then(Value::as_object)
                .is_some_and(|o| {
                    o.get(crate::query_auth::QUERY_AUTH_ENABLED)
                        .and_then(Value::as_str)
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
                }),
        })
    }

    /// `GET .../tables/{t}/token`: the storage options the server grants for the table's
    /// files, and when they expire (epoch millis).
    ///
    /// # Errors
    /// Transport and server errors; a malformed token.
    pub fn data_token(&self, id: &Identifier) -> Result<(BTreeMap<String, String>, i64)> {
        let path = self.paths.table_token(&id.database, id.table_name());
        token_io::fetch(&self.client, &path, id)
    }

    fn response<'a>(&'a self, what: String, body: &'a Value) -> Response<'a> {
        Response {
            uri: self.client.uri(),
            what,
            body,
        }
    }

    /// Every page of a listing (`databases`, `tables`, `tags`), following `nextPageToken`,
    /// sorted.
    fn list_all(&self, path: &str, key: &str, about: &Object) -> Result<Vec<String>> {
        let what = format!("GET {path}");
        let mut out = self
            .list_pages(path, key, about)?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(self
                    .response(what.clone(), &Value::Null)
                    .bad(format!("field {key:?} holds a non-string"))),
            })
            .collect::<Result<Vec<_>>>()?;
        out.sort();
        Ok(out)
    }

    /// The items of every page of a listing under `key`, following `nextPageToken`.
    fn list_pages(&self, path: &str, key: &str, about: &Object) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        // A server that keeps handing out tokens would loop forever: pages are bounded.
        for _ in 0..100_000 {
            let query: Vec<(&str, &str)> = token
                .as_deref()
                .map(|t| vec![("pageToken", t)])
                .unwrap_or_default();
            let body = self.client.get(path, &query, about)?;
            let r = self.response(format!("GET {path}"), &body);
            match body.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(a)) => out.extend(a.iter().cloned()),
                Some(_) => return Err(r.bad(format!("field {key:?} is not a list"))),
            }
            match r.next_page() {
                Some(t) if Some(&t) != token.as_ref() => token = Some(t),
                _ => return Ok(out),
            }
        }
        Err(Error::catalog(
            self.client.uri(),
            CatalogFailure::MalformedResponse,
            format!("GET {path}"),
            "more than 100000 pages",
        ))
    }

    /// The object errors about `id` name.
    fn table_object(id: &Identifier) -> Object {
        Object::table(id.full_table_name())
    }

    /// The storage for a table at `path`: the catalog's FileIO options, and the server's
    /// data token under `data-token.enabled`, refreshed before it expires (object stores
    /// only; a local path needs none).
    fn file_io(&self, id: &Identifier, path: &str) -> Result<FileIORef> {
        if paimon_io::scheme_of(path).is_none_or(|s| s == "file") {
            return paimon_io::file_io_for(path).map_err(Error::io);
        }
        let options = file_io_options(&self.options);
        let data_token = self
            .options
            .get(keys::DATA_TOKEN_ENABLED)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if !data_token {
            return paimon_io::file_io_with_options(path, &options).map_err(Error::io);
        }
        // The token is fetched again before it expires; `FileIO::storage_options` hands a
        // worker the current one (with the catalog's storage options), never the catalog's
        // own credentials.
        Ok(Arc::new(token_io::RestTokenFileIO::new(
            self.client.clone(),
            self.paths.table_token(&id.database, id.table_name()),
            id.clone(),
            path,
            options,
            paimon_io::file_io_with_options,
        )?))
    }

    fn ignore_missing(&self, r: Result<Value>, ignore: bool) -> Result<()> {
        match r {
            Ok(_) => Ok(()),
            Err(Error::CatalogObjectNotFound { .. }) if ignore => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// `header.*` options as HTTP headers.
fn headers_of(options: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    options
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix(keys::HEADER_PREFIX)
                .filter(|h| !h.is_empty())
                .map(|h| (h.to_string(), v.clone()))
        })
        .collect()
}

/// A path as Java writes it (`file:/tmp/t`, `file:///tmp/t`) as a local path; URLs of
/// other schemes unchanged.
fn local_path(path: &str) -> String {
    if let Some(rest) = path.strip_prefix("file://") {
        rest.to_string()
    } else if let Some(rest) = path.strip_prefix("file:") {
        rest.to_string()
    } else {
        path.to_string()
    }
}

impl Catalog for RestCatalog {
    fn location(&self) -> &str {
        self.client.uri()
    }

    fn list_databases(&self) -> Result<Vec<String>> {
        self.list_all(&self.paths.databases(), "databases", &Object::catalog())
    }

    fn get_database(&self, name: &str) -> Result<Database> {
        let path = self.paths.database(name);
        let body = self.client.get(&path, &[], &Object::database(name))?;
        let r = self.response(format!("GET {path}"), &body);
        Ok(Database {
            name: r.str("name").unwrap_or(name).to_string(),
            options: r.map("options")?,
            location: r
                .body
                .get("location")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }

    fn create_database(
        &self,
        name: &str,
        ignore_if_exists: bool,
        options: &BTreeMap<String, String>,
    ) -> Result<()> {
        let body = json!({"name": name, "options": options});
        match self
            .client
            .post(&self.paths.databases(), &body, &Object::database(name))
        {
            Ok(_) => Ok(()),
            Err(Error::CatalogObjectExists { .. }) if ignore_if_exists => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn drop_database(&self, name: &str, ignore_if_not_exists: bool, cascade: bool) -> Result<()> {
        if !cascade {
            match self.list_tables(name) {
                Ok(t) if !t.is_empty() => {
                    return Err(Error::catalog(
                        self.client.uri(),
                        CatalogFailure::Refused,
                        format!("drop database {name}"),
                        format!("it holds {} tables; drop it with cascade", t.len()),
                    ))
                }
                Err(Error::CatalogObjectNotFound { .. }) if ignore_if_not_exists => return Ok(()),
                Err(e) => return Err(e),
                Ok(_) => {}
            }
        }
        let r = self
            .client
            .delete(&self.paths.database(name), &Object::database(name));
        self.ignore_missing(r, ignore_if_not_exists)
    }

    fn list_tables(&self, database: &str) -> Result<Vec<String>> {
        self.list_all(
            &self.paths.tables(database),
            "tables",
            &Object::database(database),
        )
    }

    fn get_table(&self, id: &Identifier) -> Result<Table> {
        let info = self.load_table(id)?;
        let io = self.file_io(id, &info.path)?;
        let table = Table::open_branch(io, &info.path, id.branch().unwrap_or(MAIN_BRANCH))?;
        let table = table.with_snapshot_commit(Arc::new(RestSnapshotCommit::new(
            self.client.clone(),
            self.paths.commit_table(&id.database, &id.object),
            id.clone(),
            info.id,
        )));
        // Asked when the server's answer or the table's own options turn query auth on.
        if info.query_auth || query_auth_enabled(&table.schema().options) {
            Ok(table.with_query_auth(Arc::new(RestQueryAuth::new(
                self.client.clone(),
                self.paths.auth_table(&id.database, id.table_name()),
                id.clone(),
            ))))
        } else {
            Ok(table)
        }
    }

    fn create_table(
        &self,
        id: &Identifier,
        schema: TableSchema,
        ignore_if_exists: bool,
    ) -> Result<()> {
        // Field ids and the key columns' NOT NULL are the client's to set (Java `Schema`).
        let schema = crate::commit::normalized(&id.to_string(), schema)?;
        let body = json!({
            "identifier": messages::identifier(id),
            "schema": messages::schema(&schema),
        });
        match self.client.post(
            &self.paths.tables(&id.database),
            &body,
            &Object::table(id.full_table_name()),
        ) {
            Ok(_) => Ok(()),
            Err(Error::CatalogObjectExists { kind: "table", .. }) if ignore_if_exists => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn drop_table(&self, id: &Identifier, ignore_if_not_exists: bool) -> Result<()> {
        let r = self.client.delete(
            &self.paths.table(&id.database, &id.object),
            &Object::table(id.full_table_name()),
        );
        self.ignore_missing(r, ignore_if_not_exists)
    }

    fn rename_table(
        &self,
        from: &Identifier,
        to: &Identifier,
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let body = json!({
            "source": messages::identifier(from),
            "destination": messages::identifier(to),
        });
        let r = self.client.post(
            &self.paths.rename_table(),
            &body,
            &Object::table(from.full_table_name()),
        );
        match r {
            // The server names the destination when it exists.
            Err(Error::CatalogObjectExists { kind, catalog, .. }) => {
                Err(Error::CatalogObjectExists {
                    kind,
                    name: to.full_table_name(),
                    catalog,
                })
            }
            r => self.ignore_missing(r, ignore_if_not_exists),
        }
    }

    fn alter_table(
        &self,
        id: &Identifier,
        changes: &[SchemaChange],
        ignore_if_not_exists: bool,
    ) -> Result<()> {
        let body =
            json!({"changes": changes.iter().map(messages::schema_change).collect::<Vec<_>>()});
        let r = self.client.post(
            &self.paths.table(&id.database, &id.object),
            &body,
            &Object::table(id.full_table_name()),
        );
        self.ignore_missing(r, ignore_if_not_exists)
    }

    fn list_partitions(&self, id: &Identifier) -> Result<Vec<Partition>> {
        let path = self.paths.partitions(&id.database, id.table_name());
        let about = Self::table_object(id);
        let pages = match self.list_pages(&path, "partitions", &about) {
            Ok(p) => p,
            // A server that keeps no partitions (Java's `RESTCatalogServer` for a table
            // without `metastore.partitioned-table`) answers 501: as Java's `RESTCatalog`
            // does, the partitions are then computed from the table's own files.
            Err(Error::Catalog {
                failure: CatalogFailure::NotImplemented,
                ..
            }) => return Partition::of_table(&self.get_table(id)?),
            Err(e) => return Err(e),
        };
        let mut out = pages
            .iter()
            .map(|v| {
                messages::partition_from_json(v)
                    .map_err(|e| self.response(format!("GET {path}"), v).bad(e.to_string()))
            })
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| a.spec.cmp(&b.spec));
        Ok(out)
    }

    fn list_tags(&self, id: &Identifier) -> Result<Vec<String>> {
        let path = self.paths.tags(&id.database, id.table_name());
        self.list_all(&path, "tags", &Self::table_object(id))
    }

    fn get_tag(&self, id: &Identifier, name: &str) -> Result<Tag> {
        let path = self.paths.tag(&id.database, id.table_name(), name);
        let body = self.client.get(&path, &[], &Object::tag(id, name))?;
        messages::tag_from_json(&body).map(|(_, t)| t).map_err(|e| {
            self.response(format!("GET {path}"), &body)
                .bad(e.to_string())
        })
    }

    fn create_tag(
        &self,
        id: &Identifier,
        name: &str,
        snapshot_id: Option<i64>,
        time_retained_ms: Option<u64>,
    ) -> Result<()> {
        // Java `CreateTagRequest`; the retention as a duration Java's `TimeUtils` parses.
        let body = json!({
            "tagName": name,
            "snapshotId": snapshot_id,
            "timeRetained": time_retained_ms.map(|ms| format!("{ms} ms")),
        });
        let path = self.paths.tags(&id.database, id.table_name());
        self.client.post(&path, &body, &Object::tag(id, name))?;
        Ok(())
    }

    fn delete_tag(&self, id: &Identifier, name: &str) -> Result<()> {
        let path = self.paths.tag(&id.database, id.table_name(), name);
        self.client.delete(&path, &Object::tag(id, name))?;
        Ok(())
    }

    fn list_branches(&self, id: &Identifier) -> Result<Vec<String>> {
        let path = self.paths.branches(&id.database, id.table_name());
        self.list_all(&path, "branches", &Self::table_object(id))
    }

    fn create_branch(&self, id: &Identifier, name: &str, start: &BranchStart) -> Result<()> {
        // Java `CreateBranchRequest` names a tag or nothing.
        let from_tag = match start {
            BranchStart::Empty => None,
            BranchStart::Tag(t) => Some(t.as_str()),
            BranchStart::Snapshot(_) => {
                return Err(Error::Unsupported {
                    feature: format!(
                        "creating branch {name} of {id} from a snapshot through a REST catalog \
                         (the API creates branches from a tag or empty)"
                    ),
                })
            }
        };
        let body = json!({"branch": name, "fromTag": from_tag});
        let path = self.paths.branches(&id.database, id.table_name());
        self.client.post(&path, &body, &Object::branch(id, name))?;
        Ok(())
    }

    fn drop_branch(&self, id: &Identifier, name: &str) -> Result<()> {
        let path = self.paths.branch(&id.database, id.table_name(), name);
        self.client.delete(&path, &Object::branch(id, name))?;
        Ok(())
    }

    fn rename_branch(&self, id: &Identifier, from: &str, to: &str) -> Result<()> {
        // Java `RenameBranchRequest`.
        let path = self
            .paths
            .rename_branch(&id.database, id.table_name(), from);
        self.client
            .post(&path, &json!({"toBranch": to}), &Object::branch(id, from))?;
        Ok(())
    }

    fn fast_forward(&self, id: &Identifier, name: &str) -> Result<()> {
        let path = self
            .paths
            .forward_branch(&id.database, id.table_name(), name);
        self.client
            .post(&path, &json!({}), &Object::branch(id, name))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_paths_become_local_paths() {
        assert_eq!(local_path("file:/tmp/w/db.db/t"), "/tmp/w/db.db/t");
        assert_eq!(local_path("file:///tmp/w/db.db/t"), "/tmp/w/db.db/t");
        assert_eq!(local_path("s3://b/w/db.db/t"), "s3://b/w/db.db/t");
    }

    /// A server that is not there: an error within seconds naming the URI, not a hang.
    #[test]
    fn unreachable_server_fails_fast_naming_the_uri() {
        // A port just bound and released: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let uri = format!("http://127.0.0.1:{port}");
        let mut o = BTreeMap::new();
        o.insert("metastore".to_string(), "rest".to_string());
        o.insert("uri".to_string(), uri.clone());
        o.insert("token".to_string(), "t".to_string());
        let started = std::time::Instant::now();
        let e = RestCatalog::open(CatalogOptions::from_map(o).unwrap()).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert!(
            matches!(
                e,
                Error::Catalog {
                    failure: CatalogFailure::Unreachable,
                    ..
                }
            ),
            "{e}"
        );
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("catalog {uri}: unreachable on GET /v1/config")),
            "{msg}"
        );
    }
}
