//! Step 3: a toolkit root in CUDA_PATH (include/cuda.h of the header tagged `toolkit`, the CUDA 12
//! runtime) builds that version's C twins in the fresh clone.

use super::FirstRun;
use crate::base::capture::show_non_empty;
use crate::base::deps::env_path;
use crate::base::driver::links_stub;
use crate::base::versions::{dotted, the_one};
use crate::base::{files, process, Result};
use std::path::Path;

/// How many of the twins built to name.
const SHOWN: usize = 3;

/// Step 3.
pub fn check(run: &FirstRun) -> Result {
    let v = the_one("toolkit")?;
    let headers = env_path(
        &format!("CUDA_HEADERS_{v}"),
        &format!(
            "the {} headers (fetch-deps sets CUDA_HEADERS_{v})",
            dotted(v)
        ),
    )?;
    println!(
        "--- a toolkit root in CUDA_PATH (include/cuda.h of the {0} header, the 12 runtime) builds the {0} twins",
        dotted(v)
    );
    // A toolkit's include/ has the interop headers too (cudaGL.h, cudaProfiler.h, ...), which the
    // tests compile; the GL/EGL/VDPAU headers they include are the system's (libgl-dev, ...),
    // here through CUDA_INTEROP_INCLUDE.
    // The runtime's headers first: the pinned runtime is of an older 12.x, whose folder holds its
    // interop headers too; the version's driver headers (cuda.h and the interop ones) then
    // replace them, as one toolkit's headers are all of one version.
    let toolkit = run.scratch("toolkit");
    let include = toolkit.join("include");
    files::create_dir(&include)?;
    files::create_dir(&toolkit.join("lib64"))?;
    let mut contents = run.cudart_include.clone().into_os_string();
    contents.push("/.");
    process::run(process::command("cp").arg("-r").arg(contents).arg(&include))?;
    for path in files::named(&headers, "cuda", ".h")? {
        files::copy(&path, &include.join(files::name(&path)))?;
    }
    let cudart = "libcudart.so.12";
    files::copy(
        &run.cudart_lib.join(cudart),
        &toolkit.join("lib64").join(cudart),
    )?;
    let features = format!("cuda-{v},interop");
    let mut cargo = run.fresh("cargo");
    // A header newer than the driver (535): its group programs' twins call functions that
    // library lacks (cuMemcpyBatchAsync of 12.8), which a toolkit's stubs/libcuda.so has; the
    // build script takes a system's driver before the stubs, so the stub is named.
    if links_stub(v)? {
        cargo.env("CUDA_LIBRARY_PATH", &run.stub);
    }
    show_non_empty(
        cargo
            .env("CUDA_PATH", &toolkit)
            .env("CUDA_INTEROP_INCLUDE", &run.interop)
            .args([
                "test",
                "-q",
                "--no-default-features",
                "--features",
                &features,
            ])
            .args([
                "--test",
                "examples_parity",
                "--",
                "--test-threads",
                "1",
                "--nocapture",
            ]),
    )?;
    let mut twins = Vec::new();
    find_twins(&run.scratch("target"), false, &mut twins)?;
    for twin in twins.iter().take(SHOWN) {
        println!("  twin built: {}", twin.display());
    }
    Ok(())
}

/// The files under `dir` in a `cuda-driver-tests*/out/c-twins/` folder, in the order `find`
/// walks (`inside`: `dir` is in one).
fn find_twins(dir: &Path, inside: bool, found: &mut Vec<std::path::PathBuf>) -> Result {
    for entry in fs_err::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            let in_twins = inside
                || (path.ends_with("out/c-twins")
                    && path.to_string_lossy().contains("cuda-driver-tests"));
            find_twins(&path, in_twins, found)?;
        } else if inside && entry.file_type()?.is_file() {
            found.push(path);
        }
    }
    Ok(())
}
