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
    keys: Vec<Keys>,
}

#[derive(Deserialize)]
struct Peek {
    alg: Option<String>,
    kid: Option<String>,
}

#[derive(Deserialize)]
struct Claims {
    aud: Audience,
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
            .map(|i| Keys::new(&i.jwks_uri))
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

    /// Checks a token and returns what it grants. May fetch an issuer's JWKS (blocking).
    pub fn verify(&self, token: &str) -> Result<Grant, Failure> {
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
        let issuer = &self.config.issuers[at];
        let key = self.keys[at]
            .key(peek.kid.as_deref())
            .map_err(|e| match e {
                KeyError::Unavailable(_) => Failure::KeysUnavailable,
                KeyError::Unknown => Failure::UnknownKey,
            })?;
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&issuer.issuer]);
        validation.set_audience(&self.audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = issuer.leeway_seconds;
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| match e
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
            Audience::One(a) => vec![a],
            Audience::Many(a) => a,
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
