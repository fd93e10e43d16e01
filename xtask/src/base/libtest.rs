//! libtest's output, read: a test's line (`test NAME ... ok`) and a test binary's summary
//! (`test result: ok. 13 passed; 0 failed; 1 ignored; ...`).

/// How one test ended, as libtest words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `ok`
    Passed,
    /// `FAILED`
    Failed,
    /// `ignored`, with or without a reason
    Ignored,
}

impl Outcome {
    /// libtest's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "ok",
            Outcome::Failed => "FAILED",
            Outcome::Ignored => "ignored",
        }
    }
}

/// `test NAME ... ok|FAILED|ignored[, REASON]`: the test's name and how it ended.
pub fn test_line(line: &str) -> Option<(&str, Outcome)> {
    let (name, said) = line.strip_prefix("test ")?.rsplit_once(" ... ")?;
    let outcome = match said {
        "ok" => Outcome::Passed,
        "FAILED" => Outcome::Failed,
        _ if said == "ignored" || said.starts_with("ignored, ") => Outcome::Ignored,
        _ => return None,
    };
    Some((name, outcome))
}

/// One test binary's summary line.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    /// `ok.` rather than `FAILED.`
    pub ok: bool,
    pub passed: usize,
    pub failed: usize,
    pub ignored: usize,
}

/// The summary `line` is (`test result: ok. 13 passed; 0 failed; 1 ignored; ...`), if it is one.
pub fn summary(line: &str) -> Option<Summary> {
    let rest = line.strip_prefix("test result: ")?;
    let (ok, rest) = match rest.split_once(". ")? {
        ("ok", rest) => (true, rest),
        ("FAILED", rest) => (false, rest),
        _ => return None,
    };
    let count = |what: &str| {
        rest.split("; ")
            .find_map(|part| part.trim_end_matches(';').strip_suffix(what)?.parse().ok())
            .unwrap_or(0)
    };
    Some(Summary {
        ok,
        passed: count(" passed"),
        failed: count(" failed"),
        ignored: count(" ignored"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_lines_and_their_outcomes() {
        assert_eq!(
            test_line("test a::b ... ok"),
            Some(("a::b", Outcome::Passed))
        );
        assert_eq!(
            test_line("test src/a.rs - f (line 9) - compile ... FAILED"),
            Some(("src/a.rs - f (line 9) - compile", Outcome::Failed))
        );
        assert_eq!(
            test_line("test x ... ignored, needs a GPU"),
            Some(("x", Outcome::Ignored))
        );
        assert_eq!(test_line("test x ... bench"), None);
        assert_eq!(test_line("running 3 tests"), None);
    }

    #[test]
    fn summaries_passing_and_failing() {
        let ok = "test result: ok. 13 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 2.09s";
        let expected = Summary {
            ok: true,
            passed: 13,
            failed: 0,
            ignored: 1,
        };
        assert_eq!(summary(ok), Some(expected));
        let failed = summary("test result: FAILED. 3 passed; 1 failed;").unwrap();
        assert!(!failed.ok && failed.passed == 3 && failed.failed == 1);
        assert_eq!(summary("  test result: ok. 3 passed;"), None);
    }
}
