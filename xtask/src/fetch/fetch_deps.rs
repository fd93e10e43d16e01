//! `cargo xtask fetch-deps [--arm64-driver]`: fetches the test dependencies into
//! `target/ci-deps/` ([`crate::base::deps`] says what they are), then prints the environment
//! that points the builds and tests at them, as `export NAME="VALUE"` lines for a shell to
//! `eval` (`eval "$(cargo xtask fetch-deps)"`; progress goes to stderr).

use crate::base::args::Args;
use crate::base::deps::fetch;
use crate::base::Result;

/// `cargo xtask fetch-deps [--arm64-driver]`: fetches, then prints the environment.
pub fn run(args: &Args) -> Result {
    for variable in fetch(args.flag("--arm64-driver"))? {
        println!("{}", variable.export_line());
    }
    Ok(())
}
