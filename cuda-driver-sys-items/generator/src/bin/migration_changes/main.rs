//! `migration-changes --baseline 0.3|cust_raw CUDA_RS [--check]`: compares an older crate's
//! bindings (`src/cuda.rs` of its `.crate`, which `cargo xtask migration-changes` fetches pinned
//! by checksum: cuda-driver-sys 0.3.0, or cust_raw 0.11.3) with this crate's generated bindings at
//! every bound header version, and writes the change list, one table per kind:
//! `docs/MIGRATING-CHANGES.md` for 0.3.0, with `cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt`
//! (the enumerators whose value changed, which the generator marks deprecated under the
//! `compat-0-3` feature), or `docs/MIGRATING-CHANGES-CUST-RAW.md` for cust_raw. With `--check`
//! it writes nothing and fails when a committed file differs from what it would write.

mod compare;
mod items;
mod layout;
mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cuda_driver_sys_generator::rust_syntax::project_version;

use items::{Feature, Items};
use layout::Layouts;
use render::Baseline;

const USAGE: &str = "usage: migration-changes --baseline 0.3|cust_raw CUDA_RS [--check]";

/// The older crates compared: what the page calls them, and the files written.
const BASELINES: [Baseline; 2] = [
    Baseline {
        key: "0.3",
        name: "cuda-driver-sys 0.3.0",
        title: "cuda-driver-sys 0.3",
        short: "0.3",
        header: "10.2",
        page: "docs/MIGRATING-CHANGES.md",
        renumbered: Some("cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt"),
    },
    Baseline {
        key: "cust_raw",
        name: "cust_raw 0.11.3",
        title: "cust_raw 0.11",
        short: "cust_raw",
        header: "11.4",
        page: "docs/MIGRATING-CHANGES-CUST-RAW.md",
        renumbered: None,
    },
];

/// This crate's generated files that hold names an older crate's dependent uses, and where they are.
const GENERATED: [(&str, Feature); 7] = [
    ("bindings.rs", None),
    ("functions.rs", None),
    ("function_names.rs", None),
    ("names.rs", None),
    ("profiler_bindings.rs", Some("profiler")),
    ("profiler_functions.rs", Some("profiler")),
    ("profiler_function_names.rs", Some("profiler")),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (key, old, check) = match args.as_slice() {
        [flag, key, path] if flag == "--baseline" => (key, path, false),
        [flag, key, path, c] if flag == "--baseline" && c == "--check" => (key, path, true),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let Some(baseline) = BASELINES.iter().find(|b| b.key == key) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match run(baseline, Path::new(old), check) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("migration-changes: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(baseline: &Baseline, old_path: &Path, check: bool) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (old, tests) = read_items(&[(old_path.to_path_buf(), None)], None)?;
    if tests == 0 {
        return Err(format!(
            "{}: no layout test of bindgen's to hold the layouts to",
            old_path.display()
        ));
    }
    let generated = root.join("cuda-driver-sys-items/src/generated");
    let files: Vec<(PathBuf, Feature)> = GENERATED
        .iter()
        .map(|(f, feature)| (generated.join(f), *feature))
        .collect();
    let mut versions = Vec::new();
    for v in bound_versions(&root)? {
        versions.push((v, read_items(&files, Some(v))?.0));
    }
    let (changes, states) = compare::changes(&old, &versions, baseline.short);
    let mut outputs = vec![(
        baseline.page,
        render::page(baseline, &changes, &states, versions[0].0),
    )];
    if let Some(path) = baseline.renumbered {
        outputs.push((path, render::renumbered(&changes)));
    }
    for (path, text) in outputs {
        let full = root.join(path);
        if check {
            let committed = std::fs::read_to_string(&full).unwrap_or_default();
            if committed != text {
                let (line, (have, want)) = committed
                    .lines()
                    .chain(std::iter::repeat(""))
                    .zip(text.lines().chain(std::iter::repeat("")))
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .unwrap_or((0, ("", "")));
                return Err(format!(
                    "{path} is not what the {} bindings and the committed ones give (line {}: \
                     `{have}`, expected `{want}`): run cargo xtask migration-changes and commit \
                     the result",
                    baseline.name,
                    line + 1
                ));
            }
        } else {
            std::fs::write(&full, text).map_err(|e| format!("{}: {e}", full.display()))?;
            println!("migration-changes: wrote {path}");
        }
    }
    Ok(())
}

/// The items of `files`, projected onto `version` (this crate's merged files), or as they are,
/// with the layout of each struct and union; and the number of bindgen's layout tests in them,
/// each of which the layouts were checked against.
fn read_items(
    files: &[(PathBuf, Feature)],
    version: Option<u32>,
) -> Result<(Items, usize), String> {
    let mut items = Items::default();
    let mut layouts = Layouts::default();
    for (path, feature) in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut file = syn::parse_file(&text)
            .map_err(|e| format!("{} does not parse: {e}", path.display()))?;
        if let Some(v) = version {
            project_version(&mut file, v)?;
        }
        items.add_file(&file, *feature)?;
        layouts.add_file(&file);
    }
    for name in items.types.keys() {
        if let Some(l) = layouts.layout(name)? {
            items.layouts.insert(name.clone(), l);
        }
    }
    let tests = layouts.check_against_tests()?;
    Ok((items, tests))
}

/// The `CUDA_VERSION`s of `cuda-driver-sys-items/versions.txt`, oldest first.
fn bound_versions(root: &Path) -> Result<Vec<u32>, String> {
    let path = root.join("cuda-driver-sys-items/versions.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v = l.split_whitespace().next().unwrap_or_default();
            v.parse()
                .map_err(|_| format!("{}: `{v}` is no version", path.display()))
        })
        .collect()
}
