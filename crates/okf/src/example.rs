//! The project's own small example bundle, embedded in the binary (see `example/README.md`).

/// The example index (`okf-context-index.v1`), authored for this project.
pub(crate) const INDEX_JSON: &str = include_str!("../example/index.json");
