//! Load limits: the rate windows, the reading and processing budgets (each per client below
//! an overall ceiling), the request deadline, and bodies read within their limit.

use super::AppState;
use super::error::ApiError;
use crate::fairness::{Budget, ClientAddr, ClientKey, Exhausted, client_key};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use okf_api::error::ErrorCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// Which rate window a request counts against: a flood of cheap requests (404s, index and
/// schema reads) cannot lock out asks. `/health` is never limited, and neither is the page
/// itself: one page load is a dozen or more asset requests served from memory, so counting
/// them would let a low limit make the page unusable before its first ask (they still take a
/// processing slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RouteClass {
    Health,
    Page,
    Ask,
    Other,
}

/// The POST routes that may assemble a package: an ask, and the replays of one (an answer
/// check, a catalogue page, a read, and every MCP call), which assemble whenever the package
/// is no longer retained. They share the ask window, so replays cannot add assemblies on top
/// of a client's ask limit.
const ASSEMBLING_ROUTES: [&str; 5] = [
    "/api/ask",
    "/api/check-answer",
    "/api/catalogue",
    "/api/read",
    "/mcp",
];

fn route_class(request: &Request) -> RouteClass {
    let path = request.uri().path();
    if path == "/health" {
        RouteClass::Health
    } else if request.method() == Method::GET && crate::page::is_page_path(path) {
        RouteClass::Page
    } else if request.method() == Method::POST && ASSEMBLING_ROUTES.contains(&path) {
        RouteClass::Ask
    } else {
        RouteClass::Other
    }
}

fn too_many(retry_after: u64, message: &str) -> Response {
    let mut response = ApiError::new(ErrorCode::RateLimited, message).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    response
}

/// Counts a request against its class's window, the client's and the overall one;
/// `Some((which, seconds left))` when one is full.
fn rate_check(state: &AppState, class: RouteClass, client: ClientKey) -> Option<(Exhausted, u64)> {
    let rates = state.rates.as_ref()?;
    let rate = match class {
        RouteClass::Health | RouteClass::Page => return None,
        RouteClass::Ask => &rates[0],
        RouteClass::Other => &rates[1],
    };
    rate.check(client)
        .err()
        .map(|(refusal, left)| (refusal, left.as_secs().max(1)))
}

/// Says `Connection: close` on a response given before the request's body was read to its
/// end. hyper does not keep such a connection (the unread rest would be taken for the next
/// request) and would otherwise close it unannounced, which a keep-alive client sees as a
/// broken pipe on its next request instead of this response.
pub(crate) async fn close_unread_bodies(request: Request, next: Next) -> Response {
    use axum::body::HttpBody;
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let finished = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        Body::new(WatchedBody {
            inner: body,
            finished: Arc::clone(&finished),
        })
    });
    let mut response = next.run(request).await;
    if !finished.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that records when it has been read to its end.
struct WatchedBody {
    inner: Body,
    finished: Arc<AtomicBool>,
}

impl axum::body::HttpBody for WatchedBody {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.finished.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

fn timed_out() -> Response {
    ApiError::new(
        ErrorCode::RequestTimeout,
        "the request did not complete in time",
    )
    .into_response()
}

/// Reads a whole body within `limit` bytes. Broken framing (a bad chunk) is a 400, not a 413.
pub(crate) async fn read_body(mut body: Body, limit: usize) -> Result<bytes::Bytes, Response> {
    use http_body_util::BodyExt;
    let mut buffer = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| {
            ApiError::new(
                ErrorCode::MalformedBody,
                "the request body ended early or its chunked framing is broken",
            )
            .on("body")
            .into_response()
        })?;
        if let Ok(data) = frame.into_data() {
            if buffer.len() + data.len() > limit {
                return Err(ApiError::new(
                    ErrorCode::BodyTooLarge,
                    "the request body is over the limit",
                )
                .on("body")
                .into_response());
            }
            buffer.extend_from_slice(&data);
        }
    }
    Ok(buffer.freeze())
}

/// A pass from `budget` for `client`, or the message of the 429 that says whose share is
/// used up.
fn acquire(
    budget: &Arc<Budget>,
    client: ClientKey,
    client_full: &'static str,
    server_full: &'static str,
) -> Result<crate::fairness::Pass, &'static str> {
    budget
        .try_acquire(Some(client))
        .map_err(|refusal| match refusal {
            Exhausted::Client => client_full,
            Exhausted::Global => server_full,
        })
}

/// Rate limit (fixed window per route class, `/health` and the page exempt), then the slot policy: a POST
/// body is read under a *reading* permit, and a processing slot is taken only once the whole
/// request is in hand, so slow senders cannot starve complete requests. The request
/// deadline covers body reading and handling; both limits answer 429 with `Retry-After`.
/// Each limit holds per client ([`crate::fairness`]) below its overall ceiling, so one
/// client's flood is refused before it can use up the others' share.
pub(crate) async fn load_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let class = route_class(&request);
    if class == RouteClass::Health {
        return next.run(request).await;
    }
    let client = client_key(
        request.extensions().get::<ClientAddr>().map(|a| a.0),
        request.headers().get_all("x-forwarded-for").iter(),
        &state.config.trusted_proxies,
    );
    if let Some((refusal, seconds)) = rate_check(&state, class, client) {
        return too_many(
            seconds,
            match refusal {
                Exhausted::Client => {
                    "too many requests from this client in this window; retry after the indicated seconds"
                }
                Exhausted::Global => {
                    "too many requests in this window; retry after the indicated seconds"
                }
            },
        );
    }
    let deadline = tokio::time::Instant::now() + state.config.request_timeout;
    let request = if request.method() == Method::POST {
        let _reading = match acquire(
            &state.readers,
            client,
            "this client is sending its maximum number of request bodies; retry shortly",
            "the server is receiving its maximum number of request bodies; retry shortly",
        ) {
            Ok(pass) => pass,
            Err(message) => return too_many(1, message),
        };
        let (parts, body) = request.into_parts();
        match tokio::time::timeout_at(deadline, read_body(body, state.config.max_body_bytes)).await
        {
            Err(_) => return timed_out(),
            Ok(Err(response)) => return response,
            Ok(Ok(bytes)) => Request::from_parts(parts, Body::from(bytes)),
        }
    } else {
        request
    };
    let _permit = match acquire(
        &state.permits,
        client,
        "this client has its maximum number of requests in progress; retry shortly",
        "the server is handling its maximum number of concurrent requests; retry shortly",
    ) {
        Ok(pass) => pass,
        Err(message) => return too_many(1, message),
    };
    match tokio::time::timeout_at(deadline, next.run(request)).await {
        Ok(response) => response,
        Err(_) => timed_out(),
    }
}
