//! Reading the committed JSON fixtures of `tests/fixtures`.

use serde_json::Value;

/// Parses a fixture's text.
pub fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("the fixture is valid JSON")
}

/// A JSON array of numbers.
pub fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}
