//! What the host supplies: files, time, ids, package reconstruction and the page.
//! The crate itself does no I/O, reads no clock and draws no randomness.

/// Loads manifest-relative files (already checked by the path rule).
pub trait Loader {
    /// Returns the file's bytes, or why it cannot be had. Must refuse files over `cap` bytes.
    fn load(&self, path: &str, cap: usize) -> Result<Vec<u8>, String>;
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

/// A page kept in memory: the scriptable driver and tests use it; the web page has its own.
#[derive(Debug, Clone, Default)]
pub struct MemoryPage {
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
        let mut link = format!("?case={}", percent(&selection.case_id));
        if let Some(r) = &selection.record_id {
            link.push_str("&record=");
            link.push_str(&percent(r));
        }
        link.push_str("&tab=");
        link.push_str(&percent(&selection.view));
        link
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
