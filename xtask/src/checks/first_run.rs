//! `cargo xtask first-run`: the first run as a new user meets it (docs/DESIGN.md, "What CI runs",
//! step 8): a fresh clone, an empty CARGO_TARGET_DIR, no CUDA headers, only the driver library:
//! the examples against their C twins ([`FirstRun::examples`]), one line naming ci/fetch-deps.sh
//! without the runtime or headers ([`FirstRun::without_headers`]), a toolkit root in CUDA_PATH
//! ([`FirstRun::toolkit`]). Needs fetch-deps' environment and CUDA_STUB_LIBRARY_PATH.

use crate::base::args::Args;
use crate::base::capture::{exit_code, merged, show_non_empty};
use crate::base::deps::env_path;
use crate::base::driver::{binds_ctx_create_v4, links_stub};
use crate::base::examples::{group_programs_at, stems};
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::versions::{self, dotted, the_one};
use crate::base::{files, Result};
use fs_err as fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The example that uses the CUDA runtime besides the driver.
const USES_RUNTIME: &str = "runtime_interop";

/// What the steps share: the environment's folders, every example (named by its C twin
/// examples/NAME.cpp), and the scratch folder: the clone in repo/, its target folder in target/.
struct FirstRun {
    driver: PathBuf,
    stub: PathBuf,
    cudart_lib: PathBuf,
    cudart_include: PathBuf,
    interop: PathBuf,
    examples: Vec<String>,
    work: Scratch,
}

/// `cargo xtask first-run`: the fresh clone, then the three steps.
pub fn run(_: &Args) -> Result {
    let run = FirstRun {
        driver: env_path("CUDA_LIBRARY_PATH", "the driver library folder")?,
        stub: env_path(
            "CUDA_STUB_LIBRARY_PATH",
            "a stub libcuda folder, from cargo xtask stub-libcuda DIR",
        )?,
        interop: env_path("CUDA_INTEROP_INCLUDE", "the GL/EGL/VDPAU headers")?,
        cudart_lib: env_path("CUDART_LIBRARY_PATH", "the CUDA runtime library folder")?,
        cudart_include: env_path("CUDART_INCLUDE_PATH", "the CUDA runtime headers")?,
        examples: stems("examples", "cpp")?,
        work: Scratch::new("first-run")?,
    };
    if run.examples.is_empty() {
        return Err("no examples/*.cpp".into());
    }
    let repo = run.scratch("repo");
    let mut clone = process::command("git");
    process::run(clone.args(["clone", "-q"]).arg(root()).arg(&repo))?;
    if repo.join("target").exists() {
        return Err("the clone has a target folder".into());
    }
    run.examples()?;
    run.without_headers()?;
    run.toolkit()?;
    println!("first-run: all passed");
    Ok(())
}

impl FirstRun {
    /// For each `dependents` version: `cargo run --example NAME` for every example and group
    /// program it builds, each output recorded and compared with its C twin's by this checkout's
    /// parity test (CUDA_EXAMPLES_OUTPUT_DIR). runtime_interop runs with the CUDA runtime.
    fn examples(&self) -> Result {
        let default = the_one("default")?;
        for v in versions::tagged("dependents")? {
            let features = format!("cuda-{v},interop");
            let features = ["--no-default-features", "--features", &features];
            // A header binding cuCtxCreate_v4, and a newer header's group programs and twins,
            // call functions the 535 library lacks: they link the stub (as a toolkit's
            // stubs/libcuda.so); the loader still loads the real driver.
            let (v4, newer) = (binds_ctx_create_v4(v)?, links_stub(v)?);
            let stub = v4 || newer;
            let link = if stub { &self.stub } else { &self.driver };
            let out = self.scratch(&format!("out/{v}"));
            files::create_dir(&out)?;
            let repo = self.scratch("repo").display().to_string();
            println!("--- cuda-{v}: cargo run --example NAME, in {repo}");
            let groups = group_programs_at(v)?;
            for e in self.examples.iter().chain(&groups) {
                let file = |what: &str| out.join(format!("{e}.{what}"));
                let mut cargo = self.cargo();
                cargo.args(["run", "-q", "--example", e]).args(features);
                cargo.stdout(fs::File::create(file("stdout"))?.into_file());
                cargo.stderr(fs::File::create(file("stderr"))?.into_file());
                if v4 || (newer && groups.contains(e)) {
                    cargo.env("CUDA_LIBRARY_PATH", &self.stub);
                }
                if e == USES_RUNTIME {
                    cargo.env("CUDART_LIBRARY_PATH", &self.cudart_lib);
                }
                let code = exit_code(process::status(&mut cargo)?);
                files::write(&file("code"), format!("{code}\n"))?;
                let stdout = fs::read(file("stdout"))?;
                let lines = stdout.iter().filter(|b| **b == b'\n').count();
                let stderr = String::from_utf8_lossy(&fs::read(file("stderr"))?).into_owned();
                let stop = stop(&stderr);
                println!("  {e:<28} exit {code}, {lines} lines{stop}");
            }
            if v == default {
                println!("  driver_init printed:");
                for line in files::read(&out.join("driver_init.stdout"))?.lines() {
                    println!("    {line}");
                }
            }
            println!("--- cuda-{v}: each output against its C twin (tests/examples_parity.rs)");
            let mut parity = process::command("cargo");
            parity.args(["test", "-q"]).args(features);
            parity.args("--test examples_parity -- --nocapture --test-threads 1".split(' '));
            parity.env("CUDA_LIBRARY_PATH", link);
            show_non_empty(parity.env("CUDA_EXAMPLES_OUTPUT_DIR", &out))?;
        }
        Ok(())
    }

    /// The fresh clone without the CUDA runtime (runtime_interop) and without headers (`cargo
    /// test`), each stopping with one line naming ci/fetch-deps.sh.
    fn without_headers(&self) -> Result {
        println!(
            "--- runtime_interop without the CUDA runtime: one line naming ci/fetch-deps.sh, exit 1"
        );
        let mut cargo = self.cargo();
        cargo.args(["run", "-q", "--example", USES_RUNTIME]);
        let out = (cargo.stdin(Stdio::null()).output()).map_err(|e| process::error(&cargo, e))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        show_lines(&stderr, |_| false);
        let code = exit_code(out.status);
        if code != 1 {
            return Err(format!("runtime_interop without the runtime exited {code}, not 1").into());
        }
        let said: Vec<&str> = stderr.lines().filter(|l| !l.is_empty()).collect();
        let how = "run ci/fetch-deps.sh";
        if said.len() != 1 || !names_fetch_deps(said[0], "libcudart.so.12", how) {
            let what = "runtime_interop without the runtime";
            return Err(format!("{what} did not say in one line how to get it").into());
        }
        if !out.stdout.is_empty() {
            return Err("runtime_interop printed before finding no runtime".into());
        }

        println!(
            "--- cargo test in the fresh clone, without headers: one line naming ci/fetch-deps.sh"
        );
        let (status, log) = merged(self.cargo().args(["test", "-q"]))?;
        show_lines(&log, |l| l.starts_with("warning"));
        if status.success() {
            return Err("cargo test passed without headers".into());
        }
        let error = "error: cuda-driver-tests@";
        if !(log.lines()).any(|l| names_fetch_deps(l, error, "run `ci/fetch-deps.sh`")) {
            return Err("no line naming ci/fetch-deps.sh".into());
        }
        if log.contains("panicked") || log.contains("RUST_BACKTRACE") {
            return Err("a panic instead of one line".into());
        }
        Ok(())
    }

    /// A toolkit root in CUDA_PATH (the headers of the version tagged `toolkit`, the CUDA 12
    /// runtime) builds that version's C twins in the fresh clone; the parity test passes.
    fn toolkit(&self) -> Result {
        let v = the_one("toolkit")?;
        let d = dotted(v);
        let headers = env_path(&format!("CUDA_HEADERS_{v}"), &format!("the {d} headers"))?;
        println!(
            "--- a toolkit root in CUDA_PATH (include/cuda.h of the {d} header, the 12 runtime) builds the {d} twins"
        );
        // The runtime's headers first (an older 12.x, with its own interop headers), then the
        // version's driver and interop headers over them, as in one toolkit; the GL/EGL/VDPAU
        // headers those include are the system's, here CUDA_INTEROP_INCLUDE.
        let toolkit = self.scratch("toolkit");
        let (include, lib64) = (toolkit.join("include"), toolkit.join("lib64"));
        files::create_dir(&include)?;
        files::create_dir(&lib64)?;
        let mut contents = self.cudart_include.clone().into_os_string();
        contents.push("/.");
        process::run(process::command("cp").arg("-r").arg(contents).arg(&include))?;
        for path in files::named(&headers, "cuda", ".h")? {
            files::copy(&path, &include.join(files::name(&path)))?;
        }
        let cudart = "libcudart.so.12";
        files::copy(&self.cudart_lib.join(cudart), &lib64.join(cudart))?;
        let mut cargo = self.cargo();
        // A header newer than the driver (535): its group programs' twins call functions that
        // library lacks (cuMemcpyBatchAsync of 12.8), which a toolkit's stubs/libcuda.so has; the
        // build script takes a system's driver before the stubs, so the stub is named.
        if links_stub(v)? {
            cargo.env("CUDA_LIBRARY_PATH", &self.stub);
        }
        cargo.env("CUDA_PATH", &toolkit);
        cargo.env("CUDA_INTEROP_INCLUDE", &self.interop);
        let test = format!("test -q --no-default-features --features cuda-{v},interop");
        let parity = "--test examples_parity -- --test-threads 1 --nocapture";
        show_non_empty(cargo.args(test.split(' ')).args(parity.split(' ')))?;
        // The first three twins the tests' build script built.
        let builds = files::sorted(&self.scratch("target/debug/build"), "cuda-driver-tests")?;
        let mut twins = Vec::new();
        for build in builds {
            twins.extend(files::sorted(&build.join("out/c-twins"), "")?);
        }
        for twin in twins.iter().take(3) {
            println!("  twin built: {}", twin.display());
        }
        Ok(())
    }

    /// cargo in the fresh clone with a new user's environment: the toolchain, the driver library
    /// on the loader path, nothing else.
    fn cargo(&self) -> Command {
        let mut cargo = Command::new("cargo");
        cargo.current_dir(self.scratch("repo")).env_clear();
        cargo.env("CARGO_TARGET_DIR", self.scratch("target"));
        cargo.env("CARGO_TERM_COLOR", "never");
        cargo.env("LD_LIBRARY_PATH", &self.driver);
        for var in "PATH HOME CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN".split(' ') {
            if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                cargo.env(var, value);
            }
        }
        cargo
    }

    /// A file or folder in the scratch folder.
    fn scratch(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }
}

/// Prints each line of `text` that is not blank, indented.
fn show_lines(text: &str, skip: impl Fn(&str) -> bool) {
    for line in text.lines().filter(|l| !l.trim().is_empty() && !skip(l)) {
        println!("  {line}");
    }
}

/// Whether `line` has `what` and, after it, `then`.
fn names_fetch_deps(line: &str, what: &str, then: &str) -> bool {
    line.find(what)
        .is_some_and(|at| line[at + what.len()..].contains(then))
}

/// ` (undefined symbol: NAME)`, the first in `stderr`, where the loader stopped a program; empty
/// if none.
fn stop(stderr: &str) -> String {
    let Some((_, tail)) = stderr.split_once("undefined symbol: ") else {
        return String::new();
    };
    let end = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    let name = &tail[..end.unwrap_or(tail.len())];
    format!(" (undefined symbol: {name})")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_must_name_both_in_order() {
        let (error, then) = ("error: cuda-driver-tests@", "run `ci/fetch-deps.sh`");
        let line = "error: cuda-driver-tests@0.4.0: no headers: run `ci/fetch-deps.sh`";
        assert!(super::names_fetch_deps(line, error, then));
        let reversed = "run `ci/fetch-deps.sh` error: cuda-driver-tests@0.4.0";
        assert!(!super::names_fetch_deps(reversed, error, then));
    }

    #[test]
    fn the_loaders_stop_is_found() {
        let stderr = "x: symbol lookup error: x: undefined symbol: cuCtxCreate_v4, version\n";
        assert_eq!(super::stop(stderr), " (undefined symbol: cuCtxCreate_v4)");
        assert_eq!(super::stop("error: no device\n"), "");
    }
}
