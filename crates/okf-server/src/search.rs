//! The `search` and `fetch` tools ChatGPT's deep research and company knowledge modes call:
//! `search(query)` assembles the governed context for the query over one bundle and lists the
//! package and its selected records; `fetch(id)` returns one of them exactly. The listing is
//! the engine's selection in package order ([`okf_delivery::search`]); this module picks the
//! bundle, replays and binds ids to the context they came from.
//!
//! A query names its bundle with a prefix, `okf-dwp: question`; without one it goes to the
//! registry's `search_bundle` (or its only bundle or corpus). A fetch replays the request its
//! search remembered and refuses, returning nothing, unless the replay reproduces the id's
//! `context_id`: a bundle version replaced on reload never yields other evidence.

use crate::auth::Caller;
use crate::delivery::{DeliveryFailure, permalink, replayed};
use crate::registry::Registry;
use crate::service::{AskRequest, Service};
use okf_api::format::is_logical_id;
use okf_delivery::DeliveryError;
use okf_delivery::search::ItemId;
use serde_json::{Value, json};

/// The bundle a query names and the question it asks.
fn split_query<'q>(
    registry: &Registry,
    query: &'q str,
) -> Result<(String, &'q str), DeliveryFailure> {
    if let Some((head, rest)) = query.split_once(':') {
        let head = head.trim();
        if is_logical_id(head) && registry.answers(head) {
            return Ok((head.to_owned(), rest.trim_start()));
        }
    }
    match &registry.search_bundle {
        Some(id) => Ok((id.clone(), query)),
        None => Err(DeliveryFailure::Invalid {
            field: "query",
            message: format!(
                "name the bundle before the question, as \"<bundle>: <question>\" (this server has {})",
                registry.ids().collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

/// The decoded request of a query: its bundle, its question and the version serving it now
/// (pinned, so a later fetch replays that version or fails).
fn request_of(
    service: &Service,
    query: &str,
    caller: &Caller,
) -> Result<AskRequest, DeliveryFailure> {
    let registry = service.registry_for(caller);
    let (bundle, question) = split_query(&registry, query)?;
    let mut request = AskRequest::from_value(json!({"bundle": bundle, "question": question}))
        .map_err(|e| DeliveryFailure::Invalid {
            field: "query",
            message: e.to_string(),
        })?;
    if registry.bundles.contains_key(&request.bundle) {
        request.version = Some(service.version_name(&request, caller)?);
    }
    Ok(request)
}

/// `search(query)`: `{"results": [{id, title, url}, ...]}`, the package first.
pub fn search(
    service: &Service,
    query: &str,
    origin: &str,
    caller: &Caller,
) -> Result<Value, DeliveryFailure> {
    let request = request_of(service, query, caller)?;
    let (context, _) = replayed(service, &request, None, caller)?;
    service.keep_searched(context.context_id(), &request);
    let url = permalink(origin, &request, &context);
    Ok(json!({"results": okf_delivery::search::results(&context, &url)}))
}

/// `fetch(id)`: `{id, title, text, url, metadata}` of one search result.
pub fn fetch(
    service: &Service,
    id: &str,
    origin: &str,
    caller: &Caller,
) -> Result<Value, DeliveryFailure> {
    let item = ItemId::parse(id)?;
    // A search of a bundle this caller may not see is, to it, a search never made.
    let request = service
        .searched(&item.context_id)
        .filter(|request| service.registry_for(caller).answers(&request.bundle))
        .ok_or_else(|| {
            DeliveryError::UnknownItem(format!(
                "no recent search on this server listed {}; run search again (the same query gives the same ids)",
                item.context_id
            ))
        })?;
    let (context, _) = replayed(service, &request, Some(&item.context_id), caller)?;
    context.expect_id(&item.context_id)?;
    let url = permalink(origin, &request, &context);
    Ok(okf_delivery::search::fetch(&context, item.item, &url)?)
}
