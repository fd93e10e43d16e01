//! The GPU pass: everything it runs built here into one folder (`gpu-bundle`), run there by the
//! bundle's own xtask binary (`gpu-run`), and the driver API coverage report written from that
//! run's logs (`coverage`).

pub mod bundle;
pub mod coverage;
pub mod run;
