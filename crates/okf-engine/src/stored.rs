//! Working with packages after assembly: identity verification (spec §4.3, §4.5), the
//! inputs a replay must match, and the explanation view (spec §1.5). These functions accept any package, including ones written by
//! other engines, so they work on plain JSON values.

use crate::assemble::AssembleOptions;
use crate::budget::Budget;
use crate::canonical::{self, MAX_SAFE_INTEGER, sha256_hex};
use crate::error::{Error, PackageRule};
use crate::model::Binding;
use crate::package::PACKAGE_SCHEMA;
use serde_json::{Map, Value};

/// Everything besides the index bytes that fixes an assembled package. Assembly is
/// deterministic, so two assemblies over the index the binding names with equal inputs give
/// the same bytes, and a package kept with its inputs can stand in for a replay. Kept as typed
/// inputs rather than read back from the package, because some (the question's date) leave no
/// field in every package. The engine id is not among them: a kept package stands in only
/// within the build that assembled it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayInputs {
    /// The question, exactly as asked.
    pub question: String,
    /// The resolved budget.
    pub budget: Budget,
    /// The index the package is bound to (its URL and the SHA-256 of its bytes).
    pub binding: Binding,
    /// Every other option: the question's date, the package profile, issue grouping.
    pub options: AssembleOptions,
}

/// The identity of a package, recomputed from its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageIdentity {
    /// `urn:sha256:` over the canonical JSON without `context_id` and `budget.used_bytes`.
    pub context_id: String,
    /// UTF-8 length of the canonical JSON of the whole package.
    pub used_bytes: u64,
}

fn canonical_error(e: canonical::CanonicalError) -> Error {
    Error::Canonical {
        path: "package".into(),
        source: e,
    }
}

/// Recomputes `context_id` and `used_bytes` of a package by the identity rule.
pub fn package_identity(package: &Value) -> Result<PackageIdentity, Error> {
    let Value::Object(map) = package else {
        return Err(Error::Package(PackageRule::MissingField("(root object)")));
    };
    let used_bytes = canonical::to_canonical_string(package)
        .map_err(canonical_error)?
        .len() as u64;
    let mut unsigned: Map<String, Value> = map.clone();
    unsigned.remove("context_id");
    if let Some(Value::Object(budget)) = unsigned.get_mut("budget") {
        budget.remove("used_bytes");
    }
    let text = canonical::to_canonical_string(&Value::Object(unsigned)).map_err(canonical_error)?;
    Ok(PackageIdentity {
        context_id: format!("urn:sha256:{}", sha256_hex(text.as_bytes())),
        used_bytes,
    })
}

/// What a package declares about its own identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredIdentity {
    /// The stored `context_id`.
    pub context_id: String,
    /// The stored `budget.used_bytes`.
    pub used_bytes: u64,
    /// The stored `budget.max_bytes`.
    pub max_bytes: u64,
}

/// Reads the identity fields a package declares.
pub fn declared_identity(package: &Value) -> Result<DeclaredIdentity, Error> {
    let missing = |f| Error::Package(PackageRule::MissingField(f));
    let context_id = package
        .get("context_id")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("context_id"))?;
    let budget = package.get("budget").ok_or_else(|| missing("budget"))?;
    let int = |key: &'static str| {
        budget
            .get(key)
            .and_then(Value::as_u64)
            .filter(|&n| n <= MAX_SAFE_INTEGER)
            .ok_or_else(|| missing(key))
    };
    Ok(DeclaredIdentity {
        context_id: context_id.to_owned(),
        used_bytes: int("used_bytes")?,
        max_bytes: int("max_bytes")?,
    })
}

/// Checks a package: schema, `ai_answer: null`, recomputed `context_id` and `used_bytes`, and
/// `used_bytes ≤ max_bytes ≤ 524288`. Returns the recomputed identity.
pub fn verify_package(package: &Value) -> Result<PackageIdentity, Error> {
    let computed = package_identity(package)?;
    check_identity(package, &computed)?;
    Ok(computed)
}

/// The checks of [`verify_package`] against an identity already recomputed with
/// [`package_identity`], so callers that report the recomputed values hash only once.
pub fn check_identity(package: &Value, computed: &PackageIdentity) -> Result<(), Error> {
    if package.get("schema").and_then(Value::as_str) != Some(PACKAGE_SCHEMA) {
        return Err(Error::Package(PackageRule::UnsupportedSchema));
    }
    if package.get("ai_answer") != Some(&Value::Null) {
        return Err(Error::Package(PackageRule::AiAnswerNotNull));
    }
    let declared = declared_identity(package)?;
    if computed.context_id != declared.context_id {
        return Err(Error::Package(PackageRule::ContextIdMismatch {
            stored: declared.context_id,
            computed: computed.context_id.clone(),
        }));
    }
    if computed.used_bytes != declared.used_bytes {
        return Err(Error::Package(PackageRule::UsedBytesMismatch {
            stored: declared.used_bytes,
            computed: computed.used_bytes,
        }));
    }
    if declared.used_bytes > declared.max_bytes || declared.max_bytes > crate::Budget::MAX.max_bytes
    {
        return Err(Error::Package(PackageRule::OverBudget {
            used: declared.used_bytes,
            max: declared.max_bytes,
        }));
    }
    Ok(())
}

/// The explanation view of spec §1.5.
///
/// Without a record id it is the package itself. With one it is
/// `{context_id, evidence_status, item, routing_guards?, missing_evidence}`: the selection of
/// that record (or null), the guard rows naming it, and the issues whose ids contain it.
pub fn explain(package: &Value, record_id: Option<&str>) -> Value {
    let Some(id) = record_id else {
        return package.clone();
    };
    let names = |v: &Value, keys: &[&str]| {
        keys.iter()
            .any(|k| v.get(*k).and_then(Value::as_str) == Some(id))
    };
    let item = package
        .get("selected")
        .and_then(Value::as_array)
        .and_then(|s| {
            s.iter()
                .find(|sel| sel.get("record").is_some_and(|r| names(r, &["id"])))
        })
        .cloned()
        .unwrap_or(Value::Null);
    let issues: Vec<Value> = package
        .get("missing_evidence")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter(|i| {
                    i.get("ids")
                        .and_then(Value::as_array)
                        .is_some_and(|ids| ids.iter().any(|x| x.as_str() == Some(id)))
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut out = Map::new();
    out.insert(
        "context_id".into(),
        package.get("context_id").cloned().unwrap_or(Value::Null),
    );
    out.insert(
        "evidence_status".into(),
        package
            .get("evidence_status")
            .cloned()
            .unwrap_or(Value::Null),
    );
    out.insert("item".into(), item);
    if let Some(guards) = package.get("routing_guards").and_then(Value::as_array) {
        let rows = guards
            .iter()
            .filter(|g| names(g, &["source", "target", "assertion_id"]))
            .cloned()
            .collect();
        out.insert("routing_guards".into(), Value::Array(rows));
    }
    out.insert("missing_evidence".into(), Value::Array(issues));
    Value::Object(out)
}
