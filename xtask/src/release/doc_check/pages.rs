//! What doc-check looks for in rendered pages: facts (fixed strings of their HTML) present, facts
//! said at most once, negated features' badges; and a method's part of a type's page.

use crate::base::Result;
use std::path::Path;

/// The facts `text` lacks, each as `[fact]`.
pub fn lacking(text: &str, facts: &[&str]) -> Vec<String> {
    facts
        .iter()
        .filter(|f| !text.contains(*f))
        .map(|f| format!("[{f}]"))
        .collect()
}

/// The facts `text` holds more than once, each as `[fact] N times`.
pub fn repeated(text: &str, facts: &[&str]) -> Vec<String> {
    facts
        .iter()
        .map(|f| (f, text.matches(*f).count()))
        .filter(|(_, n)| *n > 1)
        .map(|(f, n)| format!("[{f}] {n} times"))
        .collect()
}

/// What a badge of a negated feature says (rustdoc's `doc_cfg` of `not(feature = ...)`).
const NEGATED_BADGE: &str = "non-crate feature";

/// The pages (`*.html`) under `dir` with a badge of a negated feature, sorted.
pub fn negated_badges(dir: &Path) -> Result<Vec<String>> {
    let mut found = Vec::new();
    for path in fs_err::read_dir(dir)?.map(|e| e.map(|e| e.path())) {
        let path = path?;
        if path.is_dir() {
            found.extend(negated_badges(&path)?);
        } else if path.extension().is_some_and(|e| e == "html")
            && fs_err::read_to_string(&path).is_ok_and(|t| t.contains(NEGATED_BADGE))
        {
            found.push(path.display().to_string());
        }
    }
    found.sort();
    Ok(found)
}

/// One method's part of a type's page: the lines from the one with `id="method.NAME"` to the next
/// with `id="method.` (included), as `sed -n '/start/,/end/p'`.
pub fn method(page: &str, name: &str) -> String {
    let start = format!("id=\"method.{name}\"");
    let mut part = String::new();
    for (i, line) in page.lines().skip_while(|l| !l.contains(&start)).enumerate() {
        part.push_str(&format!("{line}\n"));
        if i > 0 && line.contains("id=\"method.") {
            break;
        }
    }
    part
}

/// `text` with the first `from` of each line replaced by `to` (`sed 's|from|to|'`).
pub fn replace_first(text: &str, from: &str, to: &str) -> String {
    text.lines()
        .map(|l| l.replacen(from, to, 1) + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_lacking_and_repeated() {
        let page = "<li>NVIDIA: a</li>\n<code>X = 1</code> NVIDIA: b";
        assert!(lacking(page, &["<code>X = 1</code>"]).is_empty());
        assert_eq!(
            lacking(page, &["<code>X</code>", "a"]),
            ["[<code>X</code>]"]
        );
        assert_eq!(repeated(page, &["NVIDIA: ", "X"]), ["[NVIDIA: ] 2 times"]);
    }

    #[test]
    fn a_methods_part_ends_at_the_next_method() {
        let page = "head\n<a id=\"method.cuMemAlloc\">\nbody\n<a id=\"method.cuMemFree\">\ntail\n";
        assert_eq!(
            method(page, "cuMemAlloc"),
            "<a id=\"method.cuMemAlloc\">\nbody\n<a id=\"method.cuMemFree\">\n"
        );
        assert_eq!(method(page, "cuMemAlloc_v2"), "");
    }

    #[test]
    fn replaced_once_per_line() {
        assert_eq!(replace_first("a a\nb a\n", "a", "c"), "c a\nb c\n");
    }
}
