//! DLF signing against the values Java 1.4.2 computes: the signature `DLFAuthSignatureTest`
//! pins, and signatures of Java's `DLFDefaultSigner` / `DLFOpenApiSigner` for the inputs
//! below (computed with the oracle jar's classes, `interop/java/target/paimon-oracle.jar`,
//! the OpenAPI nonce fixed as Java's `DLFRequestSignerTest` fixes it).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};

use super::signer::url_decode;
use super::*;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn token(id: &str, secret: &str, st: Option<&str>) -> DlfToken {
    DlfToken {
        access_key_id: id.into(),
        access_key_secret: secret.into(),
        security_token: st.map(str::to_string),
        expires_at_millis: None,
    }
}

fn options(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Signs `req` as `signer` at `now` and returns the headers by name.
fn signed(
    signer: &Signer,
    req: &SignRequest<'_>,
    tok: &DlfToken,
    now: &str,
    host: &str,
    nonce: &str,
) -> HashMap<&'static str, String> {
    let mut h = signer.sign_headers(
        req.body,
        at(now),
        tok.security_token.as_deref(),
        host,
        nonce,
    );
    let auth = signer.authorization(req, tok, &h).unwrap();
    h.push((header::AUTHORIZATION, auth));
    h.into_iter().collect()
}

fn default_signer(region: &str) -> Signer {
    Signer::Default {
        region: region.into(),
    }
}

/// Java `DLFAuthSignatureTest.testGetAuthorization`: its pinned signature, with the body of
/// `MockRESTMessage.createDatabaseRequest("database")` (the same string pypaimon's
/// `test_get_authorization` pins with it).
#[test]
fn default_signer_gives_the_signature_java_pins() {
    let body = r#"{"name":"database","options":{"a":"b"}}"#;
    let req = SignRequest {
        method: "POST",
        path: "/v1/paimon/databases",
        query: &[("k1", "v1"), ("k2", "v2")],
        body: Some(body),
    };
    let tok = token("access-key-id", "access-key-secret", Some("securityToken"));
    let h = signed(
        &default_signer("cn-hangzhou"),
        &req,
        &tok,
        "2023-12-03T12:12:12Z",
        "host",
        "",
    );
    assert_eq!(
        h["Authorization"],
        "DLF4-HMAC-SHA256 Credential=access-key-id/20231203/cn-hangzhou/DlfNext/\
         aliyun_v4_request,Signature=c72caf1d40b55b1905d891ee3e3de48a2f8bebefa7e39e4f277acc93c269c5e3"
    );
    // The other headers as Java's signHeaders made them for these inputs.
    assert_eq!(h["Content-MD5"], "zlW/6hSKXQKL2z6i931tsg==");
    assert_eq!(h["Content-Type"], "application/json");
    assert_eq!(h["x-dlf-content-sha256"], "UNSIGNED-PAYLOAD");
    assert_eq!(h["x-dlf-date"], "20231203T121212Z");
    assert_eq!(h["x-dlf-security-token"], "securityToken");
    assert_eq!(h["x-dlf-version"], "v1");
    assert_eq!(h.len(), 7);
}

/// Java's `DLFDefaultSigner` on a GET whose query needs encoding (and has an empty value),
/// and on a DELETE without a body; no security token.
#[test]
fn default_signer_matches_java_on_queries_and_bodiless_calls() {
    let tok = token("access-key-id", "access-key-secret", None);
    let req = SignRequest {
        method: "GET",
        path: "/v1/paimon/databases/db%241/tables",
        query: &[
            ("maxResults", "100"),
            ("pageToken", "a b/c~d"),
            ("empty", ""),
        ],
        body: Some(""),
    };
    let h = signed(
        &default_signer("us-east-1"),
        &req,
        &tok,
        "2025-02-28T23:59:59Z",
        "host",
        "",
    );
    assert_eq!(
        h["Authorization"],
        "DLF4-HMAC-SHA256 Credential=access-key-id/20250228/us-east-1/DlfNext/\
         aliyun_v4_request,Signature=d5fd28b7cb9d336ca3fbbfa2de50a265ab627dd6d4b3c05b519db898c2f743d3"
    );
    assert_eq!(h.len(), 4, "no Content-MD5, Content-Type or token: {h:?}");
    let req = SignRequest {
        method: "DELETE",
        path: "/v1/paimon/databases/db",
        query: &[],
        body: None,
    };
    let h = signed(
        &default_signer("cn-hangzhou"),
        &req,
        &tok,
        "2024-01-01T00:00:00Z",
        "host",
        "",
    );
    assert_eq!(
        h["Authorization"],
        "DLF4-HMAC-SHA256 Credential=access-key-id/20240101/cn-hangzhou/DlfNext/\
         aliyun_v4_request,Signature=f056d266b82e02b0009b2322956f9007dd29cde570a57b48c94f10f5c5d674db"
    );
}

/// Java's `DLFOpenApiSigner` on `DLFRequestSignerTest.testOpenApiAuthorization`'s inputs
/// (its nonce), a bodiless GET, and a GET with an encoded path and a query.
#[test]
fn openapi_signer_matches_java() {
    let nonce = "ef34aae7-7bd2-413d-a541-680cd2c48538";
    let host = "dlfnext.cn-beijing.aliyuncs.com";
    let now = "2025-04-16T03:44:46Z";
    let body = r#"{"CategoryName":"test","CategoryType":"UNSTRUCTURED"}"#;
    let with_st = token(
        "YourAccessKeyId",
        "YourAccessKeySecret",
        Some("securityToken"),
    );
    let req = SignRequest {
        method: "POST",
        path: "/llm-p2e4XXXXXXXXsvtn/datacenter/category",
        query: &[],
        body: Some(body),
    };
    let h = signed(&Signer::OpenApi, &req, &with_st, now, host, nonce);
    assert_eq!(
        h["Authorization"],
        "acs YourAccessKeyId:wX4CDPSCtfgYkxdK9tJIO3ez5VI="
    );
    assert_eq!(h["Accept"], "application/json");
    assert_eq!(h["Content-MD5"], "q2qaEcR4P47+Z7CUzHRTBw==");
    assert_eq!(h["Content-Type"], "application/json");
    assert_eq!(h["Date"], "Wed, 16 Apr 2025 03:44:46 GMT");
    assert_eq!(h["Host"], host);
    assert_eq!(h["x-acs-security-token"], "securityToken");
    assert_eq!(h["x-acs-signature-method"], "HMAC-SHA1");
    assert_eq!(h["x-acs-signature-nonce"], nonce);
    assert_eq!(h["x-acs-signature-version"], "1.0");
    assert_eq!(h["x-acs-version"], "2026-01-18");
    assert_eq!(h.len(), 11);

    let tok = token("YourAccessKeyId", "YourAccessKeySecret", None);
    let req = SignRequest {
        method: "GET",
        path: "/test/path",
        query: &[],
        body: None,
    };
    let h = signed(&Signer::OpenApi, &req, &tok, now, host, nonce);
    assert_eq!(
        h["Authorization"],
        "acs YourAccessKeyId:OO8k3KbVwnqGOXgg8ZVXyHIX4fY="
    );
    assert!(!h.contains_key("Content-MD5") && !h.contains_key("x-acs-security-token"));

    let req = SignRequest {
        method: "GET",
        path: "/v1/paimon/databases/db%241/tables",
        query: &[
            ("maxResults", "100"),
            ("pageToken", "a b/c~d"),
            ("empty", ""),
        ],
        body: Some(""),
    };
    let h = signed(&Signer::OpenApi, &req, &tok, now, host, nonce);
    assert_eq!(
        h["Authorization"],
        "acs YourAccessKeyId:C7EV3KSEJQeVQcvdHYC+Vl2Yi2A="
    );
}

/// Java `DLFRequestSignerTest`: the signer an endpoint gets when none is configured.
#[test]
fn signing_algorithm_follows_the_endpoint_as_in_java() {
    for uri in [
        "dlfnext.cn-hangzhou.aliyuncs.com",
        "dlfnext-vpc.cn-hangzhou.aliyuncs.com",
        "https://dlfnext.cn-hangzhou.aliyuncs.com",
    ] {
        assert_eq!(Signer::algorithm_of_uri(uri), "openapi", "{uri}");
    }
    for uri in [
        "cn-hangzhou-vpc.dlf.aliyuncs.com",
        "cn-hangzhou-intranet.dlf.aliyuncs.com",
        "https://cn-hangzhou-vpc.dlf.aliyuncs.com",
        "unknown.example.com",
        "127.0.0.1",
        "http://127.0.0.1:8080",
        "",
    ] {
        assert_eq!(Signer::algorithm_of_uri(uri), "default", "{uri}");
    }
}

/// Java `DLFAuthProviderFactoryTest.getRegion`, and what Java's `parseRegionFromUri` and
/// `extractHost` return for further URIs (run on the oracle jar's classes).
#[test]
fn region_and_host_come_from_the_uri_as_in_java() {
    for (uri, region, host) in [
        (
            "https://cn-hangzhou-vpc.dlf.aliyuncs.com",
            Some("cn-hangzhou"),
            "cn-hangzhou-vpc.dlf.aliyuncs.com",
        ),
        (
            "https://cn-hangzhou-intranet.dlf.aliyuncs.com",
            Some("cn-hangzhou"),
            "cn-hangzhou-intranet.dlf.aliyuncs.com",
        ),
        (
            "https://cn-hangzhou.dlf.aliyuncs.com",
            Some("cn-hangzhou"),
            "cn-hangzhou.dlf.aliyuncs.com",
        ),
        (
            "https://pre-cn-hangzhou-vpc.dlf.aliyuncs.com",
            Some("cn-hangzhou"),
            "pre-cn-hangzhou-vpc.dlf.aliyuncs.com",
        ),
        (
            "https://us-east-1-vpc.dlf.aliyuncs.com",
            Some("us-east-1"),
            "us-east-1-vpc.dlf.aliyuncs.com",
        ),
        (
            "https://us-east-1-intranet.dlf.aliyuncs.com",
            Some("us-east-1"),
            "us-east-1-intranet.dlf.aliyuncs.com",
        ),
        ("http://127.0.0.1:8080", None, "127.0.0.1:8080"),
        (
            "https://dlf-cn-hangzhou.aliyuncs.com",
            Some("dlf-cn"),
            "dlf-cn-hangzhou.aliyuncs.com",
        ),
        (
            "http://cn-hangzhou-vpc.dlf.aliyuncs.com/prefix",
            Some("cn-hangzhou"),
            "cn-hangzhou-vpc.dlf.aliyuncs.com",
        ),
        (
            "https://dlfnext.cn-beijing.aliyuncs.com",
            Some("cn-beijing"),
            "dlfnext.cn-beijing.aliyuncs.com",
        ),
        (
            "http://ap-southeast-1-intranet.dlf.aliyuncs.com",
            Some("ap-southeast-1"),
            "ap-southeast-1-intranet.dlf.aliyuncs.com",
        ),
        ("http://us-east-12a.x", Some("us-east-12"), "us-east-12a.x"),
        ("http://pre-x.y", Some("pre-x"), "pre-x.y"),
        ("HTTP://CN-HANGZHOU.x", None, "HTTP:"),
    ] {
        assert_eq!(region_of_uri(uri).as_deref(), region, "{uri}");
        assert_eq!(host_of_uri(uri), host, "{uri}");
    }
}

#[test]
fn url_decoding_is_javas() {
    assert_eq!(url_decode("/a%24b+c%2Fd%C3%A9"), "/a$b c/dé");
    assert_eq!(url_decode("100%"), "100%");
    assert_eq!(url_decode("%zz%4"), "%zz%4");
}

/// The `dlf_token` fuzz target's committed inputs (`fuzz/seeds/dlf_token`,
/// `fuzz/regressions/dlf_token`) pass its checks, and the seeds read as Java's `DLFToken`
/// reads them (the expiration Java gives for `2025-04-16T03:44:46Z`: 1744775086000).
#[test]
fn committed_fuzz_inputs_pass() {
    let inputs = paimon_test_utils::fuzz_inputs("dlf_token");
    for (path, bytes) in &inputs {
        fuzz_check_token(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let seed = |name: &str| {
        let (_, bytes) = inputs
            .iter()
            .find(|(p, _)| p.ends_with(format!("seeds/dlf_token/{name}")))
            .unwrap_or_else(|| panic!("seed {name} under fuzz/seeds/dlf_token"));
        fuzz_token_json(std::str::from_utf8(bytes).unwrap()).unwrap()
    };
    assert_eq!(seed("sts-expiring"), ("a".into(), Some(1_744_775_086_000)));
    assert_eq!(seed("static"), ("a".into(), None));
    assert_eq!(seed("ecs"), ("STS.x".into(), Some(1_744_775_086_000)));
}

/// Java `DLFToken`: the JSON fields, `Expiration` as UTC (Java gives 1744775086000 for this
/// one), unknown fields ignored; what is not a token is an error saying why.
#[test]
fn token_json_is_read_as_java_reads_it() {
    let t = DlfToken::from_json(
        r#"{"AccessKeyId":"a","AccessKeySecret":"s","SecurityToken":"st",
            "Expiration":"2025-04-16T03:44:46Z","Code":"Success"}"#,
    )
    .unwrap();
    assert_eq!(t, {
        let mut x = token("a", "s", Some("st"));
        x.expires_at_millis = Some(1_744_775_086_000);
        x
    });
    let t = DlfToken::from_json(r#"{"AccessKeyId":"a","AccessKeySecret":"s"}"#).unwrap();
    assert_eq!(t, token("a", "s", None));
    for (text, why) in [
        ("{", "not JSON"),
        (r#"{"AccessKeySecret":"s"}"#, "\"AccessKeyId\" is missing"),
        (r#"{"AccessKeyId":"a"}"#, "\"AccessKeySecret\" is missing"),
        (
            r#"{"AccessKeyId":"a","AccessKeySecret":"s","Expiration":"tomorrow"}"#,
            "Expiration \"tomorrow\"",
        ),
        (
            r#"{"AccessKeyId":1,"AccessKeySecret":"s"}"#,
            "is not a string",
        ),
    ] {
        let e = DlfToken::from_json(text).unwrap_err();
        assert!(e.contains(why), "{text}: {e}");
    }
    // The secret never shows in debug output.
    let shown = format!("{:?}", token("id", "very-secret", Some("sts")));
    assert!(
        !shown.contains("very-secret") && !shown.contains("sts"),
        "{shown}"
    );
}

/// A missing or wrong DLF option is an error naming it (Java: `DLF token path or AK must be
/// set`, `Unknown DLF signing algorithm`, a region that is neither set nor in the URI).
#[test]
fn missing_dlf_options_are_named() {
    let uri = "https://cn-hangzhou-vpc.dlf.aliyuncs.com";
    for (kv, option) in [
        (vec![], "option dlf.access-key-id"),
        (
            vec![("dlf.access-key-id", "a")],
            "option dlf.access-key-secret",
        ),
        (
            vec![("dlf.token-loader", "local_file")],
            "option dlf.token-path",
        ),
        (vec![("dlf.token-loader", "s3")], "option dlf.token-loader"),
        (
            vec![
                ("dlf.access-key-id", "a"),
                ("dlf.access-key-secret", "s"),
                ("dlf.signing-algorithm", "v2"),
            ],
            "option dlf.signing-algorithm",
        ),
    ] {
        let e = DlfAuth::from_options(uri, &options(&kv)).unwrap_err();
        assert!(
            matches!(&e, Error::Catalog { failure: CatalogFailure::InvalidOptions, what, .. }
                if what == option),
            "{kv:?}: {e}"
        );
    }
    let e = DlfAuth::from_options(
        "http://127.0.0.1:8080",
        &options(&[("dlf.access-key-id", "a"), ("dlf.access-key-secret", "s")]),
    )
    .unwrap_err();
    assert!(e.to_string().contains("option dlf.region"), "{e}");
}

/// Static keys (with and without a security token) sign every request; the headers are the
/// ones the signer makes, and the `Authorization` is the default signer's over them (Java
/// `AuthProviderTest.testDLFAuthProviderAuthHeaderWhenDataIsNotEmpty`).
#[test]
fn static_keys_sign_each_request() {
    let auth = DlfAuth::from_options(
        "https://dlf-cn-hangzhou.aliyuncs.com",
        &options(&[
            ("dlf.access-key-id", "ak"),
            ("dlf.access-key-secret", "sk"),
            ("dlf.security-token", "st"),
            ("dlf.region", "cn-hangzhou"),
        ]),
    )
    .unwrap();
    let req = SignRequest {
        method: "POST",
        path: "/path",
        query: &[("k1", "v1"), ("k2", "v2")],
        body: Some("data"),
    };
    let h = auth.headers(&req).unwrap();
    let get = |k: &str| h.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
    assert_eq!(get("x-dlf-security-token").as_deref(), Some("st"));
    assert_eq!(get("x-dlf-version").as_deref(), Some("v1"));
    assert_eq!(get("Content-Type").as_deref(), Some("application/json"));
    assert!(get("Content-MD5").is_some() && get("x-dlf-date").is_some());
    let again = default_signer("cn-hangzhou")
        .authorization(&req, &token("ak", "sk", Some("st")), &h)
        .unwrap();
    assert_eq!(get("Authorization"), Some(again));
    // `dlfnext` hosts get the OpenAPI signer.
    let auth = DlfAuth::from_options(
        "https://dlfnext.cn-beijing.aliyuncs.com",
        &options(&[("dlf.access-key-id", "ak"), ("dlf.access-key-secret", "sk")]),
    )
    .unwrap();
    let h = auth.headers(&req).unwrap();
    assert!(h
        .iter()
        .any(|(k, v)| *k == "Authorization" && v.starts_with("acs ak:")));
    assert!(h
        .iter()
        .any(|(k, v)| *k == "Host" && v == "dlfnext.cn-beijing.aliyuncs.com"));
    // Two requests never share a nonce.
    let nonce = |h: &[(&str, String)]| {
        h.iter()
            .find(|(k, _)| *k == "x-acs-signature-nonce")
            .map(|(_, v)| v.clone())
    };
    assert_ne!(nonce(&h), nonce(&auth.headers(&req).unwrap()));
}

/// Java's `DLFToken` JSON for a token expiring at `expires` (`Expiration` in UTC).
fn token_json(id: &str, secret: &str, expires: DateTime<Utc>) -> String {
    format!(
        r#"{{"AccessKeyId":"{id}","AccessKeySecret":"{secret}","SecurityToken":"st-{id}","Expiration":"{}"}}"#,
        expires.format("%Y-%m-%dT%H:%M:%SZ")
    )
}

fn access_key(auth: &DlfAuth) -> String {
    auth.fresh_token().unwrap().access_key_id
}

/// A token file (Java `DLFLocalFileTokenLoader`, through `dlf.token-path` or loader
/// `local_file`): read again when its token expires within the hour (Java
/// `AuthProviderTest.testRefreshAuthProviderIsSoonExpire`), and when the file changes; a
/// token good for hours and an unchanged file are not read again.
#[test]
fn token_file_is_read_again_before_expiry_and_on_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token.json");
    let uri = "https://cn-hangzhou-vpc.dlf.aliyuncs.com";
    std::fs::write(&path, token_json("first", "s1", Utc::now())).unwrap();
    let auth = DlfAuth::from_options(uri, &options(&[("dlf.token-path", path.to_str().unwrap())]))
        .unwrap();
    assert_eq!(access_key(&auth), "first");
    let sig = auth
        .headers(&SignRequest {
            method: "GET",
            path: "/v1/config",
            query: &[],
            body: None,
        })
        .unwrap();
    assert!(sig
        .iter()
        .any(|(k, v)| *k == "x-dlf-security-token" && v == "st-first"));

    // Expiring now: the next request reads the file again.
    std::fs::write(
        &path,
        token_json("second", "s2", Utc::now() + Duration::hours(3)),
    )
    .unwrap();
    assert_eq!(access_key(&auth), "second");
    // Good for three hours: the file is not read again while it is unchanged...
    let unchanged = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(access_key(&auth), "second");
    // ...but a new file is (rotated before the old token expired). File times tick in
    // milliseconds: let one pass.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        &path,
        token_json("third", "s3", Utc::now() + Duration::hours(3)),
    )
    .unwrap();
    assert_ne!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        unchanged
    );
    assert_eq!(access_key(&auth), "third");

    // Loader `local_file` reads the same option; a file that is not a token is an
    // authorization failure naming it.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let auth = DlfAuth::from_options(
        uri,
        &options(&[
            ("dlf.token-loader", "local_file"),
            ("dlf.token-path", bad.to_str().unwrap()),
        ]),
    )
    .unwrap();
    let e = auth.fresh_token().unwrap_err();
    assert!(
        matches!(&e, Error::Catalog { failure: CatalogFailure::NotAuthorized, what, reason, .. }
            if what.contains("bad.json") && reason.contains("AccessKeyId")),
        "{e}"
    );
}

/// A tiny ECS metadata service on loopback (what Java's `MockECSMetadataService` serves):
/// the role name under the credentials URL, the role's token under URL + role, 404
/// otherwise. Counts the token requests.
struct Metadata {
    url: String,
    token: Arc<Mutex<String>>,
    token_requests: Arc<Mutex<usize>>,
}

fn metadata_service(role: &'static str) -> Metadata {
    let base = "/latest/meta-data/Ram/security-credentials/";
    let token = Arc::new(Mutex::new(String::new()));
    let token_requests = Arc::new(Mutex::new(0));
    let (t, n) = (token.clone(), token_requests.clone());
    let url = crate::catalog::rest::test_http::serve(move |path| {
        if path == base {
            (200, role.to_string())
        } else if path == format!("{base}{role}") {
            *n.lock().unwrap() += 1;
            (200, t.lock().unwrap().clone())
        } else {
            (404, String::new())
        }
    });
    Metadata {
        url: format!("{url}{base}"),
        token,
        token_requests,
    }
}

/// Loader `ecs` (Java `AuthProviderTest.testCreateDlfAuthProviderByECSTokenProvider`): the
/// role from the metadata service, its token; a token expiring now is fetched again, one good
/// for two hours is not.
#[test]
fn ecs_loader_fetches_the_role_token_and_refreshes_before_expiry() {
    let svc = metadata_service("EcsTestRole");
    *svc.token.lock().unwrap() = token_json("first", "s1", Utc::now());
    let auth = DlfAuth::from_options(
        "serverUrl",
        &options(&[
            ("dlf.token-loader", "ecs"),
            ("dlf.token-ecs-metadata-url", &svc.url),
            ("dlf.region", "cn-hangzhou"),
        ]),
    )
    .unwrap();
    assert_eq!(access_key(&auth), "first");
    *svc.token.lock().unwrap() = token_json("second", "s2", Utc::now() + Duration::hours(2));
    assert_eq!(access_key(&auth), "second");
    *svc.token.lock().unwrap() = token_json("third", "s3", Utc::now());
    assert_eq!(access_key(&auth), "second", "not refreshed two hours early");
    assert_eq!(*svc.token_requests.lock().unwrap(), 2);
}

/// `dlf.token-ecs-role-name` names the role (Java `...WithDefineRole`); a role the service
/// does not know is an authorization failure naming the URL (Java `...WithInvalidRole`).
#[test]
fn ecs_loader_uses_the_configured_role() {
    let svc = metadata_service("CustomRole");
    *svc.token.lock().unwrap() = token_json("custom", "s", Utc::now() + Duration::hours(2));
    let open = |role: &str| {
        DlfAuth::from_options(
            "serverUrl",
            &options(&[
                ("dlf.token-loader", "ecs"),
                ("dlf.token-ecs-metadata-url", &svc.url),
                ("dlf.token-ecs-role-name", role),
                ("dlf.region", "cn-hangzhou"),
            ]),
        )
        .unwrap()
    };
    assert_eq!(access_key(&open("CustomRole")), "custom");
    let e = open("OtherRole").fresh_token().unwrap_err();
    assert!(
        matches!(&e, Error::Catalog { failure: CatalogFailure::NotAuthorized, what, reason, .. }
            if what.contains(&svc.url) && reason.contains("OtherRole") && reason.contains("404")),
        "{e}"
    );
}
