//! Conformance test crate; the tests live in tests/.
