//! Published crates written for older bindings, built on this workspace's crate with their
//! migration patches and run against their own baselines (docs/DESIGN.md, "The test command" and
//! "The dependents' locks"): rustacuda and cust ([`published`]), cudarc, and the 0.3 program of
//! `ci/dependent-0-3/`; what they share ([`trees`]); the runner of their builds (`dependent-run`).

pub mod cudarc_check;
pub mod dependent_0_3_check;
pub mod dependent_run;
pub mod published;
pub mod trees;
