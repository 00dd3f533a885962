//! The REST API's resources (Java `ResourcePaths`, as Java's `RESTCatalogServer` answers
//! them) over a catalog: config, databases, tables, commit, snapshots, rollback, data token;
//! partitions, tags, branches and table details ([`table_meta`]).
//! Every handler checks the caller's grants first; listings show only what the caller may
//! see.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use paimon_rs::meta::catalog::rest::messages;
use paimon_rs::meta::catalog::{
    Catalog, Identifier, Published, RenamingSnapshotCommit, SnapshotCommit,
};
use paimon_rs::meta::snapshot::Snapshot;
use paimon_rs::meta::table::Table;
use serde_json::{json, Value};

mod consumers;
mod partitions;
mod table_meta;

use super::error::ApiError;
use super::paging::{matches, page, NameFilter};
use super::request::{str_field, Request};
use crate::auth::Access;
use crate::policy::Policies;

/// The table option that makes Java's, pypaimon's and our REST clients call the `auth`
/// endpoint before planning (Java `CoreOptions.QUERY_AUTH_ENABLED`).
pub const QUERY_AUTH_ENABLED: &str = "query-auth.enabled";

/// What the handlers share: the catalog, the warehouse's name, one commit at a time per
/// table.
#[derive(Debug)]
pub struct Service {
    catalog: Arc<dyn Catalog>,
    warehouse_name: String,
    commit_locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    policies: Policies,
}

type Answer = Result<Value, ApiError>;

impl Service {
    /// A service over `catalog`, which clients name `warehouse_name`.
    pub fn new(catalog: Arc<dyn Catalog>, warehouse_name: String) -> Self {
        Service {
            catalog,
            warehouse_name,
            commit_locks: Mutex::new(HashMap::new()),
            policies: Policies::default(),
        }
    }

    /// This service with row filters and column masks per user and table: tables they name
    /// carry `query-auth.enabled = true`, and the `auth` endpoint returns the caller's rules.
    pub fn with_policies(mut self, policies: Policies) -> Self {
        self.policies = policies;
        self
    }

    /// The warehouse's name (the prefix of every path after `/v1/`).
    pub fn warehouse_name(&self) -> &str {
        &self.warehouse_name
    }

    /// Answers one request: the JSON body of a 200, or the error.
    pub fn handle(&self, r: &Request) -> Answer {
        let seg: Vec<&str> = r.segments.iter().map(String::as_str).collect();
        let m = r.method.as_str();
        // Database and table names become directories: each must be one plain name (a
        // `../other.db/t` would reach another database's table around the grants).
        if let [_, "databases", db, rest @ ..] = seg.as_slice() {
            check_name("database", db)?;
            if let ["tables", t, ..] = rest {
                check_name("table", t)?;
            }
            if let ["tables", _, kind @ ("tags" | "branches"), name, ..] = rest {
                check_name(if *kind == "tags" { "tag" } else { "branch" }, name)?;
            }
        }
        match seg.as_slice() {
            ["config"] => self.only(m, "GET").and_then(|_| self.config(r)),
            [prefix, rest @ ..] if *prefix == self.warehouse_name => match (m, rest) {
                ("GET", ["databases"]) => self.list_databases(r),
                ("POST", ["databases"]) => self.create_database(r),
                ("GET", ["databases", db]) => self.get_database(r, db),
                ("POST", ["databases", db]) => self.alter_database(r, db),
                ("DELETE", ["databases", db]) => self.drop_database(r, db),
                ("GET", ["databases", db, "tables"]) => self.list_tables(r, db),
                ("POST", ["databases", db, "tables"]) => self.create_table(r, db),
                ("GET", ["databases", db, "tables", t]) => self.load_table(r, db, t),
                ("POST", ["databases", db, "tables", t]) => self.alter_table(r, db, t),
                ("DELETE", ["databases", db, "tables", t]) => self.drop_table(r, db, t),
                ("POST", ["databases", db, "tables", t, "commit"]) => self.commit(r, db, t),
                ("GET", ["databases", db, "tables", t, "snapshot"]) => {
                    self.latest_snapshot(r, db, t)
                }
                ("GET", ["databases", db, "tables", t, "snapshots"]) => {
                    self.list_snapshots(r, db, t)
                }
                ("GET", ["databases", db, "tables", t, "snapshots", v]) => {
                    self.snapshot(r, db, t, v)
                }
                ("POST", ["databases", db, "tables", t, "rollback"]) => self.rollback(r, db, t),
                ("GET", ["databases", db, "tables", t, "token"]) => self.data_token(r, db, t),
                ("POST", ["databases", db, "tables", t, "auth"]) => self.auth_table(r, db, t),
                ("POST", ["databases", db, "tables", t, "partitions", "list-by-names"]) => {
                    self.list_partitions_by_names(r, db, t)
                }
                ("GET", ["databases", db, "tables", t, "partitions"]) => {
                    self.list_partitions(r, db, t)
                }
                ("POST", ["databases", db, "tables", t, "partitions", "drop"]) => {
                    self.drop_partitions(r, db, t)
                }
                ("POST", ["databases", db, "tables", t, "partitions", "mark"]) => {
                    self.mark_done_partitions(r, db, t)
                }
                ("POST", ["databases", db, "tables", t, "partitions", "list-by-filter"]) => {
                    self.list_partitions_by_filter(r, db, t)
                }
                ("GET", ["databases", db, "tables", t, "consumers"]) => {
                    self.list_consumers(r, db, t)
                }
                ("POST", ["databases", db, "tables", t, "consumers", "reset"]) => {
                    self.reset_consumer(r, db, t)
                }
                ("GET", ["databases", db, "tables", t, "tags"]) => self.list_tags(r, db, t),
                ("POST", ["databases", db, "tables", t, "tags"]) => self.create_tag(r, db, t),
                ("GET", ["databases", db, "tables", t, "tags", tag]) => self.get_tag(r, db, t, tag),
                ("DELETE", ["databases", db, "tables", t, "tags", tag]) => {
                    self.delete_tag(r, db, t, tag)
                }
                ("GET", ["databases", db, "tables", t, "branches"]) => self.list_branches(r, db, t),
                ("POST", ["databases", db, "tables", t, "branches"]) => {
                    self.create_branch(r, db, t)
                }
                ("DELETE", ["databases", db, "tables", t, "branches", b]) => {
                    self.drop_branch(r, db, t, b)
                }
                ("POST", ["databases", db, "tables", t, "branches", b, "rename"]) => {
                    self.rename_branch(r, db, t, b)
                }
                ("POST", ["databases", db, "tables", t, "branches", b, "forward"]) => {
                    self.forward_branch(r, db, t, b)
                }
                ("GET", ["databases", db, "table-details"]) => self.list_table_details(r, db),
                ("GET", ["databases", db, "views"]) => self.list_none(r, db, "views"),
                ("GET", ["databases", db, "view-details"]) => self.list_none(r, db, "viewDetails"),
                ("GET", ["databases", db, "functions"]) => self.list_none(r, db, "functions"),
                ("GET", ["databases", db, "function-details"]) => {
                    self.list_none(r, db, "functionDetails")
                }
                ("GET", ["tables"]) => self.list_tables_globally(r),
                ("POST", ["tables", "rename"]) => self.rename_table(r),
                _ => Err(not_found(r)),
            },
            _ => Err(not_found(r)),
        }
    }

    fn only(&self, method: &str, allowed: &str) -> Result<(), ApiError> {
        if method == allowed {
            Ok(())
        } else {
            Err(ApiError::new(405, format!("method {method} not allowed")))
        }
    }

    /// `GET /v1/config?warehouse=NAME`: the prefix the paths carry.
    fn config(&self, r: &Request) -> Answer {
        if let Some(w) = r.param("warehouse") {
            if !w.is_empty() && w != self.warehouse_name {
                return Err(ApiError::not_found(
                    "CATALOG",
                    w,
                    format!(
                        "no warehouse {w:?} here (this server serves {:?})",
                        self.warehouse_name
                    ),
                ));
            }
        }
        Ok(json!({
            "defaults": {},
            "overrides": {"prefix": self.warehouse_name, "warehouse": self.warehouse_name},
        }))
    }

    /// `GET .../databases`, paged, filtered by `databaseNamePattern`.
    fn list_databases(&self, r: &Request) -> Answer {
        let dbs: Vec<String> = self
            .catalog
            .list_databases()?
            .into_iter()
            .filter(|d| r.sees_database(d))
            .collect();
        let (dbs, next) = page(
            r,
            dbs,
            String::as_str,
            NameFilter::Like("databaseNamePattern"),
        )?;
        Ok(json!({"databases": dbs, "nextPageToken": next}))
    }

    fn create_database(&self, r: &Request) -> Answer {
        r.require_catalog(Access::Admin)?;
        let body = r.json()?;
        let name = str_field(&body, "CreateDatabaseRequest", "name")?;
        let options = string_map(body.get("options"), "options")?;
        self.catalog.create_database(name, false, &options)?;
        Ok(json!({}))
    }

    fn get_database(&self, r: &Request, db: &str) -> Answer {
        if !r.sees_database(db) {
            return Err(ApiError::forbidden("DATABASE", db, "read"));
        }
        let d = self.catalog.get_database(db)?;
        Ok(json!({
            "id": d.name, "name": d.name, "location": d.location, "options": d.options,
            "owner": null, "createdAt": 0, "createdBy": null, "updatedAt": 0, "updatedBy": null,
        }))
    }

    /// `POST .../databases/{db}` (Java `AlterDatabaseRequest` / `AlterDatabaseResponse`):
    /// `updates` set and `removals` removed among the database's options, where the catalog
    /// keeps them (the filesystem catalog does not: 501, as Java's refuses it). `removed`
    /// lists the removals the database had, `missing` those it did not, `updated` the keys
    /// set.
    fn alter_database(&self, r: &Request, db: &str) -> Answer {
        r.require_database(Access::Admin, db)?;
        let body = r.json()?;
        let removals: Vec<String> = match body.get("removals") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "AlterDatabaseRequest: \"removals\" is not a list of strings",
                    )
                })?,
            Some(_) => {
                return Err(ApiError::bad_request(
                    "AlterDatabaseRequest: \"removals\" is not a list of strings",
                ))
            }
        };
        let updates = string_map(body.get("updates"), "updates")?;
        let before = self.catalog.get_database(db)?;
        self.catalog.alter_database(db, &removals, &updates)?;
        let (removed, missing): (Vec<&String>, Vec<&String>) = removals
            .iter()
            .partition(|k| before.options.contains_key(k.as_str()));
        Ok(json!({
            "removed": removed,
            "updated": updates.keys().collect::<Vec<_>>(),
            "missing": missing,
        }))
    }

    fn drop_database(&self, r: &Request, db: &str) -> Answer {
        r.require_database(Access::Admin, db)?;
        self.catalog.drop_database(db, false, true)?;
        Ok(json!({}))
    }

    fn list_tables(&self, r: &Request, db: &str) -> Answer {
        if !r.sees_database(db) {
            return Err(ApiError::forbidden("DATABASE", db, "read"));
        }
        let tables: Vec<String> = self
            .catalog
            .list_tables(db)?
            .into_iter()
            .filter(|t| r.may(Access::Read, db, Some(t)))
            .collect();
        let (tables, next) = page(
            r,
            tables,
            String::as_str,
            NameFilter::Like("tableNamePattern"),
        )?;
        Ok(json!({"tables": tables, "nextPageToken": next}))
    }

    /// `GET /v1/{prefix}/tables` (Java `ListTablesGloballyResponse`): the tables of every
    /// database the caller may read, as identifiers, filtered by `databaseNamePattern` and
    /// `tableNamePattern` (SQL `LIKE`), paged by database then table name.
    fn list_tables_globally(&self, r: &Request) -> Answer {
        let param = |k: &str| r.param(k).map(str::to_string);
        let mut ids: Vec<(String, String, String)> = Vec::new();
        for db in self.catalog.list_databases()? {
            if !r.sees_database(&db)
                || !matches(&param, NameFilter::Like("databaseNamePattern"), &db)
            {
                continue;
            }
            let tables = match self.catalog.list_tables(&db).map_err(ApiError::from) {
                Ok(t) => t,
                // Dropped since the listing.
                Err(e) if e.status == 404 => continue,
                Err(e) => return Err(e),
            };
            for t in tables {
                if r.may(Access::Read, &db, Some(&t))
                    && matches(&param, NameFilter::Like("tableNamePattern"), &t)
                {
                    // Names hold no `/`: `db/table` sorts by database, then table.
                    ids.push((format!("{db}/{t}"), db.clone(), t));
                }
            }
        }
        let (items, next) = page(r, ids, |(n, _, _)| n.as_str(), NameFilter::None)?;
        let tables: Vec<Value> = items
            .iter()
            .map(|(_, db, t)| json!({"database": db, "object": t}))
            .collect();
        Ok(json!({"tables": tables, "nextPageToken": next}))
    }

    fn create_table(&self, r: &Request, db: &str) -> Answer {
        r.require_database(Access::Admin, db)?;
        let body = r.json()?;
        let id = identifier_of(&body, "identifier")?;
        if id.database != db {
            return Err(ApiError::bad_request(format!(
                "the identifier names database {:?}, the path {db:?}",
                id.database
            )));
        }
        let schema = body
            .get("schema")
            .ok_or_else(|| ApiError::bad_request("CreateTableRequest: no \"schema\""))?;
        let schema = messages::schema_from_json(schema, now_millis())?;
        self.catalog.create_table(&id, schema, false)?;
        Ok(json!({}))
    }

    fn table(&self, db: &str, t: &str) -> Result<(Identifier, Table), ApiError> {
        let id = Identifier::new(db, t);
        let table = self.catalog.get_table(&id).map_err(|e| {
            // A catalog that finds no table files says "not found" about a path: the answer
            // names the table, so clients map it to their table-missing error.
            let e = ApiError::from(e);
            if e.status == 404 && e.resource_type.is_none() {
                ApiError::not_found("TABLE", id.full_table_name(), e.message)
            } else {
                e
            }
        })?;
        Ok((id, table))
    }

    fn load_table(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (id, table) = self.table(db, t)?;
        let schema = table.schema();
        let mut s = messages::schema(schema);
        if let Some(o) = s.get_mut("options").and_then(Value::as_object_mut) {
            o.remove("path");
            if self.policies.covers(db, t) {
                o.insert(QUERY_AUTH_ENABLED.into(), Value::String("true".into()));
            }
        }
        Ok(json!({
            "id": table_id(&id),
            "database": db,
            "name": t,
            "path": table.path(),
            "isExternal": false,
            "schemaId": schema.id,
            "schema": s,
            "owner": null, "createdAt": schema.time_millis, "createdBy": null,
            "updatedAt": schema.time_millis, "updatedBy": null,
        }))
    }

    fn alter_table(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Admin, db, t)?;
        let body = r.json()?;
        let changes = body
            .get("changes")
            .and_then(Value::as_array)
            .ok_or_else(|| ApiError::bad_request("AlterTableRequest: no list \"changes\""))?
            .iter()
            .map(messages::schema_change_from_json)
            .collect::<Result<Vec<_>, _>>()?;
        self.catalog
            .alter_table(&Identifier::new(db, t), &changes, false)?;
        Ok(json!({}))
    }

    fn drop_table(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Admin, db, t)?;
        self.catalog.drop_table(&Identifier::new(db, t), false)?;
        Ok(json!({}))
    }

    fn rename_table(&self, r: &Request) -> Answer {
        let body = r.json()?;
        let from = messages::identifier_from_json(body.get("source").unwrap_or(&Value::Null))?;
        let to = messages::identifier_from_json(body.get("destination").unwrap_or(&Value::Null))?;
        r.require_table(Access::Admin, &from.database, &from.object)?;
        r.require_table(Access::Admin, &to.database, &to.object)?;
        self.catalog.rename_table(&from, &to, false)?;
        Ok(json!({}))
    }

    /// `POST .../commit` (Java `CommitTableRequest`): publishes the client's snapshot if it is
    /// the table's next one. `success: false` when another commit took that id first (the
    /// client then checks for conflicts and tries again with the next id).
    fn commit(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let (id, table) = self.table(db, t)?;
        if let Some(given) = body.get("tableId").and_then(Value::as_str) {
            if given != table_id(&id) {
                return Err(ApiError::not_found(
                    "TABLE",
                    t,
                    format!("table {id} is not the table {given:?} the commit was built for"),
                ));
            }
        }
        let snapshot = body
            .get("snapshot")
            .filter(|s| s.is_object())
            .ok_or_else(|| ApiError::bad_request("CommitTableRequest: no object \"snapshot\""))?;
        let what = format!("snapshot of the commit to {id}");
        let snapshot = Snapshot::from_json_str(&what, &snapshot.to_string())
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        // The manifest lists the snapshot names must be the table's own and written.
        let io = table.file_io();
        for list in [&snapshot.base_manifest_list, &snapshot.delta_manifest_list]
            .into_iter()
            .chain(snapshot.changelog_manifest_list.as_ref())
        {
            let path = table.layout().manifest_path(list);
            if !io.exists(&path).map_err(paimon_rs::meta::Error::from)? {
                return Err(ApiError::bad_request(format!(
                    "the snapshot names manifest list {list:?}, which the table does not hold"
                )));
            }
        }
        let lock = self.commit_lock(&id)?;
        let _held = lock
            .lock()
            .map_err(|_| ApiError::new(500, "commit lock poisoned"))?;
        let next = table.snapshot_manager().latest_id()?.map_or(1, |l| l + 1);
        if snapshot.id < next {
            return Ok(json!({"success": false}));
        }
        if snapshot.id > next {
            return Err(ApiError::bad_request(format!(
                "snapshot id {} is not the table's next snapshot id {next}",
                snapshot.id
            )));
        }
        if table.schema_manager().schema(snapshot.schema_id).is_err() {
            return Err(ApiError::bad_request(format!(
                "the snapshot names schema {}, which the table does not have",
                snapshot.schema_id
            )));
        }
        match RenamingSnapshotCommit.publish(&table, &snapshot)? {
            Published::Committed => Ok(json!({"success": true})),
            Published::Lost => Ok(json!({"success": false})),
            Published::Unknown(e) => Err(e.into()),
        }
    }

    /// The lock every commit to table `id` through this server holds.
    fn commit_lock(&self, id: &Identifier) -> Result<Arc<Mutex<()>>, ApiError> {
        let mut locks = self
            .commit_locks
            .lock()
            .map_err(|_| ApiError::new(500, "commit lock poisoned"))?;
        Ok(Arc::clone(locks.entry(id.full_table_name()).or_default()))
    }

    /// `GET .../snapshot` (Java `GetTableSnapshotResponse`): the latest snapshot; 404 with
    /// resource type `SNAPSHOT` when the table has none.
    fn latest_snapshot(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (id, table) = self.table(db, t)?;
        let Some(s) = table.snapshot_manager().latest()? else {
            return Err(ApiError::not_found(
                "SNAPSHOT",
                id.to_string(),
                "no snapshot",
            ));
        };
        Ok(json!({"snapshot": {
            "snapshot": snapshot_json(&s)?,
            "recordCount": s.total_record_count.unwrap_or(0),
            "fileSizeInBytes": 0,
            "fileCount": 0,
            "lastFileCreationTime": 0,
        }}))
    }

    /// `GET .../snapshots` (Java `ListSnapshotsResponse`): the table's snapshots in pages,
    /// oldest first (`maxResults`, `pageToken`; a snapshot's paging name is its id padded to
    /// 20 digits, so names sort as ids do).
    fn list_snapshots(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (_, table) = self.table(db, t)?;
        let snapshots = table.snapshots()?;
        let named: Vec<(String, &Snapshot)> = snapshots
            .iter()
            .map(|s| (format!("{:020}", s.id), s))
            .collect();
        let (items, next) = page(r, named, |(n, _)| n.as_str(), NameFilter::None)?;
        let snapshots = items
            .iter()
            .map(|(_, s)| snapshot_json(s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({"snapshots": snapshots, "nextPageToken": next}))
    }

    /// `GET .../snapshots/{version}` (Java `GetVersionSnapshotResponse`): `LATEST`,
    /// `EARLIEST`, a snapshot id or a tag name.
    fn snapshot(&self, r: &Request, db: &str, t: &str, version: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (id, table) = self.table(db, t)?;
        let sm = table.snapshot_manager();
        let found = match version {
            "LATEST" => sm.latest()?,
            "EARLIEST" => sm.earliest()?,
            v => match v.parse::<i64>() {
                Ok(n) => match sm.snapshot(n) {
                    Ok(s) => Some(s),
                    Err(paimon_rs::meta::Error::SnapshotNotFound { .. }) => None,
                    Err(e) => return Err(e.into()),
                },
                Err(_) => match table.tag_manager().tag(v) {
                    Ok(s) => Some(s),
                    Err(paimon_rs::meta::Error::TagNotFound { .. }) => None,
                    Err(e) => return Err(e.into()),
                },
            },
        };
        match found {
            Some(s) => Ok(json!({"snapshot": snapshot_json(&s)?})),
            None => Err(ApiError::not_found(
                "SNAPSHOT",
                id.to_string(),
                format!("no snapshot {version}"),
            )),
        }
    }

    /// `POST .../rollback` (Java `RollbackTableRequest`): to a snapshot id or a tag.
    fn rollback(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let (_, table) = self.table(db, t)?;
        let instant = body.get("instant").unwrap_or(&Value::Null);
        match instant.get("type").and_then(Value::as_str) {
            Some("snapshot") => {
                let n = instant
                    .get("snapshotId")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| ApiError::bad_request("rollback: no number \"snapshotId\""))?;
                table.rollback_to_snapshot(n)?;
            }
            Some("tag") => {
                let tag = str_field(instant, "rollback", "tagName")?;
                table.rollback_to_tag(tag)?;
            }
            _ => {
                return Err(ApiError::bad_request(
                    "rollback: \"instant\" is not {\"type\": \"snapshot\"|\"tag\", ...}",
                ))
            }
        }
        Ok(json!({}))
    }

    /// `POST .../auth` (Java `AuthTableQueryRequest` / `AuthTableQueryResponse`): the
    /// caller's row filter (Java predicate JSON) and column masks on the table; none for a
    /// caller without a policy on it. The masks cover every column the policy names, whatever
    /// the request's `select` (the reader applies those it returns or filters on).
    fn auth_table(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        if !r.body.is_empty() {
            let body = r.json()?;
            match body.get("select") {
                None | Some(Value::Null | Value::Array(_)) => {}
                Some(_) => {
                    return Err(ApiError::bad_request(
                        "AuthTableQueryRequest: \"select\" is not a list",
                    ))
                }
            }
        }
        let (_, table) = self.table(db, t)?;
        let auth = match &r.user {
            Some(u) => self
                .policies
                .auth(&u.name, db, t, table.schema())
                .map_err(|e| ApiError::new(500, e.to_string()))?,
            None => None,
        };
        let (filter, masks) = match auth {
            Some(a) => (a.filter, a.column_masking.unwrap_or_default()),
            None => (None, BTreeMap::new()),
        };
        Ok(json!({"filter": filter, "columnMasking": masks}))
    }

    /// `GET .../token` (Java `GetTableTokenResponse`): a local warehouse needs no
    /// credentials, so the token is empty.
    fn data_token(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        self.table(db, t)?;
        Ok(json!({"token": {}, "expiresAtMillis": now_millis() + 3_600_000}))
    }
}

/// 400 unless `name` is one plain name (the shared path rule of paimon-spec).
fn check_name(field: &str, name: &str) -> Result<(), ApiError> {
    paimon_rs::spec::layout::check_file_name(field, name)
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

/// An identifier of a request body, its names checked as [`check_name`].
fn identifier_of(body: &Value, key: &str) -> Result<Identifier, ApiError> {
    let id = messages::identifier_from_json(body.get(key).unwrap_or(&Value::Null))?;
    check_name("database", &id.database)?;
    check_name("table", &id.object)?;
    Ok(id)
}

fn not_found(r: &Request) -> ApiError {
    ApiError::new(
        404,
        format!("no resource {} /v1/{}", r.method, r.segments.join("/")),
    )
}

/// The id clients send back with commits: the table's full name.
fn table_id(id: &Identifier) -> String {
    id.full_table_name()
}

fn snapshot_json(s: &Snapshot) -> Result<Value, ApiError> {
    serde_json::from_str(&s.to_json())
        .map_err(|e| ApiError::new(500, format!("snapshot JSON does not parse: {e}")))
}

fn string_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, ApiError> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(ApiError::bad_request(format!("{what}.{k} is not a string"))),
            })
            .collect(),
        Some(_) => Err(ApiError::bad_request(format!("{what} is not an object"))),
    }
}

pub(super) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
