//! `cargo xtask doc-check`: cuda-driver-sys's docs as docs.rs builds them: `DOCS_RS=1`, the
//! features of `[package.metadata.docs.rs]`, `--cfg docsrs` (its `doc_cfg` badges; stable rustdoc
//! through RUSTC_BOOTSTRAP, as docs.rs's nightly), in an environment of only PATH, HOME,
//! CARGO_HOME and RUSTUP_HOME: no CUDA, no driver library, no headers; also with default features,
//! as a dependent's `cargo doc` builds it (no broken link where the table is off). Then:
//! - the share of documented public items (rustdoc --show-coverage) must be 100%;
//! - the rendered pages of a few items must show the facts the generator documents: the header,
//!   the C declaration, the symbol a C spelling binds, the CUDA versions, the PFN_* typedef and its
//!   ABI, NVIDIA's reference page of the item's group (one more build under the version tagged
//!   `ctx-create-v4`, for the C spelling cuCtxCreate that binds cuCtxCreate_v4 there);
//! - the enum pages (CUresult, CUdevice_attribute) say each line once (the NVIDIA line), show an
//!   enumerator's value, and both values of one that changed between the supported headers;
//! - no page has a badge of a negated feature ("non-crate feature `table-only`");
//! - each of these three checks fails on a copy of a page broken that way (the controls).
//!
//! Also cuda-check's docs without its default features: no warning (no broken link). About a
//! minute, most of it the rustdoc runs.

mod pages;

use crate::base::args::Args;
use crate::base::files::{create_dir, read, remove_dir, write};
use crate::base::process::{self, root};
use crate::base::{capture, cargo_json, versions, Result};
use pages::{lacking, negated_badges, repeated, replace_first};
use std::path::{Path, PathBuf};
use std::process::Command;

const MEM: &str = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html";
const ALLOC_DECL: &str = "CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);";
const TYPES_LINE: &str = "<li>NVIDIA: <a href=\"https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html\">Data types used by CUDA driver</a></li>";
/// CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 93 in cuda.h 11.7 and 11.8, 122 from 12.0
/// on.
const BOTH_VALUES: &str =
    "<li>Values: <code>93</code> in CUDA 11.7 to 11.8; <code>122</code> since CUDA 12.0</li>";

const EVERY: &str = "In every supported header";
/// The pages of a function, its C spelling, an enum, a PFN typedef and an interop function, and
/// what each must show.
const ITEM_PAGES: [(&str, &[&str]); 5] = [
    (
        "fn.cuMemAlloc_v2.html",
        &[
            ALLOC_DECL,
            "<code>cuda.h</code>",
            "href=\"fn.cuMemAlloc.html\"",
            "href=\"type.PFN_cuMemAlloc_v3020.html\"",
            "the ABI of CUDA 3.2",
            MEM,
            EVERY,
            "dynamic-loading",
        ],
    ),
    (
        "fn.cuMemAlloc.html",
        &[
            "C spelling",
            "<code>cuMemAlloc_v2</code>",
            ALLOC_DECL,
            "href=\"type.PFN_cuMemAlloc_v3020.html\"",
            MEM,
            EVERY,
        ],
    ),
    (
        "struct.CUresult.html",
        &[
            "<code>cuda.h</code>",
            "<code>enum cudaError_enum</code>",
            "group__CUDA__TYPES.html",
            "valid",
            EVERY,
        ],
    ),
    (
        "type.PFN_cuMemAlloc_v3020.html",
        &["<code>cudaTypedefs.h</code>",
          "typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);",
          "the ABI of CUDA 3.2", MEM, EVERY],
    ),
    (
        "gl/fn.cuGraphicsGLRegisterBuffer.html",
        &["<code>cudaGL.h</code>",
          "CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource, GLuint buffer, unsigned int Flags);",
          "PFN_cuGraphicsGLRegisterBuffer_v3000", "group__CUDA__GL.html", EVERY,
          "Available on <strong>crate feature", "<code>gl</code></strong> only."],
    ),
];

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

    let sys = ["-p", "cuda-driver-sys"];
    process::run(&mut docs_rs(
        &target.join("default"),
        &sys,
        &["-D", "warnings"],
    ))?;
    println!("doc-check: default features: no warning");
    println!("doc-check: features {features}");
    build(&target.join("docs-rs"), &features)?;
    let (documented, percent) = coverage(&target, &features)?;

    let mut check = Check {
        target: target.clone(),
        facts: 0,
    };
    let doc = target.join("docs-rs/doc/cuda_driver_sys");
    check.item_pages(&doc)?;
    check.enum_pages(&doc)?;
    let badged = negated_badges(&doc)?;
    if let Some(first) = badged.first() {
        return Err(format!(
            "a negated feature's badge (\"non-crate feature\") on {} pages, first {}",
            badged.len(),
            first.display()
        )
        .into());
    }
    println!("doc-check: no page has a negated feature's badge");
    controls(&doc, &target.join("broken"))?;

    let cuda_check = ["-p", "cuda-check", "--no-default-features"];
    let warnings = ["-D", "warnings"];
    process::run(&mut docs_rs(
        &target.join("cuda-check"),
        &cuda_check,
        &warnings,
    ))?;
    println!("doc-check: cuda-check without default features: no warning");

    // cuda.h's macro makes cuCtxCreate cuCtxCreate_v4 from the version tagged `ctx-create-v4` on.
    let v4 = versions::the_one("ctx-create-v4")?;
    let v4_name = format!("cuda-{v4}");
    build(
        &target.join(&v4_name),
        &features.replacen(&version, &v4_name, 1),
    )?;
    check.page(
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
    println!(
        "doc-check: {} facts found on 9 pages; {documented} public items, {percent} documented",
        check.facts
    );
    Ok(())
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
        features,
    ];
    docs_rs(
        target_dir,
        &cargo_args,
        &[&["--cfg", "docsrs"], args].concat(),
    )
}

/// cuda-driver-sys's docs as docs.rs builds them with `features`, warnings denied.
fn build(target_dir: &Path, features: &str) -> Result {
    process::run(&mut with_features(
        target_dir,
        features,
        &["-D", "warnings"],
    ))
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
    let total = text
        .lines()
        .find(|l| l.starts_with("| Total"))
        .ok_or("no Total line in rustdoc --show-coverage's table")?;
    println!("doc-check: documented public items: {total}");
    let (documented, percent) =
        total_columns(total).ok_or("no Total line in rustdoc --show-coverage's table")?;
    if percent != "100.0%" {
        return Err(
            format!("{percent} of the public items documented ({documented}), not 100%").into(),
        );
    }
    Ok((documented, percent))
}

/// The documented count and share of a `| Total | N | P% | ...` line.
fn total_columns(line: &str) -> Option<(String, String)> {
    let mut columns = line.split('|').map(|c| c.replace(' ', "")).skip(2);
    Some((columns.next()?, columns.next()?))
}

/// The page checks, counting the facts they found.
struct Check {
    target: PathBuf,
    facts: usize,
}

impl Check {
    /// The page must hold every fact; with `once`, each at most once.
    fn page(&mut self, file: &Path, facts: &[&str], once: bool) -> Result {
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
        let shown = file.strip_prefix(&self.target).unwrap_or(file);
        println!("doc-check: {} {holds}", shown.display());
        self.facts += n;
        Ok(())
    }

    /// The pages of a function, its C spelling, an enum, a PFN typedef, an interop function and a
    /// table slot.
    fn item_pages(&mut self, doc: &Path) -> Result {
        for (page, facts) in ITEM_PAGES {
            self.page(&doc.join(page), facts, false)?;
        }
        let table = doc.join("table/struct.DriverTable.html");
        let part = pages::method(&read(&table)?, "cuMemAlloc");
        if part.is_empty() {
            return Err(format!("no method cuMemAlloc on {}", table.display()).into());
        }
        let part_file = self.target.join("DriverTable.cuMemAlloc.html");
        write(&part_file, &part)?;
        let slot = [
            "<code>cuMemAlloc_v2</code>",
            "href=\"../entry/constant.cuMemAlloc_v3020.html\"",
            "the ABI of CUDA 3.2",
            EVERY,
        ];
        self.page(&part_file, &slot, false)
    }

    /// The enum pages: the NVIDIA line once, a list item of its own; enumerators with their
    /// values, both of one whose value changed.
    fn enum_pages(&mut self, doc: &Path) -> Result {
        let result = doc.join("struct.CUresult.html");
        let value = "<code>CUDA_ERROR_INVALID_VALUE = 1</code>";
        self.page(&result, &[TYPES_LINE, value], false)?;
        self.page(&result, &["NVIDIA: "], true)?;
        let attribute = doc.join("struct.CUdevice_attribute.html");
        let facts = [
            TYPES_LINE,
            "<code>CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1</code>",
            "<code>CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122</code>",
            BOTH_VALUES,
        ];
        self.page(&attribute, &facts, false)?;
        self.page(&attribute, &["NVIDIA: "], true)
    }
}

/// The controls: each check finds a page broken its way, in copies under `broken`.
fn controls(doc: &Path, broken: &Path) -> Result {
    remove_dir(broken)?;
    create_dir(&broken.join("badge"))?;
    let result = read(&doc.join("struct.CUresult.html"))?;
    let attribute = read(&doc.join("struct.CUdevice_attribute.html"))?;

    let twice = replace_first(&result, TYPES_LINE, &format!("{TYPES_LINE}\n{TYPES_LINE}"));
    write(&broken.join("repeat.html"), &twice)?;
    control("its NVIDIA line twice", &repeated(&twice, &["NVIDIA: "]))?;

    let no_value = replace_first(
        &result,
        "CUDA_ERROR_INVALID_VALUE = 1",
        "CUDA_ERROR_INVALID_VALUE",
    );
    write(&broken.join("value.html"), &no_value)?;
    control(
        "no value",
        &lacking(&no_value, &["<code>CUDA_ERROR_INVALID_VALUE = 1</code>"]),
    )?;

    let one_value = replace_first(
        &attribute,
        "<li>Values: <code>93</code> in CUDA 11.7 to 11.8; ",
        "<li>Values: ",
    );
    write(&broken.join("values.html"), &one_value)?;
    control("one value of two", &lacking(&one_value, &[BOTH_VALUES]))?;

    let badge = "<div class=\"stab portability\">Available on <strong>non-crate feature <code>table-only</code></strong> only.</div>";
    let alloc = read(&doc.join("fn.cuMemAlloc_v2.html"))?;
    let block = "<div class=\"docblock\">";
    let badged = replace_first(&alloc, block, &format!("{badge}{block}"));
    write(&broken.join("badge/fn.cuMemAlloc_v2.html"), &badged)?;
    let found: Vec<String> = negated_badges(&broken.join("badge"))?
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    control("a negated feature's badge", &found)
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
        assert_eq!(
            total_columns(line),
            Some(("12345".to_string(), "100.0%".to_string()))
        );
        assert_eq!(total_columns("| Total |"), None);
    }

    #[test]
    fn a_control_without_findings_fails() {
        assert!(control("x", &[]).is_err());
        assert!(control("x", &["[y]".to_string()]).is_ok());
    }
}
