//! `cargo xtask rustacuda-check [--bundle DIR | --update-locks]`: rustacuda 0.1.3, a real dependent written for
//! the registry's cuda-driver-sys 0.3.0, built on this workspace's crate with
//! ci/rustacuda/migration.patch, its tests' outcomes compared with those on 0.3.0
//! ([`crate::dependents::published`] says how).

use crate::base::args::Args;
use crate::base::Result;
use crate::dependents::published::{self, Dependent};

/// rustacuda 0.1.3: its example too must build; its 13.0 build runs on the GPU only.
const RUSTACUDA: Dependent = Dependent {
    name: "rustacuda",
    version: "0.1.3",
    baseline: "0.3.0",
    dependency: "cuda-driver-sys",
    dynamic_when_newer: false,
    gpu_baseline: false,
    control: None,
    required: &["tests/unit", "examples/launch"],
};

/// Runs the task.
pub fn run(args: &Args) -> Result {
    published::run(&RUSTACUDA, args)
}
