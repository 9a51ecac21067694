//! `okf capture` of an HTML publication (GOV.UK HTML publications first): the main content
//! only, one capture page per section anchor, so a record's locator and link point at
//! `#section`. Deterministic and dependency-free: a small tokenizer, not a browser. Text is
//! the page's words with tags removed, block ends as line breaks and the common character
//! references decoded; nothing outside `<main>` (navigation, cookie banners, footers) and no
//! script, style, navigation or form content inside it.

use crate::sha256_hex;
use serde_json::json;

/// The name and version of this extractor, written into every capture it makes.
pub const HTML_EXTRACTOR: &str = "okf-authoring html-sections/1";

/// Elements whose content is never page text.
const SKIPPED: [&str; 7] = [
    "script", "style", "nav", "noscript", "template", "form", "svg",
];

/// Elements whose end starts a new line of text.
const BLOCKS: [&str; 20] = [
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "section",
    "article",
    "blockquote",
    "dd",
    "dt",
    "br",
    "pre",
];

/// One piece of the document: text, or a tag with its lower-case name, whether it closes, and
/// its `id` attribute.
enum Token<'a> {
    Text(&'a str),
    Tag {
        name: String,
        closing: bool,
        id: Option<String>,
    },
}

/// The document as tokens; comments and declarations are dropped.
fn tokens(html: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        if open > 0 {
            out.push(Token::Text(&rest[..open]));
        }
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let Some(close) = rest.find('>') else {
            break;
        };
        let inner = &rest[1..close];
        rest = &rest[close + 1..];
        if inner.starts_with('!') || inner.starts_with('?') {
            continue;
        }
        let closing = inner.starts_with('/');
        let body = inner.trim_start_matches('/');
        let name: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        out.push(Token::Tag {
            id: attribute(body, "id"),
            name,
            closing,
        });
    }
    if !rest.is_empty() {
        out.push(Token::Text(rest));
    }
    out
}

/// The value of attribute `name` in a tag's body, quoted with `"` or `'`.
fn attribute(body: &str, name: &str) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(name) {
        let start = from + at;
        from = start + name.len();
        let before_ok = start > 0 && lower.as_bytes()[start - 1].is_ascii_whitespace();
        let rest = body[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value = rest[1..].trim_start();
        let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
        let end = value[1..].find(quote)?;
        return Some(decode(&value[1..1 + end]));
    }
    None
}

/// Decodes the character references GOV.UK pages use: the five XML ones, `&nbsp;`, and
/// numeric ones; any other `&…;` is left as written.
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..end];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// One section's text: lines with their white space collapsed, blank lines dropped.
fn tidy(raw: &str) -> String {
    let lines: Vec<String> = raw
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

/// The sections of the main content: `(anchor, text)`, the first with no anchor (what comes
/// before the first `<h2 id>`, normally the title), then one per `<h2>` or `<h3>` with an id.
fn sections(html: &str) -> Vec<(Option<String>, String)> {
    let mut out: Vec<(Option<String>, String)> = vec![(None, String::new())];
    let mut in_main = 0usize;
    let mut skipping: Vec<String> = Vec::new();
    for token in tokens(html) {
        match token {
            Token::Tag { name, closing, id } => {
                if name == "main" {
                    in_main = if closing {
                        in_main.saturating_sub(1)
                    } else {
                        in_main + 1
                    };
                    continue;
                }
                if in_main == 0 {
                    continue;
                }
                if SKIPPED.contains(&name.as_str()) {
                    if closing {
                        if let Some(pos) = skipping.iter().rposition(|s| *s == name) {
                            skipping.truncate(pos);
                        }
                    } else {
                        skipping.push(name);
                    }
                    continue;
                }
                if !skipping.is_empty() {
                    continue;
                }
                if !closing
                    && (name == "h2" || name == "h3")
                    && let Some(id) = id
                {
                    out.push((Some(id), String::new()));
                }
                if BLOCKS.contains(&name.as_str())
                    && let Some((_, text)) = out.last_mut()
                {
                    text.push('\n');
                }
            }
            Token::Text(text) if in_main > 0 && skipping.is_empty() => {
                if let Some((_, section)) = out.last_mut() {
                    section.push_str(&decode(text));
                }
            }
            Token::Text(_) => {}
        }
    }
    out.into_iter()
        .map(|(anchor, raw)| (anchor, tidy(&raw)))
        .filter(|(anchor, text)| anchor.is_some() || !text.is_empty())
        .collect()
}

/// A captured page file (`okf build`'s input) for an HTML publication at `url`: one page per
/// section, its `url` the publication's with the section's `#anchor`, `source_sha256` over
/// the file's bytes and `literal_sha256` over each page's text. `None` when the file has no
/// `<main>` content.
pub fn capture_html(bytes: &[u8], url: &str, document_id: &str) -> Option<serde_json::Value> {
    let html = String::from_utf8_lossy(bytes);
    let base = url.split('#').next().unwrap_or(url);
    let pages: Vec<serde_json::Value> = sections(&html)
        .into_iter()
        .enumerate()
        .map(|(i, (anchor, text))| {
            let page_url = anchor.map_or_else(|| base.to_owned(), |a| format!("{base}#{a}"));
            json!({"page": i + 1, "url": page_url, "literal_sha256": sha256_hex(&text), "text": text})
        })
        .collect();
    if pages
        .iter()
        .all(|p| p["text"].as_str().is_some_and(str::is_empty))
    {
        return None;
    }
    Some(json!({
        "document_id": document_id,
        "source_url": base,
        "source_sha256": okf_engine::canonical::sha256_hex(bytes),
        "extraction": {
            "method": HTML_EXTRACTOR,
            "unit": "a page is one section of the main content: the text before the first heading with an id, then each <h2> or <h3> with an id",
            "review_status": "unreviewed-machine-extraction",
        },
        "pages": pages,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const PAGE: &str = r##"<!DOCTYPE html><html><head><title>t</title><style>.x{}</style></head>
<body><div class="govuk-cookie-banner">We use cookies</div><header>GOV.UK menu</header>
<main id="content"><h1>Council Tax Reduction: hospital stays</h1><p>Summary &amp; scope.</p>
<nav>Contents: <a href="#stays">Stays</a></nav>
<h2 id="stays">Stays in hospital</h2><p>A stay of up to
52 weeks&nbsp;keeps the reduction.</p><script>track()</script>
<h2 id="students">Students</h2><ul><li>Full-time students&#8217; rules</li><li>Part-time</li></ul>
</main><footer>Footer links</footer></body></html>"##;

    #[test]
    fn an_html_publication_is_one_page_per_section_of_its_main_content() {
        let capture =
            capture_html(PAGE.as_bytes(), "https://council.example/ctr.html", "ctr").unwrap();
        let pages = capture["pages"].as_array().unwrap();
        let urls: Vec<&str> = pages.iter().map(|p| p["url"].as_str().unwrap()).collect();
        assert_eq!(
            urls,
            [
                "https://council.example/ctr.html",
                "https://council.example/ctr.html#stays",
                "https://council.example/ctr.html#students"
            ]
        );
        assert_eq!(
            pages[0]["text"],
            "Council Tax Reduction: hospital stays\nSummary & scope.\n"
        );
        assert_eq!(
            pages[1]["text"],
            "Stays in hospital\nA stay of up to\n52 weeks keeps the reduction.\n"
        );
        assert_eq!(
            pages[2]["text"],
            "Students\nFull-time students\u{2019} rules\nPart-time\n"
        );
        let all: String = pages.iter().map(|p| p["text"].as_str().unwrap()).collect();
        for outside in [
            "cookies",
            "GOV.UK menu",
            "Contents",
            "track()",
            "Footer",
            ".x{}",
        ] {
            assert!(!all.contains(outside), "{outside} leaked into the capture");
        }
        for p in pages {
            assert_eq!(p["literal_sha256"], sha256_hex(p["text"].as_str().unwrap()));
        }
        assert_eq!(
            capture["source_sha256"],
            okf_engine::canonical::sha256_hex(PAGE.as_bytes())
        );
    }

    #[test]
    fn a_file_without_main_content_gives_no_capture() {
        assert!(
            capture_html(
                b"<html><body><p>x</p></body></html>",
                "https://x.example/",
                "x"
            )
            .is_none()
        );
    }
}
