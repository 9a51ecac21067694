//! Request limits shared by every route and tool.

/// Longest record id a request may name (`record_id` of explain, read and the page tools), in
/// Unicode scalar values: the unit JSON Schema's `maxLength` counts, so the published schemas
/// and the server agree on every id. Ids in real bundles are URLs of well under 200.
pub const MAX_RECORD_ID_CHARS: usize = 2_000;

/// Longest logical id (bundle, version, corpus or workbench), in bytes of `a-z 0-9 . _ -`.
pub const MAX_LOGICAL_ID_BYTES: usize = 64;

/// Smallest `delivery_bytes` of a catalogue call: room for the replay fields beside a page.
pub const MIN_CATALOGUE_DELIVERY_BYTES: u64 = 16_384;
/// Largest `offset` a client may send (records for a catalogue, UTF-16 units for a read).
pub const MAX_OFFSET: u64 = 2_000_000;

/// Longest `search` query: a question (at most [`okf_engine::MAX_QUESTION_UNITS`], checked by
/// the ask decoder) after a `<bundle>@<version>: ` prefix of at most 131 characters.
pub const MAX_SEARCH_QUERY_CHARS: usize = okf_engine::MAX_QUESTION_UNITS + 131;
