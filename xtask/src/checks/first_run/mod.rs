//! `cargo xtask first-run`: the first run, as a new user meets it: a fresh clone of this
//! repository, an empty CARGO_TARGET_DIR, no CUDA headers (no CUDA_HEADERS_*, no target/ci-deps,
//! no toolkit) and only the driver library on the loader path. Then:
//!   1. `cargo run --example NAME` for every example (and every group program the version
//!      builds: `examples/groups/`), once per `dependents` version feature; each
//!      output (stdout, stderr, exit code) is recorded and compared with its C twin's by the
//!      parity test of this checkout (tests/examples_parity.rs, CUDA_EXAMPLES_OUTPUT_DIR), the
//!      twins being those the normal build of that version made ([`examples`]);
//!   2. `cargo test` in the fresh clone: it must stop with one line naming ci/fetch-deps.sh, and
//!      no panic ([`without_headers`]);
//!   3. a toolkit root in CUDA_PATH (a folder with include/cuda.h of the pinned header tagged
//!      `toolkit`, and the CUDA 12 runtime: include/cuda_runtime_api.h, lib64/libcudart.so.12) is
//!      enough for that version's twins: the parity test builds and passes from it
//!      ([`toolkit`]).
//!
//! runtime_interop also uses the CUDA runtime: step 1 runs it as a user who has one
//! (CUDART_LIBRARY_PATH), and once without, where it must stop with one line naming
//! ci/fetch-deps.sh.
//!
//! Needs, from fetch-deps: CUDA_LIBRARY_PATH (the driver library's folder), the `toolkit`
//! version's `CUDA_HEADERS_<V>`, CUDART_LIBRARY_PATH and CUDART_INCLUDE_PATH (the CUDA 12 runtime);
//! and CUDA_STUB_LIBRARY_PATH (stub-libcuda) to link the builds of the headers that bind
//! cuCtxCreate_v4 (from the version tagged `ctx-create-v4` on), which the CI machine's driver
//! (535) lacks, and the group programs and twins of headers newer than that driver. Run by the
//! test task, after the tests of every version were built in this checkout.

mod examples;
mod toolkit;
mod without_headers;

use crate::base::args::Args;
use crate::base::deps::env_path;
use crate::base::examples::stems;
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::Result;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the steps share: the folders of the environment and of the fresh clone.
pub struct FirstRun {
    /// The driver library's folder.
    driver: PathBuf,
    /// The stub library's folder.
    stub: PathBuf,
    /// The CUDA 12 runtime's library folder and headers.
    cudart_lib: PathBuf,
    cudart_include: PathBuf,
    /// The GL/EGL/VDPAU headers.
    interop: PathBuf,
    /// Every example, named by its C twin examples/NAME.cpp (tests/examples_parity.rs fails when
    /// its list differs from the twins).
    examples: Vec<String>,
    /// The scratch folder: the clone in repo/, its target folder in target/.
    work: Scratch,
}

/// The example that uses the CUDA runtime besides the driver.
const USES_RUNTIME: &str = "runtime_interop";

/// `cargo xtask first-run`: the fresh clone, then the three steps.
pub fn run(_: &Args) -> Result {
    let from_fetch_deps =
        |name: &str, what: &str| env_path(name, &format!("{what} (fetch-deps sets {name})"));
    let run = FirstRun {
        driver: from_fetch_deps("CUDA_LIBRARY_PATH", "the driver library folder")?,
        stub: env_path(
            "CUDA_STUB_LIBRARY_PATH",
            "a stub libcuda folder (stub-libcuda)",
        )?,
        interop: from_fetch_deps("CUDA_INTEROP_INCLUDE", "the GL/EGL/VDPAU headers")?,
        cudart_lib: from_fetch_deps("CUDART_LIBRARY_PATH", "the CUDA runtime library folder")?,
        cudart_include: from_fetch_deps("CUDART_INCLUDE_PATH", "the CUDA runtime headers")?,
        examples: stems("examples", "cpp")?,
        work: Scratch::new("first-run")?,
    };
    if run.examples.is_empty() {
        return Err("no examples/*.cpp".into());
    }
    let repo = run.repo();
    process::run(
        process::command("git")
            .args(["clone", "-q"])
            .arg(root())
            .arg(&repo),
    )?;
    if repo.join("target").exists() {
        return Err("the clone has a target folder".into());
    }
    examples::check(&run)?;
    without_headers::check(&run)?;
    toolkit::check(&run)?;
    println!("first-run: all passed");
    Ok(())
}

impl FirstRun {
    /// The fresh clone.
    fn repo(&self) -> PathBuf {
        self.work.path().join("repo")
    }

    /// A command in the fresh clone with a new user's environment: the toolchain, the driver
    /// library on the loader path, nothing else.
    fn fresh(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(self.repo())
            .env_clear()
            .env("CARGO_TARGET_DIR", self.work.path().join("target"))
            .env("CARGO_TERM_COLOR", "never")
            .env("LD_LIBRARY_PATH", &self.driver);
        for var in [
            "PATH",
            "HOME",
            "CARGO_HOME",
            "RUSTUP_HOME",
            "RUSTUP_TOOLCHAIN",
        ] {
            if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                command.env(var, value);
            }
        }
        command
    }

    /// A file or folder in the scratch folder.
    fn scratch(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }
}

/// Prints each line of `text` that is not blank, after `prefix`.
fn show_lines(text: &str, prefix: &str, skip: impl Fn(&str) -> bool) {
    for line in text.lines().filter(|l| !l.trim().is_empty() && !skip(l)) {
        println!("{prefix}{line}");
    }
}

/// The output folder `dir`'s file `<name>.<what>`.
fn output(dir: &Path, name: &str, what: &str) -> PathBuf {
    dir.join(format!("{name}.{what}"))
}
