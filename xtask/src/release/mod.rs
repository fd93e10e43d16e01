//! The publishable crates as their users get them: packaged and built from their `.crate` files
//! (`package-check`), built by the oldest Rust they allow (`msrv-check`), documented as docs.rs
//! builds them (`doc-check`), and what a dependent's build costs (`build-cost`).

pub mod build_cost;
pub mod doc_check;
pub mod msrv_check;
pub mod package_check;
