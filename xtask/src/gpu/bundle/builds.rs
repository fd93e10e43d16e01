//! What the GPU bundle builds, from the version list's tags: each feature set's tag in the
//! bundle's names (`examples-<tag>`, `tests/<name>-<tag>`), its cargo arguments, and the library
//! it links.

use crate::base::{versions, Result};

/// The default features' build linking every function.
const EVERY: &str = "link-every-function";
/// [`EVERY`], per-thread.
const PER_THREAD: &str = "per-thread-default-stream,link-every-function";

/// One feature set the bundle builds.
#[derive(Debug, PartialEq)]
pub struct Build {
    /// Its name in the bundle: the version, with `-pt`, `-dyn` or `-table-only` for a variant.
    pub tag: String,
    /// The cargo arguments that select it (features, and the tests for a test build).
    pub args: Vec<String>,
    /// Linked against the stub library: every function of a header the build machine's driver
    /// library (535) lacks; the default version's builds link the real one.
    pub stub: bool,
}

impl Build {
    /// The build `tag` of the tests `tests` (none: the examples) with `features`: only these
    /// where they name a version (`cuda-<V>,...`), else the default ones and these.
    fn new(tag: String, tests: &str, features: &str, stub: bool) -> Self {
        let tests = tests.split_whitespace().flat_map(|t| ["--test", t]);
        let only = features
            .starts_with("cuda-")
            .then_some("--no-default-features");
        let args = tests.chain(only).chain(["--features", features]);
        let args = args.map(String::from).collect();
        Build { tag, args, stub }
    }
}

/// The versions the bundle builds, by role (the tags of `versions.txt`).
pub struct Versions {
    pub default: u32,
    pub examples: Vec<u32>,
    pub linked: Vec<u32>,
    pub unlinked: Vec<u32>,
    pub table_only: Vec<u32>,
    pub dynamic: Vec<u32>,
    /// The headers the group programs run at: each one's oldest, and the newest.
    pub groups: Vec<u32>,
}

impl Versions {
    /// The roles as `versions.txt` tags them.
    pub fn tagged() -> Result<Self> {
        Ok(Versions {
            default: versions::tagged("default")?[0],
            examples: versions::tagged("gpu-examples")?,
            linked: versions::tagged("gpu-linked")?,
            unlinked: versions::tagged("gpu-unlinked")?,
            table_only: versions::tagged("gpu-table-only")?,
            dynamic: versions::tagged("gpu-dynamic")?,
            groups: crate::base::examples::group_versions()?,
        })
    }

    /// The example builds: the default version's (also per-thread and dynamic-loading), then the
    /// `gpu-examples` versions', every function linked; then, for the headers the group
    /// programs run at that these lack, a linked build (not every function: the newest header's
    /// are newer than the GPU's driver) and one with `dynamic-loading`.
    pub fn examples(&self) -> Vec<Build> {
        let d = self.default;
        let mut builds = vec![
            Build::new(d.to_string(), "", EVERY, false),
            Build::new(format!("{d}-pt"), "", PER_THREAD, false),
            self.dynamic_build(d, "", "interop,"),
        ];
        for v in &self.examples {
            let features = format!("cuda-{v},interop,{EVERY}");
            builds.push(Build::new(v.to_string(), "", &features, true));
        }
        for &v in &self.groups {
            if !builds.iter().any(|b| b.tag == v.to_string()) {
                let features = format!("cuda-{v},interop");
                builds.push(Build::new(v.to_string(), "", &features, v != d));
            }
            if !builds.iter().any(|b| b.tag == format!("{v}-dyn")) {
                builds.push(self.dynamic_build(v, "", "interop,"));
            }
        }
        builds
    }

    /// The test builds that link the driver library: the default version's, each role's, and the
    /// default version's per-thread build.
    pub fn linked_tests(&self) -> Vec<Build> {
        let (d, all) = (self.default, "driver table interop gl_interop egl_interop");
        let mut builds = vec![Build::new(d.to_string(), all, EVERY, false)];
        // Each role's versions, tag suffix, tests and features after `cuda-<V>`.
        let roles = [
            (
                &self.examples,
                "",
                "driver table interop",
                ",interop,link-every-function",
            ),
            (&self.linked, "", "driver table", ",link-every-function"),
            (&self.unlinked, "", "driver table", ""),
            (&self.table_only, "-table-only", "table", ",table-only"),
        ];
        for (versions, suffix, tests, features) in roles {
            for v in versions {
                let features = format!("cuda-{v}{features}");
                builds.push(Build::new(format!("{v}{suffix}"), tests, &features, true));
            }
        }
        let interop = "driver table interop";
        builds.push(Build::new(format!("{d}-pt"), interop, PER_THREAD, false));
        builds
    }

    /// The test builds with `dynamic-loading`: the default version's, then the `gpu-dynamic`
    /// versions'.
    pub fn dynamic_tests(&self) -> Vec<Build> {
        let tests = "driver table dynamic load_from interop gl_interop egl_interop";
        let mut builds = vec![self.dynamic_build(self.default, tests, "interop,")];
        let dynamic = self.dynamic.iter();
        builds.extend(dynamic.map(|&v| self.dynamic_build(v, "driver table dynamic", "")));
        builds
    }

    /// The arguments of the default version's benchmark with `dynamic-loading` and cudarc.
    pub fn dynamic_bench_features(&self) -> Vec<String> {
        let features = "dynamic-loading,bench-cudarc";
        let args = format!(
            "--no-default-features --features cuda-{},{features}",
            self.default
        );
        args.split(' ').map(String::from).collect()
    }

    /// `version` built with `dynamic-loading` (and `more` features), tagged `<version>-dyn`.
    fn dynamic_build(&self, version: u32, tests: &str, more: &str) -> Build {
        let features = format!("cuda-{version},{more}dynamic-loading");
        let stub = version != self.default;
        Build::new(format!("{version}-dyn"), tests, &features, stub)
    }
}

#[cfg(test)]
mod tests {
    use super::{Build, Versions};

    /// The tags of `builds`, and the arguments of the one at `at`.
    fn tags(builds: &[Build], at: usize) -> [String; 2] {
        let tags = Vec::from_iter(builds.iter().map(|b| b.tag.as_str()));
        [tags.join(" "), builds[at].args.join(" ")]
    }

    #[test]
    fn every_role_gets_its_builds() {
        let v = Versions {
            default: 100,
            examples: vec![200],
            linked: vec![50],
            unlinked: vec![300],
            table_only: vec![200, 300],
            dynamic: vec![50],
            groups: vec![100, 200, 400],
        };
        let (examples, linked, dynamic) = (v.examples(), v.linked_tests(), v.dynamic_tests());
        let want = "100 100-pt 100-dyn 200 200-dyn 400 400-dyn";
        let args = "--no-default-features --features cuda-400,interop";
        assert_eq!(tags(&examples, 5), [want, args]);
        let want = "100 200 50 300 200-table-only 300-table-only 100-pt";
        let args = "--test driver --test table --no-default-features --features cuda-300";
        assert_eq!(tags(&linked, 3), [want, args]);
        let args = "--test driver --test table --test dynamic --no-default-features --features \
                    cuda-50,dynamic-loading";
        assert_eq!(tags(&dynamic, 1), ["100-dyn 50-dyn", args]);
        assert!(!linked[0].stub && linked[1].stub);
        assert!(!dynamic[0].stub && dynamic[1].stub);
    }
}
