//! `cargo xtask dynamic-check`: the `dynamic-loading` checks, run by the test task; runs alone
//! too. Without a GPU:
//! 1. the test binaries (tests/dynamic.rs, driver.rs, table.rs) and every example built with
//!    `dynamic-loading` load no driver library ([`loads_no_driver`]);
//! 2. with Debian's 535 library on LD_LIBRARY_PATH they pass the tests the linked build passes
//!    (every function's pointer equal to `dlsym`'s of its symbol, the table, the examples' output
//!    identical to their C twins'), for the default header in both stream modes, the header
//!    tagged `ahead-of-driver` (whose functions newer than the 535 driver return
//!    CUDA_ERROR_NOT_FOUND), and the header tagged `old-driver`, whose loader bootstraps CUDA
//!    11's `cuGetProcAddress` (v1: the header has no `_v2`);
//!
//!    2b. the `old-driver` binaries start on Debian bullseye's 470 driver (CUDA 11.4), which
//!    exports no `cuGetProcAddress_v2`, and the table resolves what that driver has;
//! 3. with no driver library reachable at all (this machine's loader cache has none, and
//!    LD_LIBRARY_PATH is unset) the same binaries start, report the load failure as a value and
//!    through check_driver!, and exit 0 (the `#[ignore]`d tests, run with --ignored);
//! 4. the group programs (`examples/groups/`) at each header they run at on the CPU (each one's
//!    oldest, and the newest; the default header's configuration above runs those it builds):
//!    they load no driver library, print what their C twins print on the 535 library (each twin
//!    bound lazily, as the program binds its functions: a header newer than the driver), and
//!    start with none ([`groups`]).

use crate::base::capture::tee;
use crate::base::cargo_json::{self, Executable};
use crate::base::deps::{self, env_path};
use crate::base::driver::{self, expect_535_driver, DRIVER_470};
use crate::base::examples::{group_programs_at, group_versions, stems};
use crate::base::steps::Headings;
use crate::base::versions::{dotted, the_one};
use crate::base::{elf, files, process, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const HEADINGS: Headings = Headings("dynamic-loading");

/// One configuration: its name in the headings, its header version, its cargo features, whether
/// the examples are built and compared.
struct Config {
    name: String,
    version: u32,
    features: String,
    examples: bool,
}

fn configs() -> Result<Vec<Config>> {
    let default = the_one("default")?;
    let ahead = the_one("ahead-of-driver")?;
    let old = the_one("old-driver")?;
    let config = |name: String, version, features: &str, examples| Config {
        name,
        version,
        features: format!("cuda-{version},{features}dynamic-loading"),
        examples,
    };
    Ok(vec![
        config(default.to_string(), default, "interop,", true),
        config(
            format!("{default}-pt"),
            default,
            "interop,per-thread-default-stream,",
            true,
        ),
        config(ahead.to_string(), ahead, "interop,", false),
        config(old.to_string(), old, "", false),
    ])
}

/// `cargo xtask dynamic-check`: the loader cache checked empty, then each configuration.
pub fn run(args: &[String]) -> Result {
    if !args.is_empty() {
        return Err("usage: cargo xtask dynamic-check (no arguments)".into());
    }
    deps::use_fetched(&[])?;
    expect_535_driver()?;
    // The headers newer than the 535 driver: their C twins link a stub (run: the real one).
    let links = driver::Links::in_scratch("dynamic-check-stub")?;

    HEADINGS.step("no driver library in this machine's loader cache");
    let cache = process::output(process::command("ldconfig").arg("-p"))?;
    let known: Vec<&str> = cache
        .lines()
        .filter(|l| l.to_lowercase().contains("libcuda.so"))
        .collect();
    if !known.is_empty() {
        for line in known {
            println!("{line}");
        }
        return Err("ldconfig knows the libcuda above: the no-library runs need a machine without the NVIDIA \
driver library (a container without the GPU runtime hook); run this task there"
            .into());
    }
    println!("  ldconfig -p: no libcuda");

    for config in configs()? {
        check(&config, links.for_header(config.version)?)?;
    }
    let default = the_one("default")?;
    for version in group_versions()?.into_iter().filter(|v| *v != default) {
        groups(version, links.for_header(version)?)?;
    }
    println!();
    println!("dynamic-check: all passed");
    Ok(())
}

/// The checks of one configuration, its C twins linking the library in `link`.
fn check(config: &Config, link: &Path) -> Result {
    let name = &config.name;
    let mut binaries = vec!["dynamic", "load_from", "driver", "table"];
    // The interop modules (profiler, gl, egl, vdpau) through the same loader.
    if config.features.contains("interop") {
        binaries.push("interop");
    }
    let mut tests: Vec<&str> = binaries.iter().flat_map(|t| ["--test", t]).collect();
    if config.examples {
        tests.extend(["--test", "examples_parity"]);
    }
    let cargo = |what: &str| cargo(what, link, &config.features);

    HEADINGS.step(&format!(
        "{name}: clippy, and the crate's docs (warnings denied)"
    ));
    process::run(
        cargo("clippy")
            .args(["--workspace", "--all-targets"])
            .args(["--", "-D", "warnings"]),
    )?;
    // cuda-driver-sys names the interop modules' features itself; `table` as on docs.rs (the
    // crate docs link `table()`).
    let doc_features = config.features.replace("interop", "profiler,gl,egl,vdpau") + ",table";
    process::run(
        process::command("cargo")
            .args([
                "doc",
                "-p",
                "cuda-driver-sys",
                "--no-deps",
                "--no-default-features",
            ])
            .args(["--features", &doc_features])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;

    HEADINGS.step(&format!(
        "{name}: build, and check the binaries load no driver library"
    ));
    let built = cargo_json::built(
        cargo("test")
            .args(["--no-run", "--message-format=json"])
            .args(&tests)
            .stderr(Stdio::inherit()),
    )?;
    let bins: HashMap<String, PathBuf> = built
        .executables
        .into_iter()
        .map(|e| (e.name, e.path))
        .collect();
    let bin = |t: &str| {
        bins.get(t)
            .filter(|p| p.is_file())
            .ok_or_else(|| format!("{name}: the {t} test binary was not built"))
    };
    for t in &binaries {
        loads_no_driver(bin(t)?)?;
    }
    let mut examples_dir = None;
    if config.examples {
        let examples: Vec<Executable> = cargo_json::built(
            cargo("build")
                .args(["--examples", "--message-format=json"])
                .stderr(Stdio::inherit()),
        )?
        .executables
        .into_iter()
        .filter(|e| e.kind == "example")
        .collect();
        for e in &examples {
            loads_no_driver(&e.path)?;
            examples_dir = e.path.parent().map(Path::to_path_buf);
        }
        let want = stems("examples", "rs")?.len() + group_programs_at(config.version)?.len();
        if examples.len() != want {
            return Err(format!(
                "{name}: {} examples built, not {want} (examples/*.rs and the group programs)",
                examples.len()
            )
            .into());
        }
    }

    HEADINGS.step(&format!("{name}: with Debian's 535 library"));
    let log = tee(cargo("test").args(&tests).args(["--", "--nocapture"]))?;
    if !log.lines().any(|l| l.starts_with("  path: loaded ")) {
        return Err(format!("{name}: load_from did not load the library by its path").into());
    }

    HEADINGS.step(&format!(
        "{name}: with no driver library reachable (LD_LIBRARY_PATH unset)"
    ));
    let alone = |path: &Path| {
        let mut command = process::command(path);
        command.env_remove("LD_LIBRARY_PATH");
        command
    };
    process::run(alone(bin("dynamic")?).args(["--ignored", "--nocapture"]))?;
    process::run(&mut alone(bin("load_from")?))?;
    if let Some(dir) = examples_dir {
        start_without_library(bin("examples_parity")?, &dir)?;
    }
    if config.version == the_one("old-driver")? {
        on_470(name, bin("table")?)?;
    }
    Ok(())
}

/// `cargo WHAT` with only the cargo `features`, its C twins linking the library in `link`.
fn cargo(what: &str, link: &Path, features: &str) -> Command {
    let mut cargo = process::command("cargo");
    cargo.arg(what).env("CUDA_LIBRARY_PATH", link);
    cargo.args(["--no-default-features", "--features", features]);
    cargo
}

/// The group programs of the header `version` with `dynamic-loading`, their C twins linking the
/// library in `link`: no driver library loaded, their parity on the 535 library (`group::`, the
/// posts' examples left to the configurations above), and a start with no library.
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
    let built = cargo_json::built(
        cargo("test")
            .args([
                "--no-run",
                "--message-format=json",
                "--test",
                "examples_parity",
            ])
            .stderr(Stdio::inherit()),
    )?;
    let parity = built
        .executables
        .into_iter()
        .find(|e| e.name == "examples_parity")
        .ok_or("the examples_parity test binary was not built")?;
    let examples = cargo_json::built(
        cargo("build")
            .args(["--examples", "--message-format=json"])
            .stderr(Stdio::inherit()),
    )?;
    let mut dir = None;
    for e in examples
        .executables
        .iter()
        .filter(|e| names.contains(&e.name))
    {
        loads_no_driver(&e.path)?;
        dir = e.path.parent().map(Path::to_path_buf);
    }
    let dir = dir.ok_or("no group program was built")?;
    tee(process::command(&parity.path)
        .env("CUDA_EXAMPLES_DIR", &dir)
        .args(["group::", "--nocapture"]))?;
    start_without_library(&parity.path, &dir)
}

/// The `examples_start_without_the_driver_library` test of `parity` (the `examples_parity`
/// binary) on the examples of `dir`, with no driver library reachable (LD_LIBRARY_PATH unset).
fn start_without_library(parity: &Path, dir: &Path) -> Result {
    process::run(
        process::command(parity)
            .env_remove("LD_LIBRARY_PATH")
            .env("CUDA_EXAMPLES_DIR", dir)
            .args(["--ignored", "--exact"])
            .args(["examples_start_without_the_driver_library", "--nocapture"]),
    )
}

/// The table binary `table` on Debian bullseye's 470 driver, which has cuGetProcAddress v1 only.
fn on_470(name: &str, table: &Path) -> Result {
    HEADINGS.step(&format!(
        "{name}: on Debian bullseye's 470 driver (CUDA {}: cuGetProcAddress v1 only)",
        dotted(DRIVER_470)
    ));
    let lib = env_path(
        "CUDA_DRIVER_470",
        "the 470 driver library's folder (fetch-deps)",
    )?;
    let exported = elf::symbols(&lib.join("libcuda.so.1"), false)?;
    if exported.iter().any(|s| s == "cuGetProcAddress_v2") {
        return Err(
            "the 470 library exports cuGetProcAddress_v2: this step would not show the v1 bootstrap"
                .into(),
        );
    }
    let log = tee(process::command(table)
        .env("LD_LIBRARY_PATH", &lib)
        .args([
            "--exact",
            "table_resolves_what_the_driver_has_and_names_the_rest",
        ])
        .arg("--nocapture"))?;
    if !log.contains(&format!("on driver {DRIVER_470}")) {
        return Err(format!("{name}: the table did not run on the 470 driver").into());
    }
    Ok(())
}

/// A binary built with `dynamic-loading` loads no driver library at start: no libcuda NEEDED, no
/// undefined `cu*` symbol, no RPATH or RUNPATH; and it imports `dlopen` (the loader is there: the
/// check looked at the right thing). Prints one line of what it found.
fn loads_no_driver(path: &Path) -> Result {
    let shown = path.display();
    let dynamic = elf::dynamic(path)?;
    let needed: String = dynamic.needed.iter().map(|l| format!("{l} ")).collect();
    let imports = elf::symbols(path, true)?;
    let driver: Vec<&String> = imports.iter().filter(|s| s.starts_with("cu")).collect();
    let file = files::name(path);
    println!(
        "  {file}: NEEDED {needed}; undefined cu* symbols: {}",
        driver.len()
    );
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
