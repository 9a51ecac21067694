//! Row pages and text segmentation with cursors (spec §1.6).

use crate::session::{CursorPage, EXPIRY_MS, Host, PageBody, Reply, Session, ToolError, fail};
use okf_engine::canonical::sha256_hex;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::rc::Rc;

/// Where a page request starts.
pub(crate) struct PageStart {
    pub(crate) tool: &'static str,
    pub(crate) signature: String,
    pub(crate) case: String,
    pub(crate) body: PageBody,
    pub(crate) offset: usize,
    pub(crate) expires: u64,
}

impl<H: Host> Session<H> {
    /// Resumes from a cursor when one is given, else starts a new request with `first`.
    pub(crate) fn start_page(
        &mut self,
        tool: &'static str,
        input: &Value,
        first: impl FnOnce(&mut Self) -> Result<(String, PageBody), ToolError>,
    ) -> Result<PageStart, ToolError> {
        let signature = crate::session::signature(input);
        if let Some(c) = input.get("cursor").and_then(Value::as_str) {
            let (page, expires) = self.take_cursor(c, tool, &signature)?;
            return Ok(PageStart {
                tool,
                signature,
                case: page.case,
                body: page.body,
                offset: page.offset,
                expires,
            });
        }
        let (case, body) = first(self)?;
        let expires = self.now() + EXPIRY_MS;
        Ok(PageStart {
            tool,
            signature,
            case,
            body,
            offset: 0,
            expires,
        })
    }

    fn remember(&mut self, id: &str, start: &PageStart, offset: usize) {
        let page = CursorPage {
            tool: start.tool,
            signature: start.signature.clone(),
            body: start.body.clone(),
            offset,
            case: start.case.clone(),
        };
        self.cursors.insert(id.to_owned(), page, start.expires);
    }

    /// One page of whole rows that fits `cap`; `result_id` is reserved in the trial for views.
    pub(crate) fn row_page(
        &mut self,
        start: &PageStart,
        limit: usize,
        cap: u64,
        result_id: Option<String>,
    ) -> Result<Reply, ToolError> {
        let PageBody::Rows { base, rows, view } = &start.body else {
            return Err(self.stale_cursor());
        };
        let total = rows.len();
        let offset = start.offset.min(total);
        let next_id = self.new_id("c");
        let case = Some(start.case.clone());
        let build = |n: usize, complete: bool| -> Value {
            let page = &rows[offset..offset + n];
            if *view {
                view_page(
                    base,
                    page,
                    offset,
                    total,
                    complete,
                    (!complete).then(|| next_id.clone()),
                )
            } else {
                let mut m = base.clone();
                m.insert("items".into(), Value::Array(page.to_vec()));
                m.insert("offset".into(), json!(offset));
                m.insert("total".into(), json!(total));
                Value::Object(m)
            }
        };
        let mut n = 0;
        while n < limit && offset + n < total {
            let complete = offset + n + 1 >= total;
            let env = self.envelope(
                &case,
                Some(build(n + 1, complete)),
                complete,
                (!complete).then(|| next_id.clone()),
                result_id.clone(),
            );
            if env.sealed_bytes() > cap {
                break;
            }
            n += 1;
        }
        if n == 0 && offset < total {
            return Err(ToolError {
                case,
                ..fail(
                    "response_budget",
                    format!(
                        "the next complete row does not fit max_bytes {cap}; rows are never cut short"
                    ),
                )
            });
        }
        let complete = offset + n >= total;
        if !complete {
            self.remember(&next_id, start, offset + n);
        }
        Ok(Reply {
            data: build(n, complete),
            complete,
            next_cursor: (!complete).then_some(next_id),
            result_id,
            case,
        })
    }

    /// One exact range of a passage that fits `cap` (spec §1.6 text pages).
    pub(crate) fn text_page(&mut self, start: &PageStart, cap: u64) -> Result<Reply, ToolError> {
        let PageBody::Text { base, units } = &start.body else {
            return Err(self.stale_cursor());
        };
        let total = units.len();
        let offset = start.offset.min(total);
        let next_id = self.new_id("c");
        let case = Some(start.case.clone());
        let build = |end: usize| -> Value {
            let mut m = base.clone();
            m.insert(
                "text".into(),
                json!(String::from_utf16_lossy(&units[offset..end])),
            );
            m.insert(
                "range".into(),
                json!({"start": offset, "end": end, "total": total, "unit": "UTF-16 code units"}),
            );
            m.insert(
                "whole_passage_delivered".into(),
                json!(offset == 0 && end == total),
            );
            Value::Object(m)
        };
        let fits = |s: &Self, end: usize| {
            let complete = end >= total;
            s.envelope(
                &case,
                Some(build(end)),
                complete,
                (!complete).then(|| next_id.clone()),
                None,
            )
            .sealed_bytes()
                <= cap
        };
        let split_pair =
            |end: usize| end > offset && end < total && (0xD800..0xDC00).contains(&units[end - 1]);
        let mut end = total;
        if split_pair(end) {
            end -= 1;
        }
        while end > offset && !fits(self, end) {
            end -= 1.max((end - offset).div_ceil(8));
            if split_pair(end) {
                end -= 1;
            }
        }
        if end < total {
            // Prefer a paragraph break in the second half of the range.
            let search_to = (end + 2).min(total);
            let p = (offset..search_to.saturating_sub(1))
                .rev()
                .find(|&i| units[i] == 10 && units[i + 1] == 10);
            if let Some(p) = p
                && p > offset + (end - offset) / 2
            {
                end = p + 2;
            }
            if split_pair(end) {
                end -= 1;
            }
        }
        if end <= offset && offset < total {
            return Err(ToolError {
                case,
                ..fail(
                    "response_budget",
                    format!(
                        "even the passage metadata does not fit max_bytes {cap}; source text is never cut short without notice"
                    ),
                )
            });
        }
        let complete = end >= total;
        if !complete {
            self.remember(&next_id, start, end);
        }
        Ok(Reply {
            data: build(end),
            complete,
            next_cursor: (!complete).then_some(next_id),
            result_id: None,
            case,
        })
    }
}

/// The passage body: base metadata plus the whole-text hash and the segmentation notice.
pub(crate) fn passage_body(mut base: Map<String, Value>, text: &str) -> PageBody {
    base.insert("text_sha256".into(), json!(sha256_hex(text.as_bytes())));
    base.insert(
        "segmentation".into(),
        json!("Long passages arrive as ordered exact ranges: join every range in order and check text_sha256 before treating the passage as complete."),
    );
    PageBody::Text {
        base,
        units: Rc::new(text.encode_utf16().collect()),
    }
}

/// The refs a row cites: its `references`, or its `ref` and `target_ref`.
fn cited(row: &Value, into: &mut BTreeSet<String>) {
    if let Some(list) = row["references"].as_array() {
        into.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    for k in ["ref", "target_ref"] {
        if let Some(r) = row[k].as_str() {
            into.insert(r.to_owned());
        }
    }
}

/// A view value holding only the delivered rows, provenance filtered to them, and coverage.
pub(crate) fn view_page(
    base: &Map<String, Value>,
    page: &[Value],
    offset: usize,
    total: usize,
    complete: bool,
    next_cursor: Option<String>,
) -> Value {
    let mut m = base.clone();
    let mut refs = BTreeSet::new();
    for row in page {
        cited(row, &mut refs);
    }
    if let Some(Value::Array(prov)) = m.get_mut("provenance") {
        prov.retain(|p| p["ref"].as_str().is_some_and(|r| refs.contains(r)));
    }
    m.insert("rows".into(), Value::Array(page.to_vec()));
    m.insert(
        "coverage".into(),
        json!({"offset": offset, "total_rows": total, "delivered_rows": page.len(), "complete": complete, "next_cursor": next_cursor}),
    );
    Value::Object(m)
}
