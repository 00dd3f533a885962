//! Who may do what: the users of `paimon serve --auth FILE`.
//!
//! The file has one user per line, `TOKEN USER GRANTS`, separated by whitespace; blank lines and
//! lines starting with `#` are skipped. `GRANTS` is a comma list of `read`, `write` or `admin`,
//! each optionally scoped to a database (`read:sales`) or one table (`write:sales.orders`);
//! unscoped grants cover the whole catalog. Access levels nest: `admin` includes `write`, which
//! includes `read`. A token names one user; the same user may have several tokens.
//!
//! ```text
//! # token          user   grants
//! s3cr3t-alice     alice  admin
//! s3cr3t-bob       bob    read:sales,write:sales.orders
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// What a grant allows; each level includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// List, load, plan and read.
    Read,
    /// Read, and write and commit into existing tables.
    Write,
    /// Write, and create, alter and drop databases and tables, and manage policies.
    Admin,
}

impl Access {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "read" => Some(Self::Read),
            "write" => Some(Self::Write),
            "admin" => Some(Self::Admin),
            _ => None,
        }
    }
}

/// What a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every database and table of the catalog.
    Catalog,
    /// One database and all of its tables.
    Database(String),
    /// One table: database and table name.
    Table(String, String),
}

impl Scope {
    fn covers(&self, database: &str, table: Option<&str>) -> bool {
        match self {
            Scope::Catalog => true,
            Scope::Database(d) => d == database,
            Scope::Table(d, t) => d == database && table == Some(t.as_str()),
        }
    }

    fn touches(&self, database: &str) -> bool {
        match self {
            Scope::Catalog => true,
            Scope::Database(d) | Scope::Table(d, _) => d == database,
        }
    }
}

/// One entry of a user's grant list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grant {
    /// The level granted.
    pub access: Access,
    /// Where it holds.
    pub scope: Scope,
}

/// A user of the service, as its token names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The user name (what policies and logs name).
    pub name: String,
    /// What the user may do.
    pub grants: Vec<Grant>,
}

impl User {
    /// Whether the user may act at `access` on `database` (`table: None`: on the database
    /// itself, e.g. creating a table in it, which a grant on one of its tables does not cover).
    pub fn may(&self, access: Access, database: &str, table: Option<&str>) -> bool {
        self.grants
            .iter()
            .any(|g| g.access >= access && g.scope.covers(database, table))
    }

    /// Whether the user may act at `access` on the whole catalog (listing or creating
    /// databases).
    pub fn may_on_catalog(&self, access: Access) -> bool {
        self.grants
            .iter()
            .any(|g| g.access >= access && g.scope == Scope::Catalog)
    }

    /// Whether any grant of the user reaches into `database`: such a user sees the database
    /// in listings (and, inside it, only the tables [`User::may`] allows it to read).
    pub fn sees_database(&self, database: &str) -> bool {
        self.grants.iter().any(|g| g.scope.touches(database))
    }
}

/// A line of the auth file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum AuthFileError {
    /// The file could not be read.
    #[error("auth file {file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is not `TOKEN USER GRANTS`, or a grant is not `read|write|admin[:db[.table]]`.
    #[error("auth file {file}, line {line}: {reason}")]
    Line {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong (never the token itself).
        reason: String,
    },
}

/// The users of the service, by token.
#[derive(Clone, Default)]
pub struct Users {
    by_token: HashMap<String, User>,
}

impl fmt::Debug for Users {
    // Tokens are secrets: only the user names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.by_token.values().map(|u| u.name.as_str()).collect();
        names.sort_unstable();
        f.debug_struct("Users").field("users", &names).finish()
    }
}

impl Users {
    /// Reads an auth file.
    pub fn load(path: &Path) -> Result<Self, AuthFileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| AuthFileError::Io {
            file: file.clone(),
            source,
        })?;
        Self::parse(&text, &file)
    }

    /// Parses the text of an auth file; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, AuthFileError> {
        let mut by_token = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| AuthFileError::Line {
                file: file.to_string(),
                line: i + 1,
                reason,
            };
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [token, name, grants] = parts[..] else {
                return Err(bad(format!(
                    "expected `TOKEN USER GRANTS`, found {} fields",
                    parts.len()
                )));
            };
            let grants = grants
                .split(',')
                .map(|g| parse_grant(g).ok_or_else(|| bad(format!("bad grant '{g}': expected read, write or admin, optionally followed by :database or :database.table"))))
                .collect::<Result<Vec<_>, _>>()?;
            let user = User {
                name: name.to_string(),
                grants,
            };
            if by_token.insert(token.to_string(), user).is_some() {
                return Err(bad("a token used on an earlier line".to_string()));
            }
        }
        Ok(Self { by_token })
    }

    /// The user a bearer token names, if any. Every stored token is compared in full, so the
    /// time taken does not say how much of a wrong token matched.
    pub fn authenticate(&self, token: &str) -> Option<&User> {
        let mut found = None;
        for (t, user) in &self.by_token {
            if constant_time_eq(t.as_bytes(), token.as_bytes()) {
                found = Some(user);
            }
        }
        found
    }

    /// Whether a user of this name has a token.
    pub fn has_user(&self, name: &str) -> bool {
        self.by_token.values().any(|u| u.name == name)
    }

    /// Whether no user is configured.
    pub fn is_empty(&self) -> bool {
        self.by_token.is_empty()
    }
}

fn parse_grant(g: &str) -> Option<Grant> {
    let (access, scope) = match g.split_once(':') {
        None => (g, Scope::Catalog),
        Some((access, target)) => {
            let scope = match target.split_once('.') {
                None if !target.is_empty() => Scope::Database(target.to_string()),
                Some((d, t)) if !d.is_empty() && !t.is_empty() && !t.contains('.') => {
                    Scope::Table(d.to_string(), t.to_string())
                }
                _ => return None,
            };
            (access, scope)
        }
    };
    Some(Grant {
        access: Access::parse(access)?,
        scope,
    })
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# token user grants\n\
        tok-alice alice admin\n\
        \n\
        tok-bob   bob   read:sales,write:sales.orders\n\
        tok-carol carol read:hr.people\n";

    #[test]
    fn grants_nest_and_scope() {
        let users = Users::parse(FILE, "auth").unwrap();
        let alice = users.authenticate("tok-alice").unwrap();
        assert_eq!(alice.name, "alice");
        assert!(alice.may(Access::Admin, "any", None));
        assert!(alice.may_on_catalog(Access::Admin));

        let bob = users.authenticate("tok-bob").unwrap();
        assert!(bob.may(Access::Read, "sales", Some("customers")));
        assert!(bob.may(Access::Write, "sales", Some("orders")));
        assert!(!bob.may(Access::Write, "sales", Some("customers")));
        assert!(!bob.may(Access::Read, "hr", Some("people")));
        assert!(!bob.may(Access::Write, "sales", None));
        assert!(!bob.may_on_catalog(Access::Read));
        assert!(bob.sees_database("sales") && !bob.sees_database("hr"));

        let carol = users.authenticate("tok-carol").unwrap();
        assert!(carol.may(Access::Read, "hr", Some("people")));
        assert!(!carol.may(Access::Read, "hr", Some("salaries")));
        assert!(!carol.may(Access::Read, "hr", None));
        assert!(carol.sees_database("hr"));

        assert!(users.authenticate("tok-alic").is_none());
        assert!(users.authenticate("tok-alice2").is_none());
        assert!(users.authenticate("").is_none());
    }

    #[test]
    fn bad_lines_name_the_line_and_never_the_token() {
        for (text, line, reason) in [
            ("t1 alice\n", 1, "found 2 fields"),
            ("t1 a read\nt2 b read:x.y.z\n", 2, "bad grant 'read:x.y.z'"),
            ("t1 a owner\n", 1, "bad grant 'owner'"),
            ("t1 a read:\n", 1, "bad grant 'read:'"),
            ("t1 a read\n#\nt1 b read\n", 3, "earlier line"),
        ] {
            let err = Users::parse(text, "users.txt").unwrap_err().to_string();
            assert!(err.contains(&format!("users.txt, line {line}")), "{err}");
            assert!(err.contains(reason), "{err}");
            assert!(!err.contains("t1"), "{err}");
        }
    }

    #[test]
    fn debug_hides_tokens() {
        let users = Users::parse(FILE, "auth").unwrap();
        let shown = format!("{users:?}");
        assert!(
            shown.contains("alice") && !shown.contains("tok-"),
            "{shown}"
        );
    }
}
