//! Assembly budget (spec §3.1).

use crate::error::{BudgetRule, Error};
use serde_json::Value;

/// Limits on one assembly. All four are inclusive upper bounds, each within its range in
/// [`BUDGET_RANGES`], the one place the ranges are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Most records that may be selected.
    pub max_nodes: u64,
    /// Most relationships that may be held.
    pub max_relationships: u64,
    /// Most hops from a seed.
    pub max_depth: u64,
    /// Largest package in UTF-8 bytes.
    pub max_bytes: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_nodes: 64,
            max_relationships: 128,
            max_depth: 6,
            max_bytes: Budget::MAX.max_bytes,
        }
    }
}

/// The four budget keys with their allowed ranges.
pub const BUDGET_RANGES: [(&str, u64, u64); 4] = [
    ("max_nodes", 1, 200),
    ("max_relationships", 1, 1000),
    ("max_depth", 0, 8),
    ("max_bytes", 8192, 524_288),
];

impl Budget {
    /// The largest budget the engine accepts.
    pub const MAX: Budget = Budget {
        max_nodes: BUDGET_RANGES[0].2,
        max_relationships: BUDGET_RANGES[1].2,
        max_depth: BUDGET_RANGES[2].2,
        max_bytes: BUDGET_RANGES[3].2,
    };

    /// The four limits in [`BUDGET_RANGES`] order.
    pub fn values(&self) -> [u64; 4] {
        [
            self.max_nodes,
            self.max_relationships,
            self.max_depth,
            self.max_bytes,
        ]
    }

    /// Builds a budget from optional overrides of the defaults, checking every range.
    pub fn with_overrides(
        max_nodes: Option<u64>,
        max_relationships: Option<u64>,
        max_depth: Option<u64>,
        max_bytes: Option<u64>,
    ) -> Result<Self, Error> {
        let mut b = Budget::default();
        for ((key, min, max), (value, slot)) in BUDGET_RANGES.iter().zip([
            (max_nodes, &mut b.max_nodes),
            (max_relationships, &mut b.max_relationships),
            (max_depth, &mut b.max_depth),
            (max_bytes, &mut b.max_bytes),
        ]) {
            if let Some(v) = value {
                if v < *min || v > *max {
                    return Err(out_of_range(key, *min, *max));
                }
                *slot = v;
            }
        }
        Ok(b)
    }

    /// Normalises a JSON budget object: unknown keys and non-integers are rejected, absent keys
    /// take their defaults.
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        let Value::Object(map) = value else {
            return Err(Error::Budget {
                key: None,
                rule: BudgetRule::NotAnObject,
            });
        };
        let mut slots: [Option<u64>; 4] = [None; 4];
        for (key, v) in map {
            let Some(pos) = BUDGET_RANGES.iter().position(|(k, _, _)| k == key) else {
                return Err(Error::Budget {
                    key: Some(key.clone()),
                    rule: BudgetRule::UnknownKey,
                });
            };
            let (_, min, max) = BUDGET_RANGES[pos];
            let n = integer_value(v).ok_or_else(|| Error::Budget {
                key: Some(key.clone()),
                rule: BudgetRule::NotAnInteger,
            })?;
            if n < i128::from(min) || n > i128::from(max) {
                return Err(out_of_range(key, min, max));
            }
            slots[pos] = u64::try_from(n).ok();
        }
        Self::with_overrides(slots[0], slots[1], slots[2], slots[3])
    }
}

/// An integral JSON number (`3` or `3.0`), as ECMAScript's `Number.isInteger` sees it.
fn integer_value(v: &Value) -> Option<i128> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // Out-of-range but integral floats only need to compare as out of range.
    if f.is_finite() && f.fract() == 0.0 {
        Some(if f.abs() > 1e30 { i128::MAX } else { f as i128 })
    } else {
        None
    }
}

fn out_of_range(key: &str, min: u64, max: u64) -> Error {
    Error::Budget {
        key: Some(key.to_owned()),
        rule: BudgetRule::OutOfRange { min, max },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn budget_rules_of_spec_3_1() {
        assert_eq!(Budget::from_json(&json!({})).ok(), Some(Budget::default()));
        assert_eq!(
            Budget::from_json(&json!({"max_nodes": 3.0}))
                .map(|b| b.max_nodes)
                .ok(),
            Some(3)
        );
        for (v, rule_key) in [
            (json!({"max_nodes": 1e9}), "max_nodes"),
            (json!({"max_bytes": 42}), "max_bytes"),
            (json!({"max_relationships": 0}), "max_relationships"),
            (json!({"max_depth": 9}), "max_depth"),
        ] {
            assert!(
                matches!(Budget::from_json(&v), Err(Error::Budget { key: Some(k), rule: BudgetRule::OutOfRange { .. } }) if k == rule_key)
            );
        }
        assert!(matches!(
            Budget::from_json(&json!({"constructor": 1})),
            Err(Error::Budget {
                rule: BudgetRule::UnknownKey,
                ..
            })
        ));
        assert!(matches!(
            Budget::from_json(&json!({"max_nodes": 2.5})),
            Err(Error::Budget {
                rule: BudgetRule::NotAnInteger,
                ..
            })
        ));
        assert!(matches!(
            Budget::from_json(&json!([])),
            Err(Error::Budget {
                rule: BudgetRule::NotAnObject,
                ..
            })
        ));
    }
}
