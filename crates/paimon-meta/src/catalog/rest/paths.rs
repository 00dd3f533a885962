//! The REST API's resource paths (Java `ResourcePaths`), each name encoded as Java's
//! `RESTUtil.encodeString` (`URLEncoder`, UTF-8) does.

/// Paths under `/v1/<prefix>`.
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    base: String,
}

/// Java `URLEncoder.encode(s, UTF-8)`: letters, digits and `.-*_` stay, a space becomes `+`,
/// every other byte `%XX`.
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl Paths {
    /// Paths for the server's `prefix` (from `GET /v1/config`; empty for none).
    pub(crate) fn new(prefix: Option<&str>) -> Self {
        let base = match prefix.filter(|p| !p.is_empty()) {
            Some(p) => format!("/v1/{}", encode(p)),
            None => "/v1".to_string(),
        };
        Paths { base }
    }

    /// `GET /v1/config`.
    pub(crate) fn config() -> &'static str {
        "/v1/config"
    }

    pub(crate) fn databases(&self) -> String {
        format!("{}/databases", self.base)
    }

    pub(crate) fn database(&self, db: &str) -> String {
        format!("{}/databases/{}", self.base, encode(db))
    }

    pub(crate) fn tables(&self, db: &str) -> String {
        format!("{}/tables", self.database(db))
    }

    pub(crate) fn table(&self, db: &str, table: &str) -> String {
        format!("{}/tables/{}", self.database(db), encode(table))
    }

    pub(crate) fn rename_table(&self) -> String {
        format!("{}/tables/rename", self.base)
    }

    pub(crate) fn commit_table(&self, db: &str, table: &str) -> String {
        format!("{}/commit", self.table(db, table))
    }

    pub(crate) fn auth_table(&self, db: &str, table: &str) -> String {
        format!("{}/auth", self.table(db, table))
    }

    pub(crate) fn table_token(&self, db: &str, table: &str) -> String {
        format!("{}/token", self.table(db, table))
    }

    pub(crate) fn partitions(&self, db: &str, table: &str) -> String {
        format!("{}/partitions", self.table(db, table))
    }

    pub(crate) fn tags(&self, db: &str, table: &str) -> String {
        format!("{}/tags", self.table(db, table))
    }

    pub(crate) fn tag(&self, db: &str, table: &str, tag: &str) -> String {
        format!("{}/{}", self.tags(db, table), encode(tag))
    }

    pub(crate) fn branches(&self, db: &str, table: &str) -> String {
        format!("{}/branches", self.table(db, table))
    }

    pub(crate) fn branch(&self, db: &str, table: &str, branch: &str) -> String {
        format!("{}/{}", self.branches(db, table), encode(branch))
    }

    pub(crate) fn forward_branch(&self, db: &str, table: &str, branch: &str) -> String {
        format!("{}/forward", self.branch(db, table, branch))
    }

    pub(crate) fn rename_branch(&self, db: &str, table: &str, branch: &str) -> String {
        format!("{}/rename", self.branch(db, table, branch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_encoding_are_javas() {
        assert_eq!(encode("a b/c$d.é"), "a+b%2Fc%24d.%C3%A9");
        let p = Paths::new(Some("paimon"));
        assert_eq!(p.databases(), "/v1/paimon/databases");
        assert_eq!(
            p.commit_table("db", "t$branch_b"),
            "/v1/paimon/databases/db/tables/t%24branch_b/commit"
        );
        assert_eq!(p.rename_table(), "/v1/paimon/tables/rename");
        assert_eq!(
            p.forward_branch("db", "t", "b 1"),
            "/v1/paimon/databases/db/tables/t/branches/b+1/forward"
        );
        assert_eq!(
            p.tag("db", "t", "t/1"),
            "/v1/paimon/databases/db/tables/t/tags/t%2F1"
        );
        assert_eq!(
            p.partitions("db", "t"),
            "/v1/paimon/databases/db/tables/t/partitions"
        );
        assert_eq!(
            Paths::new(None).table_token("d", "t"),
            "/v1/databases/d/tables/t/token"
        );
    }
}
