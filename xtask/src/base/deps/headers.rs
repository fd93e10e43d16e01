//! `headers/<V>/`: per version of the version list, `cuda.h`, `cudaTypedefs.h` and the interop
//! headers from its runtime wheel, and `cudaProfiler.h` from its profiler wheel (whose releases do
//! not always match the runtime's patch number: versions.txt says which).

use super::header_set::{self, Wheel};
use super::{log, wheel};
use crate::base::versions::Version;
use crate::base::{files, Result};
use std::path::Path;

/// The headers of the header-set table that `wheel` gives: [`Wheel::Runtime`], the driver's and
/// the interop headers (one of the profiler's two too); [`Wheel::Profiler`], `cudaProfiler.h`.
fn headers_from(wheel: Wheel) -> Vec<&'static str> {
    std::iter::once(&header_set::CORE)
        .chain(header_set::MODULES)
        .flat_map(|set| set.headers.iter().zip(set.wheels))
        .filter(|(_, w)| *w == wheel)
        .map(|(h, _)| *h)
        .collect()
}

/// The folder of version `number`'s headers.
pub fn folder(deps: &Path, number: u32) -> std::path::PathBuf {
    deps.join("headers").join(number.to_string())
}

/// Fetches the headers each of `versions` lacks.
pub fn fetch(deps: &Path, versions: &[Version]) -> Result {
    for v in versions {
        let dir = folder(deps, v.number);
        let runtime = headers_from(Wheel::Runtime);
        if all_there(&dir, &runtime) {
            continue;
        }
        log(&format!(
            "downloading {} for cuda.h, cudaTypedefs.h and the interop headers",
            v.runtime_wheel
        ));
        files::create_dir(&dir)?;
        take_headers(&v.runtime_wheel, &runtime, &dir)?;
        if !all_there(&dir, &runtime) {
            return Err(format!("no headers in {}", v.runtime_wheel).into());
        }
    }
    for v in versions {
        let dir = folder(deps, v.number);
        let profiler = headers_from(Wheel::Profiler);
        if all_there(&dir, &profiler) {
            continue;
        }
        log(&format!(
            "downloading {} for {}",
            v.profiler_wheel,
            profiler.join(", ")
        ));
        take_headers(&v.profiler_wheel, &profiler, &dir)?;
        if !all_there(&dir, &profiler) {
            return Err(format!("no {} in {}", profiler.join(", "), v.profiler_wheel).into());
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
    use super::{header_name, headers_from, Wheel};

    #[test]
    fn headers_are_taken_from_include_folders_only() {
        let runtime = headers_from(Wheel::Runtime);
        let take = |m| header_name(m, &runtime);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda.h"), Some("cuda.h"));
        assert_eq!(take("nvidia/cu13/include/cudaGL.h"), Some("cudaGL.h"));
        assert_eq!(take("nvidia/cuda_runtime/lib/cuda.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda_runtime.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/"), None);
    }

    #[test]
    fn each_wheel_gives_the_headers_of_the_table() {
        let runtime = headers_from(Wheel::Runtime);
        assert!(runtime.contains(&"cuda.h") && runtime.contains(&"cudaProfilerTypedefs.h"));
        assert!(!runtime.contains(&"cudaProfiler.h"));
        assert_eq!(headers_from(Wheel::Profiler), ["cudaProfiler.h"]);
    }
}
