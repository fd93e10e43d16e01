//! The generator run for aarch64-unknown-linux-gnu, x86_64-pc-windows-gnu (mingw-w64 headers) and
//! x86_64-pc-windows-msvc, each output compared with x86-64 Linux's of the same header version
//! (which the regenerate task's `--check` compares with the committed files); Windows differs by
//! cudaGL.h's cuWGLGetDevice (declared under _WIN32), which the committed gl_*.rs carry under
//! cfg(windows): the regenerate task's Windows pass (the gl module for x86_64-pc-windows-gnu,
//! merged under that cfg) is compared with the mingw-w64 output, file for file.

use super::compare_bindings::{compare, Mode};
use crate::base::deps::env_path;
use crate::base::process::{self, root};
use crate::base::Result;
use std::path::Path;
use std::process::Stdio;

const LINUX: &str = "x86_64-unknown-linux-gnu";
const AARCH64: &str = "aarch64-unknown-linux-gnu";
const GNU: &str = "x86_64-pc-windows-gnu";
const MSVC: &str = "x86_64-pc-windows-msvc";

/// Builds the generator, runs it for each target and version and compares the outputs.
pub fn check(scratch: &Path, versions: &[u32]) -> Result {
    let generator = crate::base::generator::build()?;
    let extra = env_path("BINDGEN_EXTRA_CLANG_ARGS", "libclang's resource folder")?;
    let interop = env_path("CUDA_INTEROP_INCLUDE", "the GL/EGL/VDPAU headers")?;
    // No MSVC headers: clang -ffreestanding with the declarations GL/EGL take from windows.h (the
    // C preprocessor only resolves cuda.h's renaming macros, the same under MSVC).
    let msvc = format!(
        "-ffreestanding -isystem {} -Wno-ignored-attributes",
        root().join(super::DATA).join("msvc-shim").display()
    );
    let runs = [
        (LINUX, "cc", ""),
        (
            AARCH64,
            "aarch64-linux-gnu-gcc",
            "--sysroot=/usr/aarch64-linux-gnu -isystem /usr/aarch64-linux-gnu/include",
        ),
        (
            GNU,
            "x86_64-w64-mingw32-gcc",
            "-isystem /usr/x86_64-w64-mingw32/include",
        ),
        (MSVC, "x86_64-w64-mingw32-gcc", &msvc),
    ];
    let windows_pass = scratch.join("windows-pass");
    for &v in versions {
        let out = |target: &str| scratch.join(target).join(v.to_string());
        // The four targets at once (bindgen is single-threaded), and the Windows pass.
        let mut commands = Vec::new();
        for (target, cc, args) in runs {
            let mut command = process::command(&generator);
            let clang_args = format!("{} --target={target} {args}", extra.display());
            command
                .env("BINDGEN_EXTRA_CLANG_ARGS", clang_args)
                .arg("--include")
                .arg(super::headers(v)?)
                .arg("--interop")
                .arg(&interop)
                .arg("--out")
                .arg(out(target))
                .args(["--cc", cc])
                .stdout(Stdio::null());
            commands.push(command);
        }
        let mut pass = process::task("regenerate")?;
        pass.arg("--windows-pass")
            .arg(&windows_pass)
            .arg(v.to_string());
        commands.push(pass);
        process::run_parallel(commands, Some(runs.len() + 1))?;
        let linux = out(LINUX);
        let comparisons = [
            (format!("{AARCH64}, CUDA {v}"), Mode::Same, linux.clone(), out(AARCH64)),
            (format!("{GNU}, CUDA {v}"), Mode::Windows, linux, out(GNU)),
            (
                format!("ci/regenerate.sh's Windows pass (cfg(windows) of the committed files) against {GNU}, CUDA {v}"),
                Mode::Subset,
                windows_pass.join(format!("w{v}")),
                out(GNU),
            ),
            (format!("{MSVC} against windows-gnu, CUDA {v}"), Mode::Msvc, out(GNU), out(MSVC)),
        ];
        for (what, mode, base, other) in comparisons {
            let (expected, counts) = compare(mode, &base, &other)?;
            println!("{what}: {counts}");
            if !expected {
                let e = format!("{what}: the bindings differ otherwise than expected (above)");
                return Err(e.into());
            }
        }
    }
    Ok(())
}
