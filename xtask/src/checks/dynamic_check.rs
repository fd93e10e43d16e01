//! `cargo xtask dynamic-check`: the `dynamic-loading` checks (docs/DESIGN.md, "What CI runs",
//! step 6), for the default header in both stream modes and the headers tagged `ahead-of-driver`
//! and `old-driver`: the binaries load no driver library ([`loads_no_driver`]), pass on the 535
//! library (the `old-driver` table also on the 470 one), and start with none reachable; then
//! the group programs at their headers ([`groups`]).

use crate::base::args::Args;
use crate::base::capture::tee;
use crate::base::cargo_json::{self, Executable};
use crate::base::deps::{self, env_path};
use crate::base::driver::{self, expect_535_driver, DRIVER_470};
use crate::base::examples::{group_programs_at, group_versions, stems};
use crate::base::steps::Headings;
use crate::base::versions::{dotted, the_one};
use crate::base::{elf, files, process, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const HEADINGS: Headings = Headings("dynamic-loading");

/// `cargo xtask dynamic-check`: the loader cache checked empty, then each configuration.
pub fn run(_: &Args) -> Result {
    deps::use_fetched(false)?;
    expect_535_driver()?;
    // The headers newer than the 535 driver: their C twins link a stub (run: the real one).
    let links = driver::Links::in_scratch("dynamic-check-stub")?;

    HEADINGS.step("no driver library in this machine's loader cache");
    let cache = process::output(process::command("ldconfig").arg("-p"))?;
    let known: Vec<&str> = (cache.lines())
        .filter(|l| l.to_lowercase().contains("libcuda.so"))
        .collect();
    if !known.is_empty() {
        println!("{}", known.join("\n"));
        return Err("ldconfig knows the libcuda above: the no-library runs need a machine without the NVIDIA \
driver library (a container without the GPU runtime hook); run this task there"
            .into());
    }
    println!("  ldconfig -p: no libcuda");

    // Each configuration: its name in the headings, its header, its features besides the
    // version's and dynamic-loading, whether the examples are built and compared.
    let (default, ahead) = (the_one("default")?, the_one("ahead-of-driver")?);
    let old = the_one("old-driver")?;
    let pt = "interop,per-thread-default-stream,";
    let configs = [
        (default.to_string(), default, "interop,", true),
        (format!("{default}-pt"), default, pt, true),
        (ahead.to_string(), ahead, "interop,", false),
        (old.to_string(), old, "", false),
    ];
    for (name, version, features, examples) in configs {
        let features = format!("cuda-{version},{features}dynamic-loading");
        let link = links.for_header(version)?;
        let table = check(&name, &features, examples.then_some(version), link)?;
        if version == old {
            on_470(&name, &table)?;
        }
    }
    for version in group_versions()?.into_iter().filter(|v| *v != default) {
        groups(version, links.for_header(version)?)?;
    }
    println!("\ndynamic-check: all passed");
    Ok(())
}

/// The checks of the configuration `name` (`features`, twins linking `link`; the examples' header
/// if they are compared); its table test binary.
fn check(name: &str, features: &str, examples: Option<u32>, link: &Path) -> Result<PathBuf> {
    let mut binaries = vec!["dynamic", "load_from", "driver", "table"];
    // The interop modules (profiler, gl, egl, vdpau) through the same loader.
    if features.contains("interop") {
        binaries.push("interop");
    }
    if examples.is_some() {
        binaries.push("examples_parity");
    }
    let tests: Vec<&str> = binaries.iter().flat_map(|t| ["--test", t]).collect();
    let cargo = |what: &str| cargo(what, link, features);
    let step = |what: &str| HEADINGS.step(&format!("{name}: {what}"));

    step("clippy, and the crate's docs (warnings denied)");
    let clippy = "--workspace --all-targets -- -D warnings";
    process::run(cargo("clippy").args(clippy.split(' ')))?;
    // cuda-driver-sys names the interop modules' features itself; `table` as on docs.rs (the
    // crate docs link `table()`).
    let doc_features = features.replace("interop", "profiler,gl,egl,vdpau") + ",table";
    let args = "doc -p cuda-driver-sys --no-deps --no-default-features --features";
    let mut doc = process::command("cargo");
    doc.args(args.split(' ')).arg(doc_features);
    process::run(doc.env("RUSTDOCFLAGS", "-D warnings"))?;

    step("build, and check the binaries load no driver library");
    let built = executables(cargo("test").arg("--no-run").args(&tests))?;
    let bin = |t: &str| test_binary(&built, t).map_err(|e| format!("{name}: {e}"));
    for t in binaries.iter().filter(|t| **t != "examples_parity") {
        loads_no_driver(bin(t)?)?;
    }
    let mut examples_dir = None;
    if let Some(version) = examples {
        let (count, dir) = built_examples(&mut cargo("build"), |_| true)?;
        let want = stems("examples", "rs")?.len() + group_programs_at(version)?.len();
        if count != want {
            let what = "examples/*.rs and the group programs";
            return Err(format!("{name}: {count} examples built, not {want} ({what})").into());
        }
        examples_dir = Some(dir);
    }

    step("with Debian's 535 library");
    let log = tee(cargo("test").args(&tests).args(["--", "--nocapture"]))?;
    if !log.lines().any(|l| l.starts_with("  path: loaded ")) {
        return Err(format!("{name}: load_from did not load the library by its path").into());
    }

    step("with no driver library reachable (LD_LIBRARY_PATH unset)");
    let unset = "LD_LIBRARY_PATH";
    let mut dynamic = process::command(bin("dynamic")?);
    process::run(dynamic.env_remove(unset).args(["--ignored", "--nocapture"]))?;
    process::run(process::command(bin("load_from")?).env_remove(unset))?;
    if let Some(dir) = examples_dir {
        start_without_library(bin("examples_parity")?, &dir)?;
    }
    Ok(bin("table")?.to_path_buf())
}

/// `cargo`, a build given its features, with `--message-format=json`: the executables it made.
fn executables(cargo: &mut Command) -> Result<Vec<Executable>> {
    let json = cargo.arg("--message-format=json").stderr(Stdio::inherit());
    Ok(cargo_json::built(json)?.executables)
}

/// The test binary `test` among `built`.
fn test_binary<'a>(built: &'a [Executable], test: &str) -> Result<&'a Path> {
    let found = built.iter().find(|e| e.name == test && e.path.is_file());
    let found = found.ok_or(format!("the {test} test binary was not built"))?;
    Ok(&found.path)
}

/// Builds the examples (`cargo`: `cargo build` with the features) and checks that those `keep`
/// takes load no driver library: how many, and their folder.
fn built_examples(cargo: &mut Command, keep: impl Fn(&str) -> bool) -> Result<(usize, PathBuf)> {
    let built = executables(cargo.arg("--examples"))?;
    let kept: Vec<&Executable> = (built.iter())
        .filter(|e| e.kind == "example" && keep(&e.name))
        .collect();
    for e in &kept {
        loads_no_driver(&e.path)?;
    }
    let dir = kept.last().and_then(|e| e.path.parent());
    Ok((kept.len(), dir.ok_or("no example was built")?.to_path_buf()))
}

/// `cargo WHAT` with only the cargo `features`, its C twins linking the library in `link`.
fn cargo(what: &str, link: &Path, features: &str) -> Command {
    let mut cargo = process::command("cargo");
    cargo.arg(what).env("CUDA_LIBRARY_PATH", link);
    cargo.args(["--no-default-features", "--features", features]);
    cargo
}

/// The group programs of the header `version` with `dynamic-loading`, twins linking `link`: no
/// driver library loaded, their parity on the 535 library (`group::`), a start with none.
fn groups(version: u32, link: &Path) -> Result {
    let names = group_programs_at(version)?;
    HEADINGS.step(&format!(
        "the group programs of the {} header ({}): no driver library loaded, parity on the 535 \
         library, a start with none",
        dotted(version),
        names.join(", ")
    ));
    let features = format!("cuda-{version},interop,dynamic-loading");
    let cargo = |what: &str| cargo(what, link, &features);
    let built = executables(cargo("test").args(["--no-run", "--test", "examples_parity"]))?;
    let parity = test_binary(&built, "examples_parity")?;
    let (_, dir) = built_examples(&mut cargo("build"), |name| names.iter().any(|n| n == name))?;
    let mut run = process::command(parity);
    run.env("CUDA_EXAMPLES_DIR", &dir);
    tee(run.args(["group::", "--nocapture"]))?;
    start_without_library(parity, &dir)
}

/// The `examples_start_without_the_driver_library` test of `parity` (the `examples_parity`
/// binary) on the examples of `dir`, with no driver library reachable (LD_LIBRARY_PATH unset).
fn start_without_library(parity: &Path, dir: &Path) -> Result {
    let mut run = process::command(parity);
    run.env_remove("LD_LIBRARY_PATH")
        .env("CUDA_EXAMPLES_DIR", dir);
    let test = "examples_start_without_the_driver_library";
    process::run(run.args(["--ignored", "--exact", test, "--nocapture"]))
}

/// The table binary `table` on Debian bullseye's 470 driver, which has cuGetProcAddress v1 only.
fn on_470(name: &str, table: &Path) -> Result {
    HEADINGS.step(&format!(
        "{name}: on Debian bullseye's 470 driver (CUDA {}: cuGetProcAddress v1 only)",
        dotted(DRIVER_470)
    ));
    let lib = env_path("CUDA_DRIVER_470", "the 470 driver's folder")?;
    let exported = elf::symbols(&lib.join("libcuda.so.1"), false)?;
    if exported.iter().any(|s| s == "cuGetProcAddress_v2") {
        let why = "this step would not show the v1 bootstrap";
        return Err(format!("the 470 library exports cuGetProcAddress_v2: {why}").into());
    }
    let test = "table_resolves_what_the_driver_has_and_names_the_rest";
    let mut table = process::command(table);
    table.env("LD_LIBRARY_PATH", &lib);
    let log = tee(table.args(["--exact", test, "--nocapture"]))?;
    if !log.contains(&format!("on driver {DRIVER_470}")) {
        return Err(format!("{name}: the table did not run on the 470 driver").into());
    }
    Ok(())
}

/// A `dynamic-loading` binary loads no driver library at start (no libcuda NEEDED, `cu*` import,
/// RPATH or RUNPATH) and imports `dlopen` (the check saw the loader); one line of what it found.
fn loads_no_driver(path: &Path) -> Result {
    let shown = path.display();
    let dynamic = elf::dynamic(path)?;
    let needed: String = dynamic.needed.iter().map(|l| format!("{l} ")).collect();
    let imports = elf::symbols(path, true)?;
    let driver: Vec<&String> = imports.iter().filter(|s| s.starts_with("cu")).collect();
    let (file, count) = (files::name(path), driver.len());
    println!("  {file}: NEEDED {needed}; undefined cu* symbols: {count}");
    if needed.contains("libcuda") {
        return Err(format!("{shown} loads libcuda at start: NEEDED {needed}").into());
    }
    if !driver.is_empty() {
        for s in &driver {
            println!("{s}");
        }
        return Err(format!("{shown} imports the driver symbols above").into());
    }
    if !imports.iter().any(|s| s.starts_with("dlopen")) {
        return Err(format!("{shown} imports no dlopen: it does not contain the loader").into());
    }
    if dynamic.run_path {
        return Err(format!("{shown} has an RPATH/RUNPATH").into());
    }
    Ok(())
}
