//! Step 1: every example, and every group program the version builds, run with `cargo run` in
//! the fresh clone under each `dependents` version, then each output compared with its C twin's
//! by this checkout's parity test.

use super::{output, FirstRun, USES_RUNTIME};
use crate::base::capture::{exit_code, show_non_empty};
use crate::base::driver::{binds_ctx_create_v4, links_stub};
use crate::base::examples::group_programs_at;
use crate::base::versions::{self, the_one};
use crate::base::{files, process, Result};
use fs_err as fs;

/// Step 1 for each `dependents` version.
pub fn check(run: &FirstRun) -> Result {
    let default = the_one("default")?;
    for v in versions::tagged("dependents")? {
        let features = format!("cuda-{v},interop");
        let features = ["--no-default-features", "--features", &features];
        // A header binding cuCtxCreate_v4, which the 535 library lacks: link against the stub,
        // as a toolkit's stubs/libcuda.so is for; the loader still loads the real driver. A
        // group program of a header newer than the driver calls functions it lacks
        // (cuMemcpyBatchAsync of 12.8), and so do the twins the parity test builds: the stub too.
        let v4 = binds_ctx_create_v4(v)?;
        let newer = links_stub(v)?;
        let link = if v4 || newer { &run.stub } else { &run.driver };
        let out = run.scratch(&format!("out/{v}"));
        files::create_dir(&out)?;
        println!(
            "--- cuda-{v}: cargo run --example NAME, in {}",
            run.repo().display()
        );
        let groups = group_programs_at(v)?;
        let mut examples = run.examples.clone();
        examples.extend(groups.iter().cloned());
        for e in &examples {
            let mut cargo = run.fresh("cargo");
            cargo
                .args(["run", "-q", "--example", e])
                .args(features)
                .stdout(fs::File::create(output(&out, e, "stdout"))?.into_file())
                .stderr(fs::File::create(output(&out, e, "stderr"))?.into_file());
            if v4 || (newer && groups.contains(e)) {
                cargo.env("CUDA_LIBRARY_PATH", &run.stub);
            }
            if e == USES_RUNTIME {
                cargo.env("CUDART_LIBRARY_PATH", &run.cudart_lib);
            }
            let code = exit_code(process::status(&mut cargo)?);
            files::write(&output(&out, e, "code"), format!("{code}\n"))?;
            let stdout = fs::read(output(&out, e, "stdout"))?;
            let lines = stdout.iter().filter(|b| **b == b'\n').count();
            let stderr =
                String::from_utf8_lossy(&fs::read(output(&out, e, "stderr"))?).into_owned();
            let stop = undefined_symbol(&stderr)
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            println!("  {e:<28} exit {code}, {lines} lines{stop}");
        }
        if v == default {
            println!("  driver_init printed:");
            let printed = files::read(&output(&out, "driver_init", "stdout"))?;
            for line in printed.lines() {
                println!("    {line}");
            }
        }
        println!("--- cuda-{v}: each output against its C twin (tests/examples_parity.rs)");
        show_non_empty(
            process::command("cargo")
                .args(["test", "-q"])
                .args(features)
                .args(["--test", "examples_parity", "--", "--nocapture"])
                .args(["--test-threads", "1"])
                .env("CUDA_LIBRARY_PATH", link)
                .env("CUDA_EXAMPLES_OUTPUT_DIR", &out),
        )?;
    }
    Ok(())
}

/// The first `undefined symbol: NAME` of `stderr`, where the loader stopped a program.
fn undefined_symbol(stderr: &str) -> Option<&str> {
    const WHAT: &str = "undefined symbol: ";
    let at = stderr.find(WHAT)?;
    let tail = &stderr[at + WHAT.len()..];
    let end = tail
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(tail.len());
    Some(&stderr[at..at + WHAT.len() + end])
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loaders_stop_is_found() {
        let stderr = "x: symbol lookup error: x: undefined symbol: cuCtxCreate_v4, version\n";
        assert_eq!(
            super::undefined_symbol(stderr),
            Some("undefined symbol: cuCtxCreate_v4")
        );
        assert_eq!(super::undefined_symbol("error: no device\n"), None);
    }
}
