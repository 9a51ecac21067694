//! The integration tests of `okf-conformance`, gathered into one test binary so the crate and its
//! dependencies are linked once rather than once per file. Each module is one former test file.

mod common;

mod deviations;
mod public_projection;
mod reference_vectors;
mod spec_2_never_panics;
mod spec_5_delivery_dwp;
mod spec_7_10_grouping;
mod spec_7_11_corpus_errors;
mod spec_7_11_corpus_vectors;
mod spec_7_12_corpus_v3;
mod spec_7_1_resolution;
mod spec_7_2_traversal_requirements;
mod spec_7_3_governance;
mod spec_7_4_evidence_units;
mod spec_7_5_conflicts_restricted;
mod spec_7_6_budgets;
mod spec_7_7_allocation;
mod spec_7_8_routing_guards;
mod spec_7_9_identity;
mod unresolved_task_message;
