//! Bounded delivery over the service (spec workbench-and-mcp.md §2.3–§2.5): a catalogue page or
//! an exact read of the package a question gives. Every call is stateless: it replays the same
//! bundle version, question and budget through the engine and refuses to answer unless the
//! replay reproduces the expected `context_id`, so any replica answers any continuation.

use crate::auth::Caller;
use crate::service::{AskRequest, RequestError, Service, ServiceError};
pub use okf_api::limits::{MAX_OFFSET, MIN_CATALOGUE_DELIVERY_BYTES};
pub use okf_api::request::{CatalogueArgs, ReadArgs};
use okf_delivery::{Context, DeliveryError, ReadRequest, Section};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Why a delivery call returned nothing.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryFailure {
    /// The replay itself was refused (bundle, version, question or budget).
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The delivery request was refused (identity, section, record, offset or size).
    #[error(transparent)]
    Delivery(#[from] DeliveryError),
    /// The request does not decode (its ask fields or its delivery fields).
    #[error(transparent)]
    Request(#[from] RequestError),
}

impl DeliveryFailure {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            DeliveryFailure::Service(e) => e.code(),
            DeliveryFailure::Delivery(e) => e.code(),
            DeliveryFailure::Request(e) => e.code().as_str(),
        }
    }

    /// The request field at fault, where there is one.
    pub fn field(&self) -> Option<String> {
        match self {
            DeliveryFailure::Service(e) => e.field(),
            DeliveryFailure::Delivery(e) => e.field().map(str::to_owned),
            DeliveryFailure::Request(e) => Some(e.field().to_owned()),
        }
    }
}

/// A catalogue page or read envelope with the replay fields, and its serialised form.
#[derive(Debug, Clone)]
pub struct Delivered {
    /// The structured result.
    pub value: Value,
    /// Its compact JSON (what `used_bytes` / `response_bytes` measure).
    pub json: String,
    /// Where a person can see the same package (the page's permalink).
    pub review_url: String,
}

/// The context a request replays to: a recently delivered one when it was assembled from the
/// request's inputs ([`okf_engine::ReplayInputs`]: question, budget, binding, date, profile),
/// else a fresh assembly. Returns the context and the version name that served it.
pub(crate) fn replayed(
    service: &Service,
    request: &AskRequest,
    expected: Option<&str>,
    caller: &Caller,
) -> Result<(Arc<Context>, String), DeliveryFailure> {
    let version = service.version_name(request, caller)?;
    let inputs = service.replay_inputs(request, caller)?;
    if let Some(cached) = expected.and_then(|id| service.delivered_for(id, &inputs)) {
        return Ok((cached, version));
    }
    let answer = service.ask(request, caller)?;
    // A package asked again (a first catalogue page, a search) was parsed and indexed when it
    // was first delivered: reuse that rather than parse half a megabyte again.
    let store = service.retained();
    let context = match store.get(&answer.package.context_id) {
        Some(entry) => entry.delivery(store)?,
        None => Arc::new(Context::from_canonical(answer.package.json.clone())?),
    };
    Ok((context, answer.version))
}

/// A replayed context with the fields every delivery result carries.
struct Replay {
    context: Arc<Context>,
    /// `replay` and `replay_identity`.
    extras: Map<String, Value>,
    review_url: String,
}

/// The four limits of the context's resolved budget (what a replay must send).
fn resolved_budget(context: &Context) -> Value {
    context
        .member("budget")
        .and_then(|raw| serde_json::from_str::<Value>(raw).ok())
        .map(|b| {
            json!({
                "max_nodes": b["max_nodes"],
                "max_relationships": b["max_relationships"],
                "max_depth": b["max_depth"],
                "max_bytes": b["max_bytes"],
            })
        })
        .unwrap_or(Value::Null)
}

/// The page's permalink for a replayed context.
pub(crate) fn permalink(origin: &str, request: &AskRequest, context: &Context) -> String {
    review_url(origin, request, &resolved_budget(context))
}

/// Replays the request and returns the context, the replay fields and the permalink.
fn replay(
    service: &Service,
    request: AskRequest,
    expected: Option<&str>,
    origin: &str,
    caller: &Caller,
) -> Result<Replay, DeliveryFailure> {
    let (context, version) = replayed(service, &request, expected, caller)?;
    let budget = resolved_budget(&context);
    let review_url = review_url(origin, &request, &budget);
    let package_sha256 = context.package_sha256();
    let mut replay = Map::new();
    replay.insert(
        "replay".into(),
        json!({
            "bundle": request.bundle,
            "version": version,
            "engine_id": okf_engine::ENGINE_ID,
            "budget": budget,
        }),
    );
    replay.insert(
        "replay_identity".into(),
        json!({
            "engine_id": okf_engine::ENGINE_ID,
            "mode": "current-default",
            "original_engine_id": null,
            "matching_engine_ids": [okf_engine::ENGINE_ID],
            "context_id": context.context_id(),
            "package_sha256": package_sha256,
        }),
    );
    Ok(Replay {
        context,
        extras: replay,
        review_url,
    })
}

/// `application/x-www-form-urlencoded`, as the page's `URLSearchParams` reads it.
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The page's permalink for the same bundle, question and resolved budget.
fn review_url(origin: &str, request: &AskRequest, budget: &Value) -> String {
    let mut url = format!(
        "{origin}/#bundle={}&q={}",
        form_encode(&request.bundle),
        form_encode(&request.question)
    );
    for key in ["max_nodes", "max_relationships", "max_depth", "max_bytes"] {
        if let Some(n) = budget.get(key).and_then(Value::as_u64) {
            url.push_str(&format!("&{key}={n}"));
        }
    }
    // Whatever else chose the package: without them the link would show another package.
    for (key, value) in [
        ("version", &request.version),
        ("as_of", &request.as_of),
        ("profile", &request.profile),
    ] {
        if let Some(value) = value {
            url.push_str(&format!("&{key}={}", form_encode(value)));
        }
    }
    url
}

/// One catalogue page of the replayed context, with `replay`, `replay_identity`,
/// `review_url`, `response_bytes` and `response_limit`; the whole result fits
/// `delivery_bytes` ([`okf_delivery::catalogue_with_extras`] sizes it).
pub fn catalogue(
    service: &Service,
    args: CatalogueArgs,
    origin: &str,
    caller: &Caller,
) -> Result<Delivered, DeliveryFailure> {
    // The decoder has checked the range, the offset and the continuation's context_id.
    let limit = args
        .delivery_bytes
        .unwrap_or(okf_delivery::DEFAULT_DELIVERY_BYTES);
    let request = args.ask;
    let Replay {
        context,
        mut extras,
        review_url,
    } = replay(service, request, args.context_id.as_deref(), origin, caller)?;
    if let Some(expected) = &args.context_id {
        context.expect_id(expected)?;
    }
    extras.insert("review_url".into(), json!(review_url));
    extras.insert("response_limit".into(), json!(limit));
    extras.insert("response_bytes".into(), json!(limit));
    let (value, json) = okf_delivery::catalogue_with_extras(&context, args.offset, limit, extras)?;
    Ok(Delivered {
        value,
        json,
        review_url,
    })
}

/// One exact read of the replayed context, with `replay` and `replay_identity` inside the
/// envelope; the slice is cut so the whole envelope fits `delivery_bytes`.
pub fn read(
    service: &Service,
    args: ReadArgs,
    origin: &str,
    caller: &Caller,
) -> Result<Delivered, DeliveryFailure> {
    let limit = okf_delivery::check_delivery_bytes(
        args.delivery_bytes
            .unwrap_or(okf_delivery::DEFAULT_DELIVERY_BYTES),
    )?;
    let section = Section::parse(&args.section)?;
    match (section, &args.record_id) {
        (Section::RecordText | Section::RecordMetadata, None) => {
            return Err(DeliveryError::RecordIdRequired(section.as_str()).into());
        }
        (Section::Relationships | Section::Diagnostics | Section::Package, Some(_)) => {
            return Err(DeliveryError::RecordIdNotAllowed(section.as_str()).into());
        }
        _ => {}
    }
    let request = args.ask;
    let Replay {
        context,
        extras,
        review_url,
    } = replay(service, request, Some(&args.context_id), origin, caller)?;
    let read = ReadRequest {
        context_id: args.context_id,
        section,
        record_id: args.record_id,
        offset: args.offset,
        max_bytes: limit,
    };
    let json = okf_delivery::read_with_extras(&context, &read, &extras)?;
    let value = serde_json::from_str(&json)
        .map_err(|e| DeliveryError::Package(format!("read envelope is not JSON: {e}")))?;
    Ok(Delivered {
        value,
        json,
        review_url,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use crate::service::CacheLimits;
    use serde_json::json;

    fn request(extra: Value) -> AskRequest {
        let mut body = json!({"bundle": "example", "question": "How do I borrow books?"});
        if let (Value::Object(map), Value::Object(more)) = (&mut body, extra) {
            map.extend(more);
        }
        AskRequest::from_value(body).unwrap()
    }

    #[test]
    fn a_replay_with_another_profile_or_date_does_not_reuse_the_delivered_context() {
        // The example, published in 2000 so that a request may give a date.
        let service = || {
            let index = include_str!("../../okf/example/index.json");
            let mut registry = Registry::example(index).unwrap();
            for bundle in registry.bundles.values_mut() {
                for version in bundle.versions.values_mut() {
                    version.published = Some("2000-01-01".into());
                }
            }
            Service::new(registry, CacheLimits::default())
        };
        let kept = service();
        // Each pair differs in one input the package depends on: the profile, or the date
        // the rich profile records as guidance_regime.as_of.
        for (first, then) in [
            (json!({}), json!({"profile": "regimes"})),
            (
                json!({"profile": "regimes", "as_of": "2026-01-01"}),
                json!({"profile": "regimes", "as_of": "2012-01-01"}),
            ),
        ] {
            let (delivered, _) =
                replayed(&kept, &request(first.clone()), None, &Caller::anonymous()).unwrap();
            let fresh = service()
                .ask(&request(then.clone()), &Caller::anonymous())
                .unwrap()
                .package;
            assert_ne!(fresh.context_id, delivered.context_id(), "{then}");
            // Naming the delivered package's id must not hand it back for other inputs.
            let named = replayed(
                &kept,
                &request(then.clone()),
                Some(delivered.context_id()),
                &Caller::anonymous(),
            );
            assert_eq!(
                named.unwrap().0.context_id(),
                fresh.context_id,
                "{first} then {then}"
            );
        }
    }
}
