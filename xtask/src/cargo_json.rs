//! Cargo's JSON messages (`--message-format=json`): the executables a build made.

use crate::process::describe;
use crate::Result;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// One executable cargo built.
#[derive(Debug, PartialEq)]
pub struct Executable {
    /// Its target's kind: `test`, `example`, `bench`, or `lib` for a library's unit tests.
    pub kind: String,
    /// Its target's name.
    pub name: String,
    /// Where cargo put it.
    pub path: PathBuf,
}

/// Runs `command`, a cargo build given `--message-format=json` (or `json-render-diagnostics`),
/// and returns the executables it made. Its standard error goes where the caller set it
/// (captured and dropped if not set).
pub fn built(command: &mut Command) -> Result<Vec<Executable>> {
    let out = command
        .output()
        .map_err(|e| format!("{}: {e}", describe(command)))?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", describe(command), out.status).into());
    }
    let messages = String::from_utf8(out.stdout)
        .map_err(|_| format!("{}: its output is not UTF-8", describe(command)))?;
    executables(&messages)
}

/// The executables that `messages` (cargo's JSON messages, one per line) name, in order.
fn executables(messages: &str) -> Result<Vec<Executable>> {
    let mut found = Vec::new();
    for line in messages.lines().filter(|l| !l.trim().is_empty()) {
        let m: Value = serde_json::from_str(line)
            .map_err(|e| format!("cargo printed `{line}`, not a JSON message: {e}"))?;
        let Some(path) = m["executable"].as_str() else {
            continue;
        };
        if m["reason"] != "compiler-artifact" {
            continue;
        }
        let target = &m["target"];
        let (Some(kind), Some(name)) = (target["kind"][0].as_str(), target["name"].as_str()) else {
            return Err(format!("cargo's artifact `{path}` has no target kind and name").into());
        };
        found.push(Executable {
            kind: kind.to_string(),
            name: name.to_string(),
            path: PathBuf::from(path),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::executables;

    #[test]
    fn executables_are_found_and_the_rest_skipped() {
        let messages = r#"
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"a"},"executable":null}
{"reason":"build-script-executed","package_id":"x","out_dir":"/o"}
{"reason":"compiler-artifact","target":{"kind":["test"],"name":"dynamic"},"executable":"/t/dynamic-1"}
{"reason":"build-finished","success":true}
"#;
        let found = executables(messages).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].kind.as_str(), found[0].name.as_str()),
            ("test", "dynamic")
        );
        assert_eq!(found[0].path, std::path::Path::new("/t/dynamic-1"));
    }

    #[test]
    fn other_lines_are_rejected() {
        assert!(executables("   Compiling a v0.1.0\n").is_err());
        let no_target = r#"{"reason":"compiler-artifact","executable":"/t/x"}"#;
        assert!(executables(no_target).is_err());
    }
}
