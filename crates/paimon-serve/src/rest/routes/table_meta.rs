//! A table's partitions, tags and branches (Java `ResourcePaths.partitions`,
//! `listPartitionsByNames`, `tags`, `tag`, `renameBranch`,
//! `branches`, `branch`, `forwardBranch`), a database's `table-details`, and the view and
//! function listings, which answer empty lists: views and functions are not kept here.
//!
//! Listings are paged ([`super::super::paging`]). Reading needs the table's `read` grant;
//! creating and deleting tags and branches, and fast-forwarding, its `write` grant (as a
//! rollback does).

use std::collections::{BTreeMap, BTreeSet};

use paimon_rs::meta::catalog::{BranchStart, Identifier, Partition};
use paimon_rs::meta::Error as MetaError;
use serde_json::{json, Value};

use super::super::error::ApiError;
use super::super::paging::{page, NameFilter};
use super::super::request::{str_field, Request};
use super::{Answer, Service};
use crate::auth::Access;
use paimon_rs::meta::catalog::rest::messages;

/// The most partition specs one `list-by-names` request may name (Java's client sends at most
/// as many).
pub(super) const MAX_SPECS: usize = 1000;

/// A partition's name for `partitionNamePattern`: `k1=v1/k2=v2` in the table's key order.
pub(super) fn partition_name(p: &Partition, keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("{k}={}", p.spec.get(k).map_or("", String::as_str)))
        .collect::<Vec<_>>()
        .join("/")
}

impl Service {
    /// `GET .../partitions` (Java `ListPartitionsResponse`): the latest snapshot's partitions
    /// with their statistics, as Java's `listPartitionEntries` sums them.
    pub(super) fn list_partitions(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let (id, table) = self.table(db, t)?;
        let keys = table.schema().partition_keys.clone();
        let named: Vec<(String, Partition)> = self
            .catalog
            .list_partitions(&id)?
            .into_iter()
            .map(|p| (partition_name(&p, &keys), p))
            .collect();
        let (items, next) = page(
            r,
            named,
            |(n, _)| n.as_str(),
            NameFilter::Like("partitionNamePattern"),
        )?;
        let partitions: Vec<Value> = items.iter().map(|(_, p)| messages::partition(p)).collect();
        Ok(json!({"partitions": partitions, "nextPageToken": next}))
    }

    /// `POST .../partitions/list-by-names` (Java `ListPartitionsByNamesRequest`, answered as
    /// `ListPartitionsResponse`): the latest snapshot's partitions whose spec equals one of the
    /// request's `specs` (every partition key, values as text), sorted by name, in one page.
    /// Specs naming no partition are left out; more than [`MAX_SPECS`] specs, or specs that are
    /// not objects of strings, are a 400.
    pub(super) fn list_partitions_by_names(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let body = r.json()?;
        let wanted: BTreeSet<_> = specs_of(&body, "specs", "ListPartitionsByNamesRequest", false)?
            .into_iter()
            .collect();
        let (id, table) = self.table(db, t)?;
        let keys = table.schema().partition_keys.clone();
        let mut found: Vec<(String, Partition)> = self
            .catalog
            .list_partitions(&id)?
            .into_iter()
            .filter(|p| wanted.contains(&p.spec))
            .map(|p| (partition_name(&p, &keys), p))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let partitions: Vec<Value> = found.iter().map(|(_, p)| messages::partition(p)).collect();
        Ok(json!({"partitions": partitions, "nextPageToken": null}))
    }

    /// `GET .../tags` (Java `ListTagsResponse`), filtered by `tagNamePrefix`.
    pub(super) fn list_tags(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let tags = self.catalog.list_tags(&Identifier::new(db, t))?;
        let (tags, next) = page(r, tags, String::as_str, NameFilter::Prefix("tagNamePrefix"))?;
        Ok(json!({"tags": tags, "nextPageToken": next}))
    }

    /// `GET .../tags/{tag}` (Java `GetTagResponse`); 404 `TAG` when it does not exist.
    pub(super) fn get_tag(&self, r: &Request, db: &str, t: &str, tag: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let id = Identifier::new(db, t);
        let found = self
            .catalog
            .get_tag(&id, tag)
            .map_err(|e| tag_error(e, tag))?;
        Ok(messages::tag(tag, &found)?)
    }

    /// `POST .../tags` (Java `CreateTagRequest`): `snapshotId` (the latest when absent) and
    /// `timeRetained` (a duration such as `1 d` or `12h`); 409 when the tag exists, 404 when
    /// the snapshot does not.
    pub(super) fn create_tag(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let name = str_field(&body, "CreateTagRequest", "tagName")?;
        let snapshot_id = match body.get("snapshotId") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_i64().ok_or_else(|| {
                ApiError::bad_request("CreateTagRequest: \"snapshotId\" is not a number")
            })?),
        };
        let retained = match body.get("timeRetained") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(paimon_rs::spec::options::parse_duration_millis)
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "CreateTagRequest: \"timeRetained\" {v} is not a duration"
                        ))
                    })?,
            ),
        };
        let id = Identifier::new(db, t);
        let (_, table) = self.table(db, t)?;
        if table.tag_manager().exists(name)? {
            return Err(ApiError::exists("TAG", name, format!("tag {name} exists")));
        }
        self.catalog.create_tag(&id, name, snapshot_id, retained)?;
        Ok(json!({}))
    }

    /// `DELETE .../tags/{tag}`; 404 `TAG` when it does not exist.
    pub(super) fn delete_tag(&self, r: &Request, db: &str, t: &str, tag: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        self.catalog
            .delete_tag(&Identifier::new(db, t), tag)
            .map_err(|e| tag_error(e, tag))?;
        Ok(json!({}))
    }

    /// `GET .../branches` (Java `ListBranchesResponse`).
    pub(super) fn list_branches(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Read, db, t)?;
        let branches = self.catalog.list_branches(&Identifier::new(db, t))?;
        let (branches, next) = page(r, branches, String::as_str, NameFilter::None)?;
        Ok(json!({"branches": branches, "nextPageToken": next}))
    }

    /// `POST .../branches` (Java `CreateBranchRequest`): empty, or from `fromTag`; 409 when
    /// the branch exists, 404 `TAG` when the tag does not.
    pub(super) fn create_branch(&self, r: &Request, db: &str, t: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let name = str_field(&body, "CreateBranchRequest", "branch")?;
        let start = match body.get("fromTag") {
            None | Some(Value::Null) => BranchStart::Empty,
            Some(Value::String(tag)) => BranchStart::Tag(tag.clone()),
            Some(_) => {
                return Err(ApiError::bad_request(
                    "CreateBranchRequest: \"fromTag\" is not a string",
                ))
            }
        };
        let id = Identifier::new(db, t);
        if self.catalog.list_branches(&id)?.iter().any(|b| b == name) {
            return Err(ApiError::exists(
                "BRANCH",
                name,
                format!("branch {name} exists"),
            ));
        }
        let from_tag = match &start {
            BranchStart::Tag(tag) => tag.clone(),
            _ => String::new(),
        };
        self.catalog
            .create_branch(&id, name, &start)
            .map_err(|e| tag_error(e, &from_tag))?;
        Ok(json!({}))
    }

    /// `DELETE .../branches/{branch}`; 404 `BRANCH` when it does not exist.
    pub(super) fn drop_branch(&self, r: &Request, db: &str, t: &str, branch: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let id = Identifier::new(db, t);
        self.require_branch(&id, branch)?;
        self.catalog.drop_branch(&id, branch)?;
        Ok(json!({}))
    }

    /// `POST .../branches/{branch}/forward` (Java `ForwardBranchRequest`); 404 `BRANCH`
    /// when it does not exist.
    pub(super) fn forward_branch(&self, r: &Request, db: &str, t: &str, branch: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let id = Identifier::new(db, t);
        self.require_branch(&id, branch)?;
        self.catalog.fast_forward(&id, branch)?;
        Ok(json!({}))
    }

    /// `POST .../branches/{branch}/rename` (Java `RenameBranchRequest`, `toBranch`); 404
    /// `BRANCH` when the branch does not exist, 409 when `toBranch` does.
    pub(super) fn rename_branch(&self, r: &Request, db: &str, t: &str, branch: &str) -> Answer {
        r.require_table(Access::Write, db, t)?;
        let body = r.json()?;
        let to = str_field(&body, "RenameBranchRequest", "toBranch")?;
        let id = Identifier::new(db, t);
        self.require_branch(&id, branch)?;
        if self.catalog.list_branches(&id)?.iter().any(|b| b == to) {
            return Err(ApiError::exists(
                "BRANCH",
                to,
                format!("table {id} has a branch {to}"),
            ));
        }
        self.catalog.rename_branch(&id, branch, to)?;
        Ok(json!({}))
    }

    fn require_branch(&self, id: &Identifier, branch: &str) -> Result<(), ApiError> {
        if self.catalog.list_branches(id)?.iter().any(|b| b == branch) {
            Ok(())
        } else {
            Err(ApiError::not_found(
                "BRANCH",
                branch,
                format!("table {id} has no branch {branch}"),
            ))
        }
    }

    /// `GET .../databases/{db}/table-details` (Java `ListTableDetailsResponse`): what loading
    /// each table the caller may read answers, paged, filtered by `tableNamePattern`.
    pub(super) fn list_table_details(&self, r: &Request, db: &str) -> Answer {
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
        let mut details = Vec::with_capacity(tables.len());
        for t in &tables {
            match self.load_table(r, db, t) {
                Ok(v) => details.push(v),
                // Dropped since the listing.
                Err(e) if e.status == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(json!({"tableDetails": details, "nextPageToken": next}))
    }

    /// `GET .../databases/{db}/{views|view-details|functions|function-details}`: no views or
    /// functions are kept here, so each lists none (a missing database is still a 404).
    pub(super) fn list_none(&self, r: &Request, db: &str, key: &str) -> Answer {
        if !r.sees_database(db) {
            return Err(ApiError::forbidden("DATABASE", db, "read"));
        }
        self.catalog.get_database(db)?;
        page(r, Vec::<String>::new(), String::as_str, NameFilter::None)?;
        Ok(json!({ key: [], "nextPageToken": null }))
    }
}

/// A missing tag as a 404 about the tag (the catalogs name it `TagNotFound` or, through
/// REST, a missing `tag` object).
fn tag_error(e: MetaError, tag: &str) -> ApiError {
    match e {
        MetaError::TagNotFound { .. } => {
            ApiError::not_found("TAG", tag, format!("no tag {tag}: {e}"))
        }
        e => e.into(),
    }
}

/// The partition specs under `key` of a `request` body: each an object of strings (with at
/// least one key when `non_empty`), at most [`MAX_SPECS`]. Anything else is a 400 naming the
/// request.
pub(super) fn specs_of(
    body: &Value,
    key: &str,
    request: &str,
    non_empty: bool,
) -> Result<Vec<BTreeMap<String, String>>, ApiError> {
    let specs = body
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::bad_request(format!("{request}: no array \"{key}\"")))?;
    if specs.len() > MAX_SPECS {
        return Err(ApiError::bad_request(format!(
            "{request}: {} specs, at most {MAX_SPECS}",
            specs.len()
        )));
    }
    let what = if non_empty {
        "a non-empty object"
    } else {
        "an object"
    };
    specs
        .iter()
        .map(|s| {
            s.as_object()
                .filter(|o| !(non_empty && o.is_empty()))
                .and_then(|o| {
                    o.iter()
                        .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                        .collect::<Option<BTreeMap<_, _>>>()
                })
                .ok_or_else(|| {
                    ApiError::bad_request(format!("{request}: spec {s} is not {what} of strings"))
                })
        })
        .collect()
}
