//! Steps 1b and 2: the fresh clone without the CUDA runtime (runtime_interop) and without headers
//! (`cargo test`), each stopping with one line naming ci/fetch-deps.sh.

use super::{show_lines, FirstRun, USES_RUNTIME};
use crate::base::capture::{exit_code, merged};
use crate::base::{process, Result};
use std::process::Stdio;

/// Steps 1b and 2.
pub fn check(run: &FirstRun) -> Result {
    println!(
        "--- runtime_interop without the CUDA runtime: one line naming ci/fetch-deps.sh, exit 1"
    );
    let mut cargo = run.fresh("cargo");
    cargo.args(["run", "-q", "--example", USES_RUNTIME]);
    let out = (cargo.stdin(Stdio::null()).output()).map_err(|e| process::error(&cargo, e))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    show_lines(&stderr, "  ", |_| false);
    let code = exit_code(out.status);
    if code != 1 {
        return Err(format!("runtime_interop without the runtime exited {code}, not 1").into());
    }
    let said: Vec<&str> = stderr.lines().filter(|l| !l.is_empty()).collect();
    if said.len() != 1 || !names_fetch_deps(said[0], "libcudart.so.12", "run ci/fetch-deps.sh") {
        return Err(
            "runtime_interop without the runtime did not say in one line how to get it".into(),
        );
    }
    if !out.stdout.is_empty() {
        return Err("runtime_interop printed before finding no runtime".into());
    }

    println!(
        "--- cargo test in the fresh clone, without headers: one line naming ci/fetch-deps.sh"
    );
    let (status, log) = merged(run.fresh("cargo").args(["test", "-q"]))?;
    show_lines(&log, "  ", |l| l.starts_with("warning"));
    if status.success() {
        return Err("cargo test passed without headers".into());
    }
    if !log
        .lines()
        .any(|l| names_fetch_deps(l, "error: cuda-driver-tests@", "run `ci/fetch-deps.sh`"))
    {
        return Err("no line naming ci/fetch-deps.sh".into());
    }
    if log.contains("panicked") || log.contains("RUST_BACKTRACE") {
        return Err("a panic instead of one line".into());
    }
    Ok(())
}

/// Whether `line` has `what` and, after it, `then`.
fn names_fetch_deps(line: &str, what: &str, then: &str) -> bool {
    line.find(what)
        .is_some_and(|at| line[at + what.len()..].contains(then))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_must_name_both_in_order() {
        let line = "error: cuda-driver-tests@0.4.0: no headers: run `ci/fetch-deps.sh`";
        assert!(super::names_fetch_deps(
            line,
            "error: cuda-driver-tests@",
            "run `ci/fetch-deps.sh`"
        ));
        let reversed = "run `ci/fetch-deps.sh` error: cuda-driver-tests@0.4.0";
        assert!(!super::names_fetch_deps(
            reversed,
            "error: cuda-driver-tests@",
            "run `ci/fetch-deps.sh`"
        ));
    }
}
