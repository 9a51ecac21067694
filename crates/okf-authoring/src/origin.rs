//! Where a profile item was declared, so that every error names its file and line.

use crate::error::{Error, Rule};

/// Where an item was declared: file and line.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    pub(crate) file: String,
    pub(crate) line: usize,
}

impl Origin {
    pub(crate) fn error(&self, rule: Rule) -> Error {
        Error {
            file: self.file.clone(),
            line: self.line,
            rule,
        }
    }
}

/// Where each profile item was declared, per list of the index, in list order.
pub(crate) struct Origins<'a> {
    pub records: &'a [Origin],
    pub assertions: &'a [Origin],
    pub requirements: &'a [Origin],
    pub gaps: &'a [Origin],
    pub regimes: &'a [Origin],
}
