//! The test dependencies (CUDA headers, Debian's driver libraries, libclang, ...) fetched into
//! `target/ci-deps`, and the environment that points the builds and tests at them.

use crate::fetch_deps::{self, Options};
use crate::Result;

/// Fetches what `options` name (none: the headers, the driver libraries and libclang) and sets
/// their environment in this process, for every command it runs after.
pub fn use_fetched(options: &[&str]) -> Result {
    for variable in fetch_deps::fetch(&Options::parse(options)?)? {
        variable.set_in_process();
    }
    Ok(())
}
