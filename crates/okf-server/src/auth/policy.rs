//! What the registry declares (`[auth]`, each entry's `access`) and what a caller may see.

use okf_api::format::is_logical_id;
use serde::Deserialize;
use std::collections::BTreeSet;

/// The registry's `[auth]` section: this server's resource identifier and the token issuers it
/// trusts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthDecl {
    /// The protected resource identifier (RFC 9728 `resource`, RFC 8707): the URL of this
    /// server's MCP endpoint as clients reach it. Tokens must name it (or a policy's own
    /// `audience`) in `aud`.
    pub resource: String,
    /// Refuse MCP requests without a token (401 with the resource metadata), so that MCP
    /// clients start the authorization flow. Default false: anonymous MCP callers are served
    /// the public bundles.
    #[serde(default)]
    pub mcp_requires_token: bool,
    /// Fetch each issuer's JWKS when a token first needs it instead of at start-up. Default
    /// false: `okf serve` refuses to start (and a reload is refused) while an issuer's keys
    /// cannot be fetched and read, naming the issuer.
    #[serde(default)]
    pub jwks_on_demand: bool,
    /// The trusted issuers.
    pub issuer: Vec<IssuerDecl>,
}

/// One `[[auth.issuer]]`: an authorization server whose tokens this server accepts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssuerDecl {
    /// Logical id policies name.
    pub id: String,
    /// The exact `iss` of its tokens (also listed as an authorization server in the metadata).
    pub issuer: String,
    /// Where its signing keys are published: https, or http on a loopback address.
    pub jwks_uri: String,
    /// Clock skew allowed on `exp` and `nbf`, in seconds (0–120, default 30).
    #[serde(default = "default_leeway")]
    pub leeway_seconds: u64,
}

fn default_leeway() -> u64 {
    30
}

/// Largest clock skew an issuer may declare.
pub const MAX_LEEWAY_SECONDS: u64 = 120;

/// An entry's `access` in the registry: `"public"` (the default) or a policy table.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(try_from = "AccessDecl")]
pub enum Access {
    /// Served to anyone who can reach the server (today's behaviour).
    #[default]
    Public,
    /// Served only to callers whose token satisfies the policy.
    Restricted(Policy),
}

/// `access` as written: a name or a table.
#[derive(Deserialize)]
#[serde(untagged)]
enum AccessDecl {
    Name(String),
    Policy(Policy),
}

impl TryFrom<AccessDecl> for Access {
    type Error = String;

    fn try_from(decl: AccessDecl) -> Result<Self, Self::Error> {
        match decl {
            AccessDecl::Name(name) if name == "public" => Ok(Access::Public),
            AccessDecl::Name(name) => Err(format!(
                "access {name:?} must be \"public\" or a table {{issuers, scopes, audience?}}"
            )),
            AccessDecl::Policy(policy) => Ok(Access::Restricted(policy)),
        }
    }
}

/// Who may see a restricted entry.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Issuer ids (`[[auth.issuer]]`) whose tokens may grant access.
    pub issuers: Vec<String>,
    /// Scopes the token must hold, every one.
    pub scopes: Vec<String>,
    /// The audience the token must name; default `[auth].resource`.
    #[serde(default)]
    pub audience: Option<String>,
    /// A further scope that also lets the caller read the bundle's records marked
    /// `restricted` (they are then selected and quoted; without it they never are).
    #[serde(default)]
    pub restricted_records_scope: Option<String>,
}

/// The checked `[auth]` configuration.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// `[auth].resource`.
    pub resource: String,
    /// `[auth].mcp_requires_token`.
    pub mcp_requires_token: bool,
    /// `[auth].jwks_on_demand`.
    pub jwks_on_demand: bool,
    /// The issuers, in declaration order.
    pub issuers: Vec<IssuerDecl>,
    /// Every scope a policy requires, sorted (the resource metadata's `scopes_supported`).
    pub scopes: Vec<String>,
}

impl AuthConfig {
    /// Checks `[auth]` and the policies that name it; the message names the field and rule.
    pub fn new(decl: AuthDecl, policies: &[&Policy]) -> Result<Self, String> {
        if !is_allowed_url(&decl.resource) {
            return Err(format!(
                "auth.resource {:?} must be an https URL (http only on a loopback address)",
                decl.resource
            ));
        }
        let mut ids = BTreeSet::new();
        for (i, issuer) in decl.issuer.iter().enumerate() {
            if !is_logical_id(&issuer.id) || !ids.insert(issuer.id.as_str()) {
                return Err(format!(
                    "auth.issuer[{i}].id {:?} must be a logical id, declared once",
                    issuer.id
                ));
            }
            for (field, url) in [("issuer", &issuer.issuer), ("jwks_uri", &issuer.jwks_uri)] {
                if !is_allowed_url(url) {
                    return Err(format!(
                        "auth.issuer[{i}].{field} {url:?} must be an https URL (http only on a loopback address), without credentials"
                    ));
                }
            }
            if issuer.leeway_seconds > MAX_LEEWAY_SECONDS {
                return Err(format!(
                    "auth.issuer[{i}].leeway_seconds must be at most {MAX_LEEWAY_SECONDS}"
                ));
            }
        }
        let mut scopes = BTreeSet::new();
        for policy in policies {
            if policy.issuers.is_empty() || policy.scopes.is_empty() {
                return Err("an access policy needs at least one issuer and one scope".into());
            }
            if let Some(unknown) = policy.issuers.iter().find(|i| !ids.contains(i.as_str())) {
                return Err(format!(
                    "access.issuers names {unknown:?}, which no [[auth.issuer]] declares"
                ));
            }
            if let Some(bad) = policy
                .scopes
                .iter()
                .chain(&policy.restricted_records_scope)
                .find(|s| !is_scope_token(s))
            {
                return Err(format!(
                    "access.scopes {bad:?} must be a scope token (printable ASCII, no space, quote or backslash)"
                ));
            }
            scopes.extend(policy.scopes.iter().cloned());
            scopes.extend(policy.restricted_records_scope.iter().cloned());
        }
        Ok(AuthConfig {
            resource: decl.resource,
            mcp_requires_token: decl.mcp_requires_token,
            jwks_on_demand: decl.jwks_on_demand,
            issuers: decl.issuer,
            scopes: scopes.into_iter().collect(),
        })
    }

    /// Every audience a token may name: the resource and the policies' own.
    pub fn audiences<'a>(&'a self, policies: impl Iterator<Item = &'a Policy>) -> Vec<String> {
        let mut all: BTreeSet<String> = policies.filter_map(|p| p.audience.clone()).collect();
        all.insert(self.resource.clone());
        all.into_iter().collect()
    }

    /// The URL of this resource's metadata (RFC 9728 §3.1: the well-known path inserted
    /// between the host and the resource's path).
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }
}

/// `https://host[:port]`, or `http://` on a loopback host, with no credentials.
pub(crate) fn is_allowed_url(url: &str) -> bool {
    let (scheme, rest) = match url.split_once("://") {
        Some(("https", rest)) => ("https", rest),
        Some(("http", rest)) => ("http", rest),
        _ => return false,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() || authority.contains('@') || url.chars().any(char::is_whitespace) {
        return false;
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    scheme == "https" || is_loopback(host)
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => {
            let (origin, path) = url.split_at(after_scheme + i);
            (origin, path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

/// RFC 6749 scope-token: `%x21 / %x23-5B / %x5D-7E`.
fn is_scope_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

/// Who is asking: anonymous, or the holder of a verified token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The verified token's issuer id, audiences and scopes; `None` for an anonymous caller.
    pub grant: Option<Grant>,
}

/// What a verified token grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The `[[auth.issuer]]` id that signed it.
    pub issuer: String,
    /// Its `aud`.
    pub audiences: Vec<String>,
    /// Its scopes (`scope`, space-separated, or `scp`).
    pub scopes: BTreeSet<String>,
}

impl Caller {
    /// A caller without a token.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// Whether this caller's token satisfies `policy`: one of its issuers, its audience (else
    /// `resource`) in `aud`, and every scope it names.
    pub fn may_see_policy(&self, policy: &Policy, resource: Option<&str>) -> bool {
        self.grant.as_ref().is_some_and(|g| {
            let audience = policy.audience.as_deref().or(resource);
            policy.issuers.contains(&g.issuer)
                && audience.is_some_and(|a| g.audiences.iter().any(|t| t == a))
                && policy.scopes.iter().all(|s| g.scopes.contains(s))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_urls_without_credentials_are_allowed() {
        for ok in [
            "https://idp.example/jwks",
            "http://127.0.0.1:8080/jwks",
            "http://[::1]:9/x",
            "http://localhost/x",
        ] {
            assert!(is_allowed_url(ok), "{ok}");
        }
        for bad in [
            "http://idp.example/jwks",
            "https://user:pw@idp.example/",
            "ftp://127.0.0.1/",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest",
            "https:///nohost",
            "file:///etc/passwd",
        ] {
            assert!(!is_allowed_url(bad), "{bad}");
        }
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        let config = |resource: &str| AuthConfig {
            resource: resource.into(),
            mcp_requires_token: false,
            jwks_on_demand: false,
            issuers: Vec::new(),
            scopes: Vec::new(),
        };
        assert_eq!(
            config("https://okf.example/mcp").metadata_url(),
            "https://okf.example/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            config("http://127.0.0.1:8080").metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }
}
