//! Compressed package bodies. `tower-http`'s layer compresses every other response as it
//! streams; a package is compressed once per coding and kept by `context_id` (which fixes its
//! bytes), so a repeated question, a retry or many clients asking the same thing do not
//! compress ~0.5 MB again. A response that already carries `Content-Encoding` is left alone by
//! the layer.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use std::io::Write;

/// A content coding this server writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    /// Zstandard (RFC 8878), level 3.
    Zstd,
    /// Brotli (RFC 7932), quality 4.
    Br,
    /// gzip (RFC 1952), level 1.
    Gzip,
}

impl Coding {
    /// The token of `Content-Encoding` and `Accept-Encoding`.
    pub(crate) fn token(self) -> &'static str {
        match self {
            Coding::Zstd => "zstd",
            Coding::Br => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// Codings in the order this server prefers them when a client accepts several equally.
    const PREFERRED: [Coding; 3] = [Coding::Zstd, Coding::Br, Coding::Gzip];

    /// Compresses `bytes` at `level`.
    pub(crate) fn encode(self, bytes: &[u8], level: Level) -> std::io::Result<Vec<u8>> {
        let best = level == Level::Best;
        match self {
            Coding::Zstd => zstd::bulk::compress(bytes, if best { 19 } else { 3 }),
            Coding::Br => {
                let mut out = Vec::with_capacity(bytes.len() / 4);
                let params = brotli::enc::BrotliEncoderParams {
                    quality: if best { 11 } else { 4 },
                    ..Default::default()
                };
                brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)?;
                Ok(out)
            }
            Coding::Gzip => {
                let level = if best {
                    flate2::Compression::best()
                } else {
                    flate2::Compression::fast()
                };
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::with_capacity(bytes.len() / 4), level);
                encoder.write_all(bytes)?;
                encoder.finish()
            }
        }
    }
}

/// How hard to compress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// For a package, compressed on the request path once: the ratio at these levels is within
    /// a few per cent of the slow ones on JSON (zstd 3, brotli 4, gzip 1).
    Fast,
    /// For the page's fixed assets, compressed once per process or committed (zstd 19,
    /// brotli 11, gzip 9).
    Best,
}

/// The coding to answer with for a request's `Accept-Encoding`: the most preferred coding the
/// client accepts with the highest quality value, or `None` (identity). Tokens are
/// case-insensitive; `*` stands for every coding not named; `q=0` refuses a coding.
pub(crate) fn negotiate(headers: &HeaderMap) -> Option<Coding> {
    negotiate_among(headers, &Coding::PREFERRED)
}

/// Each `Accept-Encoding` item as (lowercase token, quality in thousandths); a malformed
/// quality refuses its coding.
fn accepted_items(headers: &HeaderMap) -> Vec<(String, u16)> {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| {
            let mut parts = item.split(';');
            let token = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q=").map(parse_q))
                .unwrap_or(Some(1000))
                .unwrap_or(0);
            (token, q)
        })
        .filter(|(token, _)| !token.is_empty())
        .collect()
}

/// The quality `items` give `token`: named, else through `*`; `default` when neither is
/// there.
fn quality(items: &[(String, u16)], token: &str, default: u16) -> u16 {
    items
        .iter()
        .find(|(t, _)| t == token)
        .or_else(|| items.iter().find(|(t, _)| t == "*"))
        .map_or(default, |(_, q)| *q)
}

/// As [`negotiate`], among the codings `offered` (in the server's preference).
pub(crate) fn negotiate_among(headers: &HeaderMap, offered: &[Coding]) -> Option<Coding> {
    let items = accepted_items(headers);
    // The highest quality wins; among equals, the first in the server's preference.
    offered
        .iter()
        .map(|&c| (quality(&items, c.token(), 0), c))
        .filter(|(q, _)| *q > 0)
        .fold(None, |best: Option<(u16, Coding)>, (q, c)| match best {
            Some((bq, _)) if bq >= q => best,
            _ => Some((q, c)),
        })
        .map(|(_, c)| c)
}

/// Whether a response can be sent in a coding the request accepts: identity (acceptable
/// unless refused by name or by `*;q=0`, RFC 9110 §12.5.3) or one this server writes.
pub(crate) fn something_acceptable(headers: &HeaderMap) -> bool {
    let items = accepted_items(headers);
    quality(&items, "identity", 1000) > 0 || negotiate(headers).is_some()
}

/// A quality value in thousandths (`1`, `0.5`, `0.001`), or `None` when malformed.
pub(crate) fn parse_q(text: &str) -> Option<u16> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// Packages smaller than this go out as they are: compressing them saves too little.
pub(crate) const MIN_COMPRESSED_BYTES: usize = 1024;

/// The headers of a compressed body.
pub(crate) fn content_encoding(coding: Coding) -> HeaderValue {
    HeaderValue::from_static(coding.token())
}

/// Runs the request through tower-http's compression (fastest level) when the client sent
/// `Accept-Encoding` at all; a request without it, as most API clients send, skips the
/// layer's per-response work.
pub(crate) async fn compress_if_accepted(request: Request, next: Next) -> Response {
    use tower::{Layer, ServiceExt};
    if !request.headers().contains_key(header::ACCEPT_ENCODING) {
        return next.run(request).await;
    }

    let compress = tower_http::compression::CompressionLayer::new()
        .quality(tower_http::CompressionLevel::Fastest)
        .layer(next);
    match compress.oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::io::Read;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn negotiation_follows_quality_values_then_the_servers_preference() {
        assert_eq!(negotiate(&HeaderMap::new()), None);
        assert_eq!(negotiate(&accept("identity")), None);
        assert_eq!(negotiate(&accept("gzip")), Some(Coding::Gzip));
        assert_eq!(negotiate(&accept("gzip, deflate, br")), Some(Coding::Br));
        assert_eq!(negotiate(&accept("gzip, br, zstd")), Some(Coding::Zstd));
        assert_eq!(negotiate(&accept("br;q=0.5, gzip")), Some(Coding::Gzip));
        assert_eq!(negotiate(&accept("BR")), Some(Coding::Br));
        assert_eq!(negotiate(&accept("*")), Some(Coding::Zstd));
        assert_eq!(negotiate(&accept("*, zstd;q=0")), Some(Coding::Br));
        assert_eq!(negotiate(&accept("gzip;q=0")), None);
        assert_eq!(negotiate(&accept("gzip;q=2")), None, "malformed q refuses");
        assert_eq!(negotiate(&accept("gzip;q=0.001")), Some(Coding::Gzip));
    }

    #[test]
    fn every_coding_round_trips() {
        let json = br#"{"a":"x"}"#.repeat(500);
        for coding in Coding::PREFERRED {
            let body = coding.encode(&json, Level::Fast).unwrap();
            assert!(body.len() < json.len() / 4, "{coding:?}");
            let mut back = Vec::new();
            match coding {
                Coding::Zstd => back = zstd::bulk::decompress(&body, json.len()).unwrap(),
                Coding::Br => {
                    brotli::Decompressor::new(&body[..], 4096)
                        .read_to_end(&mut back)
                        .unwrap();
                }
                Coding::Gzip => {
                    flate2::read::GzDecoder::new(&body[..])
                        .read_to_end(&mut back)
                        .unwrap();
                }
            }
            assert_eq!(back, json, "{coding:?}");
        }
    }
}
