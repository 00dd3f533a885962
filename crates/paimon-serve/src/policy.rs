//! Row filters and column masks per user and table: `paimon serve --policies FILE`.
//!
//! The file is JSON:
//!
//! ```json
//! {"policies": [
//!   {"user": "bob", "table": "sales.orders",
//!    "rowFilter": "region = 'eu' AND amount < 1000",
//!    "columnMasks": {"phone": {"name": "CONCAT", "inputs": ["****"]}}}
//! ]}
//! ```
//!
//! `user` names a user of the auth file, `table` a `database.table`; `rowFilter` (optional) is a
//! SQL predicate over the table's columns (the syntax of `paimon read --filter`), `columnMasks`
//! (optional) maps a column to a masking transform in Java Paimon's JSON form (`Transform`:
//! `NULL`, `CONCAT`, `CONCAT_WS`, `UPPER`, `LOWER`, `FIELD_REF`; field references as
//! `{"index": i, "name": "col", "type": "STRING"}`). Unknown keys are errors, so a misspelt rule
//! never reads as no rule.
//!
//! A table any policy names carries `query-auth.enabled = true` in the options the REST
//! server returns, which makes Java's, pypaimon's and our REST clients ask the `auth`
//! endpoint ([`Policies::auth`]) before they plan: the answer (Java `AuthTableQueryResponse`)
//! holds the caller's row filter as Java's predicate JSON and its masks, which the clients put
//! into every split (Java `QueryAuthSplit`) so that every reader applies them. Flight SQL puts
//! the same rules into its scan tickets.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use paimon_rs::spec::layout::check_file_name;
use paimon_rs::spec::predicate::sql::parse_sql_filter;
use paimon_rs::spec::predicate_json::{predicate_to_json, transform_from_json};
use paimon_rs::spec::schema::TableSchema;
use paimon_rs::split::frame::QueryAuth;
use serde_json::Value;

use crate::auth::Users;

/// What is wrong with a policies file.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// The file could not be read.
    #[error("policies file {file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not what the module docs describe.
    #[error("policies file {file}: {reason}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong, naming the policy (by position, user and table) and field.
        reason: String,
    },
}

/// A rule that cannot be applied to the table as it is now (a filter naming a column the
/// table no longer has, a literal of the wrong type).
#[derive(Debug, thiserror::Error)]
#[error("the policy of user {user} on {table}: {reason}")]
pub struct PolicyError {
    /// The user.
    pub user: String,
    /// `database.table`.
    pub table: String,
    /// What does not fit.
    pub reason: String,
}

/// One user's rules on one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The row filter, SQL predicate text.
    pub row_filter: Option<String>,
    /// Column to Java's masking-transform JSON.
    pub column_masks: BTreeMap<String, String>,
}

/// The policies of the service, by user and table.
#[derive(Debug, Clone, Default)]
pub struct Policies {
    by_user_table: BTreeMap<(String, String, String), Policy>,
    tables: HashSet<(String, String)>,
}

impl Policies {
    /// Reads a policies file whose users must be users of `users`.
    ///
    /// # Errors
    /// The file cannot be read or is not a policies file (see the module docs).
    pub fn load(path: &Path, users: &Users) -> Result<Self, PolicyFileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyFileError::Io {
            file: file.clone(),
            source,
        })?;
        Self::parse(&text, &file, users)
    }

    /// Parses the text of a policies file; `file` names it in errors.
    ///
    /// # Errors
    /// [`PolicyFileError::Invalid`] naming what is wrong: not JSON, an unknown key, a user the
    /// auth file does not have (or no auth file at all), a table that is not
    /// `database.table`, a row filter that is not a SQL expression, a mask that is not one of
    /// Java's transforms, two policies for the same user and table.
    pub fn parse(text: &str, file: &str, users: &Users) -> Result<Self, PolicyFileError> {
        let invalid = |reason: String| PolicyFileError::Invalid {
            file: file.to_string(),
            reason,
        };
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let root = v
            .as_object()
            .ok_or_else(|| invalid("expected an object {\"policies\": [...]}".into()))?;
        if let Some(k) = root.keys().find(|k| *k != "policies") {
            return Err(invalid(format!(
                "unknown key {k:?} (expected \"policies\")"
            )));
        }
        let list = root
            .get("policies")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("\"policies\" is not a list".into()))?;
        if !list.is_empty() && users.is_empty() {
            return Err(invalid(
                "policies name users of the auth file: give --auth FILE too".into(),
            ));
        }
        let mut out = Policies::default();
        for (i, p) in list.iter().enumerate() {
            let (user, db, table, policy) =
                parse_policy(p, users).map_err(|r| invalid(format!("policy {i}: {r}")))?;
            out.tables.insert((db.clone(), table.clone()));
            if out
                .by_user_table
                .insert((user.clone(), db.clone(), table.clone()), policy)
                .is_some()
            {
                return Err(invalid(format!(
                    "policy {i}: a second policy of user {user} on {db}.{table}"
                )));
            }
        }
        Ok(out)
    }

    /// Whether any policy names `database.table` (such a table carries
    /// `query-auth.enabled = true`).
    pub fn covers(&self, database: &str, table: &str) -> bool {
        self.tables
            .contains(&(database.to_string(), table.to_string()))
    }

    /// Whether `user` has a policy on any table.
    pub fn has_user(&self, user: &str) -> bool {
        self.by_user_table.keys().any(|(u, _, _)| u == user)
    }

    /// The policy of `user` on `database.table`, if any.
    pub fn policy(&self, user: &str, database: &str, table: &str) -> Option<&Policy> {
        self.by_user_table
            .get(&(user.to_string(), database.to_string(), table.to_string()))
    }

    /// Checks every policy against the schema of its table, for the tables that exist
    /// (`schema_of` returns `None` for a table that does not exist yet: its policy is typed
    /// when it is asked for).
    ///
    /// # Errors
    /// The first policy that does not fit its table.
    pub fn check(
        &self,
        mut schema_of: impl FnMut(&str, &str) -> Option<TableSchema>,
    ) -> Result<(), PolicyError> {
        for (user, db, table) in self.by_user_table.keys() {
            if let Some(schema) = schema_of(db, table) {
                self.auth(user, db, table, &schema)?;
            }
        }
        Ok(())
    }

    /// The rules of `user` on `database.table` as Java's `TableQueryAuthResult` carries them:
    /// the row filter typed against `schema` and written as Java's predicate JSON, and the
    /// masks; `None` when the user has no policy on the table.
    ///
    /// # Errors
    /// A filter that does not type against `schema`, a mask of a column it does not have.
    pub fn auth(
        &self,
        user: &str,
        database: &str,
        table: &str,
        schema: &TableSchema,
    ) -> Result<Option<QueryAuth>, PolicyError> {
        let Some(policy) = self.policy(user, database, table) else {
            return Ok(None);
        };
        let bad = |reason: String| PolicyError {
            user: user.to_string(),
            table: format!("{database}.{table}"),
            reason,
        };
        let filter = match &policy.row_filter {
            None => None,
            Some(text) => {
                let p = parse_sql_filter(text, schema).map_err(|e| bad(e.to_string()))?;
                let json = predicate_to_json(&p, &schema.fields)
                    .map_err(|e| bad(format!("row filter {text:?}: {e}")))?;
                Some(vec![json])
            }
        };
        for (column, json) in &policy.column_masks {
            let t = transform_from_json(json).map_err(|e| bad(e.to_string()))?;
            for c in std::iter::once(column.as_str()).chain(t.columns()) {
                if schema.field(c).is_none() {
                    return Err(bad(format!(
                        "the mask of {column} names {c}, which is not a column of the table"
                    )));
                }
            }
        }
        Ok(Some(QueryAuth {
            filter,
            column_masking: (!policy.column_masks.is_empty()).then(|| policy.column_masks.clone()),
        }))
    }
}

type Parsed = (String, String, String, Policy);

/// The keys of one policy.
const KEYS: [&str; 4] = ["user", "table", "rowFilter", "columnMasks"];

fn parse_policy(p: &Value, users: &Users) -> Result<Parsed, String> {
    let o = p.as_object().ok_or("not an object")?;
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key {k:?} (expected user, table, rowFilter, columnMasks)"
        ));
    }
    let user = o
        .get("user")
        .and_then(Value::as_str)
        .ok_or("no string \"user\"")?
        .to_string();
    if !users.has_user(&user) {
        return Err(format!("user {user:?} is not a user of the auth file"));
    }
    let name = o
        .get("table")
        .and_then(Value::as_str)
        .ok_or("no string \"table\"")?;
    let (db, table) = name
        .split_once('.')
        .ok_or_else(|| format!("table {name:?} is not database.table"))?;
    for (field, n) in [("database", db), ("table", table)] {
        check_file_name(field, n).map_err(|e| format!("table {name:?}: {e}"))?;
    }
    let row_filter = match o.get("rowFilter") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            Parser::new(&GenericDialect {})
                .try_with_sql(s)
                .and_then(|mut p| p.parse_expr())
                .map_err(|e| format!("rowFilter {s:?} is not a SQL expression: {e}"))?;
            Some(s.clone())
        }
        Some(_) => return Err("rowFilter is not a string".into()),
    };
    let mut column_masks = BTreeMap::new();
    match o.get("columnMasks") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (column, t) in m {
                if !t.is_object() {
                    return Err(format!(
                        "the mask of {column} is not a transform object (e.g. {{\"name\": \"NULL\"}})"
                    ));
                }
                let json = t.to_string();
                transform_from_json(&json).map_err(|e| format!("the mask of {column}: {e}"))?;
                column_masks.insert(column.clone(), json);
            }
        }
        Some(_) => return Err("columnMasks is not an object".into()),
    }
    if row_filter.is_none() && column_masks.is_empty() {
        return Err(format!(
            "the policy of {user} on {name} has neither rowFilter nor columnMasks"
        ));
    }
    Ok((
        user,
        db.to_string(),
        table.to_string(),
        Policy {
            row_filter,
            column_masks,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const USERS: &str = "tok-a alice admin\ntok-b bob read\n";

    fn schema() -> TableSchema {
        TableSchema::from_json_str(
            r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"v","type":"STRING"}],"partitionKeys":[],"primaryKeys":[],"options":{}}"#,
        )
        .unwrap()
    }

    #[test]
    fn rules_become_javas_json() {
        let users = Users::parse(USERS, "auth").unwrap();
        let text = r#"{"policies": [{"user": "bob", "table": "db.t", "rowFilter": "id >= 3",
            "columnMasks": {"v": {"name": "UPPER", "inputs": [{"index": 1, "name": "v", "type": "STRING"}]}}}]}"#;
        let p = Policies::parse(text, "pol.json", &users).unwrap();
        assert!(p.covers("db", "t") && !p.covers("db", "u"));
        let auth = p.auth("bob", "db", "t", &schema()).unwrap().unwrap();
        let filter = auth.filter.unwrap();
        assert_eq!(filter.len(), 1);
        let f: Value = serde_json::from_str(&filter[0]).unwrap();
        assert_eq!(f["function"], "GREATER_OR_EQUAL");
        assert_eq!(f["literals"], serde_json::json!([3]));
        assert_eq!(f["transform"]["fieldRef"]["name"], "id");
        let masks = auth.column_masking.unwrap();
        let m: Value = serde_json::from_str(&masks["v"]).unwrap();
        assert_eq!(m["name"], "UPPER");
        assert!(p.auth("alice", "db", "t", &schema()).unwrap().is_none());
    }

    #[test]
    fn malformed_files_name_what_is_wrong() {
        let users = Users::parse(USERS, "auth").unwrap();
        for (text, needle) in [
            ("[", "not JSON"),
            (r#"{"policy": []}"#, "unknown key \"policy\""),
            (
                r#"{"policies": [{"user": "carol", "table": "db.t", "rowFilter": "id > 1"}]}"#,
                "user \"carol\" is not a user",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "t", "rowFilter": "id > 1"}]}"#,
                "not database.table",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "db.t", "rowfilter": "id > 1"}]}"#,
                "unknown key \"rowfilter\"",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "db.t", "rowFilter": "id >"}]}"#,
                "is not a SQL expression",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "db.t", "columnMasks": {"v": {"name": "HASH"}}}]}"#,
                "the mask of v",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "db.t"}]}"#,
                "neither rowFilter nor columnMasks",
            ),
            (
                r#"{"policies": [{"user": "bob", "table": "db.t", "rowFilter": "id > 1"},
                   {"user": "bob", "table": "db.t", "rowFilter": "id > 2"}]}"#,
                "policy 1: a second policy",
            ),
        ] {
            let e = Policies::parse(text, "pol.json", &users)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("policies file pol.json: "), "{e}");
            assert!(e.contains(needle), "{needle}: {e}");
        }
        let e = Policies::parse(
            r#"{"policies": [{"user": "bob", "table": "db.t", "rowFilter": "id > 1"}]}"#,
            "pol.json",
            &Users::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("give --auth FILE too"), "{e}");
    }

    #[test]
    fn a_rule_that_does_not_fit_the_table_is_an_error() {
        let users = Users::parse(USERS, "auth").unwrap();
        let text = r#"{"policies": [{"user": "bob", "table": "db.t", "rowFilter": "nope = 1"}]}"#;
        let p = Policies::parse(text, "pol.json", &users).unwrap();
        let e = p.check(|_, _| Some(schema())).unwrap_err().to_string();
        assert!(
            e.starts_with("the policy of user bob on db.t:") && e.contains("nope"),
            "{e}"
        );
        assert!(p.check(|_, _| None).is_ok());
    }
}
