//! Cargo's JSON: its messages (`--message-format=json`: the executables a build made, and the
//! `OUT_DIR` of the tests' build script, package `cuda-driver-tests`: the C twins), and the
//! workspace's manifests as `cargo metadata` reads them ([`packages`]).

use crate::base::process::{self, describe};
use crate::base::Result;
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

/// What one cargo build made.
#[derive(Debug, PartialEq)]
pub struct Built {
    /// The executables, in cargo's order.
    pub executables: Vec<Executable>,
    /// The `OUT_DIR` of the tests' build script, where the build ran it.
    pub tests_out_dir: Option<PathBuf>,
}

/// Runs `command`, a cargo build given `--message-format=json` (or `json-render-diagnostics`),
/// and returns what it made. Its standard error goes where the caller set it (captured and
/// dropped if not set).
pub fn built(command: &mut Command) -> Result<Built> {
    let out = command.output().map_err(|e| process::error(command, e))?;
    process::check(command, out.status)?;
    let messages = String::from_utf8(out.stdout)
        .map_err(|_| format!("{}: its output is not UTF-8", describe(command)))?;
    parse(&messages)
}

/// The workspace's packages `names`, as `cargo metadata --no-deps` describes them (the manifests
/// as cargo reads them, inherited fields filled in; no lock read or written, nothing fetched).
pub fn packages<const N: usize>(names: [&str; N]) -> Result<[Value; N]> {
    let mut cargo = process::command("cargo");
    cargo.args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    let metadata: Value = serde_json::from_str(&process::output(&mut cargo)?)
        .map_err(|e| process::error(&cargo, e))?;
    let all = metadata["packages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut found = Vec::new();
    for name in names {
        let package = all.iter().find(|p| p["name"] == name);
        let why = || format!("cargo metadata names no package {name}");
        found.push(package.ok_or_else(why)?.clone());
    }
    Ok(found.try_into().expect("one per name"))
}

/// What `messages` (cargo's JSON messages, one per line) name.
fn parse(messages: &str) -> Result<Built> {
    let (mut executables, mut tests_out_dir) = (Vec::new(), None);
    for line in messages.lines().filter(|l| !l.trim().is_empty()) {
        let m: Value = serde_json::from_str(line)
            .map_err(|e| format!("cargo printed `{line}`, not a JSON message: {e}"))?;
        let package = m["package_id"].as_str().unwrap_or_default();
        if m["reason"] == "build-script-executed" && package.contains("cuda-driver-tests") {
            let dir = m["out_dir"].as_str();
            let dir = dir.ok_or("cargo printed a build-script message without out_dir")?;
            tests_out_dir = Some(PathBuf::from(dir));
        }
        let (Some(path), true) = (m["executable"].as_str(), m["reason"] == "compiler-artifact")
        else {
            continue;
        };
        let target = &m["target"];
        let (Some(kind), Some(name)) = (target["kind"][0].as_str(), target["name"].as_str()) else {
            return Err(format!("cargo's artifact `{path}` has no target kind and name").into());
        };
        executables.push(Executable {
            kind: kind.to_string(),
            name: name.to_string(),
            path: PathBuf::from(path),
        });
    }
    Ok(Built {
        executables,
        tests_out_dir,
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn executables_are_found_and_the_rest_skipped() {
        let messages = r#"
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"a"},"executable":null}
{"reason":"build-script-executed","package_id":"path+file:///w/tests#cuda-driver-tests@0.0.0","out_dir":"/o"}
{"reason":"build-script-executed","package_id":"path+file:///w#cuda-driver-sys@0.4.0","out_dir":"/p"}
{"reason":"compiler-artifact","target":{"kind":["test"],"name":"dynamic"},"executable":"/t/dynamic-1"}
{"reason":"build-finished","success":true}
"#;
        let built = parse(messages).unwrap();
        assert_eq!(built.tests_out_dir, Some("/o".into()));
        let found = built.executables;
        assert_eq!(found.len(), 1);
        assert_eq!([&found[0].kind, &found[0].name], ["test", "dynamic"]);
        assert_eq!(found[0].path, std::path::Path::new("/t/dynamic-1"));
    }

    #[test]
    fn other_lines_are_rejected() {
        assert!(parse("   Compiling a v0.1.0\n").is_err());
        let no_target = r#"{"reason":"compiler-artifact","executable":"/t/x"}"#;
        assert!(parse(no_target).is_err());
        let no_out_dir = r#"{"reason":"build-script-executed","package_id":"cuda-driver-tests"}"#;
        assert!(parse(no_out_dir).is_err());
    }
}
