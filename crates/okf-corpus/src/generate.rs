//! Deterministic scale generator.
