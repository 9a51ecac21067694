//! Writing a whole package into an MCP `tools/call` response without a value tree.
//!
//! rmcp carries `structuredContent` as a `serde_json::Value`, so returning a ~490 KB package
//! through it means parsing the engine's canonical bytes into a tree, cloning it into a text
//! block and writing both again: four times the work of `POST /api/ask`. Instead, `ask_okf`
//! and `okf_get_context` leave the package in a [`PackageSlot`] and return a placeholder
//! result through rmcp, which still does the whole protocol (headers, versions, ids, errors).
//! The HTTP layer then rewrites that small JSON-RPC response: every member is kept as rmcp
//! wrote it except `result.structuredContent`, which becomes the package bytes verbatim, and
//! `result.content`, which becomes one text block carrying the package's evidence brief
//! ([`okf_brief`]): what a model reads, bounded to a host's tool-result limit, while the
//! exact package stays in `structuredContent` for the host and the view. The parsed result
//! is the one rmcp would have written (tested below). The escaped brief is kept with the
//! retained package ([`crate::retained`]).

use crate::retained::Store;
use bytes::Bytes;
use okf_engine::Assembled;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, PoisonError};

/// Largest placeholder response read back from the transport; it carries no package.
pub(crate) const MAX_PLACEHOLDER_BYTES: usize = 64 * 1024;

/// A package a tool call left, with its text as a JSON string literal (or why not).
pub(crate) type Left = (Arc<Assembled>, Result<Bytes, SpliceError>);

/// Why a package could not be written into an MCP response (logged; the client is told only
/// that the package could not be written).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpliceError {
    /// The package's evidence brief could not be rendered.
    #[error("cannot render the evidence brief ({0})")]
    Brief(okf_brief::BriefError),
    /// The brief, or the note standing for it, could not be escaped.
    #[error("cannot escape the {what} ({source})")]
    Escape {
        /// `brief` or `note`.
        what: &'static str,
        /// The serialiser's error.
        source: serde_json::Error,
    },
    /// The escaped text did not read back as a string.
    #[error("the escaped text does not read back ({0})")]
    ReadBack(serde_json::Error),
    /// The transport's response body could not be read.
    #[error("cannot read the transport's response ({0})")]
    Unread(axum::Error),
    /// The transport answered with something other than JSON.
    #[error("the transport did not answer with JSON")]
    NotJson,
    /// The transport's response is not one JSON object.
    #[error("the transport's response is not a JSON object ({0})")]
    NotObject(serde_json::Error),
    /// The response's result is not the placeholder a package goes into.
    #[error("the transport's result is not the package placeholder")]
    NotPlaceholder,
    /// The spliced response could not be written.
    #[error("cannot write the response ({0})")]
    Write(serde_json::Error),
}

/// Where a tool call leaves a package for the HTTP layer to write into its response; one per
/// MCP POST, carried in the request's extensions.
#[derive(Debug, Clone)]
pub(crate) struct PackageSlot {
    left: Arc<Mutex<Option<Left>>>,
    store: Arc<Store>,
    /// The scopes a tool call was refused for want of, for the HTTP layer's challenge.
    step_up: Arc<Mutex<Option<String>>>,
}

impl PackageSlot {
    /// An empty slot whose packages' text blocks are kept with them in `store`.
    pub(crate) fn new(store: Arc<Store>) -> Self {
        PackageSlot {
            left: Arc::default(),
            store,
            step_up: Arc::default(),
        }
    }

    /// Records that the call was refused because the caller's token lacks `scopes`.
    pub(crate) fn step_up(&self, scopes: &str) {
        *self.step_up.lock().unwrap_or_else(PoisonError::into_inner) = Some(scopes.to_owned());
    }

    /// The scopes a call was refused for want of, if it was.
    pub(crate) fn take_step_up(&self) -> Option<String> {
        self.step_up
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Keeps `package` for the response, escaping its text now: on the tool's blocking
    /// thread, not on the async workers that write the response.
    pub(crate) fn put(&self, package: Arc<Assembled>) {
        let escaped = text_block(&self.store, &package);
        *self.left.lock().unwrap_or_else(PoisonError::into_inner) = Some((package, escaped));
    }

    /// The package a tool call left, if any.
    pub(crate) fn take(&self) -> Option<Left> {
        self.left
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// Largest `tools/call` result written: desktop hosts refuse results over 1 MB, so a package
/// at the largest budget (524,288 bytes) cannot travel twice, as structured content and again
/// as a text block.
pub(crate) use okf_api::tools::MAX_TOOL_RESULT_BYTES;
/// Room kept for the JSON-RPC envelope around a measured result (its `id` is at most 128
/// characters, 768 bytes escaped) and, for a spliced package, the result's other members
/// (the receipt in `_meta`, under 1 KB).
const ENVELOPE_ROOM: usize = 8_192;

/// Whether a result with `structured` bytes of structured content and a text block of
/// `escaped_text` bytes (as a JSON string literal) stays within [`MAX_TOOL_RESULT_BYTES`].
fn fits(structured: usize, escaped_text: usize) -> bool {
    structured + escaped_text + ENVELOPE_ROOM <= MAX_TOOL_RESULT_BYTES
}

/// The text block of a result too large to carry its JSON twice: where the exact content is.
/// `package` names the package when the content is one.
fn too_large_note(bytes: usize, package: Option<&Assembled>) -> String {
    let what = match package {
        Some(p) => format!(
            "The evidence package {} (evidence_status {}, {bytes} bytes)",
            p.context_id,
            p.evidence_status.as_str()
        ),
        None => format!("This result ({bytes} bytes of JSON)"),
    };
    format!(
        "{what} is in structuredContent exactly as assembled. It is not repeated here as text: both copies would pass the {MAX_TOOL_RESULT_BYTES}-byte tool result limit of MCP hosts. A client that reads only text can get it in bounded, hash-checked slices with read_okf_evidence (section \"package\"), or a catalogue with ask_okf_manifest."
    )
}

/// The package's text block as a JSON string literal: kept with the package while it is
/// retained (a `context_id` fixes the bytes), so a repeated question does not render and
/// escape the brief again.
pub(crate) fn text_block(store: &Store, package: &Assembled) -> Result<Bytes, SpliceError> {
    let escape = |package: &Assembled| {
        let brief = store.brief(package).map_err(SpliceError::Brief)?;
        escaped_text_block(package, &brief)
    };
    match store.get(&package.context_id) {
        Some(entry) => entry.text_block(store, |entry| escape(&entry.package)),
        None => escape(package).map(Bytes::from),
    }
}

/// The result rmcp writes in place of the package: a successful result with an (object)
/// structured content and one text block, both replaced by [`splice`].
pub(crate) fn placeholder() -> CallToolResult {
    with_text(Value::Object(Map::new()), String::new())
}

/// A successful result whose structured content is `value` and whose one text block is
/// `text` (the same JSON), without rmcp writing `value` into a text block first. Its size is
/// bounded where the call's result is finished ([`bounded`]).
pub(crate) fn with_text(value: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// The number of bytes `value` serialises to, measured without keeping them.
fn serialised_len(value: &impl serde::Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).map_or(usize::MAX, |()| counter.0)
}

/// `result` as it will be written, kept within [`MAX_TOOL_RESULT_BYTES`] with the JSON-RPC
/// envelope by measuring its serialised bytes (not estimating them): a result over it keeps
/// its structured content and says in its text blocks where the content is, the way a large
/// package does; a result whose structured content alone is over it becomes a tool error.
pub(crate) fn bounded(mut result: CallToolResult) -> CallToolResult {
    let size = serialised_len(&result);
    if size.saturating_add(ENVELOPE_ROOM) <= MAX_TOOL_RESULT_BYTES {
        return result;
    }
    for block in &mut result.content {
        if let Some(text) = block.as_text().map(|t| t.text.len()) {
            *block = ContentBlock::text(too_large_note(text, None));
        }
    }
    if serialised_len(&result).saturating_add(ENVELOPE_ROOM) <= MAX_TOOL_RESULT_BYTES {
        return result;
    }
    CallToolResult::error(vec![ContentBlock::text(format!(
        "result_too_large: this result is {size} bytes of JSON, over the {MAX_TOOL_RESULT_BYTES}-byte tool result limit of MCP hosts. Nothing was returned; ask with a smaller budget, or read the package in bounded slices with read_okf_evidence."
    ))])
}

/// The text block of a whole package as a JSON string literal: its evidence brief, or, when
/// the package and its brief would not fit in one result together, the note saying where the
/// package is.
/// The text block of `package` as a JSON string literal: its `brief` escaped, or the note
/// standing for it when both would not fit one tool result.
fn escaped_text_block(package: &Assembled, brief: &str) -> Result<Vec<u8>, SpliceError> {
    let mut out = Vec::with_capacity(brief.len() + brief.len() / 8 + 2);
    serde_json::to_writer(&mut out, brief).map_err(|source| SpliceError::Escape {
        what: "brief",
        source,
    })?;
    if !fits(package.json.len(), out.len()) {
        out.clear();
        serde_json::to_writer(&mut out, &too_large_note(package.json.len(), Some(package)))
            .map_err(|source| SpliceError::Escape {
                what: "note",
                source,
            })?;
    }
    Ok(out)
}

/// The result of a whole package as rmcp writes it (a call that did not come over HTTP),
/// with the text block the splice writes.
pub(crate) fn package_result(
    value: Value,
    package: &Assembled,
) -> Result<CallToolResult, SpliceError> {
    let brief = okf_brief::render(&package.json, &okf_brief::BriefOptions::default())
        .map_err(SpliceError::Brief)?;
    let escaped = escaped_text_block(package, &brief.text)?;
    let text: String = serde_json::from_slice(&escaped).map_err(SpliceError::ReadBack)?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// Rewrites the JSON-RPC response `response` so that its result carries `package`, whose
/// text as a JSON string literal is `escaped`. `Ok(None)` when the response has no result
/// (a JSON-RPC error: nothing to replace); `Err` when it is not a JSON-RPC object with a
/// placeholder result.
pub(crate) fn splice(
    response: &[u8],
    package: &str,
    escaped: &[u8],
) -> Result<Option<Vec<u8>>, SpliceError> {
    let message: Map<String, Value> =
        serde_json::from_slice(response).map_err(SpliceError::NotObject)?;
    let Some(result) = message.get("result") else {
        return Ok(None);
    };
    let Some(result) = result.as_object().filter(|r| {
        r.get("structuredContent").is_some_and(Value::is_object) && r.contains_key("content")
    }) else {
        return Err(SpliceError::NotPlaceholder);
    };
    let mut out = Vec::with_capacity(package.len() + escaped.len() + response.len() + 64);
    write_object(&mut out, &message, |out, key, value| {
        if key == "result" {
            write_object(out, result, |out, key, value| {
                match key {
                    "structuredContent" => out.extend_from_slice(package.as_bytes()),
                    "content" => {
                        out.extend_from_slice(br#"[{"type":"text","text":"#);
                        out.extend_from_slice(escaped);
                        out.extend_from_slice(b"}]");
                    }
                    _ => serde_json::to_writer(out, value)?,
                }
                Ok(())
            })
        } else {
            serde_json::to_writer(out, value)
        }
    })
    .map_err(SpliceError::Write)?;
    Ok(Some(out))
}

/// Writes `object` as JSON, each member's value by `value`.
fn write_object(
    out: &mut Vec<u8>,
    object: &Map<String, Value>,
    mut value: impl FnMut(&mut Vec<u8>, &str, &Value) -> serde_json::Result<()>,
) -> serde_json::Result<()> {
    out.push(b'{');
    for (i, (key, member)) in object.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, key)?;
        out.push(b':');
        value(out, key, member)?;
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use rmcp::model::{
        JsonRpcResponse, JsonRpcVersion2_0, NumberOrString, RequestId, ServerJsonRpcMessage,
        ServerResult,
    };
    use serde_json::json;

    /// A package whose text needs escaping: quotes, a backslash, a control character,
    /// non-ASCII and an astral character.
    const PACKAGE: &str = "{\"a\":\"quote \\\" backslash \\\\ tab \\t\",\"b\":[1,{\"c\":\"caf\u{e9} \u{1d400}\"}],\"n\":null}";

    fn response(id: RequestId, result: CallToolResult) -> Vec<u8> {
        let message = ServerJsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result: ServerResult::CallToolResult(result),
        });
        serde_json::to_vec(&message).unwrap()
    }

    #[test]
    fn spliced_response_parses_to_what_rmcp_writes_from_the_parsed_package() {
        for id in [
            NumberOrString::Number(7),
            NumberOrString::String("x\"y".into()),
        ] {
            let value: Value = serde_json::from_str(PACKAGE).unwrap();
            let expected: Value =
                serde_json::from_slice(&response(id.clone(), with_text(value, PACKAGE.to_owned())))
                    .unwrap();
            let escaped = serde_json::to_vec(PACKAGE).unwrap();
            let spliced = splice(&response(id, placeholder()), PACKAGE, &escaped)
                .unwrap()
                .unwrap();
            let spliced_value: Value = serde_json::from_slice(&spliced).unwrap();
            assert_eq!(spliced_value, expected);
            assert_eq!(
                spliced_value["result"]["content"][0]["text"].as_str(),
                Some(PACKAGE),
                "the text block is the package bytes"
            );
            let bytes = String::from_utf8(spliced).unwrap();
            assert!(
                bytes.contains(&format!("\"structuredContent\":{PACKAGE}")),
                "structuredContent is the package bytes verbatim: {bytes}"
            );
        }
    }

    /// The example bundle's package for `question`.
    fn example_package(question: &str) -> Assembled {
        let index = okf_engine::ContextIndex::from_json_str(include_str!(
            "../../../okf/example/index.json"
        ))
        .unwrap();
        okf_engine::assemble(&index, question, &okf_engine::Budget::default(), None).unwrap()
    }

    #[test]
    fn the_text_block_is_the_packages_evidence_brief_kept_with_the_retained_package() {
        let store = Store::new(crate::retained::CacheLimits::default());
        let package = Arc::new(example_package("How do I borrow books?"));
        let brief = okf_brief::render(&package.json, &okf_brief::BriefOptions::default()).unwrap();
        let expected = serde_json::to_vec(&brief.text).unwrap();
        let not_retained = text_block(&store, &package).unwrap();
        assert_eq!(not_retained, expected);
        let origin = crate::retained::Origin {
            bundle: "example".into(),
            revealed: false,
        };
        store.keep(origin, None, Arc::clone(&package));
        let first = text_block(&store, &package).unwrap();
        assert_eq!(first, expected);
        let again = text_block(&store, &package).unwrap();
        assert_eq!(
            again.as_ptr(),
            first.as_ptr(),
            "a kept text is not rendered again"
        );
    }

    /// A result whose structured content is `plain` letters and `quoted` quotation marks
    /// (each escapes to two bytes, and to four in the text block's copy), and whose text
    /// block is the same JSON.
    fn escaping_result(plain: usize, quoted: usize) -> CallToolResult {
        let value = json!({"text": format!("{}{}", "a".repeat(plain), "\"".repeat(quoted))});
        let text = value.to_string();
        with_text(value, text)
    }

    fn written_len(result: &CallToolResult) -> usize {
        serde_json::to_vec(result).unwrap().len()
    }

    #[test]
    fn a_result_is_bounded_by_its_serialised_size_not_an_estimate() {
        let small = escaping_result(1_000, 10);
        assert_eq!(
            bounded(small.clone()),
            small,
            "a small result is left alone"
        );
        // A 495,012-byte text with 4 % escaping: the old estimate (2 × text + 8,192 =
        // 998,216) let it through, and the result was 1,030,000 bytes.
        let near = escaping_result(455_000, 20_000);
        assert!(written_len(&near) > MAX_TOOL_RESULT_BYTES);
        let kept = bounded(near.clone());
        assert!(written_len(&kept) + ENVELOPE_ROOM <= MAX_TOOL_RESULT_BYTES);
        assert_eq!(
            kept.structured_content, near.structured_content,
            "the structured content is kept whole"
        );
        let note = &kept.content[0].as_text().unwrap().text;
        assert!(note.contains("is in structuredContent"), "{note}");
        // Structured content alone over the limit: nothing but a tool error.
        let too_large = bounded(escaping_result(0, 600_000));
        assert_eq!(too_large.is_error, Some(true));
        assert!(too_large.structured_content.is_none());
    }

    #[test]
    fn an_error_response_is_left_alone_and_a_foreign_result_is_refused() {
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m"}}"#;
        let escaped = serde_json::to_vec(PACKAGE).unwrap();
        assert!(matches!(splice(error, PACKAGE, &escaped), Ok(None)));
        let foreign = response(
            NumberOrString::Number(1),
            CallToolResult::success(vec![ContentBlock::text("t")]),
        );
        assert!(splice(&foreign, PACKAGE, &escaped).is_err());
        assert!(splice(b"[1]", PACKAGE, &escaped).is_err());
    }
}
