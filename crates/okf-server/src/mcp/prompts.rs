//! The one MCP prompt, `answer_from_package`: a host asks its model to answer a question from
//! an evidence package, and the message it gets is the package's evidence brief, which ends
//! with how to write an `okf-grounded-answer.v1` that `okf_check_answer` can verify. The page's
//! "Copy for an AI" button copies the same brief.

use crate::auth::Caller;
use crate::service::{AskRequest, Service};
use okf_api::error::ErrorCode;
use rmcp::model::{
    ErrorData, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::{Map, Value};

/// The prompt's name.
pub(crate) const ANSWER_FROM_PACKAGE: &str = "answer_from_package";

/// The prompts this server offers.
pub(crate) fn list() -> ListPromptsResult {
    let argument = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(false)
    };
    ListPromptsResult::with_all_items(vec![
        Prompt::new(
            ANSWER_FROM_PACKAGE,
            Some(
                "Answer a question from an Ask OKF evidence package: the message is the package's evidence brief (status, branches, what is missing, the records, how to answer as okf-grounded-answer.v1 with whole-sentence quotes). Give bundle and question, or the context_id of a package assembled here.",
            ),
            Some(vec![
                argument("bundle", "Logical bundle id (with question)"),
                argument("question", "The question (with bundle)"),
                argument(
                    "context_id",
                    "urn:sha256:… of a package this server assembled (instead of bundle and question)",
                ),
            ]),
        )
        .with_title("Answer from an evidence package"),
    ])
}

/// The prompt's messages for `arguments` as `caller` may see the registry.
pub(crate) fn get(
    service: &Service,
    name: &str,
    arguments: Option<Map<String, Value>>,
    caller: &Caller,
) -> Result<GetPromptResult, ErrorData> {
    if name != ANSWER_FROM_PACKAGE {
        return Err(ErrorData::invalid_params(
            format!("unknown prompt {name:?}; prompts/list names the prompts of this server"),
            None,
        ));
    }
    let mut arguments = arguments.unwrap_or_default();
    let package = match arguments.remove("context_id") {
        Some(Value::String(context_id)) if arguments.is_empty() => service
            .context(&context_id, caller)
            .map_err(|e| refused(e.code(), e.field().as_deref(), &e.to_string()))?,
        Some(_) => {
            return Err(refused(
                ErrorCode::InvalidRequest.as_str(),
                Some("context_id"),
                "give a context_id string alone, or bundle and question",
            ));
        }
        None => {
            let request = AskRequest::from_value(Value::Object(arguments))
                .map_err(|e| refused(e.code().as_str(), Some(e.field()), &e.to_string()))?;
            service
                .ask(&request, caller)
                .map(|answer| answer.package)
                .map_err(|e| refused(e.code(), e.field().as_deref(), &e.to_string()))?
        }
    };
    let brief = service
        .retained()
        .brief(&package)
        .map_err(|e| ErrorData::internal_error(format!("the brief: {e}"), None))?;
    let mut result =
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, brief.to_string())]);
    result.description = Some(format!(
        "Answer from the evidence package {} ({})",
        package.context_id,
        package.evidence_status.as_str()
    ));
    Ok(result)
}

/// An invalid-params error naming the code, the field and the rule, as the tools do.
fn refused(code: &str, field: Option<&str>, message: &str) -> ErrorData {
    ErrorData::invalid_params(super::tools::refusal_text(code, field, &message), None)
}
