//! Restricted bundles (registry `access`, `[auth]`): invisible to anonymous callers on every
//! route, served byte for byte to a caller whose token satisfies the policy, and every bad
//! token refused as RFC 6750 says, counted by reason, never logged.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{DWP_SHA, DWP_URL, Response, Server, imprisonment_question, shared, temp_dir};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Test-only Ed25519 keys (generated for these tests; they sign nothing else). `A_X` is key
/// A's public key, base64url, as the test JWKS publishes it; key B is published nowhere.
pub(crate) const KEY_A: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEILPUfPCZPBlNrKUn9c2dhgcRsO37OaH7ayeWIjEPcKL5\n-----END PRIVATE KEY-----\n";
pub(crate) const A_X: &str = "W62C8oLzuQVbiVAOklM0UbhMTzaowiquc0yRHt9SbIA";
const KEY_B: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIANqDPQ/N5g5hKW94fGdUmwlCRVsg2Mpttvs/wAEeBhU\n-----END PRIVATE KEY-----\n";

pub(crate) const RESOURCE: &str = "https://okf.example/mcp";
const SCOPE: &str = "okf.staff";

/// A loopback HTTP listener that answers every request with `body` and counts connections.
struct Listener {
    url: String,
    hits: Arc<AtomicUsize>,
}

fn listen(body: String) -> Listener {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let mut stream = &stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Listener { url, hits }
}

pub(crate) fn jwks() -> String {
    json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": A_X, "kid": "a", "use": "sig", "alg": "EdDSA"}]})
        .to_string()
}

pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token signed by `key` under `kid` with the given claims.
pub(crate) fn token(key: &str, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(
        &header,
        claims,
        &EncodingKey::from_ed_pem(key.as_bytes()).unwrap(),
    )
    .unwrap()
}

pub(crate) fn claims(issuer: &str) -> Value {
    json!({"iss": issuer, "aud": RESOURCE, "exp": now() + 300, "nbf": now() - 5, "scope": format!("openid {SCOPE}")})
}

/// A token made by hand: `header` and `claims` as JSON, any signature.
pub(crate) fn raw_token(header: &Value, claims: &Value, signature: &str) -> String {
    use base64::Engine;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.{signature}", b64(header), b64(claims))
}

/// The example bundle public and the DWP bundle restricted to `SCOPE` from `issuer`.
fn registry(dir: &std::path::Path, issuer: &str, jwks_uri: &str, restricted: bool) -> String {
    let access = if restricted {
        format!("access = {{ issuers = [\"staff\"], scopes = [\"{SCOPE}\"] }}\n")
    } else {
        String::new()
    };
    let example = crate::common::example("index.json");
    let example_sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example).unwrap());
    let text = format!(
        "[auth]\nresource = \"{RESOURCE}\"\n\n[[auth.issuer]]\nid = \"staff\"\nissuer = \"{issuer}\"\njwks_uri = \"{jwks_uri}\"\n\n\
         [[bundle]]\nid = \"example\"\nindex = {example:?}\nsha256 = \"{example_sha}\"\nindex_url = \"https://example.invalid/example.json\"\n\n\
         [[bundle]]\nid = \"okf-dwp\"\nindex = {dwp:?}\nsha256 = \"{DWP_SHA}\"\nindex_url = \"{DWP_URL}\"\n{access}",
        dwp = shared("dwp/full-dmg/context/assembly-index.json"),
    );
    let path = dir.join(if restricted {
        "restricted.toml"
    } else {
        "public.toml"
    });
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// The restricted registry of [`registry`] (issuer `https://idp.example`, keys served by the
/// returned listener) with its text changed by `edit`: the directory, the listener, the path.
fn edited_registry(
    name: &str,
    edit: impl FnOnce(String) -> String,
) -> (std::path::PathBuf, Listener, String) {
    let dir = temp_dir(name);
    let keys = listen(jwks());
    let path = registry(
        &dir,
        "https://idp.example",
        &format!("{}/jwks", keys.url),
        true,
    );
    let text = edit(std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, text).unwrap();
    (dir, keys, path)
}

fn ask_with(server: &Server, bearer: Option<&str>, body: &Value) -> Response {
    let bearer = bearer.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(b) = &bearer {
        headers.push(("Authorization", b.as_str()));
    }
    server.request("POST", "/api/ask", &headers, body.to_string().as_bytes())
}

fn tools_list(server: &Server, bearer: Option<&str>) -> Response {
    let bearer = bearer.map(|t| format!("Bearer {t}"));
    let extra: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    server.mcp(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        &extra,
    )
}

/// `text` with every `urn:sha256:<64 hex>` written as `urn:sha256:…`.
pub(crate) fn without_context_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("urn:sha256:") {
        let (before, after) = rest.split_at(at + "urn:sha256:".len());
        out.push_str(before);
        let hex = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex == 64 {
            out.push('…');
            rest = &after[64..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn a_restricted_bundle_does_not_exist_for_an_anonymous_caller_on_any_route() {
    let dir = temp_dir("restricted-anon");
    let keys = listen(jwks());
    let server = Server::start(&[
        "--registry",
        &registry(
            &dir,
            "https://idp.example",
            &format!("{}/jwks", keys.url),
            true,
        ),
    ]);
    let question = imprisonment_question();
    let mut listings: Vec<(&str, Response)> = Vec::new();
    for path in [
        "/api/bundles",
        "/health",
        "/api/workbenches",
        "/ready",
        "/metrics",
        "/",
    ] {
        listings.push((path, server.request("GET", path, &[], b"")));
    }
    listings.push(("tools/list", tools_list(&server, None)));
    // Nothing an anonymous caller can list names the bundle.
    for (what, response) in &listings {
        assert_eq!(response.status, 200, "{what}");
        let text = String::from_utf8_lossy(&response.body);
        assert!(
            !text.contains("okf-dwp"),
            "{what} names the restricted bundle: {text}"
        );
        assert!(
            response.headers.iter().all(|(_, v)| !v.contains("okf-dwp")),
            "{what}"
        );
    }
    // Asked by id, on every route, it answers exactly as an id never declared does.
    let asks = |id: &str| -> Vec<Response> {
        let call = |name: &str, arguments: Value| {
            server.mcp(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}), &[])
        };
        vec![
            ask_with(&server, None, &json!({"bundle": id, "question": question})),
            server.request(
                "GET",
                &format!("/api/bundles/{id}/versions/current/index"),
                &[],
                b"",
            ),
            server.request(
                "POST",
                "/api/catalogue",
                &[("Content-Type", "application/json")],
                json!({"bundle": id, "question": question})
                    .to_string()
                    .as_bytes(),
            ),
            call("ask_okf", json!({"bundle": id, "question": question})),
            call(
                "ask_okf_manifest",
                json!({"bundle": id, "question": question}),
            ),
            call("search", json!({"query": format!("{id}: {question}")})),
        ]
    };
    let (restricted, absent) = (asks("okf-dwp"), asks("no-such-id"));
    for (r, a) in restricted.iter().zip(&absent) {
        assert_eq!(r.status, a.status);
        // A search whose prefix names no bundle the caller sees asks the only bundle it
        // sees, the prefix included, so the two questions' packages differ by their ids only.
        assert_eq!(
            without_context_ids(&r.text().replace("okf-dwp", "no-such-id")),
            without_context_ids(&a.text())
        );
        assert!(
            !r.text().contains("dmgch12"),
            "no source of the bundle: {}",
            r.text()
        );
    }
    assert_eq!(restricted[0].status, 404);
    assert_eq!(restricted[0].json()["error"]["code"], "unknown_bundle");
    let bodies = listings;
    // The ready probe still counts it.
    let ready: Value = serde_json::from_slice(&bodies[3].1.body).unwrap();
    assert_eq!(ready["status"], "ready");
    // The protected-resource metadata names the issuer and the scopes, not the bundle.
    let metadata = server
        .request("GET", "/.well-known/oauth-protected-resource/mcp", &[], b"")
        .json();
    assert_eq!(metadata["resource"], RESOURCE);
    assert_eq!(
        metadata["authorization_servers"],
        json!(["https://idp.example"])
    );
    assert_eq!(metadata["scopes_supported"], json!([SCOPE]));
    assert_eq!(
        keys.hits.load(Ordering::SeqCst),
        1,
        "the one fetch at start-up; anonymous requests fetch nothing"
    );
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_caller_whose_token_satisfies_the_policy_gets_the_packages_the_bundle_gives_in_public() {
    let dir = temp_dir("restricted-granted");
    let keys = listen(jwks());
    let issuer = "https://idp.example";
    let jwks_uri = format!("{}/jwks", keys.url);
    let restricted = Server::start(&["--registry", &registry(&dir, issuer, &jwks_uri, true)]);
    let public = Server::start(&["--registry", &registry(&dir, issuer, &jwks_uri, false)]);
    let good = token(KEY_A, "a", &claims(issuer));
    let body = json!({"bundle": "okf-dwp", "question": imprisonment_question()});
    let granted = ask_with(&restricted, Some(&good), &body);
    assert_eq!(granted.status, 200, "{}", granted.text());
    let open = ask_with(&public, None, &body);
    assert_eq!(
        granted.body, open.body,
        "byte-identical to the public bundle's package"
    );
    // The listings and the tool enums now hold it.
    let bearer = format!("Bearer {good}");
    let bundles = restricted
        .request("GET", "/api/bundles", &[("Authorization", &bearer)], b"")
        .text();
    assert!(bundles.contains("\"okf-dwp\""), "{bundles}");
    let listed = tools_list(&restricted, Some(&good)).json();
    let ask_tool = &listed["result"]["tools"][0];
    assert!(
        ask_tool["inputSchema"]["properties"]["bundle"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("okf-dwp"))
    );
    assert_eq!(
        ask_tool["_meta"]["securitySchemes"],
        json!([{"type": "noauth"}, {"type": "oauth2", "scopes": [SCOPE]}])
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_okf", "arguments": body}});
    let via_mcp = restricted.mcp(&call, &[("Authorization", &bearer)]).json();
    assert_eq!(via_mcp["result"]["structuredContent"], open.json());
    // A retained package of the bundle is not handed to an anonymous caller.
    let context_id = open.json()["context_id"].as_str().unwrap().to_owned();
    let path = format!("/api/context/{context_id}");
    assert_eq!(
        restricted
            .request("GET", &path, &[("Authorization", &bearer)], b"")
            .status,
        200
    );
    assert_eq!(restricted.request("GET", &path, &[], b"").status, 404);
    assert_eq!(
        keys.hits.load(Ordering::SeqCst),
        2,
        "each of the two servers fetches the keys once, at start-up, and caches them"
    );
    restricted.stop();
    public.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_bad_token_is_refused_as_rfc_6750_says_counted_by_reason_and_never_logged() {
    let dir = temp_dir("restricted-refusals");
    let keys = listen(jwks());
    let trap = listen(jwks());
    let issuer = "https://idp.example";
    let server = Server::start(&[
        "--registry",
        &registry(&dir, issuer, &format!("{}/jwks", keys.url), true),
    ]);
    let body = json!({"bundle": "okf-dwp", "question": imprisonment_question()});
    let mut expired = claims(issuer);
    expired["exp"] = json!(now() - 3600);
    let mut early = claims(issuer);
    early["nbf"] = json!(now() + 3600);
    let mut other_audience = claims(issuer);
    other_audience["aud"] = json!("https://another.example/mcp");
    let mut no_scope = claims(issuer);
    no_scope["scope"] = json!("openid");
    let mut no_audience = claims(issuer);
    no_audience.as_object_mut().unwrap().remove("aud");
    let good = token(KEY_A, "a", &claims(issuer));
    let signature = good.rsplit('.').next().unwrap().to_owned();
    let jku = {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some("trap".into());
        header.jku = Some(format!("{}/jwks", trap.url));
        jsonwebtoken::encode(
            &header,
            &claims(issuer),
            &EncodingKey::from_ed_pem(KEY_B.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("expired", token(KEY_A, "a", &expired), 401, "expired"),
        (
            "not yet valid",
            token(KEY_A, "a", &early),
            401,
            "not_yet_valid",
        ),
        (
            "wrong audience",
            token(KEY_A, "a", &other_audience),
            401,
            "wrong_audience",
        ),
        (
            "no audience at all",
            token(KEY_A, "a", &no_audience),
            401,
            "wrong_audience",
        ),
        (
            "wrong issuer",
            token(KEY_A, "a", &claims("https://evil.example")),
            401,
            "unknown_issuer",
        ),
        (
            "another key",
            token(KEY_B, "a", &claims(issuer)),
            401,
            "bad_signature",
        ),
        (
            "alg none",
            raw_token(&json!({"alg": "none", "kid": "a"}), &claims(issuer), ""),
            401,
            "unsupported_alg",
        ),
        (
            "HS256 over the public key",
            raw_token(
                &json!({"alg": "HS256", "kid": "a"}),
                &claims(issuer),
                &signature,
            ),
            401,
            "unsupported_alg",
        ),
        ("a JWKS URL offered by the token", jku, 401, "unknown_key"),
        ("not a JWT", "not-a-jwt".into(), 401, "malformed"),
    ];
    for (what, bad, status, _) in &cases {
        let r = ask_with(&server, Some(bad), &body);
        assert_eq!(r.status, *status, "{what}: {}", r.text());
        let challenge = r
            .header("www-authenticate")
            .unwrap_or_else(|| panic!("{what}: no challenge"));
        if *what == "no audience at all" {
            // A signed token without `aud` is well formed: it is refused for its audience.
            assert!(
                challenge.contains("the token was not issued for this server"),
                "{what}: {challenge}"
            );
        }
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains(
                "resource_metadata=\"https://okf.example/.well-known/oauth-protected-resource/mcp\""
            ),
            "{challenge}"
        );
        let text = r.text();
        assert!(
            !text.contains("okf-dwp") && !text.contains(bad.as_str()),
            "{what}: {text}"
        );
    }
    // A valid token short of the scope: 403 insufficient_scope naming the scope.
    let short = ask_with(&server, Some(&token(KEY_A, "a", &no_scope)), &body);
    assert_eq!(short.status, 403, "{}", short.text());
    let challenge = short.header("www-authenticate").unwrap();
    assert!(
        challenge.starts_with(&format!(
            "Bearer error=\"insufficient_scope\", scope=\"{SCOPE}\""
        )),
        "{challenge}"
    );
    // The same refusal through an MCP tool is the 403 challenge too (MCP authorization:
    // runtime insufficient scope), so a client can step up; the body is the tool's refusal.
    let short_bearer = format!("Bearer {}", token(KEY_A, "a", &no_scope));
    let via_mcp = server.mcp(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "ask_okf", "arguments": body}}),
        &[("Authorization", short_bearer.as_str())],
    );
    assert_eq!(via_mcp.status, 403, "{}", via_mcp.text());
    let challenge = via_mcp.header("www-authenticate").unwrap();
    assert!(
        challenge.starts_with(&format!(
            "Bearer error=\"insufficient_scope\", scope=\"{SCOPE}\""
        )) && challenge.contains("resource_metadata="),
        "{challenge}"
    );
    assert_eq!(via_mcp.json()["result"]["isError"], true);
    assert!(via_mcp.json()["result"].get("_meta").is_none());
    // Not a bearer scheme at all.
    let basic = server.request(
        "GET",
        "/api/bundles",
        &[("Authorization", "Basic dXNlcjpwdw==")],
        b"",
    );
    assert_eq!(basic.status, 401);
    assert!(
        basic
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer error=\"invalid_request\"")
    );
    // The token's own jku was never contacted.
    assert_eq!(trap.hits.load(Ordering::SeqCst), 0);
    let metrics = server.request("GET", "/metrics", &[], b"").text();
    for (_, _, _, reason) in &cases {
        assert!(
            metrics.contains(&format!("okf_auth_failures_total{{reason=\"{reason}\"}}")),
            "{reason}: {metrics}"
        );
    }
    let log = server.stop();
    for (what, bad, _, _) in &cases {
        if bad.len() > 20 {
            assert!(
                !log.contains(bad.as_str()),
                "{what}: the token is in the log"
            );
        }
    }
    assert!(!log.contains(&good));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_mcp_endpoint_that_requires_a_token_answers_401_with_the_resource_metadata() {
    let (dir, _keys, path) = edited_registry("restricted-mcp", |text| {
        text.replacen(
            &format!("resource = \"{RESOURCE}\"\n"),
            &format!("resource = \"{RESOURCE}\"\nmcp_requires_token = true\n"),
            1,
        )
    });
    let server = Server::start(&["--registry", &path]);
    let refused = tools_list(&server, None);
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            "Bearer resource_metadata=\"https://okf.example/.well-known/oauth-protected-resource/mcp\""
        )
    );
    assert_eq!(refused.json()["error"]["code"], -32600);
    let good = token(KEY_A, "a", &claims("https://idp.example"));
    assert_eq!(tools_list(&server, Some(&good)).status, 200);
    // The HTTP API stays open to anonymous callers for the public bundles.
    let open = ask_with(
        &server,
        None,
        &json!({"bundle": "example", "question": "How do I borrow books?"}),
    );
    assert_eq!(open.status, 200);
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_token_opens_a_restricted_bundle_never_the_restricted_records_inside_one() {
    let dir = temp_dir("restricted-records");
    let keys = listen(jwks());
    let issuer = "https://idp.example";
    let path = registry(&dir, issuer, &format!("{}/jwks", keys.url), true);
    // The example bundle (which holds a restricted staff rota) restricted too.
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "index_url = \"https://example.invalid/example.json\"\n",
        &format!("index_url = \"https://example.invalid/example.json\"\naccess = {{ issuers = [\"staff\"], scopes = [\"{SCOPE}\"] }}\n"),
        1,
    );
    std::fs::write(&path, text).unwrap();
    let server = Server::start(&["--registry", &path]);
    let good = token(KEY_A, "a", &claims(issuer));
    let index = okf_engine::ContextIndex::from_json_slice(
        &std::fs::read(crate::common::example("index.json")).unwrap(),
    )
    .unwrap();
    let secrets = okf_engine::restricted_only_strings(&index);
    assert!(secrets.iter().any(|s| s.contains("Staff only")));
    let question = "Who holds the meeting room keys in the evening?";
    let body = json!({"bundle": "example", "question": question});
    let granted = ask_with(&server, Some(&good), &body);
    assert_eq!(granted.status, 200, "{}", granted.text());
    let package = granted.text();
    // The caller may ask the bundle; the rota is named by id, its text never quoted.
    assert!(package.contains("https://example.org/okf-example/evidence/staff-key-holders"));
    assert!(package.contains("restricted_evidence"), "{package}");
    for secret in &secrets {
        assert!(!package.contains(secret.as_str()), "quoted: {secret}");
    }
    let index_file = server.request(
        "GET",
        "/api/bundles/example/versions/current/index",
        &[("Authorization", &format!("Bearer {good}"))],
        b"",
    );
    assert_eq!(index_file.status, 200);
    for secret in &secrets {
        assert!(
            !index_file.text().contains(secret.as_str()),
            "index route: {secret}"
        );
    }
    assert_eq!(ask_with(&server, None, &body).status, 404);
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_restricted_workbench_is_listed_and_served_only_with_the_token() {
    let dir = temp_dir("restricted-workbench");
    let keys = listen(jwks());
    let issuer = "https://idp.example";
    let path = registry(&dir, issuer, &format!("{}/jwks", keys.url), false);
    let manifest = crate::common::example_workbench(&dir, &["How do I borrow books?"]);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "\n[[workbench]]\nid = \"staff-wb\"\nmanifest = {manifest:?}\naccess = {{ issuers = [\"staff\"], scopes = [\"{SCOPE}\"] }}\n"
    ));
    std::fs::write(&path, text).unwrap();
    let server = Server::start(&["--registry", &path]);
    let bearer = format!("Bearer {}", token(KEY_A, "a", &claims(issuer)));
    let get = |path: &str, auth: bool| {
        let headers: Vec<(&str, &str)> = if auth {
            vec![("Authorization", bearer.as_str())]
        } else {
            Vec::new()
        };
        server.request("GET", path, &headers, b"")
    };
    assert!(!get("/api/workbenches", false).text().contains("staff-wb"));
    assert!(get("/api/workbenches", true).text().contains("staff-wb"));
    assert_eq!(get("/workbench/staff-wb/manifest.json", false).status, 404);
    assert_eq!(get("/workbench/staff-wb/manifest.json", true).status, 200);
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_policy_scope_for_restricted_records_lets_its_holder_read_them_and_no_one_else() {
    let dir = temp_dir("restricted-reveal");
    let keys = listen(jwks());
    let issuer = "https://idp.example";
    let path = registry(&dir, issuer, &format!("{}/jwks", keys.url), true);
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "index_url = \"https://example.invalid/example.json\"\n",
        &format!("index_url = \"https://example.invalid/example.json\"\naccess = {{ issuers = [\"staff\"], scopes = [\"{SCOPE}\"], restricted_records_scope = \"okf.restricted\" }}\n"),
        1,
    );
    std::fs::write(&path, text).unwrap();
    let server = Server::start(&["--registry", &path]);
    let staff = token(KEY_A, "a", &claims(issuer));
    let mut keyholder_claims = claims(issuer);
    keyholder_claims["scope"] = json!(format!("{SCOPE} okf.restricted"));
    let keyholder = token(KEY_A, "a", &keyholder_claims);
    let body =
        json!({"bundle": "example", "question": "Who holds the meeting room keys in the evening?"});
    let plain = ask_with(&server, Some(&staff), &body);
    let revealed = ask_with(&server, Some(&keyholder), &body);
    assert_eq!((plain.status, revealed.status), (200, 200));
    let (plain, revealed) = (plain.json(), revealed.json());
    let rota = "https://example.org/okf-example/evidence/staff-key-holders";
    let quoted = |p: &Value| {
        p["selected"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["record"]["id"] == rota)
            .map(|s| s["record"].clone())
    };
    // Without the records scope the rota is named and never quoted ...
    assert!(quoted(&plain).is_none());
    assert!(plain.to_string().contains("restricted_evidence"));
    // ... with it, it is selected and quoted, still marked restricted, under the same binding.
    let record = quoted(&revealed).unwrap_or_else(|| panic!("{revealed}"));
    assert_eq!(record["access"], "restricted");
    assert!(record["text"].as_str().unwrap().contains("Staff only"));
    assert_eq!(plain["binding"], revealed["binding"]);
    assert_ne!(plain["context_id"], revealed["context_id"]);
    // Asked again, each caller gets its own package back (a repeat is answered from the
    // packages kept by their inputs, and revealing is one of the inputs).
    assert_eq!(ask_with(&server, Some(&staff), &body).json(), plain);
    assert_eq!(ask_with(&server, Some(&keyholder), &body).json(), revealed);
    // The revealed package is handed again only to a holder of the scope.
    let path = format!("/api/context/{}", revealed["context_id"].as_str().unwrap());
    let get = |bearer: &str| {
        server
            .request(
                "GET",
                &path,
                &[("Authorization", &format!("Bearer {bearer}"))],
                b"",
            )
            .status
    };
    assert_eq!(get(&keyholder), 200);
    assert_eq!(get(&staff), 404);
    // A bounded read by the holder keeps the revealed context for the next calls; a caller
    // without the scope naming it replays the plain package and is refused, never handed it.
    let read_as = |bearer: &str| {
        server.request(
            "POST",
            "/api/read",
            &[("Content-Type", "application/json"), ("Authorization", &format!("Bearer {bearer}"))],
            json!({"bundle": "example", "question": body["question"], "section": "package", "context_id": revealed["context_id"]}).to_string().as_bytes(),
        )
    };
    assert_eq!(read_as(&keyholder).status, 200);
    // The holder's catalogue row marks the record restricted, as the package does.
    let catalogue = server.request(
        "POST",
        "/api/catalogue",
        &[("Content-Type", "application/json"), ("Authorization", &format!("Bearer {keyholder}"))],
        json!({"bundle": "example", "question": body["question"], "context_id": revealed["context_id"]}).to_string().as_bytes(),
    );
    assert_eq!(catalogue.status, 200, "{}", catalogue.text());
    let rows = catalogue.json()["records"].clone();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == rota)
        .unwrap_or_else(|| panic!("{rows}"))
        .clone();
    assert_eq!(row["access"], "restricted");
    let read = read_as(&staff);
    assert_ne!(read.status, 200, "{}", read.text());
    assert!(!read.text().contains("Staff only"));
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}

/// An MCP `tools/call` of `name` with `arguments`, with a bearer token or none.
fn call_tool(server: &Server, bearer: Option<&str>, name: &str, arguments: Value) -> Response {
    let bearer = bearer.map(|t| format!("Bearer {t}"));
    let extra: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    server.mcp(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        &extra,
    )
}

#[test]
fn search_and_fetch_name_and_count_no_bundle_the_caller_may_not_see() {
    let dir = temp_dir("restricted-search");
    let keys = listen(jwks());
    let issuer = "https://idp.example";
    let with_restricted = Server::start(&[
        "--registry",
        &registry(&dir, issuer, &format!("{}/jwks", keys.url), true),
    ]);
    // The same server without the restricted bundle: the answers a caller must not tell apart.
    let example = crate::common::example("index.json");
    let example_sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example).unwrap());
    let only_public = dir.join("only-public.toml");
    std::fs::write(
        &only_public,
        format!("[[bundle]]\nid = \"example\"\nindex = {example:?}\nsha256 = \"{example_sha}\"\nindex_url = \"https://example.invalid/example.json\"\n"),
    )
    .unwrap();
    let without = Server::start(&["--registry", &only_public.to_string_lossy()]);
    let same = |a: &Response, b: &Response, what: &str| {
        assert_eq!(a.status, b.status, "{what}");
        let port = |s: &Server| s.addr.clone();
        assert_eq!(
            a.text().replace(&port(&with_restricted), "HOST"),
            b.text().replace(&port(&without), "HOST"),
            "{what}"
        );
    };

    // A search without a prefix asks the only bundle an anonymous caller sees, as if the
    // restricted one were never declared.
    let query = json!({"query": "How do I borrow books?"});
    let anonymous = call_tool(&with_restricted, None, "search", query.clone());
    assert_eq!(
        anonymous.json()["result"]["isError"],
        false,
        "{}",
        anonymous.text()
    );
    same(
        &anonymous,
        &call_tool(&without, None, "search", query),
        "search without a prefix",
    );

    // An authorised search of the restricted bundle lists ids; fetched by anyone the token
    // does not open the bundle for, each answers as an id never listed.
    let good = token(KEY_A, "a", &claims(issuer));
    let searched = call_tool(
        &with_restricted,
        Some(&good),
        "search",
        json!({"query": format!("okf-dwp: {}", imprisonment_question())}),
    )
    .json();
    let ids: Vec<String> = searched["result"]["structuredContent"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(ids.len() > 2, "{searched}");
    let no_scope = token(
        KEY_A,
        "a",
        &json!({"iss": issuer, "aud": RESOURCE, "exp": now() + 300, "scope": "openid"}),
    );
    let never = "urn:sha256:0000000000000000000000000000000000000000000000000000000000000000";
    for id in &ids[..3] {
        let fragment = &id[id.find('#').unwrap()..];
        let unlisted = format!("{never}{fragment}");
        for bearer in [None, Some(no_scope.as_str())] {
            let fetched = call_tool(&with_restricted, bearer, "fetch", json!({"id": id}));
            let text = fetched.text();
            assert!(text.contains("unknown_result_id"), "{text}");
            assert!(
                !text.contains("okf-dwp") && !text.contains("not served"),
                "{text}"
            );
            same(
                &fetched,
                &call_tool(
                    &without,
                    bearer.filter(|_| false),
                    "fetch",
                    json!({"id": id}),
                ),
                "fetch of an authorised search's id",
            );
            assert_eq!(
                without_context_ids(&text),
                without_context_ids(
                    &call_tool(&with_restricted, bearer, "fetch", json!({"id": unlisted})).text()
                ),
                "as an id never listed"
            );
        }
        // The holder of the token fetches it.
        let own = call_tool(&with_restricted, Some(&good), "fetch", json!({"id": id})).json();
        assert_eq!(own["result"]["isError"], false, "{own}");
    }
    with_restricted.stop();
    without.stop();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_resource_metadata_is_served_where_the_challenge_says_whatever_the_resource_path() {
    let resource = "https://okf.example/okf/mcp";
    let (dir, _keys, path) = edited_registry("restricted-metadata-path", |text| {
        text.replacen(
            &format!("resource = \"{RESOURCE}\""),
            &format!("resource = \"{resource}\""),
            1,
        )
    });
    let server = Server::start(&["--registry", &path]);
    let refused = ask_with(
        &server,
        Some("not-a-jwt"),
        &json!({"bundle": "example", "question": "q"}),
    );
    let challenge = refused.header("www-authenticate").unwrap().to_owned();
    let advertised = "https://okf.example/.well-known/oauth-protected-resource/okf/mcp";
    assert!(
        challenge.contains(&format!("resource_metadata=\"{advertised}\"")),
        "{challenge}"
    );
    for path in [
        "/.well-known/oauth-protected-resource/okf/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let metadata = server.request("GET", path, &[], b"");
        assert_eq!(metadata.status, 200, "{path}");
        assert_eq!(metadata.json()["resource"], resource, "{path}");
    }
    for other in [
        "/.well-known/oauth-protected-resource/elsewhere",
        "/.well-known/oauth-protected-resource/kf/mcp",
    ] {
        assert_eq!(
            server.request("GET", other, &[], b"").status,
            404,
            "{other}"
        );
    }
    server.stop();
    let _ = std::fs::remove_dir_all(dir);
}
