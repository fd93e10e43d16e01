//! Nothing: this package only pins cudarc 0.19.10 (Cargo.toml) for `cargo xtask cudarc-check`.
