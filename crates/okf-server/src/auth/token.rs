//! The checks of one bearer token: a JWT signed by a configured issuer's key, with `iss`,
//! `aud`, `exp` and `nbf` checked within the issuer's leeway, and its scopes read.

use super::jwks::{KeyError, Keys};
use super::policy::{AuthConfig, Grant};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Longest token read (bytes); a longer `Authorization` value is refused unread.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Why a token was refused; each is a `/metrics` label and the `error_description` of the 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Failure {
    /// Not `Bearer <JWT>`, or not three base64url parts of JSON.
    Malformed,
    /// `alg` is `none`, symmetric, or not one this server verifies.
    UnsupportedAlgorithm,
    /// `iss` is no configured issuer.
    UnknownIssuer,
    /// The issuer's JWKS holds no key the token names.
    UnknownKey,
    /// The issuer's JWKS could not be fetched.
    KeysUnavailable,
    /// The signature does not verify with the issuer's key.
    BadSignature,
    /// `exp` has passed (beyond the leeway), or is missing.
    Expired,
    /// `nbf` is still ahead (beyond the leeway).
    NotYetValid,
    /// `aud` names no audience of this server.
    WrongAudience,
}

impl Failure {
    /// The label `/metrics` counts it under.
    pub fn label(self) -> &'static str {
        match self {
            Failure::Malformed => "malformed",
            Failure::UnsupportedAlgorithm => "unsupported_alg",
            Failure::UnknownIssuer => "unknown_issuer",
            Failure::UnknownKey => "unknown_key",
            Failure::KeysUnavailable => "keys_unavailable",
            Failure::BadSignature => "bad_signature",
            Failure::Expired => "expired",
            Failure::NotYetValid => "not_yet_valid",
            Failure::WrongAudience => "wrong_audience",
        }
    }

    /// What the 401's `error_description` says (fixed text: never the token's contents).
    pub fn description(self) -> &'static str {
        match self {
            Failure::Malformed => "the bearer token is not a JWT",
            Failure::UnsupportedAlgorithm => {
                "the token's alg is not an asymmetric signature this server verifies"
            }
            Failure::UnknownIssuer => "the token's issuer is not one this server trusts",
            Failure::UnknownKey => "the token names no signing key its issuer publishes",
            Failure::KeysUnavailable => "the issuer's signing keys cannot be fetched now",
            Failure::BadSignature => "the token's signature does not verify",
            Failure::Expired => "the token has expired",
            Failure::NotYetValid => "the token is not valid yet",
            Failure::WrongAudience => "the token was not issued for this server",
        }
    }
}

/// Every signature algorithm accepted: asymmetric only, so a public key can never be used as
/// an HMAC secret, and never `none`.
const ALGORITHMS: [(&str, Algorithm); 9] = [
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
    ("EdDSA", Algorithm::EdDSA),
];

/// Validates tokens for one registry snapshot.
#[derive(Debug)]
pub struct Verifier {
    config: AuthConfig,
    audiences: Vec<String>,
    keys: Vec<Arc<Keys>>,
}

#[derive(Deserialize)]
struct Peek {
    alg: Option<String>,
    kid: Option<String>,
}

#[derive(Deserialize)]
struct Claims {
    /// Checked by the validation (a token without it is refused as for the wrong audience);
    /// optional here so that its absence is not read as a malformed token.
    #[serde(default)]
    aud: Option<Audience>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

fn json_part(part: &str) -> Result<Value, Failure> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| Failure::Malformed)?;
    serde_json::from_slice(&bytes).map_err(|_| Failure::Malformed)
}

impl Verifier {
    /// A verifier for the configuration; `audiences` are every audience a policy accepts.
    pub fn new(config: AuthConfig, audiences: Vec<String>) -> Self {
        let keys = config
            .issuers
            .iter()
            .map(|i| Keys::new(&i.id, &i.jwks_uri))
            .collect();
        Verifier {
            config,
            audiences,
            keys,
        }
    }

    /// The configuration it checks against.
    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    /// Keeps the key caches of `previous` (a registry being reloaded) for every issuer
    /// declared the same way here, so a reload neither refetches nor forgets their keys.
    pub fn adopt_keys(&mut self, previous: &Verifier) {
        for (issuer, keys) in self.config.issuers.iter().zip(self.keys.iter_mut()) {
            if let Some(kept) = previous
                .keys
                .iter()
                .find(|k| k.issuer() == issuer.id && k.uri() == issuer.jwks_uri)
            {
                *keys = Arc::clone(kept);
            }
        }
    }

    /// Fetches the keys of every issuer that has none yet, unless the registry lets them be
    /// fetched on demand (`[auth].jwks_on_demand`). The error names the first issuer whose
    /// keys cannot be fetched or read, and why.
    pub async fn prefetch(&self) -> Result<(), String> {
        if self.config.jwks_on_demand {
            return Ok(());
        }
        for keys in self.keys.iter().filter(|k| k.fetches() == 0) {
            keys.load().await.map_err(|reason| {
                format!(
                    "auth.issuer {:?}: its signing keys cannot be fetched from {} ({reason}); fix the issuer or set [auth] jwks_on_demand = true to start without them",
                    keys.issuer(),
                    keys.uri()
                )
            })?;
        }
        Ok(())
    }

    /// Checks a token and returns what it grants. May wait for one fetch of the issuer's
    /// keys (bounded; never more than one in flight per issuer); the signature check itself
    /// runs on the blocking pool.
    pub async fn verify(self: &Arc<Self>, token: &str) -> Result<Grant, Failure> {
        let (at, alg, kid) = self.peek(token)?;
        let key = self.keys[at]
            .key(kid.as_deref())
            .await
            .map_err(|e| match e {
                KeyError::Unavailable(_) => Failure::KeysUnavailable,
                KeyError::Unknown => Failure::UnknownKey,
            })?;
        let verifier = Arc::clone(self);
        let token = token.to_owned();
        tokio::task::spawn_blocking(move || verifier.check(&token, at, alg, &key))
            .await
            .unwrap_or(Err(Failure::Malformed))
    }

    /// The issuer (its index), algorithm and key id a token claims, before any key is used.
    fn peek(&self, token: &str) -> Result<(usize, Algorithm, Option<String>), Failure> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(Failure::Malformed);
        }
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Failure::Malformed);
        };
        let peek: Peek =
            serde_json::from_value(json_part(header)?).map_err(|_| Failure::Malformed)?;
        let alg = peek
            .alg
            .as_deref()
            .and_then(|a| ALGORITHMS.iter().find(|(name, _)| *name == a))
            .map(|(_, alg)| *alg)
            .ok_or(Failure::UnsupportedAlgorithm)?;
        // The claimed issuer only picks which configured issuer's keys to try; nothing is
        // fetched from the token.
        let claimed = json_part(payload)?;
        let iss = claimed
            .get("iss")
            .and_then(Value::as_str)
            .ok_or(Failure::UnknownIssuer)?;
        let at = self
            .config
            .issuers
            .iter()
            .position(|i| i.issuer == iss)
            .ok_or(Failure::UnknownIssuer)?;
        Ok((at, alg, peek.kid))
    }

    /// The signature and claim checks of a token with the key of issuer `at`.
    fn check(
        &self,
        token: &str,
        at: usize,
        alg: Algorithm,
        key: &jsonwebtoken::DecodingKey,
    ) -> Result<Grant, Failure> {
        let issuer = &self.config.issuers[at];
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&issuer.issuer]);
        validation.set_audience(&self.audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = issuer.leeway_seconds;
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation).map_err(|e| match e
            .kind()
        {
            ErrorKind::ExpiredSignature => Failure::Expired,
            ErrorKind::ImmatureSignature => Failure::NotYetValid,
            ErrorKind::InvalidAudience => Failure::WrongAudience,
            ErrorKind::InvalidIssuer => Failure::UnknownIssuer,
            ErrorKind::MissingRequiredClaim(c) if c == "exp" => Failure::Expired,
            ErrorKind::MissingRequiredClaim(c) if c == "aud" => Failure::WrongAudience,
            ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm => Failure::BadSignature,
            _ => Failure::Malformed,
        })?;
        let claims = data.claims;
        let audiences = match claims.aud {
            Some(Audience::One(a)) => vec![a],
            Some(Audience::Many(a)) => a,
            None => return Err(Failure::WrongAudience),
        };
        let mut scopes: BTreeSet<String> = claims
            .scope
            .iter()
            .flat_map(|s| s.split(' '))
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        scopes.extend(claims.scp.into_iter().flatten());
        Ok(Grant {
            issuer: issuer.id.clone(),
            audiences,
            scopes,
        })
    }
}
