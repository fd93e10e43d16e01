//! How a test starts a program built for the tests' target (the test binary itself, a C twin, an
//! example): through the runner `CUDA_TEST_RUNNER` names where it is set, as cargo starts the test
//! through `CARGO_TARGET_<TRIPLE>_RUNNER` (an emulator such as
//! `qemu-aarch64 -L /usr/aarch64-linux-gnu`; its words split at whitespace, as cargo splits them),
//! else directly. Shared with the workspace's tests package (its `tests/common`).

use std::ffi::OsStr;
use std::process::Command;

/// A command that starts `program`, a program built for the tests' target.
pub fn target_command(program: impl AsRef<OsStr>) -> Command {
    let runner = std::env::var("CUDA_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    let Some(first) = words.next() else {
        return Command::new(program);
    };
    let mut cmd = Command::new(first);
    cmd.args(words).arg(program);
    cmd
}
