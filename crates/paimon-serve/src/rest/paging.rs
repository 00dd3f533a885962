//! Paged listings as the REST API defines them (Java `RESTApi.buildPagedQueryParams`):
//! `maxResults` (absent or 0: the server's default page), `pageToken` (the `nextPageToken` of
//! the previous page) and a name filter (`databaseNamePattern`, `tableNamePattern`,
//! `partitionNamePattern`: SQL `LIKE` with `%` and `_`; `tagNamePrefix`: a prefix).
//!
//! Items are listed sorted by name; a page token is `n:` and the hex of the last name
//! returned, so the next page starts after it whatever was added or removed in between. A
//! token of another form, or a `maxResults` that is not a count, is a 400.

use super::error::ApiError;
use super::request::Request;

/// The page size when a request gives none.
pub const DEFAULT_PAGE: usize = 1000;
/// The largest page a request may ask for.
pub const MAX_PAGE: usize = 10_000;

/// How a listing filters names.
#[derive(Debug, Clone, Copy)]
pub enum NameFilter {
    /// No filter.
    None,
    /// A query parameter holding a SQL `LIKE` pattern.
    Like(&'static str),
    /// A query parameter holding a prefix.
    Prefix(&'static str),
}

/// One page of `items` (any order; sorted here by `name`) for the request's paging
/// parameters: the items and the token of the next page (`None` on the last).
///
/// # Errors
/// 400 for a malformed `maxResults` or `pageToken`.
pub fn page<T>(
    r: &Request,
    items: Vec<T>,
    name: impl Fn(&T) -> &str,
    filter: NameFilter,
) -> Result<(Vec<T>, Option<String>), ApiError> {
    page_by(&|k| r.param(k).map(str::to_string), items, name, filter)
}

/// [`page`] with the paging parameters looked up by `param` (a request body's fields, as
/// `list-by-filter` sends them, instead of the query).
///
/// # Errors
/// As [`page`].
pub fn page_by<T>(
    param: &dyn Fn(&str) -> Option<String>,
    mut items: Vec<T>,
    name: impl Fn(&T) -> &str,
    filter: NameFilter,
) -> Result<(Vec<T>, Option<String>), ApiError> {
    let max = match param("maxResults").filter(|v| !v.is_empty()).as_deref() {
        None => DEFAULT_PAGE,
        Some(v) => match v.parse::<usize>() {
            Ok(0) => DEFAULT_PAGE,
            Ok(n) => n.min(MAX_PAGE),
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "maxResults {v:?} is not a count"
                )))
            }
        },
    };
    let after = match param("pageToken").filter(|t| !t.is_empty()).as_deref() {
        None => None,
        Some(t) => Some(decode_token(t).ok_or_else(|| {
            ApiError::bad_request(format!(
                "page token {t:?} is not one this server handed out"
            ))
        })?),
    };
    items.retain(|i| matches(param, filter, name(i)));
    items.sort_by(|a, b| name(a).cmp(name(b)));
    if let Some(after) = &after {
        items.retain(|i| name(i) > after.as_str());
    }
    let next = if items.len() > max {
        items.truncate(max);
        items.last().map(|i| encode_token(name(i)))
    } else {
        None
    };
    Ok((items, next))
}

/// Whether `name` passes `filter` with its pattern looked up by `param` (an absent or empty
/// pattern passes every name).
pub fn matches(param: &dyn Fn(&str) -> Option<String>, filter: NameFilter, name: &str) -> bool {
    match filter {
        NameFilter::None => true,
        NameFilter::Like(key) => param(key).filter(|p| !p.is_empty()).is_none_or(|p| {
            like(
                &name.chars().collect::<Vec<_>>(),
                &p.chars().collect::<Vec<_>>(),
            )
        }),
        NameFilter::Prefix(key) => param(key)
            .filter(|p| !p.is_empty())
            .is_none_or(|p| name.starts_with(&p)),
    }
}

fn encode_token(name: &str) -> String {
    let mut out = String::from("n:");
    for b in name.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn decode_token(token: &str) -> Option<String> {
    let hex = token.strip_prefix("n:")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// SQL `LIKE` without escapes: `%` any run, `_` any one character.
fn like(s: &[char], p: &[char]) -> bool {
    // Iterative matching with backtracking to the last `%`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        if j < p.len() && (p[j] == '_' || p[j] == s[i]) {
            i += 1;
            j += 1;
        } else if j < p.len() && p[j] == '%' {
            star = Some((j, i));
            j += 1;
        } else if let Some((sj, si)) = star {
            j = sj + 1;
            i = si + 1;
            star = Some((sj, si + 1));
        } else {
            return false;
        }
    }
    p[j..].iter().all(|c| *c == '%')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str) -> Request {
        Request {
            method: "GET".into(),
            segments: Vec::new(),
            query: super::super::request::parse_query(Some(query)).unwrap(),
            user: None,
            body: Vec::new(),
        }
    }

    fn names(query: &str, filter: NameFilter) -> Result<(Vec<String>, Option<String>), ApiError> {
        let items: Vec<String> = ["b", "a", "ab", "c", "abc"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        page(&req(query), items, |s| s.as_str(), filter)
    }

    #[test]
    fn pages_follow_tokens_in_name_order() {
        let (first, next) = names("maxResults=2", NameFilter::None).unwrap();
        assert_eq!(first, ["a", "ab"]);
        let next = next.unwrap();
        let (second, next) =
            names(&format!("maxResults=2&pageToken={next}"), NameFilter::None).unwrap();
        assert_eq!(second, ["abc", "b"]);
        let (third, last) = names(
            &format!("maxResults=2&pageToken={}", next.unwrap()),
            NameFilter::None,
        )
        .unwrap();
        assert_eq!(third, ["c"]);
        assert_eq!(last, None);
        assert_eq!(names("", NameFilter::None).unwrap().0.len(), 5);
    }

    #[test]
    fn patterns_and_prefixes() {
        let like = NameFilter::Like("tableNamePattern");
        assert_eq!(
            names("tableNamePattern=a%25", like).unwrap().0,
            ["a", "ab", "abc"]
        );
        assert_eq!(names("tableNamePattern=_b", like).unwrap().0, ["ab"]);
        assert_eq!(
            names("tableNamePattern=%25c", like).unwrap().0,
            ["abc", "c"]
        );
        let prefix = NameFilter::Prefix("tagNamePrefix");
        assert_eq!(names("tagNamePrefix=ab", prefix).unwrap().0, ["ab", "abc"]);
    }

    #[test]
    fn malformed_paging_is_a_400() {
        for q in [
            "pageToken=garbage",
            "pageToken=n:zz",
            "pageToken=n:6",
            "pageToken=n:ff",
            "maxResults=-1",
            "maxResults=ten",
        ] {
            assert_eq!(names(q, NameFilter::None).unwrap_err().status, 400, "{q}");
        }
    }
}
