//! The tests passed per test binary in a log of `cargo test` runs, each run after the line
//! `cargo test <arguments>` written before it: a harness's `test result: ok. N passed`, else what
//! a binary without the harness prints (`load_from: N cases passed`, one `test <what> ... ok`
//! line per check). A binary with nothing passed fails the count.

/// One test binary of a run: its name and the tests passed.
struct Binary {
    name: String,
    passed: usize,
    /// Counted by a harness's summary line.
    by_harness: bool,
}

/// The report (a line per run and per binary, then the total) and the binaries with no test
/// passed.
pub fn report(log: &str) -> (String, Vec<String>) {
    let mut runs: Vec<(&str, Vec<Binary>)> = Vec::new();
    for line in log.lines() {
        if let Some(arguments) = line.strip_prefix("cargo test ") {
            runs.push((arguments, Vec::new()));
            continue;
        }
        let Some((_, binaries)) = runs.last_mut() else {
            continue;
        };
        if let Some(name) = running(line) {
            binaries.push(Binary {
                name,
                passed: 0,
                by_harness: false,
            });
            continue;
        }
        let Some(binary) = binaries.last_mut() else {
            continue;
        };
        if let Some(n) = harness_passed(line) {
            (binary.passed, binary.by_harness) = (n, true);
        } else if !binary.by_harness {
            match cases_passed(line) {
                Some(n) => binary.passed += n,
                None => binary.passed += usize::from(check_ok(line)),
            }
        }
    }
    let (mut text, mut total, mut count, mut empty) = (String::new(), 0, 0, Vec::new());
    for (arguments, binaries) in &runs {
        text += &format!("  cargo test {arguments}\n");
        for b in binaries {
            text += &format!("    {}: {} passed\n", b.name, b.passed);
            total += b.passed;
            count += 1;
            if b.passed == 0 {
                empty.push(b.name.clone());
            }
        }
    }
    text += &format!("  total: {total} passed in {count} test binaries\n");
    (text, empty)
}

/// `     Running [unittests ]SOURCE (PATH)`: the binary's name (PATH's file name without cargo's
/// hash and Windows' `.exe`).
fn running(line: &str) -> Option<String> {
    let rest = line.trim_start();
    if rest.len() == line.len() {
        return None;
    }
    let rest = rest.strip_prefix("Running ")?;
    let rest = rest.strip_prefix("unittests ").unwrap_or(rest);
    let (source, path) = rest.split_once(' ')?;
    if source.is_empty() || source.contains(char::is_whitespace) {
        return None;
    }
    let path = path.strip_prefix('(')?.strip_suffix(')')?;
    let file = path.rsplit('/').next().unwrap_or(path);
    let file = file.strip_suffix(".exe").unwrap_or(file);
    let name = match file.rsplit_once('-') {
        Some((name, hash))
            if hash.len() == 16 && hash.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')) =>
        {
            name
        }
        _ => file,
    };
    Some(name.to_string())
}

/// `test result: ok. N passed`: N.
fn harness_passed(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("test result: ok. ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[digits.len()..]
        .starts_with(" passed")
        .then(|| digits.parse().ok())?
}

/// `... N cases passed` (or `1 case passed`) at the end of a line: N.
fn cases_passed(line: &str) -> Option<usize> {
    let head = line
        .strip_suffix(" cases passed")
        .or_else(|| line.strip_suffix(" case passed"))?;
    let digits: String = head
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

/// `test <what> ... ok`: one check passed.
fn check_ok(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("test ") else {
        return false;
    };
    rest.match_indices(" ... ok")
        .any(|(at, m)| !rest[at + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
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
