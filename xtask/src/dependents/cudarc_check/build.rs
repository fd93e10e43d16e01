//! One build of cudarc 0.19.10: its library's tests and the examples its `driver` and `nvrtc`
//! features build, stripped into a folder that dependent-run runs without cargo: tests/unit,
//! examples/ (with sin.ptx, which three examples read as ./examples/sin.ptx).

use crate::base::files::{self, copy};
use crate::base::{cargo_json, process, Result};
use crate::dependents::trees::{patch_config, strip};
use std::path::Path;
use std::process::Stdio;

/// The examples built: all of cudarc's but 08-cupti and cufile-copy, which need the `cupti` and
/// `cufile` features (and their libraries).
const EXAMPLES: &str = "01-allocate 02-copy 03-launch-kernel 04-streams 05-device-repr \
    06-threading 09-constant-memory 10-function-attributes 12-context-config 13-copy-multi-gpu \
    matmul-kernel nvrtc-compile";

/// One build: a side, a header version, a mode.
pub struct Build {
    /// cudarc's driver module on this workspace's cuda-driver-sys (ci/cudarc/migration.patch
    /// applied: `ours`), or on its own `sys` (`own`).
    pub ours: bool,
    pub version: u32,
    /// The driver library (and NVRTC) linked (cudarc's `dynamic-linking`), or loaded at run time
    /// (`dynamic-loading`, its default, which the patch forwards to cuda-driver-sys).
    pub linked: bool,
}

impl Build {
    /// Its side's name, `ours` or `own`: the folder of its sources under the work folder.
    pub fn side(&self) -> &'static str {
        ["own", "ours"][self.ours as usize]
    }

    /// Its folder name: `<side>-<version>-<mode>`.
    pub fn tag(&self) -> String {
        format!("{}-{}", self.side(), self.pair_name())
    }

    /// The name of the pair of builds it belongs to: `<version>-<linked|dynamic>`.
    pub fn pair_name(&self) -> String {
        let mode = ["dynamic", "linked"][self.linked as usize];
        format!("{}-{mode}", self.version)
    }

    /// cudarc's feature for its mode.
    fn feature(&self) -> &'static str {
        ["dynamic-loading", "dynamic-linking"][self.linked as usize]
    }

    /// The build of a side (`ours` or own), a header version and a mode (`linked` or not).
    pub fn new(ours: bool, version: u32, linked: bool) -> Build {
        Build {
            ours,
            version,
            linked,
        }
    }

    /// Builds the crate of its side under `work` into `dest`, linking the driver library and
    /// NVRTC of the folders `links`.
    pub fn build(&self, work: &Path, dest: &Path, links: [&Path; 2]) -> Result {
        let tag = self.tag();
        files::remove_dir(dest)?;
        println!("cudarc-check: building cudarc 0.19.10 ({tag}): library tests, examples");
        let features = format!("driver,nvrtc,std,cuda-{},{}", self.version, self.feature());
        let failed = || format!("{tag}: the build failed (the compiler's errors are above)");
        // The library's tests (`cargo test`), then the examples as programs (`cargo build`: under
        // `cargo test` they would be test harnesses).
        let library_tests = ["test", "--no-run", "--lib"].map(String::from).to_vec();
        let examples = EXAMPLES.split_whitespace().flat_map(|e| ["--example", e]);
        let examples = ["build"]
            .into_iter()
            .chain(examples)
            .map(String::from)
            .collect();
        for (args, kind, to) in [
            (library_tests, "lib", "tests"),
            (examples, "example", "examples"),
        ] {
            files::create_dir(&dest.join(to))?;
            let mut cargo = cargo(&work.join(self.side()), self.ours, links, &args);
            cargo.args(["--no-default-features", "--features", &features]);
            let built = cargo_json::built(&mut cargo).map_err(|_| failed())?;
            for e in built.executables.iter().filter(|e| e.kind == kind) {
                let name = if kind == "lib" { "unit" } else { &e.name };
                strip(&e.path, &dest.join(to).join(name)).map_err(|_| failed())?;
            }
        }
        let built_examples = files::sorted(&dest.join("examples"), "")?.len();
        let examples = EXAMPLES.split_whitespace().count();
        if !dest.join("tests/unit").is_file() || built_examples != examples {
            return Err(format!("{tag}: the tests or the examples were not built").into());
        }
        let sin = "examples/sin.ptx";
        copy(&work.join(self.side()).join(sin), &dest.join(sin))
    }

    /// A program of ci/cudarc (`bench.rs`, `tour.rs`: `name`) built in release against this
    /// build's cudarc under `work`, into `dest`, linking the driver library and NVRTC of `links`.
    pub fn program(&self, work: &Path, name: &str, dest: &Path, links: [&Path; 2]) -> Result {
        let (tag, src) = (self.tag(), work.join(self.side()));
        let dir = work.join(format!("{name}-{tag}"));
        files::create_dir(&dir)?;
        let manifest = format!(
            "[package]\nname = \"cudarc-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[[bin]]\nname = \"cudarc-{name}\"\npath = \"{}.rs\"\n\n\
             [dependencies]\ncudarc = {{ path = \"{}\", default-features = false, features = \
             [\"driver\", \"nvrtc\", \"std\", \"cuda-{}\", \"{}\"] }}\n\n[workspace]\n",
            process::root().join("ci/cudarc").join(name).display(),
            src.display(),
            self.version,
            self.feature()
        );
        files::write(&dir.join("Cargo.toml"), manifest)?;
        copy(&src.join("Cargo.lock"), &dir.join("Cargo.lock"))?;
        println!("cudarc-check: building ci/cudarc/{name}.rs ({tag})");
        let args = ["build", "--release"].map(String::from);
        let built = cargo_json::built(&mut cargo(&dir, self.ours, links, &args))
            .map_err(|_| format!("{name}.rs ({tag}): the build failed (above)"))?;
        let binary = (built.executables.into_iter().find(|e| e.kind == "bin"))
            .ok_or_else(|| format!("cargo built no {name}"))?;
        strip(&binary.path, dest)
    }
}

/// `cargo ARGS`, offline, with its messages as JSON, run in `dir` (on this crate through `[patch]`
/// if `ours`). cuda-driver-sys links the driver library of `links[0]` (`CUDA_LIBRARY_PATH`);
/// cudarc's own `sys` takes it, and both take NVRTC (`links[1]`), from the linker's search path.
fn cargo(dir: &Path, ours: bool, links: [&Path; 2], args: &[String]) -> std::process::Command {
    let [driver, nvrtc] = links;
    let library_path = format!("{}:{}", driver.display(), nvrtc.display());
    let mut cargo = process::command("cargo");
    cargo.current_dir(dir).args(args);
    cargo.args(["--offline", "--message-format=json-render-diagnostics"]);
    cargo
        .env("CUDA_LIBRARY_PATH", driver)
        .env("LIBRARY_PATH", library_path);
    cargo.stderr(Stdio::inherit());
    if ours {
        cargo.args(["--config", &patch_config()]);
    }
    cargo
}
