//! The merge stage: combines the per-version outputs of [`generate`](crate::generate) (one
//! directory per CUDA header version) into one set of files in which every item appears once per
//! distinct text, under the `cfg` of the versions it exists in.
//!
//! The build script of `cuda-driver-sys` sets `cuda_ge_<V>` for every known version `V` at or
//! below the selected one, so an item present in versions `a..=b` carries
//! `#[cfg(all(cuda_ge_a, not(cuda_ge_<next after b>)))]` (a bound is left out at either end of
//! the known versions; an item in every version carries no `cfg`).
//!
//! The merge works item by item, with no knowledge of what the generator writes: top-level items
//! are compared by their tokens, and the contents of containers are merged one level down:
//! `extern` blocks (per function), `impl` blocks (per associated item), enums (per variant),
//! constant arrays (per element) and macro invocations whose body is a list of expressions (per
//! element). A container whose header differs between versions is a different item. Whatever a
//! later generator writes is merged the same way.
//!
//! Beside the versions, a target axis: where Windows inputs are given (the `gl` module generated
//! for `x86_64-pc-windows-gnu`, whose `cudaGL.h` declares `cuWGLGetDevice` under `_WIN32`), each
//! of their files is merged from both targets' outputs, and an item only one target has (in some
//! versions) is under `windows` or `not(windows)` as well (`variants.rs`).
//!
//! Before writing, every version (for each target) is projected back out of the merged files (its
//! `cfg`s applied) and compared token by token with that version's own output: a merge that would
//! change what any version compiles is an error, never a file. The files written add to each documented
//! item's docs the versions it exists in (`versions`); the comparison is of the same rendering
//! without those doc lines, which no version's own output has.

mod items;
mod render;
mod sequence;
mod variants;
mod versions;

use std::path::{Path, PathBuf};

use quote::ToTokens;

use crate::rust_syntax::project;
use items::{combine_top, split_item, Top};
use render::render;
use sequence::{merge_seq, Entry};
use variants::Variants;

/// One version's output directory.
pub struct Input {
    /// `CUDA_VERSION` of the header it was generated from (`12090`).
    pub version: u32,
    /// Whether it was generated for `x86_64-pc-windows-gnu` (`cfg(windows)`); otherwise for
    /// x86-64 Linux, which stands for every other target.
    pub windows: bool,
    /// The directory [`generate`](crate::generate) wrote.
    pub dir: PathBuf,
}

/// Per merged file: how many items (top-level and in containers) it holds, and how many of them
/// carry a `cfg` (of versions, or of the target).
#[derive(Debug)]
pub struct MergeSummary {
    pub files: Vec<(String, usize, usize)>,
}

/// Merges `inputs` (any order) into `out_dir`. `hint` says how to regenerate.
///
/// The Windows inputs, where there are any, are of the same versions as the others, and hold
/// the files whose Windows output differs (the generator's `--only gl`): those files get the
/// target axis (an item only one target has is under `windows` or `not(windows)`); every other
/// file is the other inputs' for both targets.
pub fn merge(inputs: &[Input], out_dir: &Path, hint: &str) -> Result<MergeSummary, String> {
    let (mut windows, mut inputs): (Vec<&Input>, Vec<&Input>) =
        inputs.iter().partition(|i| i.windows);
    inputs.sort_by_key(|i| i.version);
    windows.sort_by_key(|i| i.version);
    if inputs.is_empty() {
        return Err("merge: no input directories".into());
    }
    let versions: Vec<u32> = inputs.iter().map(|i| i.version).collect();
    if !windows.is_empty()
        && windows
            .iter()
            .map(|i| i.version)
            .ne(versions.iter().copied())
    {
        return Err("merge: the Windows inputs are not of the same versions as the others".into());
    }
    let rust_files = |dir: &Path| -> Result<Vec<String>, String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect();
        names.sort();
        Ok(names)
    };
    let names = rust_files(&inputs.last().unwrap().dir)?;
    let windows_names = match windows.last() {
        Some(w) => rust_files(&w.dir)?,
        None => Vec::new(),
    };
    if let Some(n) = windows_names.iter().find(|n| !names.contains(n)) {
        return Err(format!("merge: {n} is in the Windows inputs only"));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let mut summary = MergeSummary { files: Vec::new() };
    for name in &names {
        let variants = Variants {
            versions: versions.clone(),
            windows: windows_names.contains(name),
        };
        let file_inputs = inputs
            .iter()
            .chain(windows.iter().filter(|_| variants.windows));
        let mut merged: Vec<Entry<Top>> = Vec::new();
        let mut originals = Vec::new();
        let mut comments = String::new();
        for (vi, input) in file_inputs.enumerate() {
            let path = input.dir.join(name);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("merge: cannot read {}: {e}", path.display()))?;
            if !input.windows {
                comments = leading_comments(&text);
            }
            let file = syn::parse_file(&text)
                .map_err(|e| format!("merge: {} does not parse: {e}", path.display()))?;
            let items = file
                .items
                .iter()
                .map(|i| split_item(i, vi))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("merge: {}: {e}", path.display()))?;
            merged = merge_seq(merged, items, vi, &mut combine_top);
            originals.push(file);
        }
        let (text, count, with_cfg) = render(&merged, &variants, true)?;
        syn::parse_file(&text)
            .map_err(|e| format!("merge: the merged {name} does not parse: {e}"))?;
        // Every version (for each target), projected back out of the merged text (without the
        // versions lines), is exactly its own output (up to the trailing commas of lists, which
        // the projection drops on both sides).
        let (checked, _, _) = render(&merged, &variants, false)?;
        let rendered = syn::parse_file(&checked)
            .map_err(|e| format!("merge: the merged {name} does not parse: {e}"))?;
        for (vi, original) in originals.into_iter().enumerate() {
            let variant = variants.variant(vi);
            let mut projected = rendered.clone();
            let mut expected = original;
            project(&mut projected, variant).map_err(|e| format!("merge: {name}: {e}"))?;
            project(&mut expected, variant).map_err(|e| format!("merge: {name}: {e}"))?;
            if projected.to_token_stream().to_string() != expected.to_token_stream().to_string() {
                return Err(format!(
                    "merge: {name} for CUDA_VERSION {}{} would not be what the generator wrote",
                    variant.version,
                    if variant.windows { " on Windows" } else { "" }
                ));
            }
        }
        // The header pair the file comes from: a module's (`gl_bindings.rs`: cudaGL.h) or cuda.h's.
        let set = crate::header_set::MODULES
            .iter()
            .find(|m| name.starts_with(&format!("{}_", m.module)))
            .unwrap_or(&crate::header_set::CORE);
        let header = format!(
            "// @generated by cuda-driver-sys-generator from the {} and {} of \
             CUDA {}: one copy of each item, under the\n// cfg of the header versions it exists \
             in (`cuda_ge_<V>`, set by cuda-driver-sys-items's build script for every version <= the \
             selected one){}.\n{} Merged by cuda_driver_sys_generator::merge \
             (cuda-driver-sys-items/generator/src/merge/).\n// Do not edit by hand. To regenerate: {hint}\n\n",
            set.headers[0],
            set.headers[1],
            versions
                .iter()
                .map(|v| format!("{}.{}", v / 1000, v % 1000 / 10))
                .collect::<Vec<_>>()
                .join(", "),
            if variants.windows {
                ",\n// and of the target where x86_64-pc-windows-gnu's output differs (`windows`: what the \
                 header declares under _WIN32)"
            } else {
                ""
            },
            crate::generated_file::emitter_line(set, name)?,
        );
        let path = out_dir.join(name);
        std::fs::write(&path, format!("{header}{comments}{text}"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        summary.files.push((name.clone(), count, with_cfg));
    }
    for set in crate::header_set::MODULES {
        let name = format!("{}.rs", set.module);
        let header = format!(
            "// @generated by cuda-driver-sys-generator: the root of the module `{}` of \
             cuda-driver-sys ({} and {}), the same for every header version.\n// Emitter: \
             cuda_driver_sys_generator::module_root (cuda-driver-sys-items/generator/src/module_root.rs).\n\
             // Do not edit by hand. To regenerate: {hint}\n\n",
            set.module, set.headers[0], set.headers[1],
        );
        let path = out_dir.join(&name);
        std::fs::write(&path, crate::module_root::text(set, &header))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        summary.files.push((name, 0, 0));
    }
    let name = "driver_table.rs";
    let header = format!(
        "// @generated by cuda-driver-sys-generator: the driver-entry table's type, one field of \
         slots per header, the same for every header version.\n// Emitter: \
         cuda_driver_sys_generator::driver_table (cuda-driver-sys-items/generator/src/driver_table.rs).\n\
         // Do not edit by hand. To regenerate: {hint}\n\n"
    );
    let path = out_dir.join(name);
    std::fs::write(&path, crate::driver_table::text(&header))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    summary.files.push((name.into(), 0, 0));
    Ok(summary)
}

/// The `//` lines that follow the generator's `@generated` header, which a blank line ends (kept
/// as they are); not a doc comment (`///`), which belongs to the first item.
fn leading_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text
        .lines()
        .skip_while(|l| !l.is_empty())
        .skip_while(|l| l.is_empty())
    {
        if !line.starts_with("//") || line.starts_with("///") || line.starts_with("//!") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
