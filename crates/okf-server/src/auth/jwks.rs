//! An issuer's signing keys: fetched from the JWKS URL the registry declares (never from a
//! request or a token header such as `jku`), cached, and refreshed within limits.
//!
//! A key server that is down, slow or broken must not cost anyone but the callers of its own
//! issuer, and those at most a bounded wait. So:
//! - at most one fetch per issuer is in flight; every token that needs keys meanwhile waits
//!   for that one fetch (asynchronously: no thread is held) instead of starting another;
//! - a failed fetch is remembered like a successful one: the next fetch may start only after
//!   a backoff that doubles with each consecutive failure, and tokens arriving before then are
//!   refused at once (or served by a key already held);
//! - fetches run as tasks on the async runtime with hyper's client, never on the blocking
//!   pool that assemblies use, and a fetch no request waits for any more is abandoned;
//! - the log says when an issuer's keys become available or unavailable, once per change.

use super::fetch::{FETCH_TIMEOUT, fetch_jwks};
use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// Keys are fetched again after this long, so a rotated key is picked up.
const MAX_AGE: Duration = Duration::from_secs(600);
/// After a successful fetch, the next one (for a token naming a key the set does not hold)
/// starts no sooner than this, so tokens naming made-up keys cannot make the server hammer
/// the issuer.
const MIN_REFETCH: Duration = Duration::from_secs(30);
/// The wait after the first failed fetch; it doubles with each further failure.
const FIRST_BACKOFF: Duration = Duration::from_secs(2);
/// The longest wait between two fetches of an issuer that keeps failing.
const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// One issuer's key cache.
#[derive(Debug)]
pub(crate) struct Keys {
    /// The issuer's logical id (`[[auth.issuer]].id`), for the log.
    issuer: String,
    uri: String,
    state: Mutex<State>,
    /// Fetches started so far (a reload's prefetch skips issuers whose keys it already has).
    fetches: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    keys: Vec<Jwk>,
    /// When the keys held were fetched.
    fetched: Option<Instant>,
    /// No fetch starts before this (backoff after a failure, throttle after a success).
    not_before: Option<Instant>,
    /// Consecutive failed fetches.
    failures: u32,
    /// The fetch in flight, if any.
    flight: Option<Flight>,
    /// What the log last said about this issuer.
    health: Health,
    /// Numbers the flights, so a finished fetch only ever settles its own flight.
    next_flight: u64,
}

#[derive(Debug)]
struct Flight {
    id: u64,
    /// Closed when the fetch ends (its sender is dropped), however it ends.
    done: watch::Receiver<()>,
    /// Requests waiting for it; the fetch is abandoned when the last one leaves.
    waiters: usize,
    abort: AbortHandle,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Health {
    #[default]
    Unknown,
    Available,
    Unavailable,
}

/// Why no key could be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyError {
    /// The JWKS could not be fetched or read (now, or in the last attempt and the backoff has
    /// not passed); the reason is for the log.
    Unavailable(String),
    /// The JWKS holds no signing key with that id (or, without an id, not exactly one).
    Unknown,
}

/// What one look at the cache decided.
enum Next {
    Done(Result<Box<Jwk>, KeyError>),
    Wait(u64, watch::Receiver<()>),
}

impl Keys {
    /// An empty cache for the issuer `issuer` (its id) whose keys are at `uri`.
    pub(crate) fn new(issuer: &str, uri: &str) -> Arc<Self> {
        Arc::new(Keys {
            issuer: issuer.to_owned(),
            uri: uri.to_owned(),
            state: Mutex::new(State::default()),
            fetches: AtomicU64::new(0),
        })
    }

    /// The issuer's id.
    pub(crate) fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The JWKS URL.
    pub(crate) fn uri(&self) -> &str {
        &self.uri
    }

    /// How many fetches have started.
    pub(crate) fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The decoding key for `kid` (or the only signing key when the token names none). Waits
    /// at most for one fetch (bounded by [`FETCH_TIMEOUT`]).
    pub(crate) async fn key(self: &Arc<Self>, kid: Option<&str>) -> Result<DecodingKey, KeyError> {
        let mut waited = false;
        loop {
            match self.next(kid, waited) {
                Next::Done(found) => {
                    let found = found?;
                    return DecodingKey::from_jwk(&found).map_err(|_| KeyError::Unknown);
                }
                Next::Wait(id, mut done) => {
                    let _waiting = Waiter { keys: self, id };
                    // Err: the sender is gone, i.e. the fetch ended; either way, look again.
                    let _ = done.changed().await;
                    waited = true;
                }
            }
        }
    }

    /// Decides, under the lock, whether the key is at hand, must be waited for, or cannot be
    /// had now. `waited`: a fetch has already been waited for, so none is started again.
    fn next(self: &Arc<Self>, kid: Option<&str>, waited: bool) -> Next {
        let now = Instant::now();
        let mut state = self.lock();
        let found = pick(&state.keys, kid).cloned();
        let fresh = state
            .fetched
            .is_some_and(|t| now.duration_since(t) <= MAX_AGE);
        let settled = |state: &State, found: Option<Jwk>| {
            // A key already held keeps working while the issuer is unreachable.
            Next::Done(found.map(Box::new).ok_or_else(|| state.missing()))
        };
        if waited || (fresh && found.is_some()) {
            return settled(&state, found);
        }
        if let Some(flight) = state.flight.as_mut() {
            flight.waiters += 1;
            return Next::Wait(flight.id, flight.done.clone());
        }
        if state.not_before.is_some_and(|t| now < t) {
            return settled(&state, found);
        }
        match self.start(&mut state) {
            Some((id, done)) => Next::Wait(id, done),
            None => settled(&state, found),
        }
    }

    /// Starts a fetch as a task on the current runtime, with one waiter (the caller); `None`
    /// outside a runtime.
    fn start(self: &Arc<Self>, state: &mut State) -> Option<(u64, watch::Receiver<()>)> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (sender, done) = watch::channel(());
        state.next_flight += 1;
        let id = state.next_flight;
        let keys = Arc::clone(self);
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let task = runtime.spawn(async move {
            let outcome = match tokio::time::timeout(FETCH_TIMEOUT, fetch_jwks(&keys.uri)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(format!(
                    "no answer within {} seconds",
                    FETCH_TIMEOUT.as_secs()
                )),
            };
            keys.settle(id, outcome);
            drop(sender);
        });
        state.flight = Some(Flight {
            id,
            done: done.clone(),
            waiters: 1,
            abort: task.abort_handle(),
        });
        Some((id, done))
    }

    /// Records the outcome of flight `id`, if it is still the flight in progress.
    fn settle(&self, id: u64, outcome: Result<Vec<Jwk>, String>) {
        let mut state = self.lock();
        if state.flight.as_ref().is_none_or(|f| f.id != id) {
            return;
        }
        state.flight = None;
        self.record(&mut state, outcome);
    }

    fn record(&self, state: &mut State, outcome: Result<Vec<Jwk>, String>) {
        let now = Instant::now();
        match outcome {
            Ok(keys) => {
                state.keys = keys;
                state.fetched = Some(now);
                state.failures = 0;
                state.not_before = Some(now + MIN_REFETCH);
                if state.health != Health::Available {
                    tracing::info!(target: "okf::auth", issuer = %self.issuer, jwks_uri = %self.uri, keys = state.keys.len(), "issuer signing keys available");
                }
                state.health = Health::Available;
            }
            Err(reason) => {
                state.failures = state.failures.saturating_add(1);
                state.not_before = Some(now + backoff(state.failures));
                if state.health != Health::Unavailable {
                    tracing::warn!(target: "okf::auth", issuer = %self.issuer, jwks_uri = %self.uri, reason = %reason, "issuer signing keys unavailable; fetches back off while it fails");
                }
                state.health = Health::Unavailable;
            }
        }
    }

    /// A waiter of flight `id` left; the last one to leave abandons the fetch (counted as a
    /// failure, so the backoff holds).
    fn leave(&self, id: u64) {
        let mut state = self.lock();
        let Some(flight) = state.flight.as_mut().filter(|f| f.id == id) else {
            return;
        };
        flight.waiters = flight.waiters.saturating_sub(1);
        if flight.waiters == 0 {
            flight.abort.abort();
            state.flight = None;
            self.record(
                &mut state,
                Err("the fetch was abandoned: no request waits for it".to_owned()),
            );
        }
    }

    /// Fetches the keys now, whatever the cache holds (start-up and reload checks). The error
    /// says why, for the message that names the issuer.
    pub(crate) async fn load(&self) -> Result<(), String> {
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let outcome = match tokio::time::timeout(FETCH_TIMEOUT, fetch_jwks(&self.uri)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(format!(
                "no answer within {} seconds",
                FETCH_TIMEOUT.as_secs()
            )),
        };
        let result = outcome.as_ref().map(|_| ()).map_err(Clone::clone);
        let mut state = self.lock();
        self.record(&mut state, outcome);
        result
    }
}

impl State {
    /// The error for a key that is not at hand: unavailable while the last fetch failed,
    /// otherwise unknown.
    fn missing(&self) -> KeyError {
        if self.failures > 0 {
            KeyError::Unavailable("the last fetch of the issuer's keys failed".to_owned())
        } else {
            KeyError::Unknown
        }
    }
}

/// A request waiting for a fetch; dropping it (the request finished, timed out or was
/// cancelled) leaves the flight.
struct Waiter<'k> {
    keys: &'k Keys,
    id: u64,
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.keys.leave(self.id);
    }
}

/// The wait after `failures` consecutive failures: 2 s, 4 s, 8 s … at most 5 minutes.
fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

/// The signing key named `kid`, or without a kid the only signing key.
fn pick<'a>(keys: &'a [Jwk], kid: Option<&str>) -> Option<&'a Jwk> {
    let mut signing = keys.iter().filter(|k| {
        k.common
            .public_key_use
            .as_ref()
            .is_none_or(|u| *u == PublicKeyUse::Signature)
    });
    match kid {
        Some(kid) => signing.find(|k| k.common.key_id.as_deref() == Some(kid)),
        None => {
            let first = signing.next();
            if signing.next().is_some() {
                None
            } else {
                first
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_two_seconds_up_to_five_minutes() {
        let waits: Vec<u64> = [1, 2, 3, 4, 8, 9, 40, u32::MAX]
            .into_iter()
            .map(|n| backoff(n).as_secs())
            .collect();
        assert_eq!(waits, [2, 4, 8, 16, 256, 300, 300, 300]);
    }
}
