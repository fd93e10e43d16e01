//! `headers/<V>/`: per version of the version list, `cuda.h`, `cudaTypedefs.h` and the interop
//! headers from its runtime wheel, and `cudaProfiler.h` from its profiler wheel (whose releases do
//! not always match the runtime's patch number: versions.txt says which).

use super::header_set::{self, Wheel};
use super::{log, wheel};
use crate::base::versions::Version;
use crate::base::Result;
use std::path::{Path, PathBuf};

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
pub fn folder(deps: &Path, number: u32) -> PathBuf {
    deps.join("headers").join(number.to_string())
}

/// Fetches the headers each of `versions` lacks: the runtime wheels' first, then the profiler's.
pub fn fetch(deps: &Path, versions: &[Version]) -> Result {
    for kind in [Wheel::Runtime, Wheel::Profiler] {
        let names = headers_from(kind);
        let what = match kind {
            Wheel::Runtime => "cuda.h, cudaTypedefs.h and the interop headers".to_string(),
            Wheel::Profiler => names.join(", "),
        };
        for v in versions {
            let dir = folder(deps, v.number);
            let all_there = || names.iter().all(|name| dir.join(name).is_file());
            if all_there() {
                continue;
            }
            let wheel = match kind {
                Wheel::Runtime => &v.runtime_wheel,
                Wheel::Profiler => &v.profiler_wheel,
            };
            log(&format!("downloading {wheel} for {what}"));
            wheel::unpack("x86_64", &[wheel], &dir, |m| {
                header_name(m, &names).map(Into::into)
            })?;
            if !all_there() {
                return Err(format!("no {what} in {wheel}").into());
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
    fn each_wheel_gives_the_tables_headers_from_include_folders() {
        let runtime = headers_from(Wheel::Runtime);
        assert!(
            runtime.contains(&"cudaProfilerTypedefs.h") && !runtime.contains(&"cudaProfiler.h")
        );
        assert_eq!(headers_from(Wheel::Profiler), ["cudaProfiler.h"]);
        let take = |m| header_name(m, &runtime);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda.h"), Some("cuda.h"));
        assert_eq!(take("nvidia/cu13/include/cudaGL.h"), Some("cudaGL.h"));
        assert_eq!(take("nvidia/cuda_runtime/lib/cuda.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/cuda_runtime.h"), None);
        assert_eq!(take("nvidia/cuda_runtime/include/"), None);
    }
}
