//! The committed files that tasks generate, each with a `--check` that CI runs: the bindings
//! from the pinned headers (`regenerate`), the migration change lists from the older binding
//! crates (`migration-changes`), and the examples' PTX from their CUDA C (`gen-ptx`).

pub mod gen_ptx;
pub mod migration_changes;
pub mod regenerate;
