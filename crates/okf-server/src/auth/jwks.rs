//! An issuer's signing keys: fetched from the JWKS URL the registry declares (never from a
//! request or a token header such as `jku`), cached, and refreshed within limits.

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Keys are fetched again after this long, so a rotated key is picked up.
const MAX_AGE: Duration = Duration::from_secs(600);
/// An unknown `kid` refetches at most this often, so tokens naming made-up keys cannot make
/// the server hammer the issuer.
const MIN_REFETCH: Duration = Duration::from_secs(30);
/// Largest JWKS document read.
const MAX_JWKS_BYTES: u64 = 256 * 1024;
/// Most keys kept from one document.
const MAX_KEYS: usize = 32;
/// Time allowed for one fetch, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// One issuer's key cache.
#[derive(Debug)]
pub(crate) struct Keys {
    uri: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    keys: Vec<Jwk>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
}

/// Why no key could be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyError {
    /// The JWKS could not be fetched or read; the reason is for the log.
    Unavailable(String),
    /// The JWKS holds no signing key with that id (or, without an id, not exactly one).
    Unknown,
}

impl Keys {
    pub(crate) fn new(uri: &str) -> Self {
        Keys {
            uri: uri.to_owned(),
            state: Mutex::new(State::default()),
        }
    }

    /// The decoding key for `kid` (or the only signing key when the token names none).
    pub(crate) fn key(&self, kid: Option<&str>) -> Result<DecodingKey, KeyError> {
        let now = Instant::now();
        let (found, stale, may_refetch) = {
            let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            let found = pick(&state.keys, kid).cloned();
            let stale = state
                .fetched
                .is_none_or(|t| now.duration_since(t) > MAX_AGE);
            let may_refetch = state
                .attempted
                .is_none_or(|t| now.duration_since(t) > MIN_REFETCH);
            (found, stale, may_refetch)
        };
        let jwk = match found {
            Some(jwk) if !stale => jwk,
            _ if !(stale || may_refetch) => return Err(KeyError::Unknown),
            previous => match self.refresh(now) {
                Ok(keys) => pick(&keys, kid).cloned().ok_or(KeyError::Unknown)?,
                // A key already held keeps working while the issuer is briefly unreachable.
                Err(e) => previous.ok_or(e)?,
            },
        };
        DecodingKey::from_jwk(&jwk).map_err(|_| KeyError::Unknown)
    }

    /// Fetches the JWKS now (at most once per [`MIN_REFETCH`] across callers).
    fn refresh(&self, now: Instant) -> Result<Vec<Jwk>, KeyError> {
        {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if state
                .attempted
                .is_some_and(|t| now.duration_since(t) <= MIN_REFETCH)
                && state.fetched.is_some()
            {
                return Ok(state.keys.clone());
            }
            state.attempted = Some(now);
        }
        let keys = fetch(&self.uri).inspect_err(|e| {
            if let KeyError::Unavailable(reason) = e {
                tracing::warn!(target: "okf::auth", jwks_uri = %self.uri, reason = %reason, "JWKS fetch failed");
            }
        })?;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.keys = keys.clone();
        state.fetched = Some(now);
        Ok(keys)
    }
}

/// The signing key named `kid`, or without a kid the only signing key.
fn pick<'a>(keys: &'a [Jwk], kid: Option<&str>) -> Option<&'a Jwk> {
    let signing = keys.iter().filter(|k| {
        k.common
            .public_key_use
            .as_ref()
            .is_none_or(|u| *u == PublicKeyUse::Signature)
    });
    match kid {
        Some(kid) => {
            let mut signing = signing;
            signing.find(|k| k.common.key_id.as_deref() == Some(kid))
        }
        None => {
            let mut all = signing;
            let first = all.next();
            if all.next().is_some() { None } else { first }
        }
    }
}

fn fetch(uri: &str) -> Result<Vec<Jwk>, KeyError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(FETCH_TIMEOUT))
        .max_redirects(0)
        .https_only(uri.starts_with("https://"))
        .build()
        .into();
    let unavailable = |e: &dyn std::fmt::Display| KeyError::Unavailable(e.to_string());
    let mut response = agent.get(uri).call().map_err(|e| unavailable(&e))?;
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_JWKS_BYTES)
        .read_to_string()
        .map_err(|e| unavailable(&e))?;
    let set: JwkSet = serde_json::from_str(&text).map_err(|e| unavailable(&e))?;
    Ok(set.keys.into_iter().take(MAX_KEYS).collect())
}
