//! The executables a cargo build made, read from its `--message-format=json` messages.

use crate::process;
use crate::Result;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// One thing a build made that a task copies.
#[derive(Debug, PartialEq)]
pub enum Artifact {
    /// An executable: its target kind (`test`, `example`, `bench`), its target name, its path.
    Executable {
        kind: String,
        name: String,
        path: PathBuf,
    },
    /// The `OUT_DIR` of the tests' build script (package `cuda-driver-tests`: the C twins).
    TestsOutDir(PathBuf),
}

/// Runs `command` (a cargo build with `--message-format=json`; its standard error is dropped, as
/// the messages carry the diagnostics) and returns what it made.
pub fn build(command: &mut Command) -> Result<Vec<Artifact>> {
    let out = command
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", process::describe(command)))?;
    if !out.status.success() {
        let what = process::describe(command);
        return Err(format!(
            "{what} failed ({}): run it for the compiler's messages",
            out.status
        )
        .into());
    }
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// The artifacts of cargo's JSON messages, one message a line.
fn parse(messages: &str) -> Result<Vec<Artifact>> {
    let mut artifacts = Vec::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let m: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("cargo printed `{line}`: {e}"))?;
        let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
        match m["reason"].as_str() {
            Some("compiler-artifact") => {
                let (Some(kind), Some(name), Some(path)) = (
                    text(&m["target"]["kind"][0]),
                    text(&m["target"]["name"]),
                    text(&m["executable"]),
                ) else {
                    continue;
                };
                artifacts.push(Artifact::Executable {
                    kind,
                    name,
                    path: path.into(),
                });
            }
            Some("build-script-executed")
                if m["package_id"]
                    .as_str()
                    .is_some_and(|p| p.contains("cuda-driver-tests")) =>
            {
                let dir = text(&m["out_dir"]).ok_or("a build-script message without out_dir")?;
                artifacts.push(Artifact::TestsOutDir(dir.into()));
            }
            _ => {}
        }
    }
    Ok(artifacts)
}

#[cfg(test)]
mod tests {
    use super::{parse, Artifact};

    #[test]
    fn executables_and_the_tests_out_dir() {
        let messages = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"a"},"executable":null}
{"reason":"compiler-artifact","target":{"kind":["test"],"name":"driver"},"executable":"/t/driver-1"}
{"reason":"build-script-executed","package_id":"path+file:///w/tests#cuda-driver-tests@0.0.0","out_dir":"/o"}
{"reason":"build-script-executed","package_id":"path+file:///w#cuda-driver-sys@0.4.0","out_dir":"/p"}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            parse(messages).unwrap(),
            [
                Artifact::Executable {
                    kind: "test".into(),
                    name: "driver".into(),
                    path: "/t/driver-1".into()
                },
                Artifact::TestsOutDir("/o".into()),
            ]
        );
    }

    #[test]
    fn a_message_that_is_not_json_is_rejected() {
        assert!(parse("{\"reason\": ").is_err());
    }
}
