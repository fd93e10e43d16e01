//! Progress headings: `=== <what>` before each step, `--- <N> s` after it, for CI's time budget
//! ([`Steps`]); and a task's untimed step headings, `=== <task>: <what>` ([`Headings`]).

use std::time::Instant;

/// The steps of one task, timed.
pub struct Steps {
    started: Instant,
    current: Option<Instant>,
}

impl Steps {
    /// No step yet; the total time starts now.
    pub fn new() -> Self {
        Steps {
            started: Instant::now(),
            current: None,
        }
    }

    /// Ends the step before (its time) and starts the step `what` (its heading).
    pub fn step(&mut self, what: &str) {
        self.end_step();
        println!("\n=== {what}");
        self.current = Some(Instant::now());
    }

    /// Ends the last step; the time since the first, as "N min S s".
    pub fn finish(mut self) -> String {
        self.end_step();
        let s = self.started.elapsed().as_secs();
        format!("{} min {} s", s / 60, s % 60)
    }

    fn end_step(&mut self) {
        if let Some(start) = self.current.take() {
            println!("--- {} s", start.elapsed().as_secs());
        }
    }
}

/// A task's step headings, `\n=== <prefix>: <what>` (untimed: the task's caller times the task).
pub struct Headings(pub &'static str);

impl Headings {
    /// Prints the heading of step `what`.
    pub fn step(&self, what: &str) {
        println!("\n=== {}: {what}", self.0);
    }
}
