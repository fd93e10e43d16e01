//! `migration-changes --bindings-0-3 CUDA_RS [--check]`: compares cuda-driver-sys 0.3.0's
//! bindings (`src/cuda.rs` of its `.crate`, which `cargo xtask migration-changes` fetches pinned
//! by checksum) with this crate's generated bindings at every bound header version, and writes
//! `docs/MIGRATING-CHANGES.md` (the change list, one table per kind) and
//! `cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt` (the enumerators whose value changed,
//! which the generator marks deprecated under the `compat-0-3` feature). With `--check` it writes
//! nothing and fails when either committed file differs from what it would write.

mod compare;
mod items;
mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cuda_driver_sys_generator::rust_syntax::project_version;

use items::{Feature, Items};

const USAGE: &str = "usage: migration-changes --bindings-0-3 CUDA_RS [--check]";

/// This crate's generated files that hold names a 0.3.0 dependent uses, and where they are.
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
    let (old, check) = match args.as_slice() {
        [flag, path] if flag == "--bindings-0-3" => (path, false),
        [flag, path, c] if flag == "--bindings-0-3" && c == "--check" => (path, true),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(Path::new(old), check) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("migration-changes: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(old_path: &Path, check: bool) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let old = read_items(&[(old_path.to_path_buf(), None)], None)?;
    let generated = root.join("cuda-driver-sys-items/src/generated");
    let files: Vec<(PathBuf, Feature)> = GENERATED
        .iter()
        .map(|(f, feature)| (generated.join(f), *feature))
        .collect();
    let mut versions = Vec::new();
    for v in bound_versions(&root)? {
        versions.push((v, read_items(&files, Some(v))?));
    }
    let (changes, states) = compare::changes(&old, &versions);
    let outputs = [
        (
            "docs/MIGRATING-CHANGES.md",
            render::page(&changes, &states, versions[0].0),
        ),
        (
            "cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt",
            render::renumbered(&changes),
        ),
    ];
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
                    "{path} is not what the 0.3.0 bindings and the committed ones give (line {}: \
                     `{have}`, expected `{want}`): run cargo xtask migration-changes and commit \
                     the result",
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

/// The items of `files`, projected onto `version` (this crate's merged files), or as they are.
fn read_items(files: &[(PathBuf, Feature)], version: Option<u32>) -> Result<Items, String> {
    let mut items = Items::default();
    for (path, feature) in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut file = syn::parse_file(&text)
            .map_err(|e| format!("{} does not parse: {e}", path.display()))?;
        if let Some(v) = version {
            project_version(&mut file, v)?;
        }
        items.add_file(&file, *feature)?;
    }
    Ok(items)
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
