//! `cargo xtask platforms`: aarch64 Linux and x86-64 Windows, checked by the workspace's tests
//! built for each target (the host's cargo and rustc, rustup's standard library for the target)
//! and run there: the [`bindings`] generated for each target, compared with x86-64 Linux's;
//! Debian's arm64 libcuda.so.1 under qemu-aarch64, answering as the amd64 one ([`arm64_driver`]);
//! the same tests ([`cross`]) under qemu-aarch64 against that library ([`aarch64`]) and under
//! wine against a test stub nvcuda.dll ([`windows`]).
//!
//! `cargo xtask platforms` generates the bindings of the anchor header versions,
//! `--all-versions` every version, `platforms V1 V2 ...` these (CUDA_VERSION numbers); the tests
//! run for the versions tagged `aarch64`. The cross compilers, qemu-user and wine64 are installed
//! with apt-get when missing (as root), the targets' standard libraries with rustup. Each step
//! says how long it took, for CI's time budget.

mod aarch64;
mod arm64_driver;
mod bindings;
mod compare_bindings;
mod cross;
mod test_counts;
mod windows;

use crate::base::args::Args;
use crate::base::scratch::Scratch;
use crate::base::steps::Steps;
use crate::base::{deps, process, versions, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The C sources and headers the checks compile (data files of this task).
pub const DATA: &str = "ci/platforms";

/// Debian packages and the file or command each provides.
const TOOLS: &[(&str, &str)] = &[
    ("gcc-aarch64-linux-gnu", "aarch64-linux-gnu-gcc"),
    (
        "libc6-dev-arm64-cross",
        "/usr/aarch64-linux-gnu/include/stdio.h",
    ),
    ("qemu-user", "qemu-aarch64"),
    ("gcc-mingw-w64-x86-64", "x86_64-w64-mingw32-gcc"),
    ("g++-aarch64-linux-gnu", "aarch64-linux-gnu-g++"),
    ("g++-mingw-w64-x86-64", "x86_64-w64-mingw32-g++"),
    ("binutils-mingw-w64-x86-64", "x86_64-w64-mingw32-dlltool"),
    ("wine64", "/usr/lib/wine/wine64"),
];

/// `cargo xtask platforms [--all-versions | VERSION ...]`.
pub fn run(args: &Args) -> Result {
    install_missing_tools()?;
    deps::use_fetched(true)?;
    let versions = match args.values("VERSION")[..] {
        [] if args.flag("--all-versions") => versions::all()?.iter().map(|v| v.number).collect(),
        [] => versions::tagged("anchor")?,
        ref list => list
            .iter()
            .map(|v| {
                v.parse().map_err(|_| {
                    format!("`{v}` is not a CUDA_VERSION (cargo xtask versions lists them)")
                })
            })
            .collect::<std::result::Result<_, _>>()?,
    };
    if versions.is_empty() {
        return Err("no version to check: versions.txt tags none `anchor`".into());
    }
    let scratch = Scratch::new("platforms")?;
    let mut steps = Steps::new();
    let list = join(&versions);
    steps.step(&format!("bindings per target (header versions {list})"));
    bindings::check(scratch.path(), &versions)?;
    steps.step("the arm64 driver library under qemu-aarch64");
    arm64_driver::check(scratch.path())?;
    steps.step("the workspace's tests built for aarch64 Linux, under qemu-aarch64 with the arm64 driver library");
    aarch64::check()?;
    steps.step("the workspace's tests built for x86-64 Windows (GNU), under wine");
    windows::check()?;
    steps.finish();
    Ok(())
}

fn install_missing_tools() -> Result {
    let missing: Vec<&str> = TOOLS
        .iter()
        .filter(|(_, tool)| match tool.contains('/') {
            true => !Path::new(tool).exists(),
            false => process::on_path(tool).is_none(),
        })
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list = missing.join(" ");
    if process::output(Command::new("id").arg("-u"))?.trim() != "0" {
        let e = format!("missing {list}: install them (apt-get install {list}) or run as root");
        return Err(e.into());
    }
    println!("platforms: installing {list}");
    process::run(Command::new("apt-get").args(["update", "-qq"]))?;
    process::run(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null()),
    )
}

/// The folder of the CUDA headers of `version` (fetched).
pub fn headers(version: u32) -> Result<PathBuf> {
    deps::env_path(&format!("CUDA_HEADERS_{version}"), "the CUDA headers")
}

/// The versions, space-separated.
pub fn join(versions: &[u32]) -> String {
    let list: Vec<String> = versions.iter().map(u32::to_string).collect();
    list.join(" ")
}
