//! What the GPU bundle builds, from the version list's tags: each feature set's tag in the
//! bundle's names (`examples-<tag>`, `tests/<name>-<tag>`), its cargo arguments, and the library
//! it links.

use crate::base::{versions, Result};

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
    fn new(tag: String, tests: &[&str], features: Features, stub: bool) -> Self {
        let mut args: Vec<String> = tests
            .iter()
            .flat_map(|t| ["--test", t])
            .map(String::from)
            .collect();
        match features {
            Features::Default(extra) => args.extend(["--features".into(), extra.into()]),
            Features::Only(list) => {
                args.extend(["--no-default-features".into(), "--features".into(), list])
            }
        }
        Build { tag, args, stub }
    }
}

/// The features of a build: the default ones and more, or only those listed.
enum Features {
    Default(&'static str),
    Only(String),
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
            Build::new(
                d.to_string(),
                &[],
                Features::Default("link-every-function"),
                false,
            ),
            Build::new(
                format!("{d}-pt"),
                &[],
                Features::Default("per-thread-default-stream,link-every-function"),
                false,
            ),
            self.dynamic_build(d, &[], "interop,"),
        ];
        builds.extend(self.examples.iter().map(|v| {
            let features = Features::Only(format!("cuda-{v},interop,link-every-function"));
            Build::new(v.to_string(), &[], features, true)
        }));
        for &v in &self.groups {
            if !builds.iter().any(|b| b.tag == v.to_string()) {
                let features = Features::Only(format!("cuda-{v},interop"));
                builds.push(Build::new(v.to_string(), &[], features, v != d));
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
        let mut builds = vec![Build::new(
            d.to_string(),
            &["driver", "table", "interop", "gl_interop", "egl_interop"],
            Features::Default("link-every-function"),
            false,
        )];
        let only = |v: &u32, tests: &[&str], features: &str, tag: String| {
            Build::new(
                tag,
                tests,
                Features::Only(format!("cuda-{v}{features}")),
                true,
            )
        };
        for v in &self.examples {
            let features = ",interop,link-every-function";
            builds.push(only(
                v,
                &["driver", "table", "interop"],
                features,
                v.to_string(),
            ));
        }
        for v in &self.linked {
            builds.push(only(
                v,
                &["driver", "table"],
                ",link-every-function",
                v.to_string(),
            ));
        }
        for v in &self.unlinked {
            builds.push(only(v, &["driver", "table"], "", v.to_string()));
        }
        for v in &self.table_only {
            builds.push(only(
                v,
                &["table"],
                ",table-only",
                format!("{v}-table-only"),
            ));
        }
        builds.push(Build::new(
            format!("{d}-pt"),
            &["driver", "table", "interop"],
            Features::Default("per-thread-default-stream,link-every-function"),
            false,
        ));
        builds
    }

    /// The test builds with `dynamic-loading`: the default version's, then the `gpu-dynamic`
    /// versions'.
    pub fn dynamic_tests(&self) -> Vec<Build> {
        let tests = [
            "driver",
            "table",
            "dynamic",
            "load_from",
            "interop",
            "gl_interop",
            "egl_interop",
        ];
        let mut builds = vec![self.dynamic_build(self.default, &tests, "interop,")];
        builds.extend(
            self.dynamic
                .iter()
                .map(|&v| self.dynamic_build(v, &["driver", "table", "dynamic"], "")),
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
        let features = Features::Only(format!("cuda-{version},{more}dynamic-loading"));
        Build::new(
            format!("{version}-dyn"),
            tests,
            features,
            version != self.default,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{Build, Versions};

    fn versions() -> Versions {
        Versions {
            default: 100,
            examples: vec![200],
            linked: vec![50],
            unlinked: vec![300],
            table_only: vec![200, 300],
            dynamic: vec![50],
            groups: vec![100, 200, 400],
        }
    }

    fn tags(builds: &[Build]) -> Vec<&str> {
        builds.iter().map(|b| b.tag.as_str()).collect()
    }

    #[test]
    fn every_role_gets_its_builds() {
        let v = versions();
        let examples = v.examples();
        assert_eq!(
            tags(&examples),
            ["100", "100-pt", "100-dyn", "200", "200-dyn", "400", "400-dyn"]
        );
        assert_eq!(
            examples[5].args.join(" "),
            "--no-default-features --features cuda-400,interop"
        );
        let linked = v.linked_tests();
        assert_eq!(
            tags(&linked),
            [
                "100",
                "200",
                "50",
                "300",
                "200-table-only",
                "300-table-only",
                "100-pt"
            ]
        );
        assert_eq!(
            linked[3].args.join(" "),
            "--test driver --test table --no-default-features --features cuda-300"
        );
        assert!(!linked[0].stub && linked[1].stub);
        let dynamic = v.dynamic_tests();
        assert_eq!(tags(&dynamic), ["100-dyn", "50-dyn"]);
        assert_eq!(
            dynamic[1].args.join(" "),
            "--test driver --test table --test dynamic --no-default-features --features cuda-50,dynamic-loading"
        );
        assert!(!dynamic[0].stub && dynamic[1].stub);
    }
}
