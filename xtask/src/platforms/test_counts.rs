//! The tests passed per test binary in a log of `cargo test` runs, each run after the line
//! `cargo test <arguments>` written before it: a harness's `test result: ok. N passed`, else what
//! a binary without the harness prints (`load_from: N cases passed`, one `test <what> ... ok`
//! line per check). A binary with nothing passed fails the count.

use crate::base::libtest;

/// A test binary of a run: its name, the tests passed, whether a harness's summary counted them.
type Binary = (String, usize, bool);

/// The report (a line per run and per binary, then the total) and the binaries with no test
/// passed.
pub fn report(log: &str) -> (String, Vec<String>) {
    let mut runs: Vec<(&str, Vec<Binary>)> = Vec::new();
    for line in log.lines() {
        if let Some(arguments) = line.strip_prefix("cargo test ") {
            runs.push((arguments, Vec::new()));
        } else if let (Some((_, binaries)), Some(name)) = (runs.last_mut(), running(line)) {
            binaries.push((name, 0, false));
        } else if let Some((_, passed, harness)) = runs.last_mut().and_then(|r| r.1.last_mut()) {
            if let Some(summary) = libtest::summary(line).filter(|s| s.ok) {
                (*passed, *harness) = (summary.passed, true);
            } else if !*harness {
                *passed += cases_passed(line).unwrap_or(usize::from(check_ok(line)));
            }
        }
    }
    let (mut text, mut total, mut count, mut empty) = (String::new(), 0, 0, Vec::new());
    for (arguments, binaries) in runs {
        text += &format!("  cargo test {arguments}\n");
        for (name, passed, _) in binaries {
            text += &format!("    {name}: {passed} passed\n");
            (total, count) = (total + passed, count + 1);
            if passed == 0 {
                empty.push(name);
            }
        }
    }
    text += &format!("  total: {total} passed in {count} test binaries\n");
    (text, empty)
}

/// `     Running [unittests ]SOURCE (PATH)`: the binary's name (PATH's file name without cargo's
/// hash and Windows' `.exe`).
fn running(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix(' ')?
        .trim_start()
        .strip_prefix("Running ")?;
    let file = rest
        .rsplit_once(" (")?
        .1
        .strip_suffix(')')?
        .rsplit('/')
        .next()?;
    let file = file.strip_suffix(".exe").unwrap_or(file);
    let name = match file.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            name
        }
        _ => file,
    };
    Some(name.to_string())
}

/// A check of a binary without the harness: libtest's `test <what> ... ok`, or that line with a
/// detail after it (`test check_driver! output, byte for byte ... ok (834 bytes)`).
fn check_ok(line: &str) -> bool {
    let check = line
        .strip_prefix("test ")
        .and_then(|rest| rest.rsplit_once(" ... ok"));
    check.is_some_and(|(_, after)| after.is_empty() || after.starts_with(" ("))
}

/// `... N cases passed` (or `1 case passed`) at the end of a line: N.
fn cases_passed(line: &str) -> Option<usize> {
    let head =
        (line.strip_suffix(" cases passed")).or_else(|| line.strip_suffix(" case passed"))?;
    head.rsplit(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::report;

    #[test]
    fn counts_per_binary() {
        let log = "cargo test --target t -p a\n   Compiling a\n     Running unittests src/lib.rs (target/debug/deps/a-0123456789abcdef)\n\
                   test x ... ok\ntest result: ok. 2 passed; 0 failed\n     Running tests/load_from.rs (target/debug/deps/load_from-0123456789abcdef)\n\
                   load_from: 3 cases passed\ntest check_driver! output ... ok (834 bytes)\n\
                   cargo test --target w\n     Running t.rs (target/w/debug/deps/t-0123456789abcdef.exe)\n\
                   test result: ok. 1 passed\n";
        let (text, empty) = report(log);
        assert_eq!(
            text,
            "  cargo test --target t -p a\n    a: 2 passed\n    load_from: 4 passed\n  cargo test --target w\n    t: 1 passed\n  total: 7 passed in 3 test binaries\n"
        );
        assert!(empty.is_empty());
    }

    #[test]
    fn a_binary_with_nothing_passed_is_named() {
        let log = "cargo test x\n     Running tests/t.rs (deps/t-0123456789abcdef)\ntest result: ok. 0 passed\n";
        assert_eq!(report(log).1, ["t"]);
    }
}
