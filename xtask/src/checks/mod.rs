//! The checks of the crates on a machine without a GPU that the test command runs as tasks of
//! their own: dynamic loading (`dynamic-check`), bad input (`bad-input`), the loader and table
//! under loom and the sanitizers (`concurrency`), a fresh clone's first run (`first-run`), and a
//! dependent's build without CUDA (`dependent-check`).

pub mod bad_input;
pub mod concurrency;
pub mod dependent_check;
pub mod dynamic_check;
pub mod first_run;
