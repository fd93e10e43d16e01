//! Built with `dynamic-loading`: calls through the dynamically loaded C spellings against the
//! same symbols linked directly, the C twin and (with `bench-cudarc`) cudarc 0.19's `sys`
//! functions, one group of loops per function.

use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::ptr;
use std::time::Instant;

use cuda_driver_sys::*;

use crate::gpu::Gpu;
use crate::paired::Run;
use crate::rows::{figures, Bench, Row, Target, Unit, TIME};
use crate::twin::*;
use crate::{c_checked, checked, loops};

/// The library's own symbols, linked directly by this program (the library is linked for the C
/// twin anyway): what a call through a dynamically loaded C spelling costs more.
mod linked {
    use cuda_driver_sys::{CUcontext, CUfunction, CUresult, CUstream};
    use std::ffi::{c_int, c_uint, c_void};
    extern "C" {
        #[link_name = "cuCtxGetCurrent"]
        pub fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult;
        #[link_name = "cuDriverGetVersion"]
        pub fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult;
        // The symbols the C spellings bind in this build's stream mode.
        #[cfg_attr(
            not(feature = "per-thread-default-stream"),
            link_name = "cuLaunchKernel"
        )]
        #[cfg_attr(
            feature = "per-thread-default-stream",
            link_name = "cuLaunchKernel_ptsz"
        )]
        #[allow(clippy::too_many_arguments)]
        pub fn cuLaunchKernel(
            f: CUfunction,
            gridDimX: c_uint,
            gridDimY: c_uint,
            gridDimZ: c_uint,
            blockDimX: c_uint,
            blockDimY: c_uint,
            blockDimZ: c_uint,
            sharedMemBytes: c_uint,
            hStream: CUstream,
            kernelParams: *mut *mut c_void,
            extra: *mut *mut c_void,
        ) -> CUresult;
        #[cfg_attr(
            not(feature = "per-thread-default-stream"),
            link_name = "cuStreamSynchronize"
        )]
        #[cfg_attr(
            feature = "per-thread-default-stream",
            link_name = "cuStreamSynchronize_ptsz"
        )]
        pub fn cuStreamSynchronize(hStream: CUstream) -> CUresult;
    }
}

#[inline(never)]
fn linked_ctx_get_current(n: u64) -> (f64, u32) {
    let mut out: CUcontext = ptr::null_mut();
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { linked::cuCtxGetCurrent(&mut out) }.0;
    }
    let secs = t0.elapsed().as_secs_f64();
    black_box(out);
    (secs, black_box(acc))
}

#[inline(never)]
fn linked_driver_get_version(n: u64) -> (f64, u32) {
    let mut out: c_int = 0;
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { linked::cuDriverGetVersion(&mut out) }.0;
    }
    let secs = t0.elapsed().as_secs_f64();
    black_box(out);
    (secs, black_box(acc))
}

#[inline(never)]
fn linked_launch(f: CUfunction, stream: CUstream, params: *mut *mut c_void, n: u64) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe {
            linked::cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, ptr::null_mut())
        }
        .0;
    }
    acc |= unsafe { linked::cuStreamSynchronize(stream) }.0;
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

#[cfg(feature = "bench-cudarc")]
mod cudarc_loops {
    use super::*;
    use cudarc::driver::sys;

    #[inline(never)]
    pub fn ctx_get_current(n: u64) -> (f64, u32) {
        let mut out: sys::CUcontext = ptr::null_mut();
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe { sys::cuCtxGetCurrent(&mut out) } as u32;
        }
        let secs = t0.elapsed().as_secs_f64();
        black_box(out);
        (secs, black_box(acc))
    }

    #[inline(never)]
    pub fn driver_get_version(n: u64) -> (f64, u32) {
        let mut out: c_int = 0;
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe { sys::cuDriverGetVersion(&mut out) } as u32;
        }
        let secs = t0.elapsed().as_secs_f64();
        black_box(out);
        (secs, black_box(acc))
    }

    #[inline(never)]
    pub fn launch(f: CUfunction, stream: CUstream, params: *mut *mut c_void, n: u64) -> (f64, u32) {
        let (f, stream): (sys::CUfunction, sys::CUstream) = (f.cast(), stream.cast());
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe {
                sys::cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, ptr::null_mut())
            } as u32;
        }
        acc |= unsafe { sys::cuStreamSynchronize(stream) } as u32;
        (t0.elapsed().as_secs_f64(), black_box(acc))
    }
}

/// One function's loops: the dynamically loaded C spelling, the linked symbol, the C twin and
/// cudarc's, in that order; `scale` turns seconds per loop into the row's unit.
fn compare(b: &mut Bench, what: &str, mut runs: Vec<Run<'_>>, n: u64, unit: Unit, scale: f64) {
    eprintln!("driver bench: {what}: dynamically loaded, linked, C, cudarc");
    let v = figures(&b.rounds.measure(&mut runs, n), |t| t * scale / n as f64);
    let cudarc = "cudarc 0.19 `sys` (dynamically loaded)";
    let mut rows = vec![
        (
            format!("{what}: dynamically loaded C spelling over the linked symbol, both Rust"),
            (0, 1),
            "linked Rust",
            TIME,
        ),
        (
            format!("{what}: dynamically loaded C spelling (C: linked)"),
            (0, 2),
            "",
            TIME,
        ),
    ];
    if v.len() > 3 {
        rows.push((
            format!("{what}: {cudarc} over the linked symbol"),
            (3, 1),
            "linked Rust",
            Target::Reported,
        ));
        rows.push((
            format!("{what}: {cudarc} (C: linked)"),
            (3, 2),
            "",
            Target::Reported,
        ));
    }
    for (name, pair, note, target) in rows {
        b.rows.push(Row::pair(name, unit, &v, pair, note, target));
    }
}

pub fn rows(b: &mut Bench, gpu: Option<&Gpu>) {
    if gpu.is_some() {
        #[allow(unused_mut)]
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(|n| checked("dynamic cuCtxGetCurrent", loops::ctx_get_current(n))),
            Box::new(|n| checked("linked cuCtxGetCurrent", linked_ctx_get_current(n))),
            Box::new(|n| {
                c_checked("C cuCtxGetCurrent", |acc| unsafe {
                    c_bench_ctx_get_current(n as i64, acc)
                })
            }),
        ];
        #[cfg(feature = "bench-cudarc")]
        runs.push(Box::new(|n| {
            checked("cudarc cuCtxGetCurrent", cudarc_loops::ctx_get_current(n))
        }));
        let calls = b.s.calls;
        compare(b, "`cuCtxGetCurrent`", runs, calls, Unit::Ns, 1e9);
    }
    #[allow(unused_mut)]
    let mut runs: Vec<Run<'_>> = vec![
        Box::new(|n| checked("dynamic cuDriverGetVersion", loops::driver_get_version(n))),
        Box::new(|n| checked("linked cuDriverGetVersion", linked_driver_get_version(n))),
        Box::new(|n| {
            c_checked("C cuDriverGetVersion", |acc| unsafe {
                c_bench_driver_get_version(n as i64, acc)
            })
        }),
    ];
    #[cfg(feature = "bench-cudarc")]
    runs.push(Box::new(|n| {
        checked(
            "cudarc cuDriverGetVersion",
            cudarc_loops::driver_get_version(n),
        )
    }));
    let calls = b.s.calls;
    compare(b, "`cuDriverGetVersion`", runs, calls, Unit::Ns, 1e9);
    if let Some(gpu) = gpu {
        let (f, st) = (gpu.kernel, gpu.stream);
        let mut args = loops::LaunchArgs::new();
        let how = args.by_params();
        #[allow(unused_mut)]
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(move |n| checked("dynamic launch", loops::launch(f, st, how, n))),
            Box::new(move |n| checked("linked launch", linked_launch(f, st, how.0, n))),
            Box::new(move |n| {
                c_checked("C launch", |acc| unsafe {
                    c_bench_launch_args(f, st, n as i64, acc)
                })
            }),
        ];
        #[cfg(feature = "bench-cudarc")]
        runs.push(Box::new(move |n| {
            checked("cudarc launch", cudarc_loops::launch(f, st, how.0, n))
        }));
        let launches = b.s.launches;
        compare(
            b,
            "`cuLaunchKernel`, empty kernel, `kernelParams`",
            runs,
            launches,
            Unit::Us,
            1e6,
        );
        drop(args);
    }
}
