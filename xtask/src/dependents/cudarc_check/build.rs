//! One build of cudarc 0.19.10: its library's tests and the examples its `driver` and `nvrtc`
//! features build, stripped into a folder that dependent-run runs without cargo: tests/unit,
//! examples/ (with sin.ptx, which three examples read as ./examples/sin.ptx).

use crate::base::files::{self, copy};
use crate::base::{cargo_json, process, Result};
use crate::dependents::trees::{patch_config, strip};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The examples built: all of cudarc's but 08-cupti and cufile-copy, which need the `cupti` and
/// `cufile` features (and their libraries).
const EXAMPLES: &[&str] = &[
    "01-allocate",
    "02-copy",
    "03-launch-kernel",
    "04-streams",
    "05-device-repr",
    "06-threading",
    "09-constant-memory",
    "10-function-attributes",
    "12-context-config",
    "13-copy-multi-gpu",
    "matmul-kernel",
    "nvrtc-compile",
];

/// Which `sys` cudarc's driver module is built on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Side {
    /// cudarc as published: its own `sys`.
    Own,
    /// ci/cudarc/migration.patch applied: this workspace's cuda-driver-sys.
    Ours,
}

impl Side {
    /// The side's name in folder names and messages.
    pub fn name(self) -> &'static str {
        match self {
            Side::Own => "own",
            Side::Ours => "ours",
        }
    }
}

/// How the driver library (and NVRTC) is reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// cudarc's `dynamic-linking`: linked.
    Linked,
    /// cudarc's `dynamic-loading` (its default), which the patch forwards to cuda-driver-sys.
    Dynamic,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Linked => "linked",
            Mode::Dynamic => "dynamic",
        }
    }

    pub fn feature(self) -> &'static str {
        match self {
            Mode::Linked => "dynamic-linking",
            Mode::Dynamic => "dynamic-loading",
        }
    }
}

/// One build: a side, a header version, a mode.
pub struct Build {
    pub side: Side,
    pub version: u32,
    pub mode: Mode,
}

impl Build {
    /// Its folder name: `<side>-<version>-<mode>`.
    pub fn tag(&self) -> String {
        format!("{}-{}", self.side.name(), self.pair_name())
    }

    /// The name of the pair of builds it belongs to: `<version>-<mode>`.
    pub fn pair_name(&self) -> String {
        format!("{}-{}", self.version, self.mode.name())
    }

    /// Builds the crate in `src` into `dest`, linking the driver library of the folder `driver`
    /// and the NVRTC of `nvrtc`.
    pub fn build(&self, src: &Path, dest: &Path, driver: &Path, nvrtc: &Path) -> Result {
        let tag = self.tag();
        files::remove_dir(dest)?;
        for d in ["tests", "examples"] {
            files::create_dir(&dest.join(d))?;
        }
        println!("cudarc-check: building cudarc 0.19.10 ({tag}): library tests, examples");
        let features = format!(
            "driver,nvrtc,std,cuda-{},{}",
            self.version,
            self.mode.feature()
        );
        let failed = || format!("{tag}: the build failed (the compiler's errors are above)");
        // The library's tests (`cargo test`), then the examples as programs (`cargo build`: under
        // `cargo test` they would be test harnesses).
        let library_tests = ["test", "--no-run", "--lib"].map(String::from).to_vec();
        let mut examples = vec!["build".to_string()];
        examples.extend(
            EXAMPLES
                .iter()
                .flat_map(|e| ["--example".into(), e.to_string()]),
        );
        for (args, kind, to) in [
            (library_tests, "lib", dest.join("tests")),
            (examples, "example", dest.join("examples")),
        ] {
            let mut cargo = cargo(src, self.side, [driver, nvrtc], &args);
            cargo.args(["--no-default-features", "--features", &features]);
            let built = cargo_json::built(&mut cargo).map_err(|_| failed())?;
            for e in built.executables.iter().filter(|e| e.kind == kind) {
                let name = if kind == "lib" { "unit" } else { &e.name };
                strip(&e.path, &to.join(name)).map_err(|_| failed())?;
            }
        }
        let built_examples = files::sorted(&dest.join("examples"), "")?.len();
        if !dest.join("tests/unit").is_file() || built_examples != EXAMPLES.len() {
            return Err(format!("{tag}: the tests or the examples were not built").into());
        }
        copy(
            &src.join("examples/sin.ptx"),
            &dest.join("examples/sin.ptx"),
        )
    }
}

/// A folder under `work` with `libnvrtc.so`, the name the linker looks for, for the NVRTC library
/// `nvrtc`.
pub fn nvrtc_link_folder(work: &Path, nvrtc: &Path) -> Result<PathBuf> {
    let dir = work.join("nvrtc-link");
    files::create_dir(&dir)?;
    files::link(&nvrtc.to_string_lossy(), &dir.join("libnvrtc.so"))?;
    Ok(dir)
}

/// A program of ci/cudarc (`bench.rs`, `tour.rs`: `name`) built in release against the cudarc
/// in `src` as `build` says (its side, header and mode), into `dest`, linking the driver library
/// of `driver` and the NVRTC of `nvrtc`.
pub fn program(
    work: &Path,
    name: &str,
    build: &Build,
    src: &Path,
    dest: &Path,
    links: [&Path; 2],
) -> Result {
    let dir = work.join(format!("{name}-{}", build.tag()));
    files::create_dir(&dir)?;
    let manifest = format!(
        "[package]\nname = \"cudarc-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[[bin]]\nname = \"cudarc-{name}\"\npath = \"{}\"\n\n\
         [dependencies]\ncudarc = {{ path = \"{}\", default-features = false, features = \
         [\"driver\", \"nvrtc\", \"std\", \"cuda-{}\", \"{}\"] }}\n\n[workspace]\n",
        process::root()
            .join(format!("ci/cudarc/{name}.rs"))
            .display(),
        src.display(),
        build.version,
        build.mode.feature()
    );
    files::write(&dir.join("Cargo.toml"), manifest)?;
    copy(&src.join("Cargo.lock"), &dir.join("Cargo.lock"))?;
    println!(
        "cudarc-check: building ci/cudarc/{name}.rs ({})",
        build.tag()
    );
    let args = ["build", "--release"].map(String::from);
    let built = cargo_json::built(&mut cargo(&dir, build.side, links, &args))
        .map_err(|_| format!("{name}.rs ({}): the build failed (above)", build.tag()))?;
    let binary = built
        .executables
        .into_iter()
        .find(|e| e.kind == "bin")
        .ok_or_else(|| format!("cargo built no {name}"))?;
    strip(&binary.path, dest)
}

/// `cargo ARGS`, offline, with its messages as JSON, run in `dir` for `side` (this crate through
/// `[patch]` for ours). cuda-driver-sys links the driver library of `links[0]`
/// (`CUDA_LIBRARY_PATH`); cudarc's own `sys` takes it, and both take NVRTC (`links[1]`), from the
/// linker's search path.
fn cargo(dir: &Path, side: Side, links: [&Path; 2], args: &[String]) -> std::process::Command {
    let [driver, nvrtc] = links;
    let mut cargo = process::command("cargo");
    cargo
        .current_dir(dir)
        .args(args)
        .args(["--offline", "--message-format=json-render-diagnostics"])
        .env("CUDA_LIBRARY_PATH", driver)
        .env(
            "LIBRARY_PATH",
            format!("{}:{}", driver.display(), nvrtc.display()),
        )
        .stderr(Stdio::inherit());
    if side == Side::Ours {
        cargo.args(["--config", &patch_config()]);
    }
    cargo
}
