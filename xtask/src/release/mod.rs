//! The publishable crates as their users get them: packaged and built from their `.crate` files
//! (`package-check`), built by the oldest Rust they allow (`msrv-check`), documented as docs.rs
//! builds them (`doc-check`), and what a dependent's build costs (`build-cost`).

pub mod build_cost;
pub mod doc_check;
pub mod msrv_check;
pub mod package_check;

/// The publishable crates, in the order they are packaged: each names the one before it.
const CRATES: [&str; 4] = [
    "cuda-driver-sys-generator",
    "cuda-driver-sys-items",
    "cuda-driver-sys",
    "cuda-check",
];
