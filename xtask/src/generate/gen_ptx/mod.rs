//! `cargo xtask gen-ptx [--check]`: regenerates the PTX that the examples load
//! (examples/kernels/*.ptx) from the CUDA C sources next to them (examples/kernels/*.cu) with the
//! pinned NVRTC ([`crate::base::deps::ptx_tools`]; `--check`: into a temporary folder, failing on
//! any byte of difference from the committed PTX), then checks every committed PTX with the pinned
//! ptxas, the hand-written ones ([`HAND_WRITTEN`]: texture and surface references) too.
//!
//! Target: compute_52 (the oldest architecture the pinned NVRTC and every newer driver support),
//! so the same PTX JIT-compiles for every GPU those drivers drive; a kernel that uses a newer
//! architecture's features names its own (compute_90 for Hopper's clusters and tensor memory
//! accelerator), and its PTX loads on those GPUs only. The output is byte-for-byte
//! deterministic: same wheel, same sources, same options, and NVRTC is given only each source's
//! base name. --std=c++03 keeps NVRTC from emitting the dozens of unused nv::target constants
//! (<nv/target>, C++11 and later) into every PTX.

mod nvrtc;

use crate::base::args::Args;
use crate::base::deps::ptx_tools::{parse_isa, Pins, Tools};
use crate::base::files::{create_dir, write};
use crate::base::scratch::Scratch;
use crate::base::{process, Result};
use fs_err as fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// The NVRTC option of every PTX besides its architecture.
const STD: &str = "--std=c++03";

/// The virtual architecture of a PTX that names none: the oldest the pinned NVRTC supports.
const OLDEST: &str = "compute_52";

/// Hopper's architecture (clusters, the tensor memory accelerator, programmatic dependent
/// launch): its PTX loads on compute capability 9.0 GPUs only.
const HOPPER: &str = "compute_90";

/// How a PTX's code is compiled and checked.
#[derive(Clone, Copy, PartialEq)]
enum Code {
    /// Whole-program code.
    Whole,
    /// Relocatable (-rdc): ptx_link0's kernel calls a function defined in ptx_link1, and the
    /// example links the two with cuLinkAddData(CU_JIT_INPUT_PTX).
    Relocatable,
    /// It calls a device function the driver provides when it loads the PTX
    /// (`cudaGraphSetConditional`, newer than the pinned ptxas): ptxas checks it as relocatable
    /// code (`--compile-only`), which leaves the call unresolved.
    DriverCall,
}
use Code::*;

/// What to build: `examples/kernels/<name>.ptx` from `<name>.cu`, its virtual architecture and
/// code.
const TARGETS: &[(&str, &str, Code)] = &[
    ("vector_add", OLDEST, Whole),
    ("ptx_jit", OLDEST, Whole),
    ("ptx_link0", OLDEST, Relocatable),
    ("ptx_link1", OLDEST, Relocatable),
    ("param_buffer", OLDEST, Whole),
    ("context_independent_loading", OLDEST, Whole),
    // The group programs' kernels (examples/groups/).
    ("stream_memops", OLDEST, Whole),
    ("peer", OLDEST, Whole),
    ("textures", OLDEST, Whole),
    ("launch", HOPPER, Whole),
    ("tensor_map", HOPPER, Whole),
    ("green_contexts", OLDEST, Whole),
    ("late_write", OLDEST, Whole),
    ("library", OLDEST, Whole),
    ("graphs", OLDEST, DriverCall),
];

/// PTX written by hand (no CUDA 12 compiler emits texture and surface references), of the
/// oldest architecture: checked with the generated PTX, never regenerated.
const HAND_WRITTEN: &[(&str, &str, Code)] = &[("texture_references", OLDEST, Whole)];

/// The real architectures ptxas checks a PTX of virtual architecture `arch` for: its own
/// (`compute_52`: `sm_52`) and Hopper's, where the GPU checks run.
fn ptxas_arches(arch: &str) -> Vec<String> {
    let own = arch.replace("compute_", "sm_");
    let mut arches = vec![own];
    if arches[0] != "sm_90" {
        arches.push("sm_90".into());
    }
    arches
}

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let check = args.flag("--check");
    let pins = Pins::read()?;
    let tools = pins.fetch()?;
    let kernels = process::root().join("examples/kernels");
    let scratch = check.then(|| Scratch::new("gen-ptx")).transpose()?;
    let out = scratch.as_ref().map_or(kernels.as_path(), Scratch::path);
    create_dir(out)?;
    let generated = generate(&tools, &kernels, out, check);
    drop(scratch);
    let verified = verify(&tools, &pins, &kernels);
    if generated? & verified? {
        Ok(())
    } else {
        Err("the PTX is not what the pinned tools give or accept: the lines above say which".into())
    }
}

/// Prints a line of the task's report on stderr.
macro_rules! log {
    ($($line:tt)*) => { eprintln!("gen-ptx: {}", format_args!($($line)*)) };
}

/// Compiles every target into `out`; with `check`, compares each with the committed one. Whether
/// all are the same.
fn generate(tools: &Tools, kernels: &Path, out: &Path, check: bool) -> Result<bool> {
    let (mut same, nvrtc) = (true, nvrtc::Nvrtc::load(&tools.nvrtc)?);
    for &(name, arch, code) in TARGETS {
        let architecture = format!("--gpu-architecture={arch}");
        let mut options = vec![architecture.as_str(), STD];
        options.extend((code == Relocatable).then_some("--relocatable-device-code=true"));
        let source = format!("{name}.cu");
        let ptx = nvrtc::compile(&nvrtc, &kernels.join(&source), &options)?;
        let file = format!("{name}.ptx");
        let (path, committed) = (out.join(&file), kernels.join(&file));
        write(&path, &ptx)?;
        if !check {
            log!("wrote examples/kernels/{name}.ptx");
            continue;
        }
        let old = fs::read_to_string(&committed).unwrap_or_default();
        if old.as_bytes() == ptx {
            log!("examples/kernels/{name}.ptx is up to date");
            continue;
        }
        log!(
            "examples/kernels/{name}.ptx differs from what cargo xtask gen-ptx generates from \
             {source}:"
        );
        let new = String::from_utf8_lossy(&ptx);
        let diff = similar::TextDiff::from_lines(old.as_str(), &new);
        let (a, b) = (committed.display().to_string(), path.display().to_string());
        let diff = diff.unified_diff().header(&a, &b).to_string();
        for line in diff.lines().take(40) {
            eprintln!("{line}");
        }
        same = false;
    }
    Ok(same)
}

/// Checks the committed PTX (generated and hand-written): ISA version at most the pinned one,
/// accepted by ptxas for every architecture, and the deliberately broken PTX of ptx_jit rejected.
/// Whether all passed.
fn verify(tools: &Tools, pins: &Pins, kernels: &Path) -> Result<bool> {
    let mut ok = true;
    let release = &tools.release;
    let isa = format!("{}.{}", pins.isa.0, pins.isa.1);
    let ptxas = |arch: &str, rdc: &str, path: &Path| {
        let mut ptxas = Command::new(&tools.ptxas);
        ptxas
            .arg(format!("-arch={arch}"))
            .args((!rdc.is_empty()).then_some(rdc));
        ptxas.arg(path).args(["-o", "/dev/null"]);
        ptxas
    };
    for &(name, arch, code) in TARGETS.iter().chain(HAND_WRITTEN) {
        let path = kernels.join(format!("{name}.ptx"));
        let Ok(text) = fs::read_to_string(&path) else {
            log!("missing {}", path.display());
            ok = false;
            continue;
        };
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix(".version "))
            .unwrap_or_default();
        if parse_isa(version).is_none_or(|v| v > pins.isa) {
            let shown = if version.is_empty() { "?" } else { version };
            log!("{name}.ptx: .version {shown} is newer than {isa} (CUDA {release})");
            ok = false;
        }
        // Relocatable: unresolved calls are resolved at link time (or, for a driver call, when
        // the driver loads the PTX).
        let rdc = if code == Whole { "" } else { "--compile-only" };
        for arch in ptxas_arches(arch) {
            let mut ptxas = ptxas(&arch, rdc, &path);
            if process::status(&mut ptxas).is_ok_and(|s| s.success()) {
                log!("{name}.ptx: .version {version}, ptxas {release} -arch={arch} {rdc} ok");
            } else {
                log!("{name}.ptx: ptxas {release} -arch={arch} {rdc} FAILED");
                ok = false;
            }
        }
    }
    let broken = kernels.join("ptx_jit_broken.ptx");
    if !broken.is_file() {
        log!("missing {}", broken.display());
        return Ok(false);
    }
    let mut ptxas = ptxas(&ptxas_arches(OLDEST)[0], "", &broken);
    if process::status(ptxas.stderr(Stdio::null())).is_ok_and(|s| s.success()) {
        log!("ptx_jit_broken.ptx: ptxas accepted it, but it must fail to compile");
        ok = false;
    } else {
        log!("ptx_jit_broken.ptx: rejected by ptxas as intended");
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ptxas_checks_the_own_architecture_and_hoppers() {
        assert_eq!(super::ptxas_arches("compute_52"), ["sm_52", "sm_90"]);
        assert_eq!(super::ptxas_arches("compute_90"), ["sm_90"]);
    }
}
