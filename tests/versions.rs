//! The `cuda-<V>` features of the four manifests against `cuda-driver-sys-items/versions.txt`, the one
//! list of CUDA versions (Cargo features cannot be generated, so they are checked): each version
//! has its feature in each manifest, with the form that manifest gives it, and no manifest has a
//! version feature the list does not have; and the `cuda_ge_<V>` cfgs that
//! `cuda-driver-sys/src/lib.rs` hides from docs.rs's feature badges are those of the list; the
//! README files and the crate docs state the list's versions (its range, each minor version); the
//! version tagged `default` is the one the build script, the crate docs and the manifests'
//! `default` features say. A failure names the file and what disagrees.

#[path = "common/workspace.rs"]
mod workspace;
use workspace::read;

/// The versions of `versions.txt`: the first field of every line not blank and not a comment.
fn versions() -> Vec<String> {
    read("cuda-driver-sys-items/versions.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// The `cuda-<5 digits> = ...` lines of a manifest, as (version, the whole line).
fn version_features(manifest: &str) -> Vec<(String, String)> {
    manifest
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("cuda-")?;
            let (v, _) = rest.split_once(' ')?;
            (v.len() == 5 && v.bytes().all(|b| b.is_ascii_digit()))
                .then(|| (v.to_string(), l.trim().to_string()))
        })
        .collect()
}

/// Compares one manifest's features with what `expected` says each version's line must be.
fn check(file: &str, expected: impl Fn(&str, Option<&str>) -> String) -> Vec<String> {
    let found = version_features(&read(file));
    let list = versions();
    let mut errors = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let want = expected(v, i.checked_sub(1).map(|p| list[p].as_str()));
        match found.iter().find(|(f, _)| f == v) {
            None => errors.push(format!(
                "{file}: feature cuda-{v} is missing (cuda-driver-sys-items/versions.txt lists {v}); \
                 add `{want}`"
            )),
            Some((_, line)) if *line != want => errors.push(format!(
                "{file}: feature cuda-{v} is `{line}`, expected `{want}`"
            )),
            Some(_) => {}
        }
    }
    for (v, _) in &found {
        if !list.contains(v) {
            errors.push(format!(
                "{file}: feature cuda-{v} is not in cuda-driver-sys-items/versions.txt; add the version \
                 there (and run cargo xtask regenerate) or remove the feature"
            ));
        }
    }
    errors
}

#[test]
fn version_features_match_versions_txt() {
    let list = versions();
    assert!(
        !list.is_empty(),
        "cuda-driver-sys-items/versions.txt lists no version"
    );
    let mut errors = check("cuda-driver-sys-items/Cargo.toml", |v, _| {
        format!("cuda-{v} = []")
    });
    errors.extend(check("cuda-driver-sys/Cargo.toml", |v, _| {
        format!("cuda-{v} = [\"cuda-driver-sys-items/cuda-{v}\"]")
    }));
    // The root package and the tests package: each version turns on the one before it.
    for file in ["Cargo.toml", "tests/Cargo.toml"] {
        errors.extend(check(file, |v, previous| match previous {
            Some(p) => format!("cuda-{v} = [\"cuda-{p}\", \"cuda-driver-sys/cuda-{v}\"]"),
            None => format!("cuda-{v} = [\"cuda-driver-sys/cuda-{v}\"]"),
        }));
    }
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
    println!(
        "versions: {} versions of cuda-driver-sys-items/versions.txt, each a feature of the 4 manifests",
        list.len()
    );
}

/// The crate roots that hide the version cfgs from docs.rs's badges: cuda-driver-sys's docs compile
/// the items' source under its own attributes, and the items crate is documented too.
const CRATE_ROOTS: [&str; 2] = [
    "cuda-driver-sys/src/lib.rs",
    "cuda-driver-sys-items/src/lib.rs",
];

/// The cfgs inside `#![cfg_attr(docsrs, doc(auto_cfg(hide(..))))]` of the crate root `file`: the
/// features it hides (`feature = "table-only"`, ...) and the `cuda_ge_<V>` names.
fn hidden_cfgs(file: &str) -> Vec<String> {
    let lib = read(file);
    let start = lib
        .find("auto_cfg(hide(")
        .unwrap_or_else(|| panic!("{file}: no `doc(auto_cfg(hide(..)))` attribute"));
    let list = &lib[start + "auto_cfg(hide(".len()..];
    list[..list
        .find(')')
        .unwrap_or_else(|| panic!("{file}: unclosed auto_cfg(hide(..))"))]
        .split(',')
        .map(str::trim)
        .map(str::to_string)
        .collect()
}

#[test]
fn docs_rs_hides_every_version_cfg() {
    let want: Vec<String> = versions().iter().map(|v| format!("cuda_ge_{v}")).collect();
    let [facade, items] = CRATE_ROOTS.map(hidden_cfgs);
    assert_eq!(
        facade, items,
        "{} and {} must hide the same cfgs from docs.rs's badges",
        CRATE_ROOTS[0], CRATE_ROOTS[1]
    );
    for file in CRATE_ROOTS {
        let found: Vec<String> = hidden_cfgs(file)
            .into_iter()
            .filter(|name| name.starts_with("cuda_ge_"))
            .collect();
        let missing: Vec<&String> = want.iter().filter(|c| !found.contains(c)).collect();
        let extra: Vec<&String> = found.iter().filter(|c| !want.contains(c)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{file}: `doc(auto_cfg(hide(..)))` must name `cuda_ge_<V>` for each version of \
             cuda-driver-sys-items/versions.txt; missing {missing:?}, not in the list {extra:?}"
        );
        println!(
            "versions: the {} `cuda_ge_<V>` cfgs hidden from docs.rs's badges in {file}",
            found.len()
        );
    }
}

/// The text of `pub const ROOT_VARS ... ];` in a build script's file.
fn root_vars(file: &str) -> String {
    let text = read(file);
    let start = text
        .find("pub const ROOT_VARS")
        .unwrap_or_else(|| panic!("{file}: no `pub const ROOT_VARS`"));
    let len = text[start..]
        .find("];")
        .unwrap_or_else(|| panic!("{file}: unclosed ROOT_VARS"));
    text[start..start + len].split_whitespace().collect()
}

#[test]
fn both_build_scripts_take_the_same_toolkit_roots() {
    let (library, header) = (
        "cuda-driver-sys/build/search.rs",
        "cuda-driver-sys-items/build/header.rs",
    );
    assert_eq!(
        root_vars(library),
        root_vars(header),
        "{library} looks for the library and {header} for cuda.h under other toolkit roots"
    );
}

/// The versions of `versions.txt` tagged `tag` (a field after the two wheels).
fn tagged(tag: &str) -> Vec<String> {
    read("cuda-driver-sys-items/versions.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter(|l| l.split_whitespace().skip(3).any(|t| t == tag))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// `12090` as `12.9`.
fn dotted(v: &str) -> String {
    let n: u32 = v.parse().unwrap_or_default();
    format!("{}.{}", n / 1000, n % 1000 / 10)
}

/// The versions as prose lists them: runs of consecutive minor versions of three or more as
/// `first<dots>last`, the others one by one, each written by `name`, joined by ", ".
fn runs(dots: &str, name: impl Fn(&str) -> String) -> String {
    let list = versions();
    let minor = |v: &str| v.parse::<u32>().unwrap_or_default() / 10;
    let mut groups: Vec<Vec<&String>> = Vec::new();
    for v in &list {
        match groups.last_mut() {
            Some(g) if minor(g[g.len() - 1]) + 1 == minor(v) => g.push(v),
            _ => groups.push(vec![v]),
        }
    }
    let mut parts = Vec::new();
    for g in groups {
        if g.len() >= 3 {
            parts.push(format!("{}{dots}{}", name(g[0]), name(g[g.len() - 1])));
        } else {
            parts.extend(g.into_iter().map(|v| name(v)));
        }
    }
    parts.join(", ")
}

/// `file`'s text with the comment markers of Rust docs (`//!`) dropped and every run of
/// whitespace one space, so that a phrase is found across line breaks.
fn prose(file: &str) -> String {
    let text = read(file);
    let lines = text.lines().map(|l| l.trim().trim_start_matches("//!"));
    let words: Vec<&str> = lines.flat_map(str::split_whitespace).collect();
    words.join(" ")
}

#[test]
fn docs_state_the_versions_of_the_list() {
    let list = versions();
    let (first, last) = (&list[0], &list[list.len() - 1]);
    let range = format!("{} to {}", dotted(first), dotted(last));
    let features = format!("`cuda-{first}` ... `cuda-{last}`");
    let every_minor = runs(" to ", dotted);
    let every_feature = runs(" ... ", |v| format!("`cuda-{v}`"));
    // (file, what it must say, what that is)
    let places = [
        ("README.md", &range, "the range of versions"),
        ("README.md", &features, "the range of version features"),
        ("README.md", &every_minor, "every version"),
        ("cuda-driver-sys/README.md", &range, "the range of versions"),
        (
            "cuda-driver-sys/README.md",
            &features,
            "the range of version features",
        ),
        (
            "cuda-driver-sys/src/lib.rs",
            &range,
            "the range of versions",
        ),
        (
            "cuda-driver-sys/src/lib.rs",
            &every_feature,
            "every version feature",
        ),
    ];
    let missing: Vec<String> = places
        .iter()
        .filter(|(file, phrase, _)| !prose(file).contains(phrase.as_str()))
        .map(|(file, phrase, what)| {
            format!("{file}: does not state {what} of cuda-driver-sys-items/versions.txt: {phrase}")
        })
        .collect();
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
    println!(
        "versions: {} statements of the versions ({range}) in the README files and the crate docs",
        places.len()
    );
}

#[test]
fn the_default_version_is_the_tagged_one() {
    let default = tagged("default");
    assert_eq!(
        default.len(),
        1,
        "cuda-driver-sys-items/versions.txt: exactly one version must be tagged `default`, not {default:?}"
    );
    let v = &default[0];
    let places = [
        (
            "cuda-driver-sys-items/build/main.rs",
            format!("const DEFAULT_VERSION: u32 = {v};"),
        ),
        (
            "cuda-driver-sys/src/lib.rs",
            format!("None on means {}.", dotted(v)),
        ),
        (
            "Cargo.toml",
            format!("default = [\"cuda-{v}\", \"interop\"]"),
        ),
        (
            "tests/Cargo.toml",
            format!("default = [\"cuda-{v}\", \"interop\"]"),
        ),
    ];
    let missing: Vec<String> = places
        .iter()
        .filter(|(file, phrase)| !prose(file).contains(phrase.as_str()))
        .map(|(file, phrase)| {
            format!("{file}: does not say the default version {v} (tagged `default` in cuda-driver-sys-items/versions.txt): {phrase}")
        })
        .collect();
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
    println!(
        "versions: the default version {v} in {} places",
        places.len()
    );
}
