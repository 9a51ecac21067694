//! The packages this server assembled recently, each kept once with everything made from it:
//! who may be handed it again, the inputs it was assembled from (so asking again is a
//! lookup), its evidence brief, the MCP text block, its parsed delivery context and its
//! compressed bodies. One store, one lock, one size rule: every byte kept for an entry counts
//! against `--cache-bytes`, and the least recently used entries go first.

use crate::compression::Coding;
use bytes::Bytes;
use okf_engine::{Assembled, ReplayInputs};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// Limits of the retained-package cache.
#[derive(Debug, Clone, Copy)]
pub struct CacheLimits {
    /// Most packages retained.
    pub max_entries: usize,
    /// Most package bytes retained.
    pub max_bytes: usize,
}

impl Default for CacheLimits {
    fn default() -> Self {
        CacheLimits {
            max_entries: 256,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// The inputs a package is assembled from, as this server serves them: the engine's replay
/// inputs and whether the caller's grant makes restricted records readable (the same inputs
/// give another package then, never to be handed to a caller without that grant).
#[derive(Debug, Clone, PartialEq)]
pub struct ServedInputs {
    /// Question, budget, binding and options.
    pub inputs: ReplayInputs,
    /// The package is assembled over the index revealing restricted records.
    pub reveals_restricted: bool,
}

/// Where a retained package came from: who may be handed it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The bundle or corpus id.
    pub(crate) bundle: String,
    /// Assembled with the bundle's restricted records readable.
    pub(crate) revealed: bool,
}

/// Most sets of inputs one entry remembers (different questions can give the same package).
const INPUTS_PER_ENTRY: usize = 8;

/// One retained package and the forms made from it, each made at most once while it is kept.
#[derive(Debug)]
pub(crate) struct Entry {
    /// Who may be handed it again.
    pub(crate) origin: Origin,
    /// The package.
    pub(crate) package: Arc<Assembled>,
    /// The inputs known to assemble to it (none for a corpus: its shards are read each time).
    inputs: Mutex<Vec<ServedInputs>>,
    brief: OnceLock<Arc<str>>,
    text_block: OnceLock<Bytes>,
    delivery: OnceLock<Arc<okf_delivery::Context>>,
    compressed: Mutex<Vec<(Coding, Bytes)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Entry {
    /// The package's evidence brief at the default budget, rendered on first use.
    pub(crate) fn brief(&self, store: &Store) -> Result<Arc<str>, okf_brief::BriefError> {
        if let Some(brief) = self.brief.get() {
            return Ok(Arc::clone(brief));
        }
        let text: Arc<str> =
            okf_brief::render(&self.package.json, &okf_brief::BriefOptions::default())?
                .text
                .into();
        Ok(self.keep(&self.brief, text, store, |t| t.len()))
    }

    /// The MCP text block (a JSON string literal) made by `make` on first use.
    pub(crate) fn text_block<E>(
        &self,
        store: &Store,
        make: impl FnOnce(&Entry) -> Result<Vec<u8>, E>,
    ) -> Result<Bytes, E> {
        if let Some(text) = self.text_block.get() {
            return Ok(text.clone());
        }
        let text = Bytes::from(make(self)?);
        Ok(self.keep(&self.text_block, text, store, Bytes::len))
    }

    /// The package laid out for bounded delivery, on first use. Counted as three times the
    /// package's size: its text again, and the value tree the reads that walk the whole
    /// package build (a catalogue page does not).
    pub(crate) fn delivery(
        &self,
        store: &Store,
    ) -> Result<Arc<okf_delivery::Context>, okf_delivery::DeliveryError> {
        if let Some(context) = self.delivery.get() {
            return Ok(Arc::clone(context));
        }
        let context = Arc::new(okf_delivery::Context::from_canonical(
            self.package.json.clone(),
        )?);
        let size = self.package.json.len().saturating_mul(3);
        Ok(self.keep(&self.delivery, context, store, |_| size))
    }

    /// The package's body in `coding`, if it was compressed already.
    pub(crate) fn compressed(&self, coding: Coding) -> Option<Bytes> {
        lock(&self.compressed)
            .iter()
            .find(|(c, _)| *c == coding)
            .map(|(_, body)| body.clone())
    }

    /// Keeps the package's body in `coding`, unless another request kept one first.
    pub(crate) fn keep_compressed(&self, coding: Coding, body: &Bytes, store: &Store) {
        let mut kept = lock(&self.compressed);
        if kept.iter().all(|(c, _)| *c != coding) {
            kept.push((coding, body.clone()));
            drop(kept);
            store.grew(&self.package.context_id, body.len());
        }
    }

    /// `value` set in `slot` (or the value another request set first), its size counted once.
    fn keep<T: Clone>(
        &self,
        slot: &OnceLock<T>,
        value: T,
        store: &Store,
        size: impl Fn(&T) -> usize,
    ) -> T {
        let mut fresh = false;
        let kept = slot
            .get_or_init(|| {
                fresh = true;
                value
            })
            .clone();
        if fresh {
            store.grew(&self.package.context_id, size(&kept));
        }
        kept
    }

    /// Whether assembling `inputs` is known to give this package.
    fn assembled_from(&self, inputs: &ServedInputs) -> bool {
        lock(&self.inputs).iter().any(|kept| kept == inputs)
    }
}

/// The retained entries, by `context_id`, in order of last use.
#[derive(Debug, Default)]
struct Entries {
    /// By context_id: last use, bytes counted, the entry.
    by_id: HashMap<String, (u64, usize, Arc<Entry>)>,
    order: BTreeMap<u64, String>,
    bytes: usize,
    tick: u64,
}

impl Entries {
    fn touch(&mut self, id: &str) -> Option<Arc<Entry>> {
        self.tick += 1;
        let tick = self.tick;
        let (used, _, entry) = self.by_id.get_mut(id)?;
        let old = std::mem::replace(used, tick);
        let entry = Arc::clone(entry);
        self.order.remove(&old);
        self.order.insert(tick, id.to_owned());
        Some(entry)
    }

    /// Drops least recently used entries until `more` bytes and one entry fit `limits`.
    fn make_room(&mut self, more: usize, limits: CacheLimits) {
        while !self.by_id.is_empty()
            && (self.by_id.len() >= limits.max_entries || self.bytes + more > limits.max_bytes)
        {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((_, counted, _)) = self.by_id.remove(&oldest) {
                self.bytes -= counted;
            }
        }
    }
}

/// The bounded store of retained packages.
#[derive(Debug)]
pub(crate) struct Store {
    entries: Mutex<Entries>,
    limits: CacheLimits,
}

impl Store {
    /// An empty store bounded by `limits`.
    pub(crate) fn new(limits: CacheLimits) -> Self {
        Store {
            entries: Mutex::default(),
            limits,
        }
    }

    /// Keeps `package`, assembled from `inputs` (none: not to be looked up by inputs), and
    /// returns its entry: the one already kept when its `context_id` is, whose origin stays.
    pub(crate) fn keep(
        &self,
        origin: Origin,
        inputs: Option<ServedInputs>,
        package: Arc<Assembled>,
    ) -> Arc<Entry> {
        let mut entries = lock(&self.entries);
        if let Some(entry) = entries.touch(&package.context_id) {
            drop(entries);
            if let Some(inputs) = inputs {
                let mut known = lock(&entry.inputs);
                if !known.contains(&inputs) && known.len() < INPUTS_PER_ENTRY {
                    known.push(inputs);
                }
            }
            return entry;
        }
        let entry = Arc::new(Entry {
            origin,
            inputs: Mutex::new(inputs.into_iter().collect()),
            brief: OnceLock::new(),
            text_block: OnceLock::new(),
            delivery: OnceLock::new(),
            compressed: Mutex::default(),
            package,
        });
        let size = entry.package.json.len();
        if size > self.limits.max_bytes || self.limits.max_entries == 0 {
            return entry;
        }
        entries.make_room(size, self.limits);
        entries.tick += 1;
        let tick = entries.tick;
        let id = entry.package.context_id.clone();
        entries.order.insert(tick, id.clone());
        entries.by_id.insert(id, (tick, size, Arc::clone(&entry)));
        entries.bytes += size;
        entry
    }

    /// The evidence brief of `package` at the default budget: kept with it while it is
    /// retained, rendered now otherwise.
    pub(crate) fn brief(&self, package: &Assembled) -> Result<Arc<str>, okf_brief::BriefError> {
        match self.get(&package.context_id) {
            Some(entry) => entry.brief(self),
            None => Ok(
                okf_brief::render(&package.json, &okf_brief::BriefOptions::default())?
                    .text
                    .into(),
            ),
        }
    }

    /// The entry of `context_id`, marked as just used.
    pub(crate) fn get(&self, context_id: &str) -> Option<Arc<Entry>> {
        lock(&self.entries).touch(context_id)
    }

    /// The entry `inputs` are known to assemble to, marked as just used.
    pub(crate) fn assembled_from(&self, inputs: &ServedInputs) -> Option<Arc<Entry>> {
        let mut entries = lock(&self.entries);
        let id = entries
            .by_id
            .iter()
            .find(|(_, (_, _, entry))| entry.assembled_from(inputs))
            .map(|(id, _)| id.clone())?;
        entries.touch(&id)
    }

    /// Counts `bytes` more for the entry of `context_id` (a form just made from it), making
    /// room by dropping the least recently used entries, this one included if it is oldest.
    fn grew(&self, context_id: &str, bytes: usize) {
        let mut entries = lock(&self.entries);
        let Some((_, counted, _)) = entries.by_id.get_mut(context_id) else {
            return;
        };
        *counted += bytes;
        entries.bytes += bytes;
        if entries.bytes > self.limits.max_bytes {
            entries.make_room(0, self.limits);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use okf_engine::EvidenceStatus;

    fn fake(id: u8, size: usize) -> Arc<Assembled> {
        Arc::new(Assembled {
            json: "x".repeat(size),
            context_id: format!("urn:sha256:{}", format!("{id:02x}").repeat(32)),
            used_bytes: size as u64,
            evidence_status: EvidenceStatus::Insufficient,
        })
    }

    fn origin() -> Origin {
        Origin {
            bundle: "example".into(),
            revealed: false,
        }
    }

    #[test]
    fn the_store_drops_the_least_recently_used_by_count_and_bytes() {
        let store = Store::new(CacheLimits {
            max_entries: 2,
            max_bytes: 100,
        });
        store.keep(origin(), None, fake(1, 10));
        store.keep(origin(), None, fake(2, 10));
        assert!(store.get(&fake(1, 0).context_id).is_some());
        store.keep(origin(), None, fake(3, 10));
        assert!(
            store.get(&fake(2, 0).context_id).is_none(),
            "2 was least recently used"
        );
        assert!(store.get(&fake(1, 0).context_id).is_some());
        store.keep(origin(), None, fake(4, 95));
        let entries = lock(&store.entries);
        assert_eq!(
            entries.by_id.len(),
            1,
            "bytes bound drops both older entries"
        );
        assert!(entries.bytes <= 100);
        drop(entries);
        store.keep(origin(), None, fake(5, 101));
        assert!(
            store.get(&fake(5, 0).context_id).is_none(),
            "an entry larger than the store is not kept"
        );
    }

    #[test]
    fn every_form_made_from_a_package_counts_against_the_one_byte_limit() {
        let store = Store::new(CacheLimits {
            max_entries: 8,
            max_bytes: 100,
        });
        let first = store.keep(origin(), None, fake(1, 30));
        store.keep(origin(), None, fake(2, 30));
        first.keep_compressed(Coding::Gzip, &Bytes::from(vec![0u8; 20]), &store);
        assert_eq!(lock(&store.entries).bytes, 80);
        // 1 was used last (its body was kept), so 2 goes when 1 grows past the limit.
        store.get(&fake(1, 0).context_id);
        let text = first
            .text_block(&store, |_| Ok::<_, ()>(vec![b'"'; 40]))
            .unwrap();
        assert_eq!(text.len(), 40);
        assert!(store.get(&fake(2, 0).context_id).is_none());
        assert_eq!(lock(&store.entries).bytes, 90);
        assert_eq!(first.compressed(Coding::Gzip).unwrap().len(), 20);
        let again = first
            .text_block(&store, |_| -> Result<Vec<u8>, ()> { panic!("made twice") })
            .unwrap();
        assert_eq!(
            again.as_ptr(),
            text.as_ptr(),
            "a made form is not made again"
        );
    }
}
