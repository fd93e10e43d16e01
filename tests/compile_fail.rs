//! What must not compile: a typed entry point at another symbol's pointer type, forging an entry
//! point without `unsafe`, a `CUresult` thrown away under `#![deny(unused_must_use)]`, and the
//! examples' `pfn_ptr` given anything but a C function pointer's `Option`.
//!
//! trybuild checks each case with `cargo check` in its own project (`target/tests/trybuild/`), so
//! nothing is linked against libcuda and nothing runs. That project depends on this package's
//! dependencies, not on this package (it has no library target), so this package's version
//! features do not reach it: `cuda-driver-sys` is built there with its default version (through
//! `cuda-check`'s dependency), whatever `--features` the test runs under. The expected diagnostics
//! (`tests/compile_fail/*.stderr`) name no version-specific item, so they hold for every version.
//! After a compiler upgrade changes their wording:
//! `TRYBUILD=overwrite cargo test --test compile_fail`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("compile_fail/*.rs");
}
