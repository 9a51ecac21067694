//! Per-client budgets under the global ceilings: the rate windows, the processing slots, the
//! bodies being received and the open connections are each counted per client address as
//! well as in total, so one address cannot take all of a budget from the others.
//!
//! Every table of clients is bounded: it tracks at most a fixed number of addresses, drops
//! the entries that no longer hold anything (a counter back at zero, a rate window that has
//! ended), and when it is full of live entries every further address shares one overflow
//! entry with the same per-client limit. Memory therefore stays bounded whatever the number
//! of addresses a flood comes from, and the global ceiling still holds for everyone.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The TCP peer of the connection a request arrived on. The connection loop of
/// [`crate::serve`] puts it into every request's extensions; a request without it (a router
/// driven in-process) counts as one unknown client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// Who a budget counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    /// An IPv4 address, or the /64 prefix of an IPv6 address.
    Ip(IpAddr),
    /// Requests that carry no peer address.
    Unknown,
}

impl ClientKey {
    /// The key of an address. An IPv4-mapped IPv6 address (a dual-stack listener) is its
    /// IPv4 address; an IPv6 address counts by its /64 prefix, because one host usually
    /// holds a whole /64 and could otherwise take a fresh budget with every address.
    pub(crate) fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V4(v4) => ClientKey::Ip(IpAddr::V4(v4)),
            IpAddr::V6(v6) => {
                let prefix = v6.to_bits() & !u128::from(u64::MAX);
                ClientKey::Ip(IpAddr::V6(Ipv6Addr::from_bits(prefix)))
            }
        }
    }
}

/// Whether `ip` is one of the trusted proxies (compared in canonical form, so a dual-stack
/// listener's `::ffff:10.0.0.1` matches `10.0.0.1`).
pub(crate) fn is_trusted(ip: IpAddr, trusted: &[IpAddr]) -> bool {
    let ip = ip.to_canonical();
    trusted.iter().any(|t| t.to_canonical() == ip)
}

/// The client a request counts against. `X-Forwarded-For` is read only when the peer is a
/// trusted proxy (anyone else could write any address into it to get a fresh budget); the
/// client is then its right-most address that is not itself a trusted proxy, or the
/// left-most when all of them are. A header that is absent, not text or holds anything but
/// addresses leaves the peer as the client.
pub(crate) fn client_key<'a>(
    peer: Option<SocketAddr>,
    forwarded_for: impl Iterator<Item = &'a http::HeaderValue>,
    trusted: &[IpAddr],
) -> ClientKey {
    let Some(peer) = peer else {
        return ClientKey::Unknown;
    };
    if !is_trusted(peer.ip(), trusted) {
        return ClientKey::of(peer.ip());
    }
    ClientKey::of(forwarded_client(forwarded_for, trusted).unwrap_or(peer.ip()))
}

/// The right-most address of the `X-Forwarded-For` values (in header order) that is not a
/// trusted proxy; `None` when there is none or a value is malformed.
fn forwarded_client<'a>(
    values: impl Iterator<Item = &'a http::HeaderValue>,
    trusted: &[IpAddr],
) -> Option<IpAddr> {
    let mut items = Vec::new();
    for value in values {
        items.extend(value.to_str().ok()?.split(','));
    }
    let mut leftmost = None;
    for item in items.iter().rev() {
        let ip: IpAddr = item.trim().parse().ok()?;
        if !is_trusted(ip, trusted) {
            return Some(ip);
        }
        leftmost = Some(ip);
    }
    leftmost
}

/// How often, at most, a full table looks for entries it can drop: a table full of live
/// entries is not scanned again for every new address.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// Which entry of a table a client counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Client(ClientKey),
    Overflow,
}

/// A bounded map from clients to their entries, with one shared overflow entry.
#[derive(Debug)]
struct Table<E> {
    entries: HashMap<ClientKey, E>,
    overflow: E,
    capacity: usize,
    next_sweep: Instant,
}

impl<E: Default> Table<E> {
    fn new(capacity: usize) -> Self {
        Table {
            entries: HashMap::new(),
            overflow: E::default(),
            capacity,
            next_sweep: Instant::now(),
        }
    }

    /// The entry `key` counts against: its own, a new one while there is room (after
    /// dropping the entries `spent` says hold nothing), otherwise the overflow entry.
    fn slot(&mut self, key: ClientKey, now: Instant, spent: impl Fn(&E) -> bool) -> Slot {
        if self.entries.contains_key(&key) {
            return Slot::Client(key);
        }
        if self.entries.len() >= self.capacity && now >= self.next_sweep {
            self.entries.retain(|_, e| !spent(e));
            self.next_sweep = now + SWEEP_INTERVAL;
        }
        if self.entries.len() < self.capacity {
            self.entries.insert(key, E::default());
            Slot::Client(key)
        } else {
            Slot::Overflow
        }
    }

    fn get_mut(&mut self, slot: Slot) -> Option<&mut E> {
        match slot {
            Slot::Client(key) => self.entries.get_mut(&key),
            Slot::Overflow => Some(&mut self.overflow),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Locks state that is valid whatever a panicking holder left behind (plain counters).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Which share is used up when a load limit refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exhausted {
    /// The client's own share is used up.
    Client,
    /// The whole server's is.
    Global,
}

/// A count of things held at once (processing slots, bodies being received, connections):
/// at most `global` in all and at most `per_client` for any one client.
#[derive(Debug)]
pub(crate) struct Budget {
    global: usize,
    per_client: Option<usize>,
    state: Mutex<BudgetState>,
}

#[derive(Debug)]
struct BudgetState {
    in_use: usize,
    clients: Table<usize>,
}

/// One unit of a [`Budget`], given back when dropped.
#[derive(Debug)]
pub(crate) struct Pass {
    budget: Arc<Budget>,
    slot: Option<Slot>,
}

impl Budget {
    /// A budget of `global` units, at most `per_client` of them (never more than `global`)
    /// for one client (`None`: no per-client share), tracking at most `max_clients` clients.
    pub(crate) fn new(global: usize, per_client: Option<usize>, max_clients: usize) -> Arc<Self> {
        Arc::new(Budget {
            global,
            per_client: per_client.map(|n| n.min(global)),
            state: Mutex::new(BudgetState {
                in_use: 0,
                clients: Table::new(max_clients),
            }),
        })
    }

    /// Takes one unit for `client`; `None` counts against the global ceiling only.
    pub(crate) fn try_acquire(
        self: &Arc<Self>,
        client: Option<ClientKey>,
    ) -> Result<Pass, Exhausted> {
        let mut state = lock(&self.state);
        if state.in_use >= self.global {
            return Err(Exhausted::Global);
        }
        let slot = match (client, self.per_client) {
            (Some(key), Some(limit)) => {
                let slot = state.clients.slot(key, Instant::now(), |n| *n == 0);
                if state.clients.get_mut(slot).is_some_and(|n| *n >= limit) {
                    return Err(Exhausted::Client);
                }
                Some(slot)
            }
            _ => None,
        };
        state.in_use += 1;
        if let Some(n) = slot.and_then(|s| state.clients.get_mut(s)) {
            *n += 1;
        }
        Ok(Pass {
            budget: Arc::clone(self),
            slot,
        })
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut state = lock(&self.budget.state);
        state.in_use = state.in_use.saturating_sub(1);
        let Some(slot) = self.slot else { return };
        let Some(n) = state.clients.get_mut(slot) else {
            return;
        };
        *n = n.saturating_sub(1);
        // An entry holding nothing is dropped at once, so the table holds only clients with
        // something in progress.
        if let (0, Slot::Client(key)) = (*n, slot) {
            state.clients.entries.remove(&key);
        }
    }
}

/// A fixed window of counted requests.
#[derive(Debug, Default, Clone, Copy)]
struct Window {
    started: Option<Instant>,
    count: u32,
}

impl Window {
    fn ended(&self, now: Instant, length: Duration) -> bool {
        self.started
            .is_none_or(|s| now.saturating_duration_since(s) >= length)
    }

    /// Starts a new window when this one has ended.
    fn roll(&mut self, now: Instant, length: Duration) {
        if self.ended(now, length) {
            *self = Window {
                started: Some(now),
                count: 0,
            };
        }
    }

    fn left(&self, now: Instant, length: Duration) -> Duration {
        self.started.map_or(Duration::ZERO, |s| {
            length.saturating_sub(now.saturating_duration_since(s))
        })
    }
}

/// Fixed-window request counts of one route class: at most `global` requests per window in
/// all and `per_client` for one client. Refused requests are not counted.
#[derive(Debug)]
pub(crate) struct RateLimit {
    length: Duration,
    global: u32,
    per_client: Option<u32>,
    state: Mutex<RateState>,
}

#[derive(Debug)]
struct RateState {
    all: Window,
    clients: Table<Window>,
}

impl RateLimit {
    /// `global` requests per window of `length` (`per_client` of them, never more than
    /// `global`, for one client; `None`: no per-client share), tracking at most
    /// `max_clients` clients.
    pub(crate) fn new(
        global: u32,
        length: Duration,
        per_client: Option<u32>,
        max_clients: usize,
    ) -> Self {
        RateLimit {
            length,
            global,
            per_client: per_client.map(|n| n.min(global)),
            state: Mutex::new(RateState {
                all: Window::default(),
                clients: Table::new(max_clients),
            }),
        }
    }

    /// Counts a request of `client`; `Err(time left in the window that refused it)`.
    pub(crate) fn check(&self, client: ClientKey) -> Result<(), (Exhausted, Duration)> {
        let now = Instant::now();
        let length = self.length;
        let mut guard = lock(&self.state);
        let state = &mut *guard;
        state.all.roll(now, length);
        if state.all.count >= self.global {
            return Err((Exhausted::Global, state.all.left(now, length)));
        }
        if let Some(limit) = self.per_client {
            let slot = state.clients.slot(client, now, |w| w.ended(now, length));
            if let Some(window) = state.clients.get_mut(slot) {
                window.roll(now, length);
                if window.count >= limit {
                    return Err((Exhausted::Client, window.left(now, length)));
                }
                window.count += 1;
            }
        }
        state.all.count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use http::HeaderValue;
    use std::net::Ipv4Addr;

    fn v4(n: u32) -> ClientKey {
        ClientKey::of(IpAddr::V4(Ipv4Addr::from_bits(n)))
    }

    #[test]
    fn the_client_tables_stay_bounded_and_overflow_shares_one_entry() {
        let cap = 64;
        let rate = RateLimit::new(u32::MAX, Duration::from_secs(60), Some(3), cap);
        for n in 0..100_000 {
            let _ = rate.check(v4(n));
            assert!(lock(&rate.state).clients.len() <= cap);
        }
        // Every address past the cap shares the overflow window: it is long used up.
        assert_eq!(
            rate.check(v4(1_000_000)).map_err(|(r, _)| r),
            Err(Exhausted::Client)
        );

        let budget = Budget::new(usize::MAX, Some(2), cap);
        let held: Vec<Pass> = (0..100_000)
            .filter_map(|n| budget.try_acquire(Some(v4(n))).ok())
            .collect();
        assert!(lock(&budget.state).clients.len() <= cap);
        // The cap's worth of clients got their own entry; the rest shared the overflow's 2.
        assert_eq!(held.len(), cap + 2);
        drop(held);
        let state = lock(&budget.state);
        assert_eq!(
            (state.in_use, state.clients.len(), state.overflow()),
            (0, 0, 0)
        );
    }

    impl BudgetState {
        fn overflow(&self) -> usize {
            self.clients.overflow
        }
    }

    #[test]
    fn ended_windows_make_room_for_new_clients() {
        let rate = RateLimit::new(u32::MAX, Duration::from_millis(1), Some(1), 4);
        for n in 0..4 {
            assert!(rate.check(v4(n)).is_ok());
        }
        std::thread::sleep(Duration::from_millis(5));
        // The four windows have ended: the next client gets an entry of its own, not the
        // overflow one.
        assert!(rate.check(v4(99)).is_ok());
        let state = lock(&rate.state);
        assert!(state.clients.entries.contains_key(&v4(99)));
    }

    #[test]
    fn one_client_cannot_take_the_global_budget() {
        let budget = Budget::new(4, Some(2), 16);
        let a = [
            budget.try_acquire(Some(v4(1))),
            budget.try_acquire(Some(v4(1))),
        ];
        assert!(a.iter().all(Result::is_ok));
        assert_eq!(
            budget.try_acquire(Some(v4(1))).err(),
            Some(Exhausted::Client)
        );
        let b = [
            budget.try_acquire(Some(v4(2))),
            budget.try_acquire(Some(v4(2))),
        ];
        assert!(b.iter().all(Result::is_ok));
        assert_eq!(
            budget.try_acquire(Some(v4(3))).err(),
            Some(Exhausted::Global)
        );
        // Without a client key only the ceiling counts.
        drop(b);
        assert!(budget.try_acquire(None).is_ok());

        let rate = RateLimit::new(3, Duration::from_secs(60), Some(2), 16);
        assert!(rate.check(v4(1)).is_ok() && rate.check(v4(1)).is_ok());
        assert_eq!(
            rate.check(v4(1)).map_err(|(r, _)| r),
            Err(Exhausted::Client)
        );
        assert!(rate.check(v4(2)).is_ok());
        assert_eq!(
            rate.check(v4(3)).map_err(|(r, _)| r),
            Err(Exhausted::Global)
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64_prefix_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(ClientKey::of(a), ClientKey::of(b));
        assert_ne!(ClientKey::of(a), ClientKey::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(
            ClientKey::of(mapped),
            ClientKey::of("10.0.0.1".parse().unwrap())
        );
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_peer() {
        let proxy: SocketAddr = "10.0.0.1:4000".parse().unwrap();
        let stranger: SocketAddr = "192.0.2.7:4000".parse().unwrap();
        let trusted: Vec<IpAddr> = vec!["10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()];
        let key = |peer, values: &[&str]| {
            let values: Vec<HeaderValue> = values
                .iter()
                .map(|v| HeaderValue::from_str(v).unwrap())
                .collect();
            client_key(Some(peer), values.iter(), &trusted)
        };
        let ip = |s: &str| ClientKey::of(s.parse().unwrap());
        assert_eq!(key(stranger, &["198.51.100.1"]), ip("192.0.2.7"));
        assert_eq!(key(proxy, &[]), ip("10.0.0.1"));
        assert_eq!(key(proxy, &["198.51.100.1"]), ip("198.51.100.1"));
        // The right-most address that is not a trusted proxy; the left ones are the client's
        // own claims.
        assert_eq!(
            key(proxy, &["1.2.3.4, 198.51.100.1", "10.0.0.2"]),
            ip("198.51.100.1")
        );
        assert_eq!(key(proxy, &["10.0.0.2, 10.0.0.1"]), ip("10.0.0.2"));
        for malformed in ["", "nonsense", "198.51.100.1:80", "1.2.3.4,,"] {
            assert_eq!(key(proxy, &[malformed]), ip("10.0.0.1"), "{malformed:?}");
        }
        let values = [HeaderValue::from_bytes(b"\xff").unwrap()];
        assert_eq!(
            client_key(Some(proxy), values.iter(), &trusted),
            ip("10.0.0.1")
        );
        assert_eq!(
            client_key(None, std::iter::empty(), &trusted),
            ClientKey::Unknown
        );
    }
}
