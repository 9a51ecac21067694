//! Every error code the adapters write themselves, each with its HTTP status: one table, so the
//! same refusal reads the same over HTTP, MCP and the page, and a code is spelled in one
//! place. Codes of refusals decided below the contract (a question, a budget, a delivery
//! request) come from those crates' own typed errors; this table holds the rest.

/// Declares [`ErrorCode`] from one list of `Variant = "code", status;` rows.
macro_rules! error_codes {
    ($( $(#[doc = $doc:expr])+ $variant:ident = $code:literal, $status:literal; )+) => {
        /// A stable machine-readable error code an adapter writes, with its HTTP status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl ErrorCode {
            /// Every code, in table order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as the wire spells it.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)+ }
            }

            /// The HTTP status an error with this code is sent with.
            pub const fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)+ }
            }
        }
    };
}

error_codes! {
    /// A field breaks an input rule.
    InvalidRequest = "invalid_request", 400;
    /// The body is not one well-formed JSON document, or repeats a key.
    InvalidJson = "invalid_json", 400;
    /// A 400 an inner service wrote without saying why.
    BadRequest = "bad_request", 400;
    /// A header that must appear once appears twice.
    DuplicateHeader = "duplicate_header", 400;
    /// The request target is in absolute form.
    AbsoluteTarget = "absolute_target", 400;
    /// The body ended early or could not be read.
    MalformedBody = "malformed_body", 400;
    /// No bearer token was sent to a route that needs one.
    MissingToken = "missing_token", 401;
    /// The bearer token was refused (signature, issuer, audience, time or keys).
    InvalidToken = "invalid_token", 401;
    /// The `Host` header names no host this server answers for.
    HostNotAllowed = "host_not_allowed", 403;
    /// A browser origin this server does not allow.
    OriginNotAllowed = "origin_not_allowed", 403;
    /// The caller's token lacks a scope the bundle's policy needs.
    InsufficientScope = "insufficient_scope", 403;
    /// No such route, file or schema.
    NotFound = "not_found", 404;
    /// The bundle is not in the registry (or not visible to the caller).
    UnknownBundle = "unknown_bundle", 404;
    /// The named version, or a version for the date, is not held.
    UnknownVersion = "unknown_version", 404;
    /// The context is no longer retained; ask again with the same inputs.
    ContextNotRetained = "context_not_retained", 404;
    /// The route does not accept the method.
    MethodNotAllowed = "method_not_allowed", 405;
    /// No representation the client accepts.
    NotAcceptable = "not_acceptable", 406;
    /// The request took longer than the server allows.
    RequestTimeout = "request_timeout", 408;
    /// The body is larger than the route accepts.
    BodyTooLarge = "body_too_large", 413;
    /// The request target is too long.
    UriTooLong = "uri_too_long", 414;
    /// The body's media type or encoding is not one the route reads.
    UnsupportedMediaType = "unsupported_media_type", 415;
    /// Too many requests from this client, or for the server as a whole.
    RateLimited = "rate_limited", 429;
    /// The request's headers are too large.
    HeadersTooLarge = "headers_too_large", 431;
    /// The server failed; the message says where.
    Internal = "internal", 500;
    /// A transfer coding the server does not implement.
    TransferCodingNotImplemented = "transfer_coding_not_implemented", 501;
    /// The bundle version is held but was refused at load; `/api/bundles` says why.
    BundleUnavailable = "bundle_unavailable", 503;
    /// The corpus is held but was refused at load.
    CorpusUnavailable = "corpus_unavailable", 503;
    /// A workbench file did not match the digest its manifest records, so it is not served.
    WorkbenchFileUnverified = "workbench_file_unverified", 503;
    /// The page's engine was asked before an index was loaded.
    NoIndex = "no_index", 409;
    /// The binding's digest is not the loaded index's.
    BindingMismatch = "binding_mismatch", 409;
    /// The index the page loaded was refused by the engine's rules.
    InvalidIndex = "invalid_index", 422;
    /// A package given to the page's engine (for a brief) was refused.
    InvalidPackage = "invalid_package", 422;
    /// No admitted workbench has that id.
    UnknownWorkbench = "unknown_workbench", 404;
    /// The workbench has no case with that id.
    UnknownCase = "unknown_case", 404;
    /// The page's workbench was called before a manifest was opened.
    NotReady = "not_ready", 409;
    /// The workbench manifest the page opened was refused.
    InvalidManifest = "invalid_manifest", 422;
    /// A workbench tool input breaks its schema.
    InvalidInput = "invalid_input", 400;
    /// The page answered a workbench call that is not pending.
    UnknownTicket = "unknown_ticket", 404;
    /// Any other status an inner service wrote without a body.
    Other = "error", 400;
}

impl ErrorCode {
    /// The code of an error response an inner service (the MCP transport, an asset route)
    /// wrote with `status` and no body of its own.
    pub fn for_bare_status(status: u16) -> ErrorCode {
        match status {
            400 => ErrorCode::BadRequest,
            404 => ErrorCode::NotFound,
            405 => ErrorCode::MethodNotAllowed,
            406 => ErrorCode::NotAcceptable,
            413 => ErrorCode::BodyTooLarge,
            415 => ErrorCode::UnsupportedMediaType,
            429 => ErrorCode::RateLimited,
            500..=599 => ErrorCode::Internal,
            _ => ErrorCode::Other,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `error` member of an error body, `{"code", "message", "field"?}`: the one error shape
/// of the HTTP API, the page's engine and the page.
pub fn error_body(code: &str, message: &str, field: Option<&str>) -> serde_json::Value {
    let mut error = serde_json::Map::new();
    error.insert("code".into(), code.into());
    error.insert("message".into(), message.into());
    if let Some(field) = field {
        error.insert("field".into(), field.into());
    }
    serde_json::json!({ "error": error })
}

/// The error codes of RFC 6750 §3.1 a bearer challenge names (`WWW-Authenticate: Bearer
/// error="…"`): OAuth's vocabulary, not this API's, though two are spelled alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerError {
    /// The request is malformed (for example two tokens).
    InvalidRequest,
    /// The token is expired, revoked, malformed or otherwise invalid.
    InvalidToken,
    /// The token lacks a scope the resource needs.
    InsufficientScope,
}

impl BearerError {
    /// The code as RFC 6750 spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            BearerError::InvalidRequest => ErrorCode::InvalidRequest.as_str(),
            BearerError::InvalidToken => ErrorCode::InvalidToken.as_str(),
            BearerError::InsufficientScope => ErrorCode::InsufficientScope.as_str(),
        }
    }

    /// The code of the error body sent with the challenge.
    pub const fn code(self) -> ErrorCode {
        match self {
            BearerError::InvalidRequest => ErrorCode::InvalidRequest,
            BearerError::InvalidToken => ErrorCode::InvalidToken,
            BearerError::InsufficientScope => ErrorCode::InsufficientScope,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_code_is_spelled_once_in_snake_case() {
        let mut seen = BTreeSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} appears twice in the table");
            assert!(
                s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{s} is not snake_case"
            );
            assert!((400..600).contains(&code.http_status()), "{s}");
        }
    }

    #[test]
    fn a_bare_status_maps_to_a_code_sent_with_that_status() {
        for status in [400, 404, 405, 406, 413, 415, 429, 500] {
            assert_eq!(ErrorCode::for_bare_status(status).http_status(), status);
        }
        assert_eq!(ErrorCode::for_bare_status(418), ErrorCode::Other);
    }
}

/// Readiness as `/ready`, `/api/bundles` and the workbench list report it.
pub mod readiness {
    /// Everything needed to serve is loaded and verified.
    pub const READY: &str = "ready";
    /// Something needed to serve was refused or is missing; the report says what.
    pub const NOT_READY: &str = "not_ready";
}
