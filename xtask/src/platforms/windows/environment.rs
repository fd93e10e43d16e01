//! The Windows build's environment, given to each child command: the cross toolchain for cargo,
//! wine's prefix and DLL search path for the programs run under wine.

use super::WINE;
use crate::process;
use crate::Result;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The Windows build's environment, given to each child.
pub struct Windows {
    /// The target folder of the Windows builds (target/windows).
    pub out: PathBuf,
    /// The test equipment's folder, under `out`.
    pub equipment: PathBuf,
    /// Debian's rustc-web.
    pub rustc: String,
    /// The version the stub nvcuda.dll reports, which the tests expect.
    pub driver: u32,
    /// The DLL search path of the wine processes.
    pub wine_path: Vec<PathBuf>,
    /// The folder of cuda.lib, once made.
    pub cuda_lib: Option<PathBuf>,
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

    /// `cargo <subcommand> --quiet -Zbuild-std --target <target> <args>` with the Windows
    /// toolchain; a failure, or a warning on its standard error, fails.
    pub fn cargo(&self, target: &str, subcommand: &str, args: &[&str]) -> Result {
        let mut command = self.command("cargo");
        command
            .env("CARGO_TARGET_DIR", &self.out)
            .env("RUSTC", &self.rustc)
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_TERM_COLOR", "never")
            .env(
                "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER",
                "x86_64-w64-mingw32-gcc",
            )
            .env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER", WINE)
            // Without LD_LIBRARY_PATH (the build scripts would run again when it differs).
            .env_remove("LD_LIBRARY_PATH")
            .args([
                subcommand,
                "--quiet",
                "-Zbuild-std=std,panic_abort",
                "--target",
                target,
            ])
            .args(args)
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.cuda_lib {
            command.env("CUDA_LIBRARY_PATH", dir);
        }
        let line = process::describe(&command);
        let out = command.output().map_err(|e| format!("{line}: {e}"))?;
        let errors = String::from_utf8_lossy(&out.stderr);
        eprint!("{errors}");
        if !out.status.success() {
            return Err(format!("{line} failed ({})", out.status).into());
        }
        if warned(&errors) {
            println!("windows: cargo {subcommand} warned (above)");
            return Err(format!("{line}: a warning (above)").into());
        }
        Ok(())
    }
}

/// Whether cargo's standard error holds a warning (a line starting `warning`).
fn warned(errors: &str) -> bool {
    errors.lines().any(|l| l.starts_with("warning"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_warning_is_seen() {
        assert!(super::warned(
            "   Compiling x\nwarning: unused variable: `a`\n"
        ));
        assert!(!super::warned(
            "   Compiling x\nnote: a warning about nothing\n"
        ));
    }
}
