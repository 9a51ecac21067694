//! What the host supplies: files, time, ids, package reconstruction and the page.
//! The crate itself does no I/O, reads no clock and draws no randomness.

/// Loads manifest-relative files (already checked by the path rule).
pub trait Loader {
    /// Returns the file's bytes, or why it cannot be had. Must refuse files over `cap` bytes.
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, LoadFailure>;
}

/// Why a [`Loader`] could not hand over a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadFailure {
    /// The file cannot be had (absent, unreadable, over its cap): the package is unavailable.
    Unavailable(String),
    /// The host already found the file is not what the manifest declares (a host that
    /// verifies as it reads): the package fails verification.
    Unverified(String),
}

impl From<String> for LoadFailure {
    fn from(reason: String) -> Self {
        LoadFailure::Unavailable(reason)
    }
}

/// The session clock, in milliseconds.
pub trait Clock {
    /// Current time in milliseconds (any epoch; only differences matter).
    fn now_ms(&self) -> u64;
}

/// A source of unique ids (UUID text, 36 characters) for refs, cursors and results.
pub trait IdSource {
    /// A fresh id; never repeats within a session.
    fn next_id(&mut self) -> String;
}

/// What the page displays, as the session sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageState {
    /// Revision; bumped by exactly 1 on every presentation, edit or navigation.
    pub revision: u64,
    /// Whether the page is loading.
    pub loading: bool,
    /// Displayed case.
    pub case_id: Option<String>,
    /// Displayed record.
    pub record_id: Option<String>,
    /// Displayed view (one of the 12 views).
    pub view: String,
}

/// A selection for the page to present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Case to show.
    pub case_id: String,
    /// Record to show, if any.
    pub record_id: Option<String>,
    /// View to show.
    pub view: String,
    /// Retained view result to show, if any.
    pub result_id: Option<String>,
}

/// The revision-checked presentation port the page implements (§1.10).
pub trait PresentationPort {
    /// Current page state.
    fn state(&self) -> PageState;
    /// Applies one atomic update that increments the revision by exactly 1, after checking
    /// `expected_revision` again; returns an error text if the page refuses.
    fn present(&mut self, selection: &Selection, expected_revision: u64) -> Result<(), String>;
    /// The deep link (query parameters `manifest`, `case`, `record`, `tab`; never a ref).
    fn deep_link(&self, selection: &Selection) -> String;
}

/// A page kept in memory: the scriptable driver, the wasm page host and tests use it.
#[derive(Debug, Clone, Default)]
pub struct MemoryPage {
    /// The workbench id deep links name in `manifest` (none: the parameter is left out).
    pub manifest: Option<String>,
    /// The state shown.
    pub state: PageState,
    /// Every selection presented, in order.
    pub presented: Vec<Selection>,
}

impl MemoryPage {
    /// A human tab change or navigation: applies the selection and bumps the revision.
    pub fn navigate(
        &mut self,
        case_id: Option<String>,
        record_id: Option<String>,
        view: Option<String>,
    ) {
        self.state.case_id = case_id;
        self.state.record_id = record_id;
        if let Some(v) = view {
            self.state.view = v;
        }
        self.state.revision += 1;
    }
}

impl PresentationPort for MemoryPage {
    fn state(&self) -> PageState {
        let mut s = self.state.clone();
        if s.view.is_empty() {
            s.view = "source".into();
        }
        s
    }
    fn present(&mut self, selection: &Selection, expected_revision: u64) -> Result<(), String> {
        if self.state.revision != expected_revision {
            return Err("the page changed before the presentation".into());
        }
        self.state.case_id = Some(selection.case_id.clone());
        self.state.record_id = selection.record_id.clone();
        self.state.view = selection.view.clone();
        self.state.revision += 1;
        self.presented.push(selection.clone());
        Ok(())
    }
    fn deep_link(&self, selection: &Selection) -> String {
        deep_link(self.manifest.as_deref(), selection)
    }
}

/// The share link of a selection, relative to the workbench page: query parameters
/// `manifest` (when given), `case`, `record` (when given) and `tab`; never a ref, cursor or
/// result id, which mean nothing outside this session.
pub fn deep_link(manifest: Option<&str>, selection: &Selection) -> String {
    let mut params = Vec::with_capacity(4);
    if let Some(m) = manifest {
        params.push(format!("manifest={}", percent(m)));
    }
    params.push(format!("case={}", percent(&selection.case_id)));
    if let Some(r) = &selection.record_id {
        params.push(format!("record={}", percent(r)));
    }
    params.push(format!("tab={}", percent(&selection.view)));
    format!("?{}", params.join("&"))
}

/// Ids derived from a seed: UUID-v4-shaped text from SHA-256 of `seed:n` for n = 1, 2, ….
/// The same seed gives the same ids, so two hosts (the `okf workbench run` driver and the web
/// page) replay a journey to the same envelopes; a host seeds it randomly otherwise.
#[derive(Debug, Clone)]
pub struct SeededIds {
    seed: String,
    counter: u64,
}

impl SeededIds {
    /// Ids from this seed.
    pub fn new(seed: impl Into<String>) -> Self {
        SeededIds {
            seed: seed.into(),
            counter: 0,
        }
    }
}

impl IdSource for SeededIds {
    fn next_id(&mut self) -> String {
        self.counter += 1;
        let h =
            okf_engine::canonical::sha256_hex(format!("{}:{}", self.seed, self.counter).as_bytes());
        // UUID v4 layout: version nibble 4, variant 8.
        format!(
            "{}-{}-4{}-8{}-{}",
            &h[0..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }
}

/// Percent-encodes everything outside the URL-unreserved set.
pub fn percent(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
