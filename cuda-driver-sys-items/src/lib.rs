//! The items of [`cuda-driver-sys`](https://docs.rs/cuda-driver-sys): the Driver API's types,
//! functions, enums, constants, `PFN_*` typedefs, typed entry points, driver-entry table and
//! loader. Depend on `cuda-driver-sys`, which re-exports every item here and links `libcuda`;
//! this crate links nothing. Its features are cuda-driver-sys's, described there.
//!
//! The items are a crate of their own so that they compile while cuda-driver-sys's build script,
//! which looks for the library, is still being built (`docs/BUILD-COST.md` has the figures).
#![no_std]
// docs.rs (nightly, `--cfg docsrs`): feature-gated items say which feature they need. Left out:
// the features that only choose how the same items are reached, whose negations rustdoc would
// badge on every function as "non-crate feature" (`not(feature = "table-only")`: also linked, not
// only in the table; `not(feature = "per-thread-default-stream")`: a C spelling's default-stream
// symbol, which its docs name), and the version cfgs, as each item's docs say its CUDA versions
// in words.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(
    docsrs,
    doc(auto_cfg(hide(
        feature = "table-only",
        feature = "per-thread-default-stream",
        cuda_ge_11070,
        cuda_ge_11080,
        cuda_ge_12000,
        cuda_ge_12010,
        cuda_ge_12020,
        cuda_ge_12030,
        cuda_ge_12040,
        cuda_ge_12050,
        cuda_ge_12060,
        cuda_ge_12080,
        cuda_ge_12090,
        cuda_ge_13000,
        cuda_ge_13010,
        cuda_ge_13020,
        cuda_ge_13030,
        cuda_ge_13040,
        cuda_ge_13050
    )))
)]
#![deny(missing_docs)]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
// The top-level copies of the enumerators name the deprecated associated constants.
#![cfg_attr(feature = "compat-0-3", allow(deprecated))]
#![allow(clippy::all)]

include!("items.rs");
