//! `cargo xtask dependent-check`: a throwaway crate under target/ that depends on cuda-driver-sys
//! builds with every CUDA and libclang variable cleared; its build script checks the `DEP_CUDA_*`
//! metadata cuda-driver-sys exports to dependents.

use crate::base::args::Args;
use crate::base::process::{self, root};
use crate::base::versions::the_one;
use crate::base::{files, Result};

/// The variables that could point a build at a CUDA installation or at libclang.
const CLEARED: &str = "CUDA_LIBRARY_PATH CUDA_PATH CUDA_ROOT CUDA_TOOLKIT_ROOT_DIR CUDA_HOME \
                       CUDA_INCLUDE_PATH LIBCLANG_PATH LD_LIBRARY_PATH";

/// The dependent's library: it uses the bindings without calling the driver.
const LIB_RS: &str = "//! Uses the bindings without calling the driver.
pub fn success() -> cuda_driver_sys::CUresult {
    cuda_driver_sys::CUDA_SUCCESS
}
";

/// `cargo xtask dependent-check`: writes the dependent crate under target/ and builds it.
pub fn run(_: &Args) -> Result {
    let version = the_one("dependent-crate")?;
    let root = root();
    let dir = root.join("target/dependent-check");
    files::recreate_dir(&dir, "src")?;
    let manifest = format!(
        "[package]
name = \"dependent-check\"
version = \"0.0.0\"
edition = \"2021\"
publish = false
[dependencies]
cuda-driver-sys = {{ path = \"{}/cuda-driver-sys\", features = [\"cuda-{version}\"] }}
[workspace]
",
        root.display()
    );
    let build_rs = format!(
        r#"fn main() {{
    let version = std::env::var("DEP_CUDA_VERSION").expect("DEP_CUDA_VERSION from cuda-driver-sys");
    assert_eq!(version, "{version}", "the newest enabled version feature");
    println!("cargo:warning=DEP_CUDA_VERSION={{version}}, DEP_CUDA_LIB_DIR={{:?}}", std::env::var("DEP_CUDA_LIB_DIR").ok());
}}
"#
    );
    files::write(&dir.join("Cargo.toml"), manifest)?;
    files::write(&dir.join("build.rs"), build_rs)?;
    files::write(&dir.join("src/lib.rs"), LIB_RS)?;
    let mut cargo = process::command("cargo");
    cargo
        .args(["build", "--manifest-path"])
        .arg(dir.join("Cargo.toml"));
    cargo.arg("--target-dir").arg(dir.join("target"));
    for name in CLEARED.split_whitespace() {
        cargo.env_remove(name);
    }
    process::run(&mut cargo)?;
    println!(
        "dependent-check: a dependent crate built with no CUDA and no libclang in the environment"
    );
    Ok(())
}
