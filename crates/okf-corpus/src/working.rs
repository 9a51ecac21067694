//! The working index a corpus call builds: the base index with the manifest's bundle, scope
//! and limitations, plus the units and assertions loaded for this question.

use crate::manifest::Manifest;
use crate::{Error, limits};
use okf_engine::canonical::to_canonical_string;
use okf_engine::{ContextIndex, canonical::cmp_utf16};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Outcome of adding a loaded item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Added {
    /// Newly added.
    New,
    /// Already present with identical canonical JSON.
    Present,
    /// Would push the working index past its byte or record limit.
    OverBudget,
}

pub(crate) struct Working {
    head: Map<String, Value>,
    pub records: Vec<Value>,
    pub assertions: Vec<Value>,
    record_at: HashMap<String, (usize, String)>,
    assertion_at: HashMap<String, String>,
    bytes: u64,
    max_records: Option<usize>,
}

pub(crate) fn id_of(v: &Value) -> &str {
    v.get("id").and_then(Value::as_str).unwrap_or("")
}

impl Working {
    /// Starts from the verified base index; `sentences` go after the manifest's limitations.
    pub(crate) fn new(
        base: &Value,
        manifest: &Manifest,
        sentences: &[&str],
        max_records: Option<usize>,
        path: &str,
    ) -> Result<Self, Error> {
        let obj = base
            .as_object()
            .ok_or_else(|| Error::shard(path, "$", "base index must be an object"))?;
        let snapshot = obj
            .get("bundle")
            .and_then(|b| b.get("snapshot"))
            .and_then(Value::as_str);
        if snapshot != Some(manifest.semantic_source_snapshot.as_str()) {
            return Err(Error::shard(
                path,
                "bundle.snapshot",
                "base index snapshot differs from the manifest's semantic_source_snapshot",
            ));
        }
        let mut head = obj.clone();
        let take = |head: &mut Map<String, Value>, key: &str| match head.remove(key) {
            Some(Value::Array(a)) => Ok(a),
            _ => Err(Error::shard(path, key, "must be an array")),
        };
        let records = take(&mut head, "records")?;
        let assertions = take(&mut head, "assertions")?;
        let bundle = serde_json::to_value(&manifest.bundle)
            .map_err(|e| Error::manifest("bundle", e.to_string()))?;
        head.insert("bundle".into(), bundle);
        head.insert("scope".into(), Value::String(manifest.scope.clone()));
        let mut limitations: Vec<Value> = manifest
            .limitations
            .iter()
            .cloned()
            .map(Value::String)
            .collect();
        limitations.extend(sentences.iter().map(|s| Value::String((*s).to_owned())));
        head.insert("limitations".into(), Value::Array(limitations));
        let mut w = Working {
            bytes: canonical_len(&Value::Object(head.clone()))? + 30,
            head,
            records: Vec::new(),
            assertions: Vec::new(),
            record_at: HashMap::new(),
            assertion_at: HashMap::new(),
            max_records,
        };
        for r in records {
            w.add_record(r)?;
        }
        for a in assertions {
            w.add_assertion(a)?;
        }
        Ok(w)
    }

    pub(crate) fn has_record(&self, id: &str) -> bool {
        self.record_at.contains_key(id)
    }

    pub(crate) fn record(&self, id: &str) -> Option<&Value> {
        self.record_at
            .get(id)
            .and_then(|(i, _)| self.records.get(*i))
    }

    /// Adds a record unless it is already present; a different record with the same id is an
    /// error (spec §3.12 "conflicting duplicate").
    pub(crate) fn add_record(&mut self, record: Value) -> Result<Added, Error> {
        let canonical = to_canonical(&record)?;
        let id = id_of(&record).to_owned();
        if let Some((_, existing)) = self.record_at.get(&id) {
            if *existing == canonical {
                return Ok(Added::Present);
            }
            return Err(Error::shard(
                "records",
                id,
                "conflicting duplicate: two different records share this id",
            ));
        }
        let size = canonical.len() as u64 + 1;
        if self.bytes + size > limits::WORKING_INDEX_BYTES
            || self.max_records.is_some_and(|m| self.records.len() >= m)
        {
            return Ok(Added::OverBudget);
        }
        self.bytes += size;
        self.record_at.insert(id, (self.records.len(), canonical));
        self.records.push(record);
        Ok(Added::New)
    }

    /// Adds an assertion unless already present (identical); same rules as records.
    pub(crate) fn add_assertion(&mut self, assertion: Value) -> Result<Added, Error> {
        let canonical = to_canonical(&assertion)?;
        let id = id_of(&assertion).to_owned();
        if let Some(existing) = self.assertion_at.get(&id) {
            if *existing == canonical {
                return Ok(Added::Present);
            }
            return Err(Error::shard(
                "relationships",
                id,
                "conflicting duplicate: two different assertions share this id",
            ));
        }
        let size = canonical.len() as u64 + 1;
        if self.bytes + size > limits::WORKING_INDEX_BYTES {
            return Ok(Added::OverBudget);
        }
        self.bytes += size;
        self.assertion_at.insert(id, canonical);
        self.assertions.push(assertion);
        Ok(Added::New)
    }

    /// Outgoing assertions of every source, each list sorted by id in code-unit order.
    pub(crate) fn outgoing(&self) -> HashMap<&str, Vec<&Value>> {
        let mut out: HashMap<&str, Vec<&Value>> = HashMap::new();
        for a in &self.assertions {
            let source = a.get("source").and_then(Value::as_str).unwrap_or("");
            out.entry(source).or_default().push(a);
        }
        for list in out.values_mut() {
            list.sort_by(|x, y| cmp_utf16(id_of(x), id_of(y)));
        }
        out
    }

    /// Validates the working index with the engine.
    pub(crate) fn index(&self) -> Result<ContextIndex, Error> {
        let mut doc = self.head.clone();
        doc.insert("records".into(), Value::Array(self.records.clone()));
        doc.insert("assertions".into(), Value::Array(self.assertions.clone()));
        Ok(ContextIndex::from_value(Value::Object(doc), None)?)
    }
}

fn to_canonical(v: &Value) -> Result<String, Error> {
    to_canonical_string(v).map_err(|e| Error::shard("records", id_of(v), e.to_string()))
}

fn canonical_len(v: &Value) -> Result<u64, Error> {
    Ok(to_canonical(v)?.len() as u64)
}
