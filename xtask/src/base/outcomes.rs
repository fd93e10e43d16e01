//! The comparison of a dependent's builds by their outcomes (dependent-run's
//! `KIND NAME ok|FAILED|ignored` lines): the dependents' checks' and gpu-run's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The tests listed in the expected-differences file (`KIND NAME` lines after `#` comments).
pub fn expected(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The tests (`KIND NAME`) whose outcome differs between `a` and `b`, or that only one has.
pub fn differing(a: &str, b: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for line in a.lines().chain(b.lines()) {
        *seen.entry(line).or_default() += 1;
    }
    // Each line without its outcome word.
    let unique = seen.into_iter().filter(|(_, n)| *n == 1);
    (unique.map(|(line, _)| match line.rsplit_once(' ') {
        Some((test, word)) if word.bytes().all(|b| b.is_ascii_alphabetic()) => test,
        _ => line,
    }))
    .map(str::to_string)
    .collect()
}

/// The tests (`KIND NAME`) that pass in `baseline` but not in `ours`.
pub fn lost_passes(baseline: &str, ours: &str) -> Vec<String> {
    let passing: BTreeSet<&str> = ours.lines().filter_map(|l| l.strip_suffix(" ok")).collect();
    baseline
        .lines()
        .filter_map(|l| l.strip_suffix(" ok"))
        .filter(|t| !passing.contains(t))
        .map(str::to_string)
        .collect()
}

/// The number of tests that passed.
pub fn passed(outcomes: &str) -> usize {
    outcomes.lines().filter(|l| l.ends_with(" ok")).count()
}

/// The outcomes `baseline` and `ours` (each with its file) compared: `None` if the tests whose
/// outcome differs are exactly `expected`; else what the mismatch shows: each test listed whose
/// outcome is the same, each that differs unlisted, and the outcome lines of every differing test
/// in each file (`<file>:<line>`).
pub fn mismatch(expected: &BTreeSet<String>, outcomes: [(&Path, &str); 2]) -> Option<Vec<String>> {
    let differ = differing(outcomes[0].1, outcomes[1].1);
    if differ == *expected {
        return None;
    }
    let same = (expected.difference(&differ)).map(|t| format!("listed, same outcome: {t}"));
    let unlisted = (differ.difference(expected)).map(|t| format!("differs: {t}"));
    let mut lines: Vec<String> = same.chain(unlisted).collect();
    for (file, text) in outcomes {
        for line in text.lines() {
            if differ.iter().any(|t| line.contains(t.as_str())) {
                lines.push(format!("{}:{line}", file.display()));
            }
        }
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "unit a ok\nunit b FAILED\nunit c ok\n";

    #[test]
    fn outcomes_that_differ_are_found() {
        let ours = "unit a ok\nunit b ok\nunit c ok\nunit d ok\n";
        let differ = differing(BASE, ours);
        assert_eq!(differ, ["unit b", "unit d"].map(String::from).into());
        assert_eq!(passed(ours), 4);
        assert!(differing(BASE, BASE).is_empty());
    }

    #[test]
    fn a_test_passing_only_in_the_baseline_is_lost() {
        assert!(lost_passes(BASE, "unit a ok\nunit b ok\nunit c ok\n").is_empty());
        let ours = "unit a FAILED\nunit b ok\n";
        assert_eq!(lost_passes(BASE, ours), ["unit a", "unit c"]);
    }

    #[test]
    fn a_listed_test_with_the_same_outcome_is_reported() {
        let expected = expected("# why\nunit b\n");
        let (a, o) = (Path::new("a"), Path::new("o"));
        let lines = mismatch(&expected, [(a, BASE), (o, BASE)]).expect("a mismatch");
        assert_eq!(lines, ["listed, same outcome: unit b"]);
        let ours = "unit a ok\nunit b FAILED\nunit c FAILED\n";
        let lines = mismatch(&expected, [(a, BASE), (o, ours)]).expect("a mismatch");
        assert_eq!(
            lines,
            [
                "listed, same outcome: unit b",
                "differs: unit c",
                "a:unit c ok",
                "o:unit c FAILED"
            ]
        );
        let ours = "unit a ok\nunit b ok\nunit c ok\n";
        assert_eq!(mismatch(&expected, [(a, BASE), (o, ours)]), None);
    }
}
