//! `cargo xtask platforms`: aarch64 Linux and x86-64 Windows, checked by the workspace's tests
//! built for each target (the host's cargo and rustc, rustup's standard library for the target)
//! and run there:
//! 1. [`bindings`]: the generator run for aarch64-unknown-linux-gnu, x86_64-pc-windows-gnu
//!    (mingw-w64 headers) and x86_64-pc-windows-msvc (no MSVC headers: clang -ffreestanding with
//!    the declarations GL/EGL take from windows.h, `ci/platforms/msvc-shim/`), each compared with
//!    the x86-64 Linux output of the same header version ([`compare_bindings`] says what may
//!    differ and why), and the regenerate task's Windows pass compared with the mingw-w64 output;
//! 2. [`arm64_driver`]: Debian's arm64 libcuda.so.1 loaded under qemu-aarch64 by a cross-compiled
//!    C program answers as the amd64 library does;
//! 3. [`aarch64`] and [`windows`]: the same tests ([`cross`]: the ABI tests layout, constants
//!    and prototypes, the driver tests, the examples against their C twins) run under
//!    qemu-aarch64 against that library and under wine against a test stub nvcuda.dll.
//!
//! `cargo xtask platforms` generates the bindings of the anchor header versions,
//! `--all-versions` every version, `platforms V1 V2 ...` these (CUDA_VERSION numbers); the tests
//! run for the versions tagged `aarch64`. The cross compilers, qemu-user and wine64 are installed
//! with apt-get when missing (as root), the targets' standard libraries with rustup. Each section
//! says how long it took, for CI's time budget.

mod aarch64;
mod arm64_driver;
mod bindings;
mod compare_bindings;
mod cross;
mod sequence;
mod test_counts;
mod windows;

use crate::base::args::Args;
use crate::base::process::{self, root};
use crate::base::{deps, versions, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

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
    ("wine64", "/usr/lib/wine/wine64"),
];

/// `cargo xtask platforms [--all-versions | VERSION ...]`.
pub fn run(args: &Args) -> Result {
    install_missing_tools()?;
    deps::use_fetched(&["--arm64-driver"])?;
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
    let scratch = Scratch::new()?;
    let mut sections = Sections::new("");
    let list = join(&versions);
    sections.start(&format!("bindings per target (header versions {list})"));
    bindings::check(&scratch.0, &versions)?;
    sections.start("the arm64 driver library under qemu-aarch64");
    arm64_driver::check(&scratch.0)?;
    sections.start("the workspace's tests built for aarch64 Linux, under qemu-aarch64 with the arm64 driver library");
    aarch64::check()?;
    sections.start("the workspace's tests built for x86-64 Windows (GNU), under wine");
    windows::check()?;
    sections.finish();
    Ok(())
}

fn install_missing_tools() -> Result {
    let missing: Vec<&str> = TOOLS
        .iter()
        .filter(|(_, tool)| !found(tool))
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list = missing.join(" ");
    if process::output(Command::new("id").arg("-u"))?.trim() != "0" {
        return Err(format!(
            "missing {list}: install them (apt-get install {list}) or run as root"
        )
        .into());
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

/// Whether `tool` (a path, or a command on PATH) exists.
pub fn found(tool: &str) -> bool {
    if tool.contains('/') {
        return Path::new(tool).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// The value of the environment variable `name`, which the fetched dependencies set.
pub fn env(name: &str) -> Result<String> {
    std::env::var(name).map_err(|_| {
        format!("{name} is not set: the fetched dependencies lack it (cargo xtask fetch-deps)")
            .into()
    })
}

/// The folder of the CUDA headers of `version` (fetched).
pub fn headers(version: u32) -> Result<String> {
    env(&format!("CUDA_HEADERS_{version}"))
}

/// The versions, space-separated.
pub fn join(versions: &[u32]) -> String {
    versions
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Starts `command`; its handle, with the command line for errors.
pub fn spawn(mut command: Command) -> Result<(std::process::Child, String)> {
    let line = process::describe(&command);
    let child = command.spawn().map_err(|e| format!("{line}: {e}"))?;
    Ok((child, line))
}

/// Waits for every child; an error naming the first that failed.
pub fn wait_all(children: Vec<(std::process::Child, String)>) -> Result {
    let mut failed = None;
    for (mut child, line) in children {
        let status = child.wait().map_err(|e| format!("{line}: {e}"))?;
        if !status.success() && failed.is_none() {
            failed = Some(format!("{line} failed ({status})"));
        }
    }
    failed.map_or(Ok(()), |f| Err(f.into()))
}

/// The generated bindings' files whose name ends with `suffix`, sorted.
pub fn generated(suffix: &str) -> Result<Vec<PathBuf>> {
    crate::base::files::named(
        &root().join("cuda-driver-sys-items/src/generated"),
        "",
        suffix,
    )
}

/// A scratch folder, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Result<Self> {
        let dir = std::env::temp_dir().join(format!("xtask-platforms.{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Section headings, `--- <prefix><what>`, each after the wall time of the one before, `(N s)`.
pub struct Sections {
    prefix: &'static str,
    current: Option<Instant>,
}

impl Sections {
    pub fn new(prefix: &'static str) -> Self {
        Sections {
            prefix,
            current: None,
        }
    }

    /// Ends the section before (its time) and starts `what`.
    pub fn start(&mut self, what: &str) {
        self.end();
        println!("--- {}{what}", self.prefix);
        self.current = Some(Instant::now());
    }

    /// Ends the last section.
    pub fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if let Some(start) = self.current.take() {
            println!("({} s)", start.elapsed().as_secs());
        }
    }
}
