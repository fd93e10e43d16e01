//! The coverage recorder in the bundle, `lib/libcuda-calls.so` with the pinned CUPTI wheel's
//! `libcupti.so.13` beside it (its RUNPATH is `$ORIGIN`), and its test without a GPU, which
//! `cargo xtask coverage --check` runs: docs/DESIGN.md, "Coverage".
//!
//! Both compile `ci/coverage/`'s C with the table of the driver entries' parameters that the
//! generator's `call_arguments` writes from the committed bindings for CUPTI's callback ids: the
//! C compiler holds every name and offset of it to CUPTI's parameter structs and to the `cuda.h`
//! of CUPTI's release.

use crate::base::deps::{self, cupti, env_path};
use crate::base::files::{copy, create_dir};
use crate::base::process::{self, root};
use crate::base::scratch::Scratch;
use crate::base::{generator, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The recorder's file name in the bundle's `lib/`.
pub const LIBRARY: &str = "libcuda-calls.so";

/// The recorder's sources in `ci/coverage/`.
const SOURCES: [&str; 2] = ["recorder.c", "arguments.c"];

/// Builds the recorder into `out/lib/`, with `libcupti.so.13`.
pub fn build(out: &Path) -> Result {
    let inputs = Inputs::prepare("recorder")?;
    let lib = out.join("lib");
    create_dir(&lib)?;
    copy(
        &inputs.cupti.join("lib/libcupti.so.13"),
        &lib.join("libcupti.so.13"),
    )?;
    let mut compile = inputs.compiler()?;
    compile
        .args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden"])
        .args(sources(&SOURCES))
        .arg("-o")
        .arg(lib.join(LIBRARY))
        .arg(format!("-L{}", lib.display()))
        .args([
            "-l:libcupti.so.13",
            "-Wl,-rpath,$ORIGIN",
            "-lpthread",
            "-ldl",
        ]);
    process::run(&mut compile)?;
    println!("  lib/{LIBRARY} (CUPTI {})", cupti::VERSION);
    Ok(())
}

/// The recorder's test (`ci/coverage/recorder_test.c`): the recorder fed made-up CUPTI callbacks
/// in a child process, with `ci/coverage/test_driver.c` as the driver it asks (`libcuda.so.1`);
/// fails unless the child's log is the one the trace format gives.
pub fn test() -> Result {
    deps::use_fetched(false)?;
    let inputs = Inputs::prepare("recorder-test")?;
    let dir = inputs.scratch.path();
    let driver = dir.join("libcuda.so.1");
    let mut compile = inputs.compiler()?;
    compile
        .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1"])
        .args(sources(&["test_driver.c"]))
        .arg("-o")
        .arg(&driver);
    process::run(&mut compile)?;
    let test = dir.join("recorder_test");
    let mut compile = inputs.compiler()?;
    compile
        .args(sources(&["recorder_test.c"]))
        .args(sources(&SOURCES))
        .arg("-o")
        .arg(&test)
        // The made-up driver, though nothing calls it by name, found before any other
        // libcuda.so.1: an RPATH, which LD_LIBRARY_PATH does not override (a RUNPATH it would).
        .arg("-Wl,--no-as-needed")
        .arg(&driver)
        .arg(format!("-Wl,-rpath,{},--disable-new-dtags", dir.display()))
        .args(["-lpthread", "-ldl"]);
    process::run(&mut compile)?;
    let logs = dir.join("logs");
    create_dir(&logs)?;
    process::run(process::command(&test).arg(&logs))
}

/// What the recorder compiles with: CUPTI (fetched), and the generator's table, written into a
/// scratch folder.
struct Inputs {
    /// `target/ci-deps/cupti-<version>/`.
    cupti: PathBuf,
    /// Holds `call_arguments.h`, and what the caller builds.
    scratch: Scratch,
}

impl Inputs {
    /// CUPTI fetched where missing, and the table written into a new scratch folder named for
    /// `what`.
    fn prepare(what: &str) -> Result<Inputs> {
        let deps = root().join("target/ci-deps");
        cupti::fetch(&deps)?;
        let cupti = cupti::folder(&deps);
        let scratch = Scratch::new(what)?;
        let mut generate = generator::program("call_arguments");
        generate
            .arg(cupti::cuda_version().to_string())
            .arg(cupti.join("include"))
            .arg(scratch.path().join("call_arguments.h"));
        process::run(&mut generate)?;
        Ok(Inputs { cupti, scratch })
    }

    /// The C compiler with the recorder's warnings and include folders: the table's, CUPTI's, the
    /// `cuda.h` of CUPTI's release, the runtime's headers (`cupti_callbacks.h` includes
    /// `builtin_types.h`).
    fn compiler(&self) -> Result<Command> {
        let fetch_deps = "run `cargo xtask fetch-deps`";
        let cuda_h = format!("CUDA_HEADERS_{}", cupti::cuda_version());
        let headers = env_path(&cuda_h, fetch_deps)?;
        let runtime = env_path("CUDART_INCLUDE_PATH", fetch_deps)?;
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let mut compile = process::command(cc);
        compile.args(["-Wall", "-Wextra", "-Werror"]);
        let include = self.cupti.join("include");
        for folder in [self.scratch.path(), &headers, &include, &runtime] {
            compile.arg(format!("-I{}", folder.display()));
        }
        Ok(compile)
    }
}

/// The paths of `names` in `ci/coverage/`.
fn sources(names: &[&str]) -> Vec<PathBuf> {
    let dir = root().join("ci/coverage");
    names.iter().map(|n| dir.join(n)).collect()
}
