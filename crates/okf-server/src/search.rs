//! The `search` and `fetch` tools ChatGPT's deep research and company knowledge modes call:
//! `search(query)` assembles the governed context for the query over one bundle and lists the
//! package and its selected records; `fetch(id)` returns one of them exactly. The listing is
//! the engine's selection in package order ([`okf_delivery::search`]); this module picks the
//! bundle, replays and binds ids to the context they came from.
//!
//! A query names its bundle with a prefix, `okf-dwp: question`, and may name a version,
//! `okf-dwp@2026-05: question`; without one it goes to the registry's `search_bundle` (or the
//! only bundle or corpus the caller sees), else to every bundle and corpus the caller sees.
//! Every result names the bundle and version it came from. A fetch replays the request its
//! search remembered and refuses, returning nothing, unless the replay reproduces the id's
//! `context_id`: a bundle version replaced on reload never yields other evidence.

use crate::auth::Caller;
use crate::delivery::{DeliveryFailure, permalink, replayed};
use crate::registry::Registry;
use crate::service::{AskRequest, Service};
use okf_api::format::is_logical_id;
use okf_api::request::RequestError;
use okf_delivery::DeliveryError;
use okf_delivery::search::ItemId;
use serde_json::{Value, json};

/// What a query asks: the bundle and version its prefix names (`<bundle>: ` or
/// `<bundle>@<version>: `), or none, and the question.
struct Query<'q> {
    bundle: Option<String>,
    version: Option<String>,
    question: &'q str,
}

/// Splits a query's prefix off when it names a bundle or corpus this caller sees; any other
/// text before a colon is part of the question.
fn split_query<'q>(registry: &Registry, query: &'q str) -> Query<'q> {
    if let Some((head, rest)) = query.split_once(':') {
        let head = head.trim();
        let (bundle, version) = match head.split_once('@') {
            Some((bundle, version)) => (bundle, Some(version)),
            None => (head, None),
        };
        if is_logical_id(bundle) && registry.answers(bundle) && version.is_none_or(is_logical_id) {
            return Query {
                bundle: Some(bundle.to_owned()),
                version: version.map(str::to_owned),
                question: rest.trim_start(),
            };
        }
    }
    Query {
        bundle: None,
        version: None,
        question: query,
    }
}

/// A refusal of the search query, naming the `query` field.
fn query_refused(message: String) -> DeliveryFailure {
    DeliveryFailure::Request(RequestError::Invalid {
        field: "query".to_owned(),
        message,
    })
}

/// The decoded request for `bundle` (and `version`, if named) and `question`, with the
/// version serving it now pinned, so a later fetch replays that version or fails.
fn request_for(
    service: &Service,
    registry: &Registry,
    bundle: &str,
    version: Option<&str>,
    question: &str,
    caller: &Caller,
) -> Result<AskRequest, DeliveryFailure> {
    let mut request =
        AskRequest::from_value(json!({"bundle": bundle, "version": version, "question": question}))
            .map_err(|e| query_refused(e.to_string()))?;
    if registry.bundles.contains_key(&request.bundle) {
        request.version = Some(service.version_name(&request, caller)?);
    }
    Ok(request)
}

/// The requests a query makes: the one its prefix names; else the registry's `search_bundle`
/// (declared, or the only bundle or corpus this caller sees); else one per bundle and corpus
/// this caller sees, each at the version it serves by default.
fn requests_of(
    service: &Service,
    query: &str,
    caller: &Caller,
) -> Result<Vec<AskRequest>, DeliveryFailure> {
    if query.chars().count() > okf_api::limits::MAX_SEARCH_QUERY_CHARS {
        return Err(query_refused(format!(
            "is longer than {} characters",
            okf_api::limits::MAX_SEARCH_QUERY_CHARS
        )));
    }
    let registry = service.registry_for(caller);
    let Query {
        bundle,
        version,
        question,
    } = split_query(&registry, query);
    let one = |bundle: &str| {
        request_for(
            service,
            &registry,
            bundle,
            version.as_deref(),
            question,
            caller,
        )
        .map(|r| vec![r])
    };
    match bundle.or_else(|| registry.search_bundle.clone()) {
        Some(bundle) => one(&bundle),
        None => registry
            .ids()
            .map(|id| request_for(service, &registry, id, None, question, caller))
            .collect(),
    }
}

/// One searched context: the request, the version that served it and the context.
struct Searched {
    request: AskRequest,
    version: String,
    context: std::sync::Arc<okf_delivery::Context>,
}

impl Searched {
    /// Where a search over several bundles lists this one: contexts with selected records
    /// first, then sufficient, conflicting, insufficient, then more records, then by id.
    fn rank(&self) -> (bool, u8, std::cmp::Reverse<usize>, String) {
        let status = match self.context.evidence_status() {
            "sufficient" => 0,
            "conflicting" => 1,
            _ => 2,
        };
        let records = self.context.selected_count();
        (
            records == 0,
            status,
            std::cmp::Reverse(records),
            self.request.bundle.clone(),
        )
    }
}

/// `search(query)`: `{"results": [{id, title, url, bundle, version}, ...]}`, each searched
/// bundle's package first, then its records. A query without a prefix on a server with
/// several bundles searches each of them, best evidence first ([`Searched::rank`]); a bundle
/// whose search fails is left out unless every one fails.
pub fn search(
    service: &Service,
    query: &str,
    origin: &str,
    caller: &Caller,
) -> Result<Value, DeliveryFailure> {
    let requests = requests_of(service, query, caller)?;
    let mut searched = Vec::with_capacity(requests.len());
    let mut first_error = None;
    for request in requests {
        match replayed(service, &request, None, caller) {
            Ok((context, version)) => searched.push(Searched {
                request,
                version,
                context,
            }),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if searched.is_empty()
        && let Some(e) = first_error
    {
        return Err(e);
    }
    searched.sort_by_key(Searched::rank);
    let mut results = Vec::new();
    for Searched {
        request,
        version,
        context,
    } in searched
    {
        service.keep_searched(context.context_id(), &request);
        let url = permalink(origin, &request, &context);
        for mut result in okf_delivery::search::results(&context, &url)? {
            result["bundle"] = json!(request.bundle);
            result["version"] = json!(version);
            results.push(result);
        }
    }
    Ok(json!({"results": results}))
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
    let (context, version) = replayed(service, &request, Some(&item.context_id), caller)?;
    context.expect_id(&item.context_id)?;
    let url = permalink(origin, &request, &context);
    let mut document = okf_delivery::search::fetch(&context, item.item, &url)?;
    document["metadata"]["bundle"] = json!(request.bundle);
    document["metadata"]["version"] = json!(version);
    Ok(document)
}
