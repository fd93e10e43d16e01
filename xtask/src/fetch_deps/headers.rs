//! `headers/<V>/`: per version of the version list, `cuda.h`, `cudaTypedefs.h` and the interop
//! headers from its runtime wheel, and `cudaProfiler.h` from its profiler wheel (whose releases do
//! not always match the runtime's patch number: versions.txt says which).

use super::{files, log, wheel};
use crate::versions::Version;
use crate::Result;
use std::path::Path;

/// The headers taken from a runtime wheel's `include/`: the driver's and the interop headers'.
const RUNTIME_HEADERS: &[&str] = &[
    "cuda.h",
    "cudaTypedefs.h",
    "cudaGL.h",
    "cudaGLTypedefs.h",
    "cudaEGL.h",
    "cudaEGLTypedefs.h",
    "cudaVDPAU.h",
    "cudaVDPAUTypedefs.h",
    "cudaProfilerTypedefs.h",
];

/// A version's runtime headers count as fetched when these are there.
const RUNTIME_FETCHED: &[&str] = &["cuda.h", "cudaTypedefs.h", "cudaGL.h"];

/// The header taken from a profiler wheel's `include/`.
const PROFILER_HEADER: &str = "cudaProfiler.h";

/// The folder of version `number`'s headers.
pub fn folder(deps: &Path, number: u32) -> std::path::PathBuf {
    deps.join("headers").join(number.to_string())
}

/// Fetches the headers each of `versions` lacks.
pub fn fetch(deps: &Path, versions: &[Version]) -> Result {
    for v in versions {
        let dir = folder(deps, v.number);
        if all_there(&dir, RUNTIME_FETCHED) {
            continue;
        }
        log(&format!(
            "downloading {} for cuda.h, cudaTypedefs.h and the interop headers",
            v.runtime_wheel
        ));
        files::create_dir(&dir)?;
        take_headers(&v.runtime_wheel, RUNTIME_HEADERS, &dir)?;
        if !all_there(&dir, RUNTIME_FETCHED) {
            return Err(format!("no headers in {}", v.runtime_wheel).into());
        }
    }
    for v in versions {
        let dir = folder(deps, v.number);
        if dir.join(PROFILER_HEADER).is_file() {
            continue;
        }
        log(&format!(
            "downloading {} for {PROFILER_HEADER}",
            v.profiler_wheel
        ));
        take_headers(&v.profiler_wheel, &[PROFILER_HEADER], &dir)?;
        if !dir.join(PROFILER_HEADER).is_file() {
            return Err(format!("no {PROFILER_HEADER} in {}", v.profiler_wheel).into());
        }
    }
    Ok(())
}

fn all_there(dir: &Path, names: &[&str]) -> bool {
    names.iter().all(|name| dir.join(name).is_file())
}

/// Unpacks into `dir` the members of the x86-64 wheel `requirement` that [`header_name`] takes.
fn take_headers(requirement: &str, names: &[&str], dir: &Path) -> Result {
    let downloaded = wheel::download("x86_64", &[requirement])?;
    for whl in downloaded.wheels()? {
        for member in wheel::members(&whl)? {
            if let Some(name) = header_name(&member, names) {
                wheel::extract(&whl, &member, &dir.join(name))?;
            }
        }
    }
    Ok(())
}

/// The file name of the wheel member `member` when it is one of `names` in an `include/` folder.
fn header_name<'m>(member: &'m str, names: &[&str]) -> Option<&'m str> {
    let name = member.rsplit('/').next()?;
    (names.contains(&name) && member.contains("/include/")).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::{header_name, RUNTIME_HEADERS};

    #[test]
    fn headers_are_taken_from_include_folders_only() {
        let take = |m| header_name(m, RUNTIME_HEADERS);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda.h"), Some("cuda.h"));
        assert_eq!(take("nvidia/cu13/include/cudaGL.h"), Some("cudaGL.h"));
        assert_eq!(take("nvidia/cuda_runtime/lib/cuda.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda_runtime.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/"), None);
    }
}
