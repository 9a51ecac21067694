//! The integration tests of `okf`, gathered into one test binary so the crate and its
//! dependencies are linked once rather than once per file. Each module is one former test file.

mod common;

mod answer_set;
mod authoring_cli;
mod boundary_edges;
mod brief_cli;
mod cli;
mod compression;
mod corpus_cli;
mod deep_research;
mod delivery_cli;
mod eval_cli;
mod faults;
mod first_hour;
mod grounding;
mod host_limits;
mod key_server_faults;
mod publishing;
mod readme_tour;
mod receipts;
mod restricted_bundles;
mod restricted_walk;
mod serve;
mod serve_index;
mod serve_ops;
mod verified_files;
mod workbench;
mod workbench_serve;
