//! `cuda-driver-sys-generator --include DIR --out DIR [--cc COMPILER] [--interop DIR]`: writes the bindings of one
//! CUDA header version; with `--interop DIR` (where `GL/gl.h`, `EGL/eglext.h` and `vdpau/vdpau.h`
//! are) also those of the profiler, OpenGL, EGL and VDPAU headers. `ci/regenerate.sh` runs it for
//! every committed version.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut include, mut out, mut cc, mut interop) = (None, None, PathBuf::from("cc"), None);
    while let Some(a) = args.next() {
        let value = args.next().map(PathBuf::from);
        match (a.as_str(), value) {
            ("--include", Some(v)) => include = Some(v),
            ("--out", Some(v)) => out = Some(v),
            ("--cc", Some(v)) => cc = v,
            ("--interop", Some(v)) => interop = Some(v),
            _ => {
                eprintln!(
                    "usage: cuda-driver-sys-generator --include DIR --out DIR [--cc COMPILER] [--interop DIR]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let (Some(include_dir), Some(out_dir)) = (include, out) else {
        eprintln!("usage: cuda-driver-sys-generator --include DIR --out DIR [--cc COMPILER] [--interop DIR]");
        return ExitCode::from(2);
    };
    let opts = cuda_driver_sys_generator::Options {
        include_dir,
        interop_include: interop,
        out_dir,
        c_compiler: cc,
        regenerate_hint: "ci/regenerate.sh".into(),
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
