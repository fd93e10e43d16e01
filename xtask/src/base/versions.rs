//! The CUDA header versions the crate binds: `cuda-driver-sys-items/versions.txt`, the one list every
//! task reads. A line is `<CUDA_VERSION> <runtime wheel> <profiler wheel> [tag ...]`; a tag names
//! a role of the version in the tasks ([`TAGS`]), so that no task spells a version out.

use crate::base::process::root;
use crate::base::Result;

/// The tags a version can carry; each comment says what the tag means.
pub const TAGS: &[&str] = &[
    // The full test suite runs for it; every other version gets the probes and the C spellings.
    "anchor",
    // The crate's default version feature (exactly one).
    "default",
    // The dependents' checks (first run, rustacuda, the 0.3 program) build with it.
    "dependents",
    // The driver library the tests run on (Debian's 535; exactly one); newer headers link the stub.
    "driver",
    // The 11.x check's table-only binary imports cuGetProcAddress (v1) and starts on bullseye's
    // 470 driver (CUDA 11.4); dynamic-check and bad-input run their builds of it there too.
    "old-driver",
    // The first header whose cuCtxCreate is cuCtxCreate_v4, which the driver lacks (doc-check):
    // from it on, first-run's examples link the stub, rustacuda-check's builds run only on a GPU.
    "ctx-create-v4",
    // The first header whose cuMemAdvise and cuMemPrefetchAsync take a CUmemLocation (`_v2`):
    // cudarc-check builds its tour with it and newer.
    "mem-location",
    // dynamic-check runs it on the driver, which lacks some of its functions: NOT_FOUND for them.
    "ahead-of-driver",
    // First-run's toolkit root holds its headers and builds its C twins (a 12.x, exactly one).
    "toolkit",
    // dependent-check's crate enables its feature and checks DEP_CUDA_VERSION (exactly one).
    "dependent-crate",
    // Its runtime wheel gives the C twins' CUDA runtime: the oldest 12.x, run by every 12.x driver.
    "cudart",
    // Its runtime wheel gives the aarch64 CUDA runtime: the oldest built for aarch64.
    "cudart-arm64",
    // The GPU bundle carries its examples, C twins, driver, table and interop tests, every
    // function linked (the default version's always; ncu profiles the newest one's).
    "gpu-examples",
    // The GPU bundle carries its driver and table tests, every function linked.
    "gpu-linked",
    // The GPU bundle carries its driver and table tests not linking every function.
    "gpu-unlinked",
    // The GPU bundle carries its table test built with `table-only`.
    "gpu-table-only",
    // The GPU bundle carries its driver, table and dynamic tests built with `dynamic-loading`.
    "gpu-dynamic",
    // The table-only check: a header newer than the driver, its binary run on the driver.
    "table-only",
    // The workspace's tests built for aarch64 Linux run under qemu for it: the newest of CUDA 12
    // and of CUDA 13 (each about 100 s under qemu).
    "aarch64",
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

/// The versions of `cuda-driver-sys-items/versions.txt`, oldest first.
pub fn all() -> Result<Vec<Version>> {
    let path = root().join("cuda-driver-sys-items/versions.txt");
    let text = crate::base::files::read(&path)?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The versions tagged `tag`, oldest first.
pub fn tagged(tag: &str) -> Result<Vec<u32>> {
    if !TAGS.contains(&tag) {
        return Err(format!("versions.txt has no tag `{tag}`").into());
    }
    Ok(all()?
        .into_iter()
        .filter(|v| v.tags.iter().any(|t| t == tag))
        .map(|v| v.number)
        .collect())
}

/// The one version tagged `tag`; an error if versions.txt tags none or several.
pub fn the_one(tag: &str) -> Result<u32> {
    match tagged(tag)?[..] {
        [one] => Ok(one),
        _ => Err(format!("versions.txt must tag exactly one version `{tag}`").into()),
    }
}

/// A `CUDA_VERSION` as CUDA's releases name it: 12090 is "12.9".
pub fn dotted(number: u32) -> String {
    format!("{}.{}", number / 1000, number % 1000 / 10)
}

fn parse(text: &str) -> std::result::Result<Vec<Version>, String> {
    let mut versions: Vec<Version> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let version =
            parse_line(line, versions.last()).map_err(|e| format!("line {}: {e}", i + 1))?;
        versions.push(version);
    }
    let is_default = |v: &&Version| v.tags.iter().any(|t| t == "default");
    if versions.iter().filter(is_default).count() != 1 {
        return Err("not exactly one version tagged `default`".into());
    }
    Ok(versions)
}

/// The version of the list's line `line`, which follows the line of `before`.
fn parse_line(line: &str, before: Option<&Version>) -> std::result::Result<Version, String> {
    let bad =
        || format!("`{line}` is not `<CUDA_VERSION> <runtime wheel> <profiler wheel> [tag ...]`");
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [number, runtime, profiler, tags @ ..] = &fields[..] else {
        return Err(bad());
    };
    let number: u32 = number.parse().map_err(|_| bad())?;
    if let Some(tag) = tags.iter().find(|t| !TAGS.contains(t)) {
        return Err(format!("unknown tag `{tag}`"));
    }
    if before.is_some_and(|before| before.number >= number) {
        return Err(format!("{number} is not above the version before it"));
    }
    Ok(Version {
        number,
        runtime_wheel: runtime.to_string(),
        profiler_wheel: profiler.to_string(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::{dotted, parse};

    #[test]
    fn dotted_versions() {
        assert_eq!(dotted(12090), "12.9");
        assert_eq!(dotted(11040), "11.4");
        assert_eq!(dotted(12100), "12.10");
    }

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

/// No task source and nothing under `ci/` spells out a version of the list: each takes its
/// versions from the list by tag. The exceptions name something else that holds the digits.
#[cfg(test)]
mod no_literal_versions {
    use super::{all, root};
    use crate::base::files::walk;

    /// (file, the text around the digits): each no use of the list, for the reason beside it.
    const EXCEPTIONS: &[(&str, &str)] = &[
        // The list's parser and its test data.
        ("xtask/src/base/versions.rs", ""),
        // A typedef's name, an ABI.
        ("xtask/src/release/doc_check/mod.rs", "PFN_cuCtxCreate_v"),
        // cudarc's own feature name.
        ("xtask/src/release/build_cost.rs", "\"cuda-12090\""),
        // rustacuda's code, patched.
        ("ci/rustacuda/migration.patch", ">= 13000"),
        // cudarc's own feature names, forwarded to this crate's.
        ("ci/cudarc/migration.patch", ""),
        // cust's code, patched: its build script's cfgs, by DEP_CUDA_VERSION.
        ("ci/cust/migration.patch", ""),
    ];

    #[test]
    fn no_task_source_spells_a_listed_version() {
        let versions: Vec<u32> = all().unwrap().iter().map(|v| v.number).collect();
        let root = root();
        let paths = ["xtask/src", "ci", ".ci", ".cargo"]
            .iter()
            .flat_map(|dir| walk(&root.join(dir)))
            .filter(|p| !p.ends_with("Cargo.lock"));
        let (mut bad, mut used) = (Vec::new(), [false; EXCEPTIONS.len()]);
        for path in paths {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // not text (none of these names a version)
            };
            let name = path.strip_prefix(&root).unwrap().to_string_lossy();
            // Each run of exactly five digits that is a listed version.
            for line in text.lines() {
                let runs = line.split(|c: char| !c.is_ascii_digit());
                let numbers = runs.filter(|r| r.len() == 5).flat_map(str::parse::<u32>);
                for v in numbers.filter(|n| versions.contains(n)) {
                    let excepted = (EXCEPTIONS.iter())
                        .position(|(file, around)| *file == name && line.contains(around));
                    match excepted {
                        Some(i) => used[i] = true,
                        None => bad.push(format!("{name}: {v} in `{}`", line.trim())),
                    }
                }
            }
        }
        assert!(
            bad.is_empty(),
            "versions spelled out instead of taken from cuda-driver-sys-items/versions.txt by tag \
             (versions::tagged): {bad:#?}"
        );
        // Each exception still finds its versions: the walk and the digit runs see them.
        let unused = EXCEPTIONS.iter().zip(used).filter(|(_, used)| !used);
        let unused: Vec<&str> = unused.map(|((file, _), _)| *file).collect();
        assert!(
            unused.is_empty(),
            "exceptions that apply no more: {unused:?}"
        );
    }
}
