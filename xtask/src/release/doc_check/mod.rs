//! `cargo xtask doc-check`: cuda-driver-sys's docs as docs.rs builds them (`DOCS_RS=1`, the
//! features of `[package.metadata.docs.rs]`, `--cfg docsrs` through RUSTC_BOOTSTRAP, an
//! environment of only PATH, HOME, CARGO_HOME and RUSTUP_HOME: no CUDA, no driver library, no
//! headers) and with default features, as a dependent's `cargo doc` builds them: 100% of public
//! items documented, the facts of nine rendered pages ([`PAGES`]; one more build under the version
//! tagged `ctx-create-v4`, for the C spelling cuCtxCreate that binds cuCtxCreate_v4 there), no
//! badge of a negated feature, each of these checks failing on a copy of a page broken its way
//! (the controls); also cuda-check's docs without its default features, no warning.

mod pages;

use crate::base::args::Args;
use crate::base::files::{create_dir, read, remove_dir, write};
use crate::base::process::{self, root};
use crate::base::{capture, cargo_json, versions, Result};
use pages::{lacking, negated_badges, repeated, replace_first};
use std::path::Path;
use std::process::Command;

/// The pages checked, relative to the target folder, each followed by the facts (fixed strings
/// of its HTML) it must show, one per indented line; `once` after a page: it says [`NVIDIA`] at
/// most once. The
/// pages of a function, its C spelling, an enum, a PFN typedef, an interop function, a table slot
/// (the method's part of the table's page), and the enum pages (the NVIDIA line once, a list item
/// of its own; enumerators with their values, both of one whose value changed).
const PAGES: &str = r#"
docs-rs/doc/cuda_driver_sys/fn.cuMemAlloc_v2.html
  CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
  <code>cuda.h</code>
  href="fn.cuMemAlloc.html"
  href="type.PFN_cuMemAlloc_v3020.html"
  the ABI of CUDA 3.2
  https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html
  In every supported header
  dynamic-loading
docs-rs/doc/cuda_driver_sys/fn.cuMemAlloc.html
  C spelling
  <code>cuMemAlloc_v2</code>
  CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
  href="type.PFN_cuMemAlloc_v3020.html"
  https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html
  In every supported header
docs-rs/doc/cuda_driver_sys/struct.CUresult.html
  <code>cuda.h</code>
  <code>enum cudaError_enum</code>
  group__CUDA__TYPES.html
  valid
  In every supported header
docs-rs/doc/cuda_driver_sys/type.PFN_cuMemAlloc_v3020.html
  <code>cudaTypedefs.h</code>
  typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);
  the ABI of CUDA 3.2
  https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html
  In every supported header
docs-rs/doc/cuda_driver_sys/gl/fn.cuGraphicsGLRegisterBuffer.html
  <code>cudaGL.h</code>
  CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource, GLuint buffer, unsigned int Flags);
  PFN_cuGraphicsGLRegisterBuffer_v3000
  group__CUDA__GL.html
  In every supported header
  Available on <strong>crate feature
  <code>gl</code></strong> only.
DriverTable.cuMemAlloc.html
  <code>cuMemAlloc_v2</code>
  href="../entry/constant.cuMemAlloc_v3020.html"
  the ABI of CUDA 3.2
  In every supported header
docs-rs/doc/cuda_driver_sys/struct.CUresult.html
  <li>NVIDIA: <a href="https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html">Data types used by CUDA driver</a></li>
  <code>CUDA_ERROR_INVALID_VALUE = 1</code>
docs-rs/doc/cuda_driver_sys/struct.CUresult.html once
docs-rs/doc/cuda_driver_sys/struct.CUdevice_attribute.html
  <li>NVIDIA: <a href="https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html">Data types used by CUDA driver</a></li>
  <code>CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1</code>
  <code>CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122</code>
  <li>Values: <code>93</code> in CUDA 11.7 to 11.8; <code>122</code> since CUDA 12.0</li>
docs-rs/doc/cuda_driver_sys/struct.CUdevice_attribute.html once
"#;
/// What starts the NVIDIA line, which the enum pages say once.
const NVIDIA: &str = "NVIDIA: ";
/// The NVIDIA line of the enum pages, which a control repeats.
const TYPES_LINE: &str = "<li>NVIDIA: <a href=\"https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html\">Data types used by CUDA driver</a></li>";
/// CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 93 in cuda.h 11.7 and 11.8, 122 from 12.0
/// on; a control drops the first.
const BOTH_VALUES: &str =
    "<li>Values: <code>93</code> in CUDA 11.7 to 11.8; <code>122</code> since CUDA 12.0</li>";

/// `cargo xtask doc-check`.
pub fn run(_: &Args) -> Result {
    let target = root().join("target/doc-check");
    let [sys] = cargo_json::packages(["cuda-driver-sys"])?;
    let features = docs_rs_features(&sys)
        .ok_or("no features in cuda-driver-sys/Cargo.toml's [package.metadata.docs.rs]")?;
    let version = (features.split(','))
        .find(|f| (f.strip_prefix("cuda-")).is_some_and(|n| n.parse::<u32>().is_ok()))
        .ok_or("the docs.rs features name no cuda-<V> version feature")?
        .to_string();
    let warnings = ["-D", "warnings"];

    let sys = ["-p", "cuda-driver-sys"];
    process::run(&mut docs_rs(&target.join("default"), &sys, &warnings))?;
    println!("doc-check: default features: no warning");
    println!("doc-check: features {features}");
    let docs_rs_dir = target.join("docs-rs");
    process::run(&mut with_features(&docs_rs_dir, &features, &warnings))?;
    let (documented, percent) = coverage(&target, &features)?;

    let doc = target.join("docs-rs/doc/cuda_driver_sys");
    let table = doc.join("table/struct.DriverTable.html");
    let slot = pages::method(&read(&table)?, "cuMemAlloc");
    if slot.is_empty() {
        return Err(format!("no method cuMemAlloc on {}", table.display()).into());
    }
    write(&target.join("DriverTable.cuMemAlloc.html"), &slot)?;
    let mut facts = 0;
    let mut lines = PAGES.lines().skip(1).peekable();
    while let Some(page) = lines.next() {
        let (page, once) = page
            .strip_suffix(" once")
            .map_or((page, false), |p| (p, true));
        let mut wanted = Vec::new();
        while let Some(fact) = lines.next_if(|l| l.starts_with("  ")) {
            wanted.push(&fact[2..]);
        }
        if once {
            wanted.push(NVIDIA);
        }
        facts += check_page(&target, &target.join(page), &wanted, once)?;
    }
    let badged = negated_badges(&doc)?;
    if let Some(first) = badged.first() {
        return Err(format!(
            "a negated feature's badge (\"non-crate feature\") on {} pages, first {}",
            badged.len(),
            first
        )
        .into());
    }
    println!("doc-check: no page has a negated feature's badge");
    controls(&doc, &target.join("broken"))?;

    let cuda_check = ["-p", "cuda-check", "--no-default-features"];
    process::run(&mut docs_rs(
        &target.join("cuda-check"),
        &cuda_check,
        &warnings,
    ))?;
    println!("doc-check: cuda-check without default features: no warning");

    // cuda.h's macro makes cuCtxCreate cuCtxCreate_v4 from the version tagged `ctx-create-v4` on.
    let v4 = versions::the_one("ctx-create-v4")?;
    let v4_name = format!("cuda-{v4}");
    let v4_features = features.replacen(&version, &v4_name, 1);
    process::run(&mut with_features(
        &target.join(&v4_name),
        &v4_features,
        &warnings,
    ))?;
    facts += check_page(
        &target,
        &target.join(format!("{v4_name}/doc/cuda_driver_sys/fn.cuCtxCreate.html")),
        &[
            "C spelling",
            "<code>cuCtxCreate_v4</code>",
            "CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);",
            "href=\"type.PFN_cuCtxCreate_v12050.html\"",
            "the ABI of CUDA 12.5",
            "group__CUDA__CTX.html",
            &format!("As written here: since CUDA {}", versions::dotted(v4)),
        ],
        false,
    )?;
    println!("doc-check: {facts} facts found on 9 pages; {documented} public items, {percent} documented");
    Ok(())
}

/// The page `file` (shown relative to `target`) must hold every fact; with `once`, each at most
/// once; the number of facts.
fn check_page(target: &Path, file: &Path, facts: &[&str], once: bool) -> Result<usize> {
    let text = read(file).map_err(|e| format!("no page: {e}"))?;
    let n = facts.len();
    let (faults, fault, holds) = match once {
        false => (
            lacking(&text, facts),
            "lacks",
            format!("shows its {n} facts"),
        ),
        true => (
            repeated(&text, facts),
            "repeats",
            format!("says each of its {n} lines once"),
        ),
    };
    if !faults.is_empty() {
        return Err(format!("{} {fault}: {} ", file.display(), faults.join(" ")).into());
    }
    let shown = file.strip_prefix(target).unwrap_or(file);
    println!("doc-check: {} {holds}", shown.display());
    Ok(n)
}

/// The features of the package's `[package.metadata.docs.rs]` (`cargo metadata`'s), comma-separated.
fn docs_rs_features(package: &serde_json::Value) -> Option<String> {
    let list = package["metadata"]["docs"]["rs"]["features"].as_array()?;
    let features: Vec<&str> = list.iter().filter_map(|f| f.as_str()).collect();
    (!features.is_empty()).then(|| features.join(","))
}

/// `cargo rustdoc --lib` with the cargo arguments `cargo_args` and rustdoc's `rustdoc_args`, into
/// `target_dir`, as docs.rs runs it: nothing of this machine's CUDA setup reaches the build.
fn docs_rs(target_dir: &Path, cargo_args: &[&str], rustdoc_args: &[&str]) -> Command {
    let mut cargo = process::command("cargo");
    cargo.args(["rustdoc", "--lib"]).args(cargo_args);
    cargo.arg("--").args(rustdoc_args).env_clear();
    // Without CARGO_HOME and RUSTUP_HOME, cargo and rustup find theirs under HOME.
    for name in ["PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME"] {
        if let Some(value) = std::env::var_os(name) {
            cargo.env(name, value);
        }
    }
    cargo
        .env("DOCS_RS", "1")
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_TERM_COLOR", "never");
    cargo
}

/// cuda-driver-sys's docs with only `features` (docs.rs's, `--cfg docsrs`) and rustdoc's `args`,
/// into `target_dir`.
fn with_features(target_dir: &Path, features: &str, args: &[&str]) -> Command {
    let cargo_args = [
        "-p",
        "cuda-driver-sys",
        "--no-default-features",
        "--features",
    ];
    let rustdoc_args = [&["--cfg", "docsrs"], args].concat();
    docs_rs(
        target_dir,
        &[&cargo_args[..], &[features]].concat(),
        &rustdoc_args,
    )
}

/// rustdoc --show-coverage's total: the documented public items and their share, which must be
/// 100%.
fn coverage(target: &Path, features: &str) -> Result<(String, String)> {
    let args = ["-Z", "unstable-options", "--show-coverage"];
    let mut rustdoc = with_features(&target.join("coverage"), features, &args);
    let (status, text) = capture::merged(&mut rustdoc)?;
    if !status.success() {
        eprintln!("{text}");
    }
    process::check(&rustdoc, status)?;
    let no_total = "no Total line in rustdoc --show-coverage's table";
    let total = text
        .lines()
        .find(|l| l.starts_with("| Total"))
        .ok_or(no_total)?;
    println!("doc-check: documented public items: {total}");
    let (documented, percent) = total_columns(total).ok_or(no_total)?;
    if percent != "100.0%" {
        let why = format!("{percent} of the public items documented ({documented}), not 100%");
        return Err(why.into());
    }
    Ok((documented, percent))
}

/// The documented count and share of a `| Total | N | P% | ...` line.
fn total_columns(line: &str) -> Option<(String, String)> {
    let mut columns = line.split('|').map(|c| c.replace(' ', "")).skip(2);
    Some((columns.next()?, columns.next()?))
}

/// The controls: each check finds a page broken its way, in copies under `broken`.
fn controls(doc: &Path, broken: &Path) -> Result {
    remove_dir(broken)?;
    create_dir(&broken.join("badge"))?;
    let result = read(&doc.join("struct.CUresult.html"))?;
    let attribute = read(&doc.join("struct.CUdevice_attribute.html"))?;

    let twice = replace_first(&result, TYPES_LINE, &format!("{TYPES_LINE}\n{TYPES_LINE}"));
    write(&broken.join("repeat.html"), &twice)?;
    control("its NVIDIA line twice", &repeated(&twice, &[NVIDIA]))?;

    let value = "CUDA_ERROR_INVALID_VALUE";
    let no_value = replace_first(&result, &format!("{value} = 1"), value);
    write(&broken.join("value.html"), &no_value)?;
    let fact = format!("<code>{value} = 1</code>");
    control("no value", &lacking(&no_value, &[&fact]))?;

    let values = "<li>Values: ";
    let two = format!("{values}<code>93</code> in CUDA 11.7 to 11.8; ");
    let one_value = replace_first(&attribute, &two, values);
    write(&broken.join("values.html"), &one_value)?;
    control("one value of two", &lacking(&one_value, &[BOTH_VALUES]))?;

    let badge = "<div class=\"stab portability\">Available on <strong>non-crate feature <code>table-only</code></strong> only.</div>";
    let alloc = read(&doc.join("fn.cuMemAlloc_v2.html"))?;
    let block = "<div class=\"docblock\">";
    let badged = replace_first(&alloc, block, &format!("{badge}{block}"));
    write(&broken.join("badge/fn.cuMemAlloc_v2.html"), &badged)?;
    control(
        "a negated feature's badge",
        &negated_badges(&broken.join("badge"))?,
    )
}

/// A control: the check's findings on a page broken as `what` says must not be empty.
fn control(what: &str, findings: &[String]) -> Result {
    let first = findings
        .first()
        .ok_or(format!("control: the check passes a page with {what}"))?;
    println!("doc-check: control: {what}: {first}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_rs_features_of_the_manifest() {
        let package = |metadata| serde_json::json!({ "metadata": metadata });
        let docs_rs =
            package(serde_json::json!({"docs": {"rs": {"features": ["cuda-1", "table"]}}}));
        assert_eq!(docs_rs_features(&docs_rs).as_deref(), Some("cuda-1,table"));
        assert_eq!(docs_rs_features(&package(serde_json::Value::Null)), None);
        let empty = package(serde_json::json!({"docs": {"rs": {"features": []}}}));
        assert_eq!(docs_rs_features(&empty), None);
    }

    #[test]
    fn coverage_total() {
        let line = "| Total                 |      12345 |     100.0% |          0 |       0.0% |";
        let columns = total_columns(line).expect("a Total line");
        assert_eq!([columns.0, columns.1], ["12345", "100.0%"]);
        assert_eq!(total_columns("| Total |"), None);
    }

    #[test]
    fn a_control_without_findings_fails() {
        assert!(control("x", &[]).is_err());
        assert!(control("x", &["[y]".to_string()]).is_ok());
    }
}
