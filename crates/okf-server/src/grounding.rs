//! Checking an AI's answer against its package (`okf-grounding`), for HTTP and MCP alike: the
//! package is the retained one the answer names, or the one its ask request replays.

use crate::auth::Caller;
use crate::service::{Service, ServiceError};
use okf_api::request::CheckAnswerRequest;
use okf_grounding::GroundingError;

impl Service {
    /// The report (`okf-answer-check.v1`, canonical JSON) of `req.answer` against its package.
    /// A malformed answer is an error naming its field; an answer whose package is neither
    /// retained nor replayed is `context_not_retained`. A replay that builds another package
    /// is checked against it, so the report says `unknown_context`.
    pub fn check_answer(
        &self,
        req: &CheckAnswerRequest,
        caller: &Caller,
    ) -> Result<String, ServiceError> {
        let answer = okf_grounding::Answer::from_value(&req.answer).map_err(refusal)?;
        let package = match &req.replay {
            Some(ask) => self.ask(ask, caller)?.package,
            None if !crate::service::is_context_id(&answer.context_id) => {
                return Err(ServiceError::InvalidRequest {
                    field: "answer.context_id".into(),
                    message: format!("must match {}", okf_api::format::CONTEXT_ID_PATTERN),
                });
            }
            None => self.context(&answer.context_id, caller)?,
        };
        let package: serde_json::Value = serde_json::from_str(&package.json)
            .map_err(|e| ServiceError::InvalidJson(e.to_string()))?;
        okf_grounding::check_json(&package, &req.answer).map_err(refusal)
    }
}

/// A grounding refusal as the service's error, naming the field under `answer`.
fn refusal(e: GroundingError) -> ServiceError {
    let field = match &e {
        GroundingError::Answer { field, .. } if field == "answer" => "answer".to_owned(),
        GroundingError::Answer { field, .. } => format!("answer.{field}"),
        GroundingError::Package { .. } => "package".to_owned(),
    };
    ServiceError::InvalidRequest {
        field,
        message: e.to_string(),
    }
}
