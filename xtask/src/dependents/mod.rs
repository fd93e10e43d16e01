//! Published crates written for older bindings, built on this workspace's crate with their
//! migration patches and run against their own baselines: rustacuda and cust (one mechanism,
//! [`published`]), cudarc, and the 0.3 program of `ci/dependent-0-3/`; what they share
//! ([`trees`]); the runner of their stripped builds (`dependent-run`), whose outcomes
//! [`crate::base::outcomes`] compares.

pub mod cudarc_check;
pub mod cust_check;
pub mod dependent_0_3_check;
pub mod dependent_run;
pub mod published;
pub mod rustacuda_check;
pub mod trees;
