//! The bounded directed graph (spec §1.9): ≤ 20 nodes, ≤ 40 edges, nothing inferred.

use crate::package;
use crate::session::{Host, Session, short};
use serde_json::{Value, json};

/// Most nodes.
pub const MAX_NODES: usize = 20;
/// Most edges.
pub const MAX_EDGES: usize = 40;
/// Most seed records for a case-wide graph.
pub const MAX_SEEDS: usize = 20;

/// A bounded graph in session refs.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// `{ref, label, status}` per node.
    pub nodes: Vec<Value>,
    /// `{ref: "assertion-<i>", source, target, label, status}` per chosen edge.
    pub edges: Vec<Value>,
    /// Index in the package's relationships of each chosen edge.
    pub edge_index: Vec<usize>,
    /// Relationships left outside the graph.
    pub omitted: usize,
}

impl Graph {
    /// The label of a node ref (a placeholder if absent).
    pub fn label_of(&self, r: &str) -> String {
        self.nodes
            .iter()
            .find(|n| n["ref"].as_str() == Some(r))
            .and_then(|n| n["label"].as_str())
            .unwrap_or("endpoint not available")
            .to_owned()
    }
}

/// Builds the graph around `anchor`, or around the first 20 selected records.
pub(crate) fn bounded_graph<H: Host>(
    s: &mut Session<H>,
    case: &str,
    p: &Value,
    anchor: Option<&str>,
    depth: usize,
) -> Graph {
    let selected = p["selected"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let rels = p["relationships"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut ids: Vec<String> = match anchor {
        Some(a) => vec![a.to_owned()],
        None => selected
            .iter()
            .take(MAX_SEEDS)
            .filter_map(|i| i["record"]["id"].as_str())
            .map(str::to_owned)
            .collect(),
    };
    let mut chosen: Vec<usize> = Vec::new();
    for _ in 0..depth {
        let frontier = ids.clone();
        for (i, rel) in rels.iter().enumerate() {
            if chosen.len() >= MAX_EDGES {
                break;
            }
            if chosen.contains(&i) {
                continue;
            }
            let (src, tgt) = (
                rel["source"].as_str().unwrap_or_default(),
                rel["target"].as_str().unwrap_or_default(),
            );
            if !frontier.iter().any(|f| f == src || f == tgt) {
                continue;
            }
            let new: Vec<&str> = [src, tgt]
                .into_iter()
                .filter(|e| !ids.iter().any(|x| x == e))
                .collect();
            let new_count = if new.len() == 2 && new[0] == new[1] {
                1
            } else {
                new.len()
            };
            if ids.len() + new_count > MAX_NODES {
                continue;
            }
            for e in new {
                if !ids.iter().any(|x| x == e) {
                    ids.push(e.to_owned());
                }
            }
            chosen.push(i);
        }
    }
    let nodes: Vec<Value> = ids
        .iter()
        .map(|id| {
            let r = s.ref_for(case, id);
            let (label, status) = match package::record(p, id) {
                Some(rec) => (
                    rec["label"].as_str().unwrap_or(id).to_owned(),
                    rec["assertion_status"]
                        .as_str()
                        .unwrap_or("not supplied")
                        .to_owned(),
                ),
                None => (id.clone(), "endpoint-not-selected".to_owned()),
            };
            json!({"ref": r, "label": short(&label, 120), "status": short(&status, 120)})
        })
        .collect();
    let edges = chosen
        .iter()
        .map(|&i| {
            let rel = &rels[i];
            let src = s.ref_for(case, rel["source"].as_str().unwrap_or_default());
            let tgt = s.ref_for(case, rel["target"].as_str().unwrap_or_default());
            json!({
                "ref": format!("assertion-{i}"),
                "source": src,
                "target": tgt,
                "label": short(rel["label"].as_str().unwrap_or("related"), 120),
                "status": short(rel["assertion_status"].as_str().unwrap_or("not supplied"), 120),
            })
        })
        .collect();
    Graph {
        nodes,
        edges,
        omitted: rels.len() - chosen.len(),
        edge_index: chosen,
    }
}
