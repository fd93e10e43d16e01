//! Where the programs are: the C twins (the build script's, or `CUDA_C_TWIN_DIR`), the Rust
//! examples (built here once, or `CUDA_EXAMPLES_DIR`) and the kernels folder they take
//! (`CUDA_KERNELS_DIR`).

use crate::run::describe_status;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The folder of the Rust examples' executables: `CUDA_EXAMPLES_DIR`, taken as it is, or else
/// `target/[<triple>/]<profile>/examples` of this test's own build, where they are first built
/// (once per test run) with this test's features and target, by `cargo build --examples`:
/// `cargo test --test examples_parity` builds no example, and `cargo test --all-targets` builds
/// them as test harnesses (`examples/<name>-<hash>`), not as the programs (`examples/<name>`).
pub fn examples_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CUDA_EXAMPLES_DIR") {
        return Ok(dir.into());
    }
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(build_examples).clone()
}

/// `cargo build --examples` into this test's target folder and profile, with its features (every
/// feature of the root package is listed here: a new one must be added).
fn build_examples() -> Result<PathBuf, String> {
    // target/<profile>/deps/examples_parity-<hash>
    let exe = std::env::current_exe().map_err(|e| format!("the test's own path: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in target/<profile>/deps", exe.display()))?;
    let parent = profile_dir
        .parent()
        .ok_or_else(|| format!("{} is not in a target folder", profile_dir.display()))?;
    // Built with `--target <triple>`, the test is in target/<triple>/<profile>/deps: the examples
    // are built for the same target.
    let triple = env!("CUDA_TESTS_TARGET");
    let cross = parent.file_name().is_some_and(|n| n == triple);
    let target_dir = match parent.parent() {
        Some(dir) if cross => dir,
        _ => parent,
    };
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => return Err(format!("no profile in {}", profile_dir.display())),
    };
    // The selected version's feature turns on the older ones (see Cargo.toml).
    let version = concat!("cuda-", env!("CUDA_HEADER_VERSION"));
    let features: Vec<&str> = [
        (version, true),
        (
            "per-thread-default-stream",
            cfg!(feature = "per-thread-default-stream"),
        ),
        ("link-every-function", cfg!(feature = "link-every-function")),
        ("table-only", cfg!(feature = "table-only")),
        ("dynamic-loading", cfg!(feature = "dynamic-loading")),
        ("interop", cfg!(feature = "interop")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--examples", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .args(cross.then_some(["--target", triple]).into_iter().flatten())
        .args(["--profile", profile, "--no-default-features", "--features"])
        .arg(features.join(","));
    let output = cmd.output().map_err(|e| {
        format!(
            "cannot run {} to build the examples: {e} (set CUDA_EXAMPLES_DIR to a folder holding \
             them where there is no cargo)",
            Path::new(&cargo).display()
        )
    })?;
    if !output.status.success() {
        return Err(format!(
            "building the examples failed ({}): {cmd:?}\n{}",
            describe_status(output.status),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(profile_dir.join("examples"))
}

/// The folder of the C twins: `CUDA_C_TWIN_DIR`, else the build script's.
pub fn twin_dir() -> PathBuf {
    std::env::var_os("CUDA_C_TWIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("C_TWIN_DIR").into())
}

/// The kernels folder, the programs' argument: `CUDA_KERNELS_DIR`, else this checkout's
/// `examples/kernels`.
pub fn kernels_dir() -> PathBuf {
    std::env::var_os("CUDA_KERNELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/kernels").into())
}
