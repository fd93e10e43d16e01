//! Nothing: this package only pins cust 0.3.2 (Cargo.toml) for `cargo xtask cust-check`.
