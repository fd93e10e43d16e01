//! The CUDA header versions the crate binds: `cuda-driver-sys/versions.txt`, the one list every
//! task reads. A line is `<CUDA_VERSION> <runtime wheel> <profiler wheel> [tag ...]`, the tags
//! being `anchor` (the full test suite runs for it; every other version gets the probes and the C
//! spellings) and `default` (the crate's default version feature).

use crate::process::root;
use crate::Result;

/// One line of the version list.
#[derive(Debug, PartialEq)]
pub struct Version {
    /// `CUDA_VERSION`, e.g. 12090.
    pub number: u32,
    /// The wheel whose `include/` has `cuda.h`, `cudaTypedefs.h` and the interop headers.
    pub runtime_wheel: String,
    /// The wheel that has `cudaProfiler.h`.
    pub profiler_wheel: String,
    /// Whether the full test suite runs for it.
    pub anchor: bool,
    /// Whether it is the crate's default version feature.
    pub default: bool,
}

/// The versions of `cuda-driver-sys/versions.txt`, oldest first.
pub fn all() -> Result<Vec<Version>> {
    let path = root().join("cuda-driver-sys/versions.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The anchor versions, oldest first.
pub fn anchors() -> Result<Vec<u32>> {
    Ok(all()?
        .into_iter()
        .filter(|v| v.anchor)
        .map(|v| v.number)
        .collect())
}

/// The crate's default version.
pub fn default() -> Result<u32> {
    Ok(all()?
        .into_iter()
        .find(|v| v.default)
        .map(|v| v.number)
        .expect("parse checks there is one"))
}

/// `cargo xtask versions [--anchors | --default]`: the versions (or the anchors, or the default
/// version), one per line.
pub fn print(args: &[String]) -> Result {
    let numbers = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => all()?.into_iter().map(|v| v.number).collect(),
        ["--anchors"] => anchors()?,
        ["--default"] => vec![default()?],
        _ => return Err("usage: cargo xtask versions [--anchors | --default]".into()),
    };
    for n in numbers {
        println!("{n}");
    }
    Ok(())
}

fn parse(text: &str) -> std::result::Result<Vec<Version>, String> {
    let mut versions: Vec<Version> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || {
            format!(
                "line {}: `{line}` is not `<CUDA_VERSION> <runtime wheel> <profiler wheel> [anchor] [default]`",
                i + 1
            )
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [number, runtime, profiler, tags @ ..] = &fields[..] else {
            return Err(bad());
        };
        if tags.iter().any(|t| !["anchor", "default"].contains(t)) {
            return Err(bad());
        }
        let number: u32 = number.parse().map_err(|_| bad())?;
        if versions.last().is_some_and(|last| last.number >= number) {
            return Err(format!(
                "line {}: {number} is not above the version before it",
                i + 1
            ));
        }
        versions.push(Version {
            number,
            runtime_wheel: runtime.to_string(),
            profiler_wheel: profiler.to_string(),
            anchor: tags.contains(&"anchor"),
            default: tags.contains(&"default"),
        });
    }
    if versions.iter().filter(|v| v.default).count() != 1 {
        return Err("not one version tagged `default`".into());
    }
    Ok(versions)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn lines_comments_and_anchors() {
        let v = parse("# c\n\n11070 a b\n12000 c d anchor default\n").unwrap();
        assert_eq!(v.len(), 2);
        assert!(!v[0].anchor && v[1].anchor && v[1].default);
        assert_eq!((v[1].number, v[1].runtime_wheel.as_str()), (12000, "c"));
    }

    #[test]
    fn malformed_lists_are_rejected() {
        for bad in [
            "",
            "12000 a b",
            "12000 a default",
            "12000 a b c",
            "x a b default",
            "12000 a b default\n11070 a b",
            "12000 a b default\n12010 a b default",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
