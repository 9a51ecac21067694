//! The tool table: what `tools/list` says about each tool and how a call runs, over the same
//! [`Service`] as the HTTP API.

use super::CONFORMANCE_FIXTURE_TOOL;
use super::splice::{self, with_text};
use crate::auth::Caller;
use crate::registry::Registry;
use crate::service::{AskRequest, RequestError, Service, ServiceError};
use okf_api::receipt::Receipt;
use okf_api::request::{
    CheckAnswerRequest, ContextArgs, ExplainArgs, FetchArgs, SearchArgs, WorkbenchCaseArgs,
};
use okf_api::tools::{McpTool, Served, ServedBundle};
use okf_engine::Assembled;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use std::sync::Arc;

/// A tool call's reply and the bundle it named (for the log).
pub(super) struct Outcome {
    pub(super) bundle: Option<String>,
    pub(super) reply: Reply,
}

/// What a tool call returns.
pub(super) enum Reply {
    /// A result to pass to the transport as it is.
    Result(CallToolResult),
    /// A whole package: spliced into the HTTP response when the call came over HTTP
    /// ([`crate::mcp::splice`]), otherwise returned as a parsed result; with the receipt of
    /// its build when it was built for this call.
    Package(Arc<Assembled>, Option<Receipt>),
}

impl Outcome {
    fn of(result: CallToolResult) -> Self {
        Outcome {
            bundle: None,
            reply: Reply::Result(result),
        }
    }
}

/// Runs the tool named `name`; `None` when the table has no tool by that name.
pub(super) fn run(
    service: &Service,
    name: &str,
    arguments: Value,
    origin: &str,
    caller: &Caller,
) -> Option<Outcome> {
    let (_, run) = RUNS.iter().find(|(tool, _)| *tool == name)?;
    Some(run(service, arguments, origin, caller))
}

/// Runs one call: the service, the arguments, the origin and who is calling.
type Run = fn(&Service, Value, &str, &Caller) -> Outcome;

/// How each tool of [`okf_api::tools::MCP_TOOLS`] runs, by name; the origin (`http://` +
/// allow-listed Host) is where review links point.
const RUNS: &[(&str, Run)] = &[
    ("ask_okf", run_ask),
    ("okf_get_context", run_get),
    ("okf_explain_context", run_explain),
    ("ask_okf_manifest", run_manifest),
    ("read_okf_evidence", run_read),
    ("search", run_search),
    ("fetch", run_fetch),
    ("okf_check_answer", run_check),
    ("okf_workbench_case", run_workbench_case),
];

/// A search or fetch result: its JSON as the one text block ChatGPT reads, and as
/// structured content.
fn search_reply(result: Result<Value, crate::delivery::DeliveryFailure>) -> Outcome {
    Outcome::of(
        match result.and_then(|value| {
            okf_delivery::canonical(&value)
                .map(|text| (value, text))
                .map_err(Into::into)
        }) {
            Ok((value, text)) => with_text(value, text),
            Err(e) => refusal(&e, "Nothing was returned."),
        },
    )
}

fn run_search(service: &Service, arguments: Value, origin: &str, caller: &Caller) -> Outcome {
    match serde_json::from_value::<SearchArgs>(arguments) {
        Err(e) => Outcome::of(refused_arguments(&serde_refusal(&e), "")),
        Ok(args) => search_reply(crate::search::search(service, &args.query, origin, caller)),
    }
}

fn run_fetch(service: &Service, arguments: Value, origin: &str, caller: &Caller) -> Outcome {
    match serde_json::from_value::<FetchArgs>(arguments) {
        Err(e) => Outcome::of(refused_arguments(&serde_refusal(&e), "")),
        Ok(args) => search_reply(crate::search::fetch(service, &args.id, origin, caller)),
    }
}

/// A refused delivery tool call: the code, the field and the rule, then `advice`.
fn refusal(e: &crate::delivery::DeliveryFailure, advice: &str) -> CallToolResult {
    if let crate::delivery::DeliveryFailure::Service(inner) = e {
        return with_step_up(
            tool_error(format!("{}. {advice}", service_error_text(inner))),
            inner,
        );
    }
    let text = refusal_text(e.code(), e.field().as_deref(), e);
    tool_error(format!("{text}. {advice}"))
}

/// `code (field f): rule`: how every tool and prompt refusal begins, so a model reads the
/// same code and field the HTTP API sends for the same request.
pub(super) fn refusal_text(
    code: &str,
    field: Option<&str>,
    rule: &dyn std::fmt::Display,
) -> String {
    let field = field.map(|f| format!(" (field {f})")).unwrap_or_default();
    format!("{code}{field}: {rule}")
}

/// The metadata key under which a tool error carries the scopes a caller lacks, for the HTTP
/// layer to turn into a `403` step-up challenge (removed before the result is written).
pub(super) const STEP_UP_META_KEY: &str = "okf/insufficientScope";

/// `result`, marked with the scopes `e` says the caller's token lacks, if it says so.
fn with_step_up(mut result: CallToolResult, e: &ServiceError) -> CallToolResult {
    if let ServiceError::InsufficientScope { scopes, .. } = e {
        let mut meta = JsonObject::new();
        meta.insert(STEP_UP_META_KEY.to_owned(), json!(scopes));
        result.meta = Some(rmcp::model::MetaObject(meta));
    }
    result
}

/// `code (field f): message` of a service error.
fn service_error_text(e: &ServiceError) -> String {
    refusal_text(e.code(), e.field().as_deref(), e)
}

fn delivery_failure(e: &crate::delivery::DeliveryFailure) -> CallToolResult {
    refusal(
        e,
        "Nothing was delivered; if the context, record or range does not match, start again with ask_okf_manifest.",
    )
}

fn run_manifest(service: &Service, arguments: Value, origin: &str, caller: &Caller) -> Outcome {
    let args = match crate::delivery::CatalogueArgs::from_value(arguments) {
        Ok(args) => args,
        Err(e) => return Outcome::of(delivery_failure(&e.into())),
    };
    let bundle = Some(args.ask.bundle.clone());
    let result = match crate::delivery::catalogue(service, args, origin, caller) {
        Ok(page) => {
            let link = rmcp::model::Resource::new(page.review_url.clone(), "Ask OKF review page")
                .with_mime_type("text/html")
                .with_description("The same bundle, question and budget on this server's page");
            let mut result = with_text(page.value, page.json);
            result.content.push(ContentBlock::resource_link(link));
            result
        }
        Err(e) => delivery_failure(&e),
    };
    Outcome {
        bundle,
        reply: Reply::Result(result),
    }
}

fn run_read(service: &Service, arguments: Value, origin: &str, caller: &Caller) -> Outcome {
    let args = match crate::delivery::ReadArgs::from_value(arguments) {
        Ok(args) => args,
        Err(e) => return Outcome::of(delivery_failure(&e.into())),
    };
    let bundle = Some(args.ask.bundle.clone());
    let result = match crate::delivery::read(service, args, origin, caller) {
        Ok(slice) => with_text(slice.value, slice.json),
        Err(e) => delivery_failure(&e),
    };
    Outcome {
        bundle,
        reply: Reply::Result(result),
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    Arc::new(match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    })
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// Every tool is read-only and returns source text that is untrusted data. It works without
/// sign-in (`noauth`) on the public bundles; when the registry has restricted bundles it also
/// declares `oauth2` with the scopes their policies need ("mixed" authentication).
fn tool_meta(registry: &Registry, large_results: bool) -> rmcp::model::MetaObject {
    let schemes = match &registry.auth {
        None => json!([{"type": "noauth"}]),
        Some(verifier) => json!([
            {"type": "noauth"},
            {"type": "oauth2", "scopes": verifier.config().scopes}
        ]),
    };
    let Value::Object(mut map) = json!({
        "securitySchemes": schemes,
        "okf/untrustedContent": true
    }) else {
        return rmcp::model::MetaObject::default();
    };
    if large_results {
        map.insert(
            okf_api::tools::MAX_RESULT_SIZE_META_KEY.to_owned(),
            json!(okf_api::tools::MAX_TOOL_RESULT_BYTES),
        );
    }
    rmcp::model::MetaObject(map)
}

/// Arguments refused as the HTTP API refuses the same body: the same code and field
/// (`okf_api::request::RequestError`), then `advice`.
fn refused_arguments(e: &RequestError, advice: &str) -> CallToolResult {
    let text = refusal_text(e.code().as_str(), Some(e.field()), e);
    tool_error(format!("{text}.{advice}"))
}

/// A typed decoder's refusal of a tool's arguments: the field is the one serde names (an
/// unknown or missing field, or the one whose value is wrong), else `arguments`.
fn serde_refusal(e: &serde_json::Error) -> RequestError {
    let message = e.to_string();
    let named = message
        .split('`')
        .nth(1)
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
    RequestError::Invalid {
        field: named.unwrap_or("arguments").to_owned(),
        message,
    }
}

pub(super) fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

pub(super) fn service_error(e: &ServiceError) -> CallToolResult {
    with_step_up(
        tool_error(format!(
            "{}. No package was assembled.",
            service_error_text(e)
        )),
        e,
    )
}

/// The JSON text and parsed value of one package, as one tool result (the path of a call
/// that did not come over HTTP; over HTTP the package is spliced in instead).
pub(super) fn package_result(package: &Assembled) -> CallToolResult {
    match serde_json::from_str::<Value>(&package.json) {
        Ok(value) => splice::package_result(value, package)
            .unwrap_or_else(|e| tool_error(format!("internal error: {e}"))),
        Err(e) => tool_error(format!("internal error: package is not JSON ({e})")),
    }
}

fn run_ask(service: &Service, arguments: Value, _origin: &str, caller: &Caller) -> Outcome {
    // The decoder shared with POST /api/ask: a decoded bundle id is a logical id.
    match AskRequest::from_value(arguments) {
        Err(e) => Outcome::of(refused_arguments(&e, " No package was assembled.")),
        Ok(req) => Outcome {
            bundle: Some(req.bundle.clone()),
            reply: match service.ask(&req, caller) {
                Ok(answer) => Reply::Package(answer.package, Some(answer.receipt)),
                Err(e) => Reply::Result(service_error(&e)),
            },
        },
    }
}

fn run_check(service: &Service, arguments: Value, _origin: &str, caller: &Caller) -> Outcome {
    // Over MCP the package is the retained one the answer names (call ask_okf first);
    // POST /api/check-answer also replays one.
    let request = match arguments {
        Value::Object(map) if map.len() == 1 && map.contains_key("answer") => {
            CheckAnswerRequest::from_value(Value::Object(map))
        }
        _ => {
            return Outcome::of(refused_arguments(
                &RequestError::Invalid {
                    field: "answer".to_owned(),
                    message:
                        "the arguments are {\"answer\": <okf-grounded-answer.v1>} and nothing else"
                            .to_owned(),
                },
                " Nothing was checked.",
            ));
        }
    };
    Outcome::of(match request {
        Err(e) => refused_arguments(&e, " Nothing was checked."),
        Ok(request) => match service.check_answer(&request, caller) {
            Err(e) => service_error(&e),
            Ok(report) => match serde_json::from_str(&report) {
                Ok(value) => with_text(value, report),
                Err(e) => tool_error(format!("internal: {e}")),
            },
        },
    })
}

fn run_workbench_case(
    service: &Service,
    arguments: Value,
    origin: &str,
    caller: &Caller,
) -> Outcome {
    Outcome::of(
        match serde_json::from_value::<WorkbenchCaseArgs>(arguments) {
            Err(e) => refused_arguments(&serde_refusal(&e), " Nothing was opened."),
            Ok(args) => {
                // Only the workbenches this caller may see; any other id is unknown.
                let registry = service.registry_for(caller);
                match crate::workbench::case_view(
                    &registry.workbenches,
                    &args.workbench,
                    args.case_id.as_deref(),
                    origin,
                ) {
                    Ok(value) => {
                        // A case with its package reads, for a model, as that package's
                        // evidence brief; the list of cases as its JSON.
                        let brief = value
                            .get("package")
                            .filter(|p| !p.is_null())
                            .map(|package| {
                                okf_brief::render(
                                    &package.to_string(),
                                    &okf_brief::BriefOptions::default(),
                                )
                            });
                        match brief {
                            Some(Ok(brief)) => with_text(value, brief.text),
                            Some(Err(e)) => tool_error(format!("internal: {e}")),
                            None => {
                                let text = value.to_string();
                                with_text(value, text)
                            }
                        }
                    }
                    Err(e) => tool_error(format!(
                        "{} (field {}): {e}. Nothing from the case was returned.",
                        e.code, e.field
                    )),
                }
            }
        },
    )
}

fn run_get(service: &Service, arguments: Value, _origin: &str, caller: &Caller) -> Outcome {
    match serde_json::from_value::<ContextArgs>(arguments) {
        Err(e) => Outcome::of(refused_arguments(&serde_refusal(&e), "")),
        Ok(args) => match service.context(&args.context_id, caller) {
            Ok(package) => Outcome {
                bundle: None,
                reply: Reply::Package(package, None),
            },
            Err(e) => Outcome::of(service_error(&e)),
        },
    }
}

fn run_explain(service: &Service, arguments: Value, _origin: &str, caller: &Caller) -> Outcome {
    Outcome::of(match serde_json::from_value::<ExplainArgs>(arguments) {
        Err(e) => refused_arguments(&serde_refusal(&e), ""),
        Ok(args) => match service.explain(&args.context_id, args.record_id.as_deref(), caller) {
            Ok(view) => {
                let text = view.to_string();
                with_text(view, text)
            }
            Err(e) => service_error(&e),
        },
    })
}

/// The tool table's tools for `registry`, and the conformance fixture when asked for.
pub(super) fn build_tools(registry: &Registry, conformance_fixture: bool) -> Arc<[Tool]> {
    let served = served(registry);
    let mut tools: Vec<Tool> = McpTool::listed_for(&served)
        .map(|spec| {
            let tool = Tool::new(
                spec.name,
                spec.description,
                object(spec.input_schema_for(&served)),
            )
            .with_title(spec.title)
            .with_annotations(read_only())
            .with_meta(tool_meta(registry, spec.large_results));
            match spec.output_schema {
                Some(output) => tool.with_raw_output_schema(object(output())),
                None => tool,
            }
        })
        .collect();
    if conformance_fixture {
        tools.push(conformance_fixture_tool());
    }
    tools.into()
}

/// What `registry` serves, as the tool schemas describe it.
fn served(registry: &Registry) -> Served {
    Served {
        bundles: registry
            .bundles
            .values()
            .map(|b| ServedBundle {
                id: b.id.clone(),
                versions: b
                    .versions
                    .values()
                    .map(|v| (v.name.clone(), v.state.is_ok()))
                    .collect(),
                default_version: b.default_version.clone(),
            })
            .collect(),
        corpora: registry.corpora.keys().cloned().collect(),
        search_bundle: registry.search_bundle.clone(),
        workbenches: registry
            .workbenches
            .values()
            .filter(|w| w.state.is_ok())
            .map(|w| w.id.clone())
            .collect(),
    }
}

/// The conformance suite's fixture: its schema, kept verbatim by our listing path.
fn conformance_fixture_tool() -> Tool {
    let schema = object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false,
    }));
    Tool::new(
        CONFORMANCE_FIXTURE_TOOL,
        "Test fixture of the MCP conformance suite (listed only with --mcp-conformance-fixture): an input schema using JSON Schema 2020-12 keywords. It returns a fixed text.",
        schema,
    )
    .with_annotations(read_only())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_in_the_contract_table_runs_here_and_nothing_else_does() {
        let listed: Vec<&str> = okf_api::tools::MCP_TOOLS.iter().map(|t| t.name).collect();
        let runs: Vec<&str> = RUNS.iter().map(|(name, _)| *name).collect();
        assert_eq!(listed, runs);
    }
}
