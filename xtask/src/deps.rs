//! The test dependencies (CUDA headers, Debian's driver libraries, libclang, ...) fetched into
//! `target/ci-deps`, and the environment that points the builds and tests at them.

use crate::process;
use crate::Result;

/// Fetches what `options` name (none: the headers, the driver libraries and libclang) and sets
/// their environment in this process, for every command it runs after.
pub fn use_fetched(options: &[&str]) -> Result {
    let exports = process::output(process::command("ci/fetch-deps.sh").args(options))?;
    for (name, value) in parse_exports(&exports)? {
        // fetch-deps prepends to LD_LIBRARY_PATH with `${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}`.
        let tail = format!("${{{name}:+:${name}}}");
        let value = match (value.strip_suffix(tail.as_str()), std::env::var(name)) {
            (Some(head), Ok(old)) if !old.is_empty() => format!("{head}:{old}"),
            (Some(head), _) => head.to_string(),
            (None, _) => value.to_string(),
        };
        std::env::set_var(name, value);
    }
    Ok(())
}

/// The `export NAME="VALUE"` lines of `text`, as pairs.
fn parse_exports(text: &str) -> Result<Vec<(&str, &str)>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            line.strip_prefix("export ")
                .and_then(|l| l.split_once('='))
                .map(|(name, value)| (name, value.trim_matches('"')))
                .ok_or_else(|| {
                    format!("fetch-deps printed `{line}`, not `export NAME=\"VALUE\"`").into()
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn exports_are_parsed_and_other_lines_rejected() {
        let pairs = super::parse_exports("export A=\"x y\"\n\nexport B=\"\"\n").unwrap();
        assert_eq!(pairs, [("A", "x y"), ("B", "")]);
        assert!(super::parse_exports("A=1").is_err());
    }
}
