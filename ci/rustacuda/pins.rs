//! Nothing: this package only pins rustacuda 0.1.3 (Cargo.toml) for `cargo xtask rustacuda-check`.
