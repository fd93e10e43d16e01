//! `cargo xtask cust-check [--bundle DIR | --update-locks]`: cust 0.3.2 (Rust-CUDA's driver layer), a real
//! dependent written for cust_raw 0.11.3 (the CUDA 11.4 bindings), built on this workspace's crate
//! with ci/cust/migration.patch, its tests' outcomes compared with those on cust_raw
//! ([`crate::dependents::published`] says how). cust_raw's build script (find_cuda_helper) wants
//! a folder with `lib64/`: the published build gets the 535 library's folder as one.

use crate::base::args::Args;
use crate::base::Result;
use crate::dependents::published::{self, Dependent};

/// cust 0.3.2: its unit tests and doctests; its 13.0 build uses `dynamic-loading` in CI, so that
/// it runs on the 535 library too. On the GPU its outcomes are compared with cust_raw's build, as
/// in CI: four of its doctests do not compile on either, and a test that needs what the machine
/// lacks fails on both.
const CUST: Dependent = Dependent {
    name: "cust",
    version: "0.3.2",
    baseline: "cust_raw-0.11.3",
    dependency: "cust_raw",
    dynamic_when_newer: true,
    gpu_baseline: true,
    control: Some("half"),
    required: &["tests/unit"],
};

/// Runs the task.
pub fn run(args: &Args) -> Result {
    published::run(&CUST, args)
}
