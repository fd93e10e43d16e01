//! The coverage recorder in the bundle, `lib/libcuda-calls.so` with the pinned CUPTI wheel's
//! `libcupti.so.13` beside it (its RUNPATH is `$ORIGIN`): docs/DESIGN.md, "Coverage".

use crate::base::deps::{env_path, ptx_tools::parse_isa, wheel};
use crate::base::files::{copy, create_dir};
use crate::base::{process, Result};
use std::path::{Path, PathBuf};

/// The CUPTI wheel's version: of the GPU machine's driver's CUDA version (13.0; a CUPTI newer
/// than the driver refuses it).
const CUPTI: &str = "13.0.85";

/// The recorder's file name in the bundle's `lib/`.
pub const LIBRARY: &str = "libcuda-calls.so";

/// Builds the recorder into `out/lib/`, with `libcupti.so.13`.
pub fn build(out: &Path) -> Result {
    let cupti = fetch()?;
    let fetch_deps = "run `cargo xtask fetch-deps`";
    // The `cuda.h` of CUPTI's release, as `CUDA_VERSION` spells it (major × 1000 + minor × 10).
    let (major, minor) =
        parse_isa(CUPTI.rsplit_once('.').unwrap_or_default().0).unwrap_or_default();
    let headers = env_path(
        &format!("CUDA_HEADERS_{}", major * 1000 + minor * 10),
        fetch_deps,
    )?;
    // cupti_callbacks.h includes the runtime's builtin_types.h.
    let runtime = env_path("CUDART_INCLUDE_PATH", fetch_deps)?;
    let lib = out.join("lib");
    create_dir(&lib)?;
    copy(
        &cupti.join("lib/libcupti.so.13"),
        &lib.join("libcupti.so.13"),
    )?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut compile = process::command(cc);
    compile
        .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"])
        .arg(format!("-I{}", headers.display()))
        .arg(format!("-I{}", cupti.join("include").display()))
        .arg(format!("-I{}", runtime.display()))
        .arg(process::root().join("ci/coverage/recorder.c"))
        .arg("-o")
        .arg(lib.join(LIBRARY))
        .arg(format!("-L{}", lib.display()))
        .args(["-l:libcupti.so.13", "-Wl,-rpath,$ORIGIN", "-lpthread"]);
    process::run(&mut compile)?;
    println!("  lib/{LIBRARY} (CUPTI {CUPTI})");
    Ok(())
}

/// The wheel's `include/` and `lib/libcupti.so.13` in `target/ci-deps/cupti-<version>/`,
/// downloaded first where missing.
fn fetch() -> Result<PathBuf> {
    let dir = process::root().join(format!("target/ci-deps/cupti-{CUPTI}"));
    if dir.join("lib/libcupti.so.13").is_file() && dir.join("include/cupti_callbacks.h").is_file() {
        return Ok(dir);
    }
    let requirement = format!("nvidia-cuda-cupti=={CUPTI}");
    eprintln!("gpu-bundle: downloading {requirement}");
    let downloaded = wheel::download_for("x86_64", &["manylinux_2_25"], &[&requirement])?;
    crate::base::files::recreate_dir(&dir, "")?;
    for wheel in downloaded.wheels()? {
        for member in wheel::members(&wheel)? {
            // nvidia/cu13/include/..., nvidia/cu13/lib/libcupti.so.13
            let Some((_, rest)) = member.split_once("/cu13/") else {
                continue;
            };
            if rest.starts_with("include/") || rest == "lib/libcupti.so.13" {
                wheel::extract(&wheel, &member, &dir.join(rest))?;
            }
        }
    }
    Ok(dir)
}
