//! Every place that must name each interop module of the generator's table of header sets
//! (`cuda-driver-sys-items/generator/src/header_set.rs`, `MODULES`) and cannot read it: the module's
//! feature in the manifests of cuda-driver-sys-items and cuda-driver-sys and their docs.rs feature
//! lists, the tests' `interop` feature, the module's declaration
//! (`cuda-driver-sys-items/src/items.rs`), the Features line of `cuda-driver-sys/src/lib.rs`, the README's
//! line of the module features, the tests that take each module by its path (`interop.rs`,
//! `prototypes.rs`), and its regenerated files. A failure names each file and what it lacks (or
//! has that the table does not).

#[allow(dead_code)]
#[path = "../cuda-driver-sys-items/generator/src/header_set.rs"]
mod header_set;
use header_set::MODULES;

#[path = "common/workspace.rs"]
mod workspace;
use workspace::{read, workspace};

/// The quoted strings of the list `key = [...]` that starts a line of `manifest` (after
/// `after`, the first line of the section it is in), or `None` where there is no such line.
fn list(manifest: &str, after: &str, key: &str) -> Option<Vec<String>> {
    let section = &manifest[manifest.find(after)?..];
    let start = section
        .lines()
        .find(|l| l.split_once('=').is_some_and(|(k, _)| k.trim() == key))?;
    let body = start.split_once('[')?.1.split(']').next()?;
    let items = body.split(',').map(|s| s.trim().trim_matches('"'));
    Some(
        items
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// What `found` (a list of `file`, its `what`) lacks of `want`, and what it has that is not
/// wanted, where `is_module` says an entry is a module's.
fn compare(
    file: &str,
    what: &str,
    want: &[String],
    found: &[String],
    is_module: impl Fn(&str) -> bool,
) -> Vec<String> {
    let missing = want.iter().filter(|w| !found.contains(w));
    let mut errors: Vec<String> = missing
        .map(|w| format!("{file}: {what} lacks \"{w}\" (a module of the header-set table)"))
        .collect();
    for f in found.iter().filter(|f| is_module(f) && !want.contains(f)) {
        errors.push(format!(
            "{file}: {what} has \"{f}\", which is no module of the header-set table"
        ));
    }
    errors
}

/// The lines `cuda-driver-sys-items/src/items.rs` declares the module `m` with.
fn declaration(m: &str) -> String {
    format!(
        "#[cfg(feature = \"{m}\")]\n#[path = \"generated/{m}.rs\"]\npub mod {m};\n\
         #[cfg(feature = \"{m}\")]\npub use {m}::*;\n"
    )
}

#[test]
fn every_place_names_each_interop_module() {
    let modules: Vec<String> = MODULES.iter().map(|s| s.module.to_string()).collect();
    let mut errors = Vec::new();

    // The items crate's feature, and cuda-driver-sys's of the same name turning it on; each
    // crate's docs.rs list.
    for (file, form) in [
        ("cuda-driver-sys-items/Cargo.toml", "{m} = []"),
        (
            "cuda-driver-sys/Cargo.toml",
            "{m} = [\"cuda-driver-sys-items/{m}\"]",
        ),
    ] {
        let manifest = read(file);
        for m in &modules {
            let want = form.replace("{m}", m);
            if !manifest.lines().any(|l| l.trim() == want) {
                errors.push(format!("{file}: [features] lacks `{want}`"));
            }
        }
        let docs_rs = list(&manifest, "[package.metadata.docs.rs]", "features").unwrap_or_default();
        errors.extend(compare(
            file,
            "the docs.rs features",
            &modules,
            &docs_rs,
            |_| false,
        ));
    }

    // The tests' `interop` turns on every module; the root package's (the profiler example's)
    // only modules.
    let qualified: Vec<String> = modules
        .iter()
        .map(|m| format!("cuda-driver-sys/{m}"))
        .collect();
    let is_module = |f: &str| f.starts_with("cuda-driver-sys/");
    let tests = list(&read("tests/Cargo.toml"), "[features]", "interop").unwrap_or_default();
    errors.extend(compare(
        "tests/Cargo.toml",
        "feature interop",
        &qualified,
        &tests,
        is_module,
    ));
    let root = list(&read("Cargo.toml"), "[features]", "interop").unwrap_or_default();
    for f in root.iter().filter(|f| !qualified.contains(f)) {
        errors.push(format!(
            "Cargo.toml: feature interop has \"{f}\", which is no module of the header-set table"
        ));
    }

    let lib = read("cuda-driver-sys-items/src/items.rs");
    let file = "cuda-driver-sys-items/src/items.rs";
    for m in &modules {
        if !lib.contains(&declaration(m)) {
            errors.push(format!(
                "{file}: no declaration of the module {m}; add, with its docs:\n{}",
                declaration(m)
            ));
        }
    }
    for line in lib
        .lines()
        .filter(|l| l.starts_with("#[path = \"generated/"))
    {
        let name = line.trim_start_matches("#[path = \"generated/");
        let name = name.split('.').next().unwrap_or_default();
        if !modules.iter().any(|m| m == name) {
            errors.push(format!(
                "{file}: declares the module {name}, which is no module of the header-set table"
            ));
        }
    }
    let lib = read("cuda-driver-sys/src/lib.rs");
    let file = "cuda-driver-sys/src/lib.rs";
    let features = modules.iter().map(|m| format!("`{m}`"));
    let bullet = format!(
        "//! - {}: the other driver-API headers",
        features.collect::<Vec<_>>().join(", ")
    );
    if !lib.lines().any(|l| l.starts_with(&bullet)) {
        errors.push(format!(
            "{file}: its Features section has no line beginning {bullet} (the modules of the \
             header-set table, in its order)"
        ));
    }

    // The tests that take each module by its path (a module cannot be named from a string).
    let tests = [
        ("tests/interop.rs", "module!(\"{header}\", {m})"),
        ("tests/prototypes.rs", "{m}::entry::ALL.len()"),
    ];
    for (file, form) in tests {
        let text = read(file);
        for set in MODULES {
            let want = form
                .replace("{header}", set.headers[0])
                .replace("{m}", set.module);
            if !text.contains(&want) {
                errors.push(format!(
                    "{file}: does not test the module {}: add `{want}`",
                    set.module
                ));
            }
        }
    }

    // The README's line of the module features and their headers.
    let headers = MODULES.iter().map(|s| format!("`{}`", s.headers[0]));
    let line = format!(
        "- {}: {}.",
        modules
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", "),
        headers.collect::<Vec<_>>().join(", ")
    );
    if !read("README.md").lines().any(|l| l == line) {
        errors.push(format!(
            "README.md: its list of features has no line {line} (the modules of the header-set \
             table, in its order, and their headers)"
        ));
    }

    let generated = workspace().join("cuda-driver-sys-items/src/generated");
    let driver_table = std::fs::read_to_string(generated.join("driver_table.rs"));
    for m in &modules {
        let root = generated.join(format!("{m}.rs"));
        let field = format!("pub(crate) {m}: Slots<");
        if !root.is_file() || !driver_table.as_ref().is_ok_and(|t| t.contains(&field)) {
            errors.push(format!(
                "cuda-driver-sys-items/src/generated: no files of the module {m} (its root {m}.rs, its \
                 field in driver_table.rs); run `cargo xtask regenerate`"
            ));
        }
    }

    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
    println!(
        "header sets: {} interop modules of the table ({}), each in the 2 manifests, the docs.rs \
         list, lib.rs, README.md, interop.rs, prototypes.rs and the generated files",
        modules.len(),
        modules.join(", ")
    );
}
