//! The Rust loops, each the twin of a C function of `bench_twin.c`: the same iteration count, the
//! same calls in the same order, every result OR-ed into an accumulator checked after the loop,
//! the clock read around the loop only. Each returns (seconds, OR of the results).

use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::ptr;
use std::time::Instant;

use cuda_check::{check_driver, try_driver, DriverError};
use cuda_driver_sys::*;

/// The out-parameter of the call-overhead loops: the C twin's `c_bench_out`, one address for every
/// loop of both twins (where it lies moves with ASLR from run to run; both sides of a ratio then
/// write the same place).
fn shared_out<T>() -> *mut T {
    const { assert!(size_of::<T>() <= 64) };
    // Only its address is taken; the driver writes through it, one loop at a time.
    (&raw mut crate::twin::c_bench_out).cast()
}

/// The four forms of one call without a device argument: bare, in `check_driver!`, as
/// `try_driver!(..)?` and through the driver-entry table.
macro_rules! overhead_loops {
    ($f:ident: $out:ty; $bare:ident, $check:ident, $tried:ident, $table:ident) => {
        #[inline(never)]
        pub fn $bare(n: u64) -> (f64, u32) {
            let out = shared_out::<$out>();
            let mut acc = 0u32;
            let t0 = Instant::now();
            for _ in 0..n {
                acc |= unsafe { $f(out) }.0;
            }
            let secs = t0.elapsed().as_secs_f64();
            black_box(unsafe { out.read() });
            (secs, black_box(acc))
        }

        /// C: the posts' `checkDriver`.
        #[inline(never)]
        pub fn $check(n: u64) -> (f64, u32) {
            let out = shared_out::<$out>();
            let mut ok = true;
            let t0 = Instant::now();
            for _ in 0..n {
                if !check_driver!(unsafe { $f(out) }) {
                    ok = false;
                }
            }
            let secs = t0.elapsed().as_secs_f64();
            black_box(unsafe { out.read() });
            (secs, u32::from(!black_box(ok)))
        }

        /// `try_driver!(..)?` as library code uses it; C: return on the first error.
        #[inline(never)]
        pub fn $tried(n: u64) -> (f64, u32) {
            fn tried(n: u64, out: *mut $out) -> Result<(), DriverError> {
                for _ in 0..n {
                    try_driver!(unsafe { $f(out) })?;
                }
                Ok(())
            }
            let out = shared_out::<$out>();
            let t0 = Instant::now();
            let result = tried(n, out);
            let secs = t0.elapsed().as_secs_f64();
            black_box(unsafe { out.read() });
            (secs, u32::from(black_box(result.is_err())))
        }

        /// Through the driver-entry table; C: through the pointer from `cuGetProcAddress`.
        #[inline(never)]
        pub fn $table(n: u64) -> (f64, u32) {
            let out = shared_out::<$out>();
            let mut acc = 0u32;
            let t0 = Instant::now();
            for _ in 0..n {
                acc |= unsafe { table().$f(out) }.0;
            }
            let secs = t0.elapsed().as_secs_f64();
            black_box(unsafe { out.read() });
            (secs, black_box(acc))
        }
    };
}

overhead_loops!(cuCtxGetCurrent: CUcontext;
    ctx_get_current, ctx_get_current_check, ctx_get_current_try, ctx_get_current_table);
overhead_loops!(cuDriverGetVersion: c_int;
    driver_get_version, driver_get_version_check, driver_get_version_try,
    driver_get_version_table);

/// The launch parameters of the empty kernel `bench_empty(u64, u64)`, both ways: `kernelParams`
/// and a `CU_LAUNCH_PARAM_BUFFER_POINTER` buffer (16 bytes, no padding). Boxed: the pointers
/// point into it.
pub struct LaunchArgs {
    values: [u64; 2],
    params: [*mut c_void; 2],
    buffer_size: usize,
    extra: [*mut c_void; 5],
}

impl LaunchArgs {
    pub fn new() -> Box<LaunchArgs> {
        let mut a = Box::new(LaunchArgs {
            values: [0; 2],
            params: [ptr::null_mut(); 2],
            buffer_size: 16,
            extra: [ptr::null_mut(); 5],
        });
        let values = a.values.as_mut_ptr();
        a.params = [values.cast(), values.wrapping_add(1).cast()];
        a.extra = [
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            values.cast(),
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            (&raw mut a.buffer_size).cast(),
            CU_LAUNCH_PARAM_END,
        ];
        a
    }

    /// (kernelParams, extra) for a launch through `kernelParams`.
    pub fn by_params(&mut self) -> (*mut *mut c_void, *mut *mut c_void) {
        (self.params.as_mut_ptr(), ptr::null_mut())
    }

    /// (kernelParams, extra) for a launch through the parameter buffer.
    pub fn by_buffer(&mut self) -> (*mut *mut c_void, *mut *mut c_void) {
        (ptr::null_mut(), self.extra.as_mut_ptr())
    }
}

/// `n` launches of one thread of `f` on `stream`, then `cuStreamSynchronize`, all timed.
#[inline(never)]
pub fn launch(
    f: CUfunction,
    stream: CUstream,
    (params, extra): (*mut *mut c_void, *mut *mut c_void),
    n: u64,
) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, extra) }.0;
    }
    acc |= unsafe { cuStreamSynchronize(stream) }.0;
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

/// [`launch`] with every call in `check_driver!`.
#[inline(never)]
pub fn launch_check(
    f: CUfunction,
    stream: CUstream,
    (params, extra): (*mut *mut c_void, *mut *mut c_void),
    n: u64,
) -> (f64, u32) {
    let mut ok = true;
    let t0 = Instant::now();
    for _ in 0..n {
        if !check_driver!(unsafe { cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, extra) })
        {
            ok = false;
        }
    }
    if !check_driver!(unsafe { cuStreamSynchronize(stream) }) {
        ok = false;
    }
    (t0.elapsed().as_secs_f64(), u32::from(!black_box(ok)))
}

#[inline(never)]
pub fn htod(d: CUdeviceptr, h: *const c_void, bytes: usize, n: u64) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { cuMemcpyHtoD(d, h, bytes) }.0;
    }
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

#[inline(never)]
pub fn dtoh(h: *mut c_void, d: CUdeviceptr, bytes: usize, n: u64) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { cuMemcpyDtoH(h, d, bytes) }.0;
    }
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

#[inline(never)]
pub fn htod_async(
    d: CUdeviceptr,
    h: *const c_void,
    bytes: usize,
    stream: CUstream,
    n: u64,
) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { cuMemcpyHtoDAsync(d, h, bytes, stream) }.0;
    }
    acc |= unsafe { cuStreamSynchronize(stream) }.0;
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

#[inline(never)]
pub fn dtoh_async(
    h: *mut c_void,
    d: CUdeviceptr,
    bytes: usize,
    stream: CUstream,
    n: u64,
) -> (f64, u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..n {
        acc |= unsafe { cuMemcpyDtoHAsync(h, d, bytes, stream) }.0;
    }
    acc |= unsafe { cuStreamSynchronize(stream) }.0;
    (t0.elapsed().as_secs_f64(), black_box(acc))
}

/// `cuModuleLoadData` (timed), then `cuModuleUnload`, in the current context.
#[inline(never)]
pub fn jit_load(ptx: *const c_void) -> (f64, u32) {
    let mut module: CUmodule = ptr::null_mut();
    let t0 = Instant::now();
    let code = unsafe { cuModuleLoadData(&mut module, ptx) };
    let secs = t0.elapsed().as_secs_f64();
    let mut acc = code.0;
    if code == CUDA_SUCCESS {
        acc |= unsafe { cuModuleUnload(module) }.0;
    }
    (secs, acc)
}

/// `rounds` times over `list`, each entry point looked up once per round with its default
/// flags: (seconds, lookups that gave a function, XOR of the pointers).
#[inline(never)]
pub fn lookup_list(list: &[EntryPointInfo], rounds: u64) -> (f64, i64, usize) {
    let mut found = 0i64;
    let mut sink = 0usize;
    let t0 = Instant::now();
    for _ in 0..rounds {
        for info in list {
            if let Ok(p) = info.lookup(info.default_flags()) {
                found += 1;
                sink ^= p.as_ptr() as usize;
            }
        }
    }
    (t0.elapsed().as_secs_f64(), found, black_box(sink))
}

/// `entry::cuCtxGetCurrent.get()`, `n` times: (seconds, lookups that gave it, XOR of them).
#[inline(never)]
pub fn lookup_one(n: u64) -> (f64, i64, usize) {
    let mut found = 0i64;
    let mut sink = 0usize;
    let t0 = Instant::now();
    for _ in 0..n {
        if let Ok(f) = entry::cuCtxGetCurrent.get() {
            found += 1;
            sink ^= f as usize;
        }
    }
    (t0.elapsed().as_secs_f64(), found, black_box(sink))
}
