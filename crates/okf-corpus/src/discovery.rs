//! Corpus v3 assembly (spec §3.12): two-field BM25 discovery over evidence units and cards.

use crate::loader::Fetcher;
use crate::{Corpus, Error};
use okf_engine::{Assembled, Binding, Budget};

pub(crate) fn assemble(
    _corpus: &Corpus,
    _fetch: &mut Fetcher<'_>,
    _question: &str,
    _budget: &Budget,
    _binding: &Binding,
) -> Result<Assembled, Error> {
    Err(Error::manifest("schema", "v3 not yet"))
}
