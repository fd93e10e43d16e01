//! What the GPU bundle builds, from the version list's tags: each feature set's tag in the
//! bundle's names (`examples-<tag>`, `tests/<name>-<tag>`), its cargo arguments, and the library
//! it links.

use crate::base::{versions, Result};

/// The default features' build linking every function.
const EVERY: &str = "link-every-function";
/// [`EVERY`], per-thread.
const PER_THREAD: &str = "per-thread-default-stream,link-every-function";
/// The tests of a header's driver and table.
const DRIVER_TABLE: &[&str] = &["driver", "table"];
/// [`DRIVER_TABLE`] and the interop tests.
const WITH_INTEROP: &[&str] = &["driver", "table", "interop"];

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
    /// The build `tag` of the tests `tests` (none: the examples): with only the features
    /// `features` if `only`, else the default ones and these.
    fn new(tag: String, tests: &[&str], only: bool, features: &str, stub: bool) -> Self {
        let tests = tests.iter().flat_map(|t| ["--test", t]);
        let only = only.then_some("--no-default-features");
        let args = tests.chain(only).chain(["--features", features]);
        let args = args.map(String::from).collect();
        Build { tag, args, stub }
    }

    /// The default version's build `tag` of `tests` with the default features and `features`.
    fn default(tag: String, tests: &[&str], features: &str) -> Self {
        Build::new(tag, tests, false, features, false)
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
            Build::default(d.to_string(), &[], EVERY),
            Build::default(format!("{d}-pt"), &[], PER_THREAD),
            self.dynamic_build(d, &[], "interop,"),
        ];
        for v in &self.examples {
            let features = format!("cuda-{v},interop,{EVERY}");
            builds.push(Build::new(v.to_string(), &[], true, &features, true));
        }
        for &v in &self.groups {
            if !builds.iter().any(|b| b.tag == v.to_string()) {
                let features = format!("cuda-{v},interop");
                builds.push(Build::new(v.to_string(), &[], true, &features, v != d));
            }
            if !builds.iter().any(|b| b.tag == format!("{v}-dyn")) {
                builds.push(self.dynamic_build(v, &[], "interop,"));
            }
        }
        builds
    }

    /// The test builds that link the driver library: the default version's, each role's, and the
    /// default version's per-thread build.
    pub fn linked_tests(&self) -> Vec<Build> {
        let d = self.default;
        let all = ["driver", "table", "interop", "gl_interop", "egl_interop"];
        let mut builds = vec![Build::default(d.to_string(), &all, EVERY)];
        let roles: [(&[u32], &[&str], &str, &str); 4] = [
            (
                &self.examples,
                WITH_INTEROP,
                ",interop,link-every-function",
                "",
            ),
            (&self.linked, DRIVER_TABLE, ",link-every-function", ""),
            (&self.unlinked, DRIVER_TABLE, "", ""),
            (&self.table_only, &["table"], ",table-only", "-table-only"),
        ];
        for (versions, tests, features, suffix) in roles {
            for v in versions {
                let features = format!("cuda-{v}{features}");
                builds.push(Build::new(
                    format!("{v}{suffix}"),
                    tests,
                    true,
                    &features,
                    true,
                ));
            }
        }
        builds.push(Build::default(format!("{d}-pt"), WITH_INTEROP, PER_THREAD));
        builds
    }

    /// The test builds with `dynamic-loading`: the default version's, then the `gpu-dynamic`
    /// versions'.
    pub fn dynamic_tests(&self) -> Vec<Build> {
        let tests: Vec<&str> = "driver table dynamic load_from interop gl_interop egl_interop"
            .split(' ')
            .collect();
        let mut builds = vec![self.dynamic_build(self.default, &tests, "interop,")];
        let dynamic = ["driver", "table", "dynamic"];
        builds.extend(
            self.dynamic
                .iter()
                .map(|&v| self.dynamic_build(v, &dynamic, "")),
        );
        builds
    }

    /// The features of the default version's benchmark with `dynamic-loading` and cudarc.
    pub fn dynamic_bench_features(&self) -> Vec<String> {
        let features = format!("cuda-{},dynamic-loading,bench-cudarc", self.default);
        vec![
            "--no-default-features".into(),
            "--features".into(),
            features,
        ]
    }

    /// `version` built with `dynamic-loading` (and `more` features), tagged `<version>-dyn`.
    fn dynamic_build(&self, version: u32, tests: &[&str], more: &str) -> Build {
        let features = format!("cuda-{version},{more}dynamic-loading");
        let stub = version != self.default;
        Build::new(format!("{version}-dyn"), tests, true, &features, stub)
    }
}

#[cfg(test)]
mod tests {
    use super::{Build, Versions};

    fn tags(builds: &[Build]) -> String {
        let tags: Vec<&str> = builds.iter().map(|b| b.tag.as_str()).collect();
        tags.join(" ")
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
        let examples = v.examples();
        assert_eq!(
            tags(&examples),
            "100 100-pt 100-dyn 200 200-dyn 400 400-dyn"
        );
        assert_eq!(
            examples[5].args.join(" "),
            "--no-default-features --features cuda-400,interop"
        );
        let linked = v.linked_tests();
        let want = "100 200 50 300 200-table-only 300-table-only 100-pt";
        assert_eq!(tags(&linked), want);
        assert_eq!(
            linked[3].args.join(" "),
            "--test driver --test table --no-default-features --features cuda-300"
        );
        assert!(!linked[0].stub && linked[1].stub);
        let dynamic = v.dynamic_tests();
        assert_eq!(tags(&dynamic), "100-dyn 50-dyn");
        assert_eq!(
            dynamic[1].args.join(" "),
            "--test driver --test table --test dynamic --no-default-features --features cuda-50,dynamic-loading"
        );
        assert!(!dynamic[0].stub && dynamic[1].stub);
    }
}
