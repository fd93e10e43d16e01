//! `cargo xtask gpu-bundle [--parts WORDS] [DIR]`: builds, on this machine (release, x86-64),
//! everything the GPU pass runs, into one folder (default `target/gpu-bundle`) that a GPU machine
//! with the NVIDIA driver and no Rust toolchain runs with one command, `DIR/run.sh [OUT]` (this
//! task's own binary, `DIR/xtask gpu-run`; logs go to OUT, default `DIR/out`). `--parts` builds
//! only the parts it names (of [`PARTS`]; all by default): run such a bundle with the same words in
//! `GPU_RUN_PARTS` (`tests` also serves `sanitizer`).
//!
//! The folder holds: the examples and their C twins of each build ([`builds`]: `examples-<tag>/`,
//! `c-twins-<tag>/`, with the parity test binary `tests/examples_parity-<tag>`), the PTX they load,
//! the CUDA runtime library runtime_interop and its twin use (`lib/libcudart.so.12`, the one the
//! twins were linked against: the runner puts `lib/` on the loader path, so the GPU machine's own
//! toolkit is not needed), the driver, table and interop tests of each build (every function linked
//! where the GPU machine's driver is newer than the header), OpenGL and EGL interop through
//! headless EGL (`gl_interop`, `egl_interop`, with the EGL/OpenGL loaders they need as Debian
//! packages in `gl-debs/`), the benchmark twice: linked (`bin/bench-driver`) and dynamically loaded
//! with cudarc beside it (`bin/bench-driver-dynamic`, with `bin/first-init-{linked,dynamic}` for
//! the start-time rows), rustacuda 0.1.3's tests on this crate (`rustacuda/`), cust 0.3.2's on this
//! crate and on cust_raw 0.11.3 (`cust/`, about 20 MB), cudarc 0.19.10's on its own `sys` and on
//! this crate with the NVRTC they link (`cudarc.tar.xz`, which gpu-run unpacks), `checks.json`, the
//! example builds each GPU check takes, the coverage recorder ([`recorder`]) and the driver-call
//! dropper ([`dropper`]).

mod builds;
mod dropper;
pub mod recorder;

use crate::base::args::Args;
use crate::base::cargo_json::{self, Built};
use crate::base::driver::Links;
use crate::base::files::{copy, copy_files, create_dir, remove_dir, sorted, write};
use crate::base::versions::dotted;
use crate::base::{deps, process, Result};
use crate::gpu::run::checks::Checks;
use builds::{Build, Versions};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The parts a bundle can hold.
const PARTS: &[&str] = &["tests", "bench", "rustacuda", "cust", "cudarc"];

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let all = PARTS.join(" ");
    let parts = args.value("WORDS").unwrap_or(&all);
    let dir = args.value("DIR").unwrap_or("target/gpu-bundle");
    let parts: Vec<&str> = parts.split_whitespace().collect();
    if let Some(unknown) = parts.iter().find(|p| !PARTS.contains(p)) {
        return Err(format!("gpu-bundle: no part `{unknown}`; the parts: {all}").into());
    }
    let want = |part: &str| parts.contains(&part);
    deps::use_fetched(false)?;
    let out = process::root().join(dir);
    remove_dir(&out)?;
    for sub in ["bin", "tests", "lib"] {
        create_dir(&out.join(sub))?;
    }
    copy_files(
        &process::root().join("examples/kernels"),
        &out.join("kernels"),
    )?;
    let versions = Versions::tagged()?;
    if want("tests") {
        everything_but_the_benchmark(&out, &versions)?;
    }
    if want("bench") {
        println!("building the benchmark: linked, and dynamically loaded with cudarc beside it");
        bench(&out, "driver", "bench-driver", &[])?;
        bench(&out, "first_init", "first-init-linked", &[])?;
        let dynamic = versions.dynamic_bench_features();
        bench(&out, "driver", "bench-driver-dynamic", &dynamic)?;
        bench(&out, "first_init", "first-init-dynamic", &dynamic)?;
    }
    for name in ["rustacuda", "cust"] {
        if want(name) {
            println!("building {name}'s tests, doctests and examples on this crate ({name}-check --bundle)");
            let dir = out.join(name).to_string_lossy().into_owned();
            process::run_task(&format!("{name}-check"), &["--bundle", &dir])?;
        }
    }
    if want("cudarc") {
        println!("building cudarc 0.19.10's tests and examples, on its own sys and on this crate (cudarc-check --bundle)");
        let cudarc = out.join("cudarc");
        process::run_task("cudarc-check", &["--bundle", &cudarc.to_string_lossy()])?;
        // As cudarc.tar.xz, which gpu-run unpacks: its builds differ little from one another, and
        // xz keeps the bundle small enough to travel.
        let mut tar = process::command("tar");
        tar.current_dir(&out).env("XZ_OPT", "-6 -T0");
        process::run(tar.args(["cJf", "cudarc.tar.xz", "cudarc"]))?;
        remove_dir(&cudarc)?;
    }
    runner(&out, &versions)?;
    process::run(process::command("du").arg("-sh").arg(&out))
}

/// The examples, the C twins, the tests and the runtime library: the part `tests`.
fn everything_but_the_benchmark(out: &Path, versions: &Versions) -> Result {
    // The runtime the twins link (the tests' build script takes $CUDART_LIBRARY_PATH first, which
    // fetch-deps set) and the examples load; the benchmark uses none.
    let cudart = deps::env_path("CUDART_LIBRARY_PATH", "run `cargo xtask fetch-deps`")?;
    let runtime = "libcudart.so.12";
    copy(&cudart.join(runtime), &out.join("lib").join(runtime))?;
    // Linking every function of a header newer than Debian's 535 library needs a library with
    // those symbols: a stub libcuda.so.1 made from the committed bindings, as the toolkit's stubs
    // are. The GPU machine loads its real driver instead (nothing points the loader at the stub).
    let stub = Links::in_scratch("gpu-bundle-stub")?;
    let default = dotted(versions.default);
    println!(
        "building the examples and C twins of every version feature (and {default} per-thread)"
    );
    for build in versions.examples() {
        examples(out, &build, &stub)?;
    }
    println!("building the driver and table tests of every header");
    for build in versions.linked_tests() {
        tests(out, &build, &stub)?;
    }
    // The GPU machine has no EGL/OpenGL loaders of its own (glvnd; the NVIDIA driver brings its
    // EGL vendor library): the runner unpacks these when ldconfig does not know libEGL.so.1.
    println!("downloading the EGL/OpenGL loaders for gl_interop and egl_interop (bookworm amd64)");
    let debs = out.join("gl-debs");
    create_dir(&debs)?;
    let loaders = "libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2";
    let mut download = process::command("apt-get");
    download.args(["-oAPT::Architecture=amd64", "download"]);
    download.args(loaders.split(' ')).current_dir(&debs);
    process::run(download.stdout(std::io::stderr()))?;
    for build in versions.dynamic_tests() {
        tests(out, &build, &stub)?;
    }
    println!("building the coverage recorder (CUPTI's driver API callbacks)");
    recorder::build(out)?;
    println!("building the driver-call dropper (the drop runs)");
    dropper::build(out)
}

/// The examples of `build` into `examples-<tag>/`, its C twins (built by the tests' build script)
/// into `c-twins-<tag>/`, with its parity test binary.
fn examples(out: &Path, build: &Build, stub: &Links) -> Result {
    let tag = &build.tag;
    let examples = out.join(format!("examples-{tag}"));
    let twins = out.join(format!("c-twins-{tag}"));
    create_dir(&examples)?;
    create_dir(&twins)?;
    let mut cargo = cargo_for(stub, build, &["build", "--release", "--examples"]);
    build_copying(&mut cargo, "example", |name| examples.join(name))?;
    let parity = ["test", "--release", "--no-run", "--test", "examples_parity"];
    let mut cargo = cargo_for(stub, build, &parity);
    let to = |name: &str| out.join(format!("tests/{name}-{tag}"));
    let built = build_copying(&mut cargo, "test", to)?;
    if let Some(dir) = built.tests_out_dir {
        copy_files(&dir.join("c-twins"), &twins)?;
    }
    let (examples, twins) = (sorted(&examples, "")?.len(), sorted(&twins, "")?.len());
    println!("  examples-{tag}: {examples}, c-twins-{tag}: {twins}");
    Ok(())
}

/// The test binaries of `build`, into `tests/<name>-<tag>`.
fn tests(out: &Path, build: &Build, stub: &Links) -> Result {
    let mut cargo = cargo_for(stub, build, &["test", "--release", "--no-run"]);
    let name = |test: &str| format!("{test}-{}", build.tag);
    let built = build_copying(&mut cargo, "test", |test| {
        out.join("tests").join(name(test))
    })?;
    for test in built.executables.iter().filter(|e| e.kind == "test") {
        println!("  test {}", name(&test.name));
    }
    Ok(())
}

/// The benchmark program `name` of the build with `features`, into `bin/<dest>`. Every loop of
/// both twins starts on a 64-byte boundary (LLVM's -align-loops=64, gcc's -falign-loops=64; in a
/// target folder of their own, so that the other builds keep theirs): where the linker put a loop
/// moved identical loops by up to 8% (docs/BENCHMARKS.md), which the verdicts must not measure.
fn bench(out: &Path, name: &str, dest: &str, features: &[String]) -> Result {
    let mut cargo = cargo(&["bench", "--no-run", "--bench", name]);
    cargo
        .args(features)
        .env("CARGO_TARGET_DIR", "target/bench-aligned")
        .env("RUSTFLAGS", "-C llvm-args=-align-loops=64")
        .env("CFLAGS", "-falign-loops=64");
    let built = build_copying(&mut cargo, "bench", |_| out.join("bin").join(dest))?;
    if !built.executables.iter().any(|e| e.kind == "bench") {
        let features = features.join(" ");
        return Err(format!("the {name} benchmark ({features}) was not built").into());
    }
    println!("  bin/{dest}");
    Ok(())
}

/// The runner: this task's binary built in release (`xtask gpu-run`), `run.sh` calling it, and the
/// `checks.json` file it reads.
fn runner(out: &Path, versions: &Versions) -> Result {
    let mut cargo = cargo(&["build", "--release", "--package", "xtask"]);
    let built = build_copying(&mut cargo, "bin", |_| out.join("xtask"))?;
    if !built.executables.iter().any(|e| e.kind == "bin") {
        return Err("cargo built no xtask binary".into());
    }
    let run_sh = out.join("run.sh");
    let script = "#!/usr/bin/env bash\nexec \"$(dirname \"$0\")/xtask\" gpu-run \"$@\"\n";
    write(&run_sh, script)?;
    fs_err::set_permissions(&run_sh, std::fs::Permissions::from_mode(0o755))?;
    let (d, examples) = (versions.default, &versions.examples);
    let names = |text: String| Vec::from_iter(text.split_whitespace().map(String::from));
    let all: String = examples.iter().map(|v| format!(" {v}")).collect();
    let newest = examples.last().map_or(String::new(), |v| format!(" {v}"));
    let drop = examples
        .last()
        .ok_or("versions.txt tags no `gpu-examples` version")?;
    let programs = crate::base::examples::group_programs()?;
    let programs: String = programs.iter().map(|p| format!(" {}", p.name)).collect();
    let checks = Checks {
        default: d.to_string(),
        sanitizer: names(format!("{d}{all} {d}-dyn")),
        profiler: names(format!("{d} {d}-dyn{newest}")),
        api_errors: names(format!("ptx_jit profiler{programs}")),
        drop: drop.to_string(),
    };
    write(&out.join("checks.json"), checks.render())
}

/// `cargo <args>` with JSON messages, from the workspace root.
fn cargo(args: &[&str]) -> Command {
    let mut cargo = process::command("cargo");
    cargo.args(args).arg("--message-format=json");
    cargo
}

/// `cargo <args>` of `build`, linked against the stub of `links` where `build` says.
fn cargo_for(links: &Links, build: &Build, args: &[&str]) -> Command {
    let mut cargo = cargo(args);
    cargo.args(&build.args);
    if build.stub {
        cargo.env("CUDA_LIBRARY_PATH", &links.stub);
    }
    cargo
}

/// Runs the cargo build `command`, its compiler messages unshown (the failure says how to see
/// them), and copies each executable of the kind `kind` it made to `to(its name)`; what it made.
fn build_copying(command: &mut Command, kind: &str, to: impl Fn(&str) -> PathBuf) -> Result<Built> {
    let built = cargo_json::built(command.stderr(Stdio::null()))
        .map_err(|e| format!("{e}: run it for the compiler's messages"))?;
    for executable in built.executables.iter().filter(|e| e.kind == kind) {
        copy(&executable.path, &to(&executable.name))?;
    }
    Ok(built)
}
