//! The checks' logs: each command's output into `OUT/<name>.log`, one line per check on the
//! terminal, and the failures counted for the summary.

use super::schedule::Ended;
use crate::base::capture::exit_code;
use crate::base::{files, process, Result};
use fs_err::{self as fs, File};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The logs folder, the checks that failed so far and the programs that were waived (not
/// passed: they could not test their point on this machine).
#[derive(Default)]
pub struct Logs {
    pub out: PathBuf,
    pub failures: Vec<String>,
    pub waived: Vec<String>,
}

impl Logs {
    /// The log of the check `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.out.join(format!("{name}.log"))
    }

    /// Runs the check `name` (`command`, its output into its log) and prints its line: ok, or
    /// FAILED with its exit status and log, counted as a failure.
    pub fn run(&mut self, name: &str, command: &mut Command) -> bool {
        self.run_exiting(name, command, &[0])
    }

    /// [`Logs::run`] where any of the exit codes `ok` passes (the first is shown as `ok`, the
    /// others as `ok (exit N)`).
    pub fn run_exiting(&mut self, name: &str, command: &mut Command, ok: &[i32]) -> bool {
        let log = self.path(name);
        let status = File::create(&log)
            .map(File::into_file)
            .and_then(|file| Ok(command.stdout(file.try_clone()?).stderr(file)))
            .map_err(Into::into)
            .and_then(process::status)
            .map(exit_code);
        match &status {
            Ok(code) if ok.first() == Some(code) => println!("{name:<44} ok"),
            Ok(code) if ok.contains(code) => println!("{name:<44} ok (exit {code})"),
            Ok(code) => println!("{name:<44} FAILED (exit {code}; {})", log.display()),
            Err(e) => println!("{name:<44} FAILED ({e}; {})", log.display()),
        }
        let passed = status.is_ok_and(|code| ok.contains(&code));
        if !passed {
            self.failures.push(name.to_string());
        }
        passed
    }

    /// Prints the line of the check `name` that the scheduler ran into its log (`ended` after
    /// `took`): ok where it exited with 0, else FAILED with how it ended, counted as a failure.
    pub fn ended(&mut self, name: &str, ended: &Ended, took: Duration) -> bool {
        let (log, took) = (self.path(name), took.as_secs());
        let why = match ended {
            Ended::Exited(0) => {
                println!("{name:<44} ok ({took} s)");
                return true;
            }
            Ended::Exited(code) => format!("exit {code}"),
            Ended::Stopped => format!("stopped after {took} s"),
            Ended::Failed(e) => e.clone(),
        };
        println!("{name:<44} FAILED ({why}; {})", log.display());
        self.failures.push(name.to_string());
        false
    }

    /// Runs `command`, prints its output and keeps it in `OUT/<file>`; a command that cannot
    /// start says so on stderr and leaves the file empty.
    pub fn tee(&self, file: &str, command: &mut Command) -> Result {
        let output = match command.output() {
            Ok(output) => output.stdout,
            Err(e) => {
                eprintln!("{}", process::error(command, e));
                Vec::new()
            }
        };
        print!("{}", String::from_utf8_lossy(&output));
        files::write(&self.out.join(file), output)
    }

    /// The lines of the log `name` that contain any of `patterns` (`a|b`: `a` or `b`, as grep -E
    /// has it), in order.
    pub fn matching(&self, name: &str, patterns: &str) -> Result<Vec<String>> {
        let text = fs::read(self.path(name))?;
        Ok(String::from_utf8_lossy(&text)
            .lines()
            .filter(|l| patterns.split('|').any(|p| l.contains(p)))
            .map(String::from)
            .collect())
    }

    /// The lines of the log `name` that [`Logs::matching`] gives, each printed after `indent`.
    pub fn print_matching(&self, name: &str, patterns: &str, indent: &str) -> Result {
        for line in self.matching(name, patterns)? {
            println!("{indent}{line}");
        }
        Ok(())
    }

    /// The names of every log in OUT (`<name>.log`), sorted.
    pub fn all(&self) -> Result<Vec<String>> {
        let logs = files::named(&self.out, "", ".log")?.into_iter();
        Ok(logs
            .map(|p| files::name(&p).trim_end_matches(".log").into())
            .collect())
    }
}
