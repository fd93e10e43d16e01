//! `cuda-driver-sys-generator --include DIR --out DIR [--cc COMPILER] [--interop DIR] [--only
//! MODULE]`: writes the bindings of one CUDA header version; with `--interop DIR` (where
//! `GL/gl.h`, `EGL/eglext.h` and `vdpau/vdpau.h` are) also those of the profiler, OpenGL, EGL and
//! VDPAU headers; with `--only gl`, only the files of that module (`gl_*.rs`).
//!
//! `cuda-driver-sys-generator merge --out DIR DIR... [--windows DIR...]`: merges the outputs of
//! several versions (each a directory the first form wrote; after `--windows`, those generated
//! for `x86_64-pc-windows-gnu`) into one set of files, each item under the `cfg` of the versions
//! (and target) it exists in.
//!
//! `cuda-driver-sys-generator project --version V [--windows] FILE...`: rewrites each merged file
//! as what version `V` compiles of it (on Windows with `--windows`), without those cfgs.
//!
//! `cargo xtask regenerate` runs the first for every pinned version (and `--only gl` for Windows),
//! then the second; `cargo xtask platforms` the third, to type-check the Windows items on Linux.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cuda-driver-sys-generator --include DIR --out DIR [--cc COMPILER] \
                     [--interop DIR] [--only MODULE]\n       \
                     cuda-driver-sys-generator merge --out DIR INPUT_DIR... [--windows INPUT_DIR...]\n       \
                     cuda-driver-sys-generator project --version V [--windows] FILE...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("merge") {
        return merge(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("project") {
        return project(&args[1..]);
    }
    let mut args = args.into_iter();
    let (mut include, mut out, mut cc, mut interop) = (None, None, PathBuf::from("cc"), None);
    let mut only_module = None;
    while let Some(a) = args.next() {
        let value = args.next().map(PathBuf::from);
        match (a.as_str(), value) {
            ("--include", Some(v)) => include = Some(v),
            ("--out", Some(v)) => out = Some(v),
            ("--cc", Some(v)) => cc = v,
            ("--interop", Some(v)) => interop = Some(v),
            ("--only", Some(v)) => only_module = Some(v.to_string_lossy().into_owned()),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(include_dir), Some(out_dir)) = (include, out) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let opts = cuda_driver_sys_generator::Options {
        include_dir,
        interop_include: interop,
        out_dir,
        c_compiler: cc,
        only_module,
        regenerate_hint: "cargo xtask regenerate".into(),
    };
    match cuda_driver_sys_generator::generate(&opts) {
        Ok(summary) => {
            println!("{}: {summary:?}", opts.out_dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cuda-driver-sys-generator: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `merge --out DIR INPUT_DIR... [--windows INPUT_DIR...]`: each input's version is the
/// `CUDA_VERSION` its files say.
fn merge(args: &[String]) -> ExitCode {
    let (Some("--out"), Some(out)) = (args.first().map(String::as_str), args.get(1)) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let mut inputs = Vec::new();
    let mut windows = false;
    for dir in &args[2..] {
        if dir == "--windows" {
            windows = true;
            continue;
        }
        let dir = PathBuf::from(dir);
        match cuda_driver_sys_generator::generated_version(&dir) {
            Ok(version) => inputs.push(cuda_driver_sys_generator::merge::Input {
                version,
                windows,
                dir,
            }),
            Err(e) => {
                eprintln!("cuda-driver-sys-generator merge: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    match cuda_driver_sys_generator::merge::merge(&inputs, out.as_ref(), "cargo xtask regenerate") {
        Ok(summary) => {
            for (file, items, with_cfg) in summary.files {
                println!("{out}/{file}: {items} items, {with_cfg} under a cfg");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cuda-driver-sys-generator merge: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `project --version V [--windows] FILE...`: each file rewritten as that variant's projection.
fn project(args: &[String]) -> ExitCode {
    let (Some("--version"), Some(Ok(version))) = (
        args.first().map(String::as_str),
        args.get(1).map(|v| v.parse::<u32>()),
    ) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let windows = args.get(2).map(String::as_str) == Some("--windows");
    let variant = cuda_driver_sys_generator::rust_syntax::Variant { version, windows };
    for path in &args[2 + windows as usize..] {
        let projected = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {path}: {e}"))
            .and_then(|text| {
                syn::parse_file(&text).map_err(|e| format!("{path} does not parse: {e}"))
            })
            .and_then(|mut file| {
                cuda_driver_sys_generator::rust_syntax::project(&mut file, variant)?;
                std::fs::write(path, prettyplease::unparse(&file))
                    .map_err(|e| format!("cannot write {path}: {e}"))
            });
        if let Err(e) = projected {
            eprintln!("cuda-driver-sys-generator project: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
