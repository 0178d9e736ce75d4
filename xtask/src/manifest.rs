//! The examples declared in `examples/Cargo.toml`.

use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::Result;

/// The part of a package manifest that declares examples.
#[derive(Debug, Deserialize)]
struct Manifest {
    #[serde(default)]
    example: Vec<Example>,
}

/// One `[[example]]` entry.
#[derive(Debug, Deserialize)]
struct Example {
    name: String,
}

/// The names of the `[[example]]` entries of the manifest at `path`, in declaration order.
pub fn examples(path: &Path) -> Result<Vec<String>> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("cannot parse `{}`: {e}", path.display()).into())
}

/// The example names declared in manifest `text`.
fn parse(text: &str) -> std::result::Result<Vec<String>, toml::de::Error> {
    let manifest: Manifest = toml::from_str(text)?;
    Ok(manifest.example.into_iter().map(|e| e.name).collect())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn a_manifest_without_examples_declares_none() {
        let text = "[package]\nname = \"p\"\n\n# [[example]]\n# name = \"commented\"\n";
        assert_eq!(parse(text).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn examples_come_in_declaration_order() {
        let text = r#"
            [package]
            name = "p"
            [dependencies]
            clap.workspace = true
            [[example]]
            name = "zeta"   # comment
            path = "zeta.rs"
            [[example]]
            path = "alpha.rs"
            name = "alpha"
            required-features = []
        "#;
        assert_eq!(parse(text).unwrap(), ["zeta", "alpha"]);
    }

    #[test]
    fn an_example_without_a_name_is_an_error() {
        let err = parse("[[example]]\npath = \"x.rs\"\n").unwrap_err();
        assert!(err.to_string().contains("name"), "{err}");
    }
}
