//! JSON parsing that refuses what `serde_json::Value` silently accepts: a key given twice in
//! one object (where the last would win). Nesting depth stays bounded by serde_json's
//! recursion limit.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parses one JSON document with serde_json's error, whose category tells a key given twice
/// ([`serde_json::error::Category::Data`]) from broken syntax; the message names the key or
/// the line and column, never a Rust type.
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    StrictValue::deserialize(&mut de).and_then(|v| de.end().map(|()| v.0))
}

struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictValue, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(StrictValue(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictValue, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let shown: String = key.chars().take(64).collect();
                return Err(de::Error::custom(format_args!(
                    "key {shown:?} appears twice in one object"
                )));
            }
            let StrictValue(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(StrictValue(Value::Object(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert!(parse(br#"{"a":1,"a":2}"#).is_err());
        assert!(parse(br#"{"b":{"x":1,"x":1}}"#).is_err());
        assert!(parse(br#"[{"x":1},{"x":1}]"#).is_ok());
    }

    #[test]
    fn a_duplicate_key_is_a_data_error_and_broken_syntax_is_not() {
        use serde_json::error::Category;
        let duplicate = parse(br#"{"bundle":"a","bundle":"b"}"#)
            .err()
            .map(|e| e.classify());
        assert_eq!(duplicate, Some(Category::Data));
        let broken = parse(br#"{"bundle":"#).err().map(|e| e.classify());
        assert_eq!(broken, Some(Category::Eof));
        let deep = "[".repeat(200) + &"]".repeat(200);
        let deep = parse(deep.as_bytes()).err().map(|e| e.classify());
        assert_ne!(deep, Some(Category::Data));
    }

    #[test]
    fn parses_like_serde_json_otherwise() {
        let text = br#"{"a":[1,-2,3.5,"s",true,null,{}]}"#;
        let expected: Value = serde_json::from_slice(text).unwrap_or_default();
        assert_eq!(parse(text).ok(), Some(expected));
        assert!(parse(b"{} x").is_err(), "trailing data");
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(parse(deep.as_bytes()).is_err(), "recursion limit holds");
    }
}
