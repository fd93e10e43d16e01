//! The test dependencies, fetched into `target/ci-deps/`, never into the system (docs/DESIGN.md,
//! "What CI runs", step 1), and the environment that points the builds and tests at them (set in
//! the process by [`use_fetched`]; printed by `cargo xtask fetch-deps`): `headers/<V>/`
//! ([`headers`]), `cudart/` and `cudart-arm64/` ([`cudart`]), `driver*/` ([`drivers`]),
//! `clang/` ([`clang`]), `interop/` ([`interop`]), `apt/` ([`apt`]), `ptx-tools-<version>/`
//! ([`ptx_tools`]), `cupti-<version>/` ([`cupti`]). What is there is not fetched again; progress
//! goes to stderr as `fetch-deps:` lines, stdout holds only the `export` lines ([`environment`]).

mod apt;
mod clang;
mod cudart;
pub mod cupti;
mod drivers;
mod environment;
// The header-set table of the generator, the one list of the driver-API headers: which wheel
// gives each header, which Debian packages give the foreign headers the interop headers include.
#[allow(dead_code)]
#[path = "../../../../cuda-driver-sys-items/generator/src/header_set.rs"]
mod header_set;
mod headers;
mod interop;
pub mod ptx_tools;
pub mod wheel;

pub use environment::{env_path, Variable};

use crate::base::process::root;
use crate::base::{versions, Result};

/// Fetches what [`fetch`] does and sets their environment in this process, for every command it
/// runs after.
pub fn use_fetched(arm64_driver: bool) -> Result {
    for variable in fetch(arm64_driver)? {
        variable.set_in_process();
    }
    Ok(())
}

/// Fetches what is missing of the headers, the x86-64 driver libraries, the runtime, libclang, the
/// interop headers, CUPTI and, with `arm64_driver`, the arm64 535 driver library and the aarch64
/// CUDA runtime; the environment that points at them.
pub fn fetch(arm64_driver: bool) -> Result<Vec<Variable>> {
    let deps = root().join("target/ci-deps");
    let versions = versions::all()?;
    headers::fetch(&deps, &versions)?;
    cudart::fetch(&deps, &versions)?;
    if arm64_driver {
        cudart::fetch_arm64(&deps, &versions)?;
    }
    drivers::fetch(&deps, arm64_driver)?;
    clang::fetch(&deps)?;
    interop::fetch(&deps)?;
    cupti::fetch(&deps)?;
    environment::variables(&deps, &versions)
}

/// A progress line on stderr.
fn log(message: &str) {
    eprintln!("fetch-deps: {message}");
}
