//! The Windows build's environment, given to each child command: the cross toolchain for cargo,
//! wine's prefix and DLL search path for the programs run under wine; and the test equipment:
//! bcryptprimitives.dll (which wine lacks and Rust's standard library imports), its check, the
//! stub nvcuda.dll and its import library cuda.lib.

use super::{nvcuda_table, SOURCES, WINE_RUNNER};
use crate::base::process::{self, root};
use crate::base::{files, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Windows build's environment, given to each child.
#[derive(Clone)]
pub struct Windows {
    /// The target folder of the Windows builds (target/windows).
    pub out: PathBuf,
    /// The test equipment's folder, under `out`.
    pub equipment: PathBuf,
    /// The version the stub nvcuda.dll reports, which the tests expect.
    pub driver: u32,
    /// The DLL search path of the wine processes.
    pub wine_path: Vec<PathBuf>,
}

impl Windows {
    /// `program` with wine's environment: a prefix of its own, no display, no prompts (no Mono
    /// or Gecko installer), no debug channels, the DLL search path; and the stub's answers, which
    /// tests/driver.rs and tests/dynamic.rs read.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = process::command(program);
        let wine_path: Vec<String> = self
            .wine_path
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        command
            .env("WINEPREFIX", self.out.join("wine-prefix"))
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env("WINEPATH", wine_path.join(";"))
            .env("CUDA_DRIVER_EXPECT_VERSION", self.driver.to_string())
            .env("CUDA_DRIVER_EXPECT_NO_DEVICE", "1")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        command
    }

    /// `wine` with wine's environment ([`Self::command`]), started as [`WINE_RUNNER`] says.
    pub fn wine(&self) -> Command {
        let [program, args @ ..] = WINE_RUNNER;
        let mut command = self.command(program);
        command.args(args);
        command
    }

    /// `cargo` for `target`: mingw-w64 links, wine runs, the examples examples_parity runs are
    /// those of this target folder, linked builds find cuda.lib (the stub's import library) as
    /// the build script finds a toolkit's lib\x64.
    pub fn cargo(&self, target: &str) -> Command {
        let mut command = self.command("cargo");
        command
            .env("CARGO_TARGET_DIR", &self.out)
            .env(
                "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER",
                "x86_64-w64-mingw32-gcc",
            )
            .env(
                "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER",
                WINE_RUNNER.join(" "),
            )
            .env("CUDA_EXAMPLES_DIR", self.examples_dir(target))
            .env("CUDA_LIBRARY_PATH", self.equipment.join("nvcuda"))
            // Without LD_LIBRARY_PATH (the build scripts would run again when it differs).
            .env_remove("LD_LIBRARY_PATH");
        command
    }

    /// The folder of the examples built for `target`.
    pub fn examples_dir(&self, target: &str) -> PathBuf {
        self.out.join(target).join("debug/examples")
    }

    /// bcryptprimitives.dll, its check, the stub nvcuda.dll and its import library cuda.lib.
    pub fn equipment(&self, linux_driver: &Path) -> Result {
        let sources = root().join(SOURCES);
        let nvcuda = self.equipment.join("nvcuda");
        files::create_dir(&nvcuda)?;
        let gcc = |args: &[&str], output: PathBuf, inputs: &[PathBuf]| {
            process::run(
                process::command("x86_64-w64-mingw32-gcc")
                    .args(args)
                    .arg("-o")
                    .arg(output)
                    .args(inputs),
            )
        };
        gcc(
            &["-shared", "-O2", "-Wall", "-Werror"],
            self.equipment.join("bcryptprimitives.dll"),
            &[sources.join("bcryptprimitives.c"), "-lbcrypt".into()],
        )?;
        gcc(
            &["-O2", "-Wall", "-Werror"],
            self.equipment.join("prng_check.exe"),
            &[sources.join("prng_check.c")],
        )?;
        let stub = sources.join("nvcuda_stub.c");
        let libcuda = linux_driver.join("libcuda.so.1");
        println!("{}", nvcuda_table::write(&libcuda, &stub, self)?);
        let include = format!("-I{}", self.equipment.display());
        let def = self.equipment.join("nvcuda.def");
        gcc(
            &["-shared", "-O1", "-Wall", "-Wextra", "-Werror", &include],
            nvcuda.join("nvcuda.dll"),
            &[stub, def.clone()],
        )?;
        process::run(
            process::command("x86_64-w64-mingw32-dlltool")
                .arg("-d")
                .arg(&def)
                .arg("-l")
                .arg(nvcuda.join("cuda.lib")),
        )
    }
}
