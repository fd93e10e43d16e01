//! The CUDA header versions the crate binds: `cuda-driver-sys/versions.txt`, the one list every
//! task reads. A line is `<CUDA_VERSION> <runtime wheel> <profiler wheel> [tag ...]`; a tag names
//! a role of the version in the tasks ([`TAGS`]), so that no task spells a version out.

use crate::process::root;
use crate::Result;

/// The tags a version can carry, and what each means.
pub const TAGS: &[(&str, &str)] = &[
    (
        "anchor",
        "the full test suite runs for it; every other version gets the probes and the C spellings",
    ),
    (
        "default",
        "the crate's default version feature (exactly one)",
    ),
    (
        "dependents",
        "the dependents' checks (first run, rustacuda, the 0.3 program) build with it",
    ),
    (
        "cudart",
        "its runtime wheel gives the C twins' CUDA runtime: the oldest 12.x, run by every 12.x driver",
    ),
    (
        "cudart-arm64",
        "its runtime wheel gives the aarch64 CUDA runtime: the oldest built for aarch64",
    ),
    (
        "driver",
        "the version Debian's 535 driver library (amd64 and arm64) reports: the tests \
         expect it, and builds for newer headers link a stub library",
    ),
    (
        "aarch64",
        "the workspace's tests built for aarch64 Linux run under qemu for it: the newest of CUDA \
         12 and of CUDA 13 (each about 100 s under qemu)",
    ),
];

/// One line of the version list.
#[derive(Debug, PartialEq)]
pub struct Version {
    /// `CUDA_VERSION`, e.g. 12090.
    pub number: u32,
    /// The wheel whose `include/` has `cuda.h`, `cudaTypedefs.h` and the interop headers.
    pub runtime_wheel: String,
    /// The wheel that has `cudaProfiler.h`.
    pub profiler_wheel: String,
    /// Its tags, from [`TAGS`].
    pub tags: Vec<String>,
}

/// The versions of `cuda-driver-sys/versions.txt`, oldest first.
pub fn all() -> Result<Vec<Version>> {
    let path = root().join("cuda-driver-sys/versions.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The versions tagged `tag`, oldest first.
pub fn tagged(tag: &str) -> Result<Vec<u32>> {
    if !TAGS.iter().any(|(t, _)| *t == tag) {
        return Err(format!("versions.txt has no tag `{tag}`").into());
    }
    Ok(all()?
        .into_iter()
        .filter(|v| v.tags.iter().any(|t| t == tag))
        .map(|v| v.number)
        .collect())
}

/// `cargo xtask versions [--tag NAME]`: the versions (or those tagged NAME), one per line.
pub fn print(args: &[String]) -> Result {
    let numbers = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => all()?.into_iter().map(|v| v.number).collect(),
        ["--tag", tag] => tagged(tag)?,
        _ => {
            let tags: Vec<&str> = TAGS.iter().map(|(t, _)| *t).collect();
            return Err(format!("usage: cargo xtask versions [--tag {}]", tags.join("|")).into());
        }
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
                "line {}: `{line}` is not `<CUDA_VERSION> <runtime wheel> <profiler wheel> [tag ...]`",
                i + 1
            )
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [number, runtime, profiler, tags @ ..] = &fields[..] else {
            return Err(bad());
        };
        let number: u32 = number.parse().map_err(|_| bad())?;
        if let Some(tag) = tags
            .iter()
            .find(|t| !TAGS.iter().any(|(known, _)| known == *t))
        {
            return Err(format!("line {}: unknown tag `{tag}`", i + 1));
        }
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
            tags: tags.iter().map(|t| t.to_string()).collect(),
        });
    }
    let defaults = versions
        .iter()
        .filter(|v| v.tags.iter().any(|t| t == "default"));
    if defaults.count() != 1 {
        return Err("not exactly one version tagged `default`".into());
    }
    Ok(versions)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn lines_comments_and_tags() {
        let v = parse("# c\n\n11070 a b\n12000 c d anchor default\n").unwrap();
        assert_eq!(v.len(), 2);
        assert!(v[0].tags.is_empty());
        assert_eq!(v[1].tags, ["anchor", "default"]);
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
