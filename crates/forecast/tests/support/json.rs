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

/// A JSON array of `D`-number rows.
#[allow(dead_code)] // not every test binary reads rows
pub fn rows<const D: usize>(v: &Value) -> Vec<[f64; D]> {
    v.as_array()
        .expect("an array of rows")
        .iter()
        .map(|r| floats(r).try_into().expect("a row of the expected width"))
        .collect()
}
