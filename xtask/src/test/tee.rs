//! The test task's log: everything it and its commands print, on the terminal and in
//! `target/ci-test.log`; and the tests that passed (libtest's `test result:` lines), per step (the
//! lines after its heading `=== [i/n] ...`, so that a count that drops is seen where) and in total.

use crate::base::process::{self, root};
use crate::base::steps::Steps;
use crate::base::{capture, files, libtest, Result};
use fs_err as fs;
use std::io::{BufRead, BufReader, Write};

/// The log, relative to the workspace root.
pub const LOG: &str = "target/ci-test.log";
/// What the summary lines start with (the words CI's log is compared by).
const PREFIX: &str = "ci/test.sh";

/// Runs this program with `args` (the task, marked as teed), its standard output and error merged
/// into one pipe that this process copies to the terminal and the log; then the summary lines.
pub fn run(args: &[&str], summary: &str) -> Result {
    let started = Steps::new();
    files::create_dir(&root().join("target"))?;
    let mut log = fs::File::create(root().join(LOG))?;
    let mut command = process::task(args[0])?;
    command.args(&args[1..]);
    let (mut child, reader) = capture::spawn_merged(&mut command)?;
    let mut per_step: Vec<(String, usize)> = vec![("before the steps".into(), 0)];
    let mut stdout = std::io::stdout();
    let mut line = Vec::new();
    let mut reader = BufReader::new(reader);
    while reader.read_until(b'\n', &mut line)? > 0 {
        stdout.write_all(&line)?;
        log.write_all(&line)?;
        let text = String::from_utf8_lossy(&line);
        match step_heading(&text) {
            Some(heading) => per_step.push((heading.to_string(), 0)),
            // A test binary's summary, `test result: ok. N passed; ...`.
            None => {
                let summary = libtest::summary(text.trim_end()).filter(|s| s.ok);
                per_step.last_mut().expect("one at least").1 += summary.map_or(0, |s| s.passed);
            }
        }
        line.clear();
    }
    let status = child.wait().map_err(|e| process::error(&command, e))?;
    if !status.success() {
        return Err(format!("a check failed: its output is above and in {LOG}").into());
    }
    let passed: usize = per_step.iter().map(|(_, n)| n).sum();
    let mut lines = String::from("\ntests passed per step (the steps not listed count none):\n");
    for (heading, n) in per_step.iter().filter(|(_, n)| *n > 0) {
        let short: String = heading.chars().take(90).collect();
        lines += &format!("{n:6}  {short}\n");
    }
    lines += &format!("{}\n", super::home::downloads());
    let took = started.finish();
    lines += &format!("{PREFIX}: {summary}\n{PREFIX}: {passed} passed, 0 failed, in {took}\n");
    stdout.write_all(lines.as_bytes())?;
    log.write_all(lines.as_bytes())?;
    Ok(())
}

/// The heading of a step of the test task (`=== [2/40] cargo fmt --check`), without `=== `.
fn step_heading(line: &str) -> Option<&str> {
    let heading = line.strip_prefix("=== ")?.trim_end();
    heading.starts_with('[').then_some(heading)
}

#[cfg(test)]
mod tests {
    use super::step_heading;

    #[test]
    fn step_headings_are_numbered() {
        assert_eq!(
            step_heading("=== [2/40] cargo fmt --check\n"),
            Some("[2/40] cargo fmt --check")
        );
        assert_eq!(step_heading("=== platforms: aarch64\n"), None);
        assert_eq!(step_heading("  === [1/2] x"), None);
    }
}
