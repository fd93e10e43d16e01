//! The driver benchmarks of issue 6: what calling the CUDA Driver API from Rust costs, against its
//! C twin (`tests/support/c/bench_twin.c`, compiled by the root build script against the same
//! `cuda.h` and linked into this program). Both run in this process, on the same context, stream,
//! kernel and device buffer; each measurement alternates Rust and C loops that have the same
//! structure (same iteration count, same calls in the same order, every result OR-ed into an
//! accumulator that is checked after the loop, the clock read around the loop only).
//!
//! ```text
//! cargo bench --bench driver                        # full run, device 0 (about a minute)
//! cargo bench --bench driver -- --passes 2          # two full passes, the pass-to-pass spread
//! cargo bench --bench driver -- --quick             # a fast smoke run with few iterations
//! <target>/release/deps/driver-<hash> [options]     # the built program, run without cargo
//! ```
//!
//! Options: `--passes N` (default 1), `--reps N` (repetitions per pass; default 7, 3 with
//! `--quick`), `--quick`, `--link-gbps G` (the link's nominal bandwidth in decimal GB/s, default 63:
//! PCIe Gen5 x16; the driver API has no attribute for it), `--kernels DIR` (the folder of
//! `vector_add.ptx`; else `$CUDA_KERNELS_DIR`, else `<CARGO_MANIFEST_DIR>/examples/kernels`, else
//! `./examples/kernels`), `--first-init-linked PATH` and `--first-init-dynamic PATH` (see below).
//! `BENCH_DATE` overrides the date printed in the header.
//!
//! Run by `cargo test --benches` / `--all-targets` (cargo in the environment, no `--bench`, none of
//! the options above) it only makes a smoke run with tiny counts, to prove it works, and does not
//! judge the targets. Run directly, or by `cargo bench`, it measures.
//!
//! What is measured (each figure the median of the repetitions):
//! - call overhead, ns per call: `cuDriverGetVersion` and `cuCtxGetCurrent` in a loop: bare (C:
//!   bare), in `check_driver!` (C: the posts' `checkDriver`), as `try_driver!(..)?` in a function
//!   returning `Result` (C: return on the first error), through `cuda_driver_sys::table()` (C: the
//!   pointer `cuGetProcAddress` gives); and the Rust forms over the bare Rust call;
//! - kernel launch, µs per launch: an empty kernel `bench_empty(u64, u64)` through `cuLaunchKernel`
//!   on a `CU_STREAM_NON_BLOCKING` stream, with `kernelParams` and with a
//!   `CU_LAUNCH_PARAM_BUFFER_POINTER` buffer, bare and in `check_driver!`; each loop ends with
//!   `cuStreamSynchronize`, inside the timed region;
//! - copy bandwidth, decimal GB/s: `cuMemcpyHtoD`, `cuMemcpyDtoH`, and the `Async` forms on that
//!   stream followed by `cuStreamSynchronize`, from pageable (`Vec` / `malloc`) and page-locked
//!   (`cuMemAllocHost`) memory, 4 KiB, 1 MiB and 256 MiB, as many copies as take at least 50 ms;
//!   and the page-locked 256 MiB figures over the link's nominal bandwidth;
//! - PTX JIT, ms per load: `cuModuleLoadData` of `vector_add.ptx` (then `cuModuleUnload`, untimed)
//!   in a fresh context (`cuCtxCreate` before, `cuCtxDestroy` after, by the harness for both twins),
//!   with `CUDA_CACHE_DISABLE=1`,
//!   which this program sets in its own environment before its first driver call (the C twin runs
//!   in the same process, so the driver sees the same setting for both);
//! - `cuGetProcAddress`, ns per lookup: every entry point of `cuda_driver_sys::entry::ALL` the
//!   driver's version allows, each once per round, through the typed `EntryPointInfo::lookup` (C:
//!   the raw call over the same symbol, version and flags arrays), and `entry::cuCtxGetCurrent.get()`
//!   repeated (C: the raw call). The Rust helper also compares the version with the driver's
//!   (cached `cuDriverGetVersion`): its cost is in the ratio.
//!
//! Built with `dynamic-loading` (`--features dynamic-loading`, the GPU bundle's `bench-driver-dynamic`)
//! the Rust calls above go through the dynamically loaded C spellings, and these rows are added:
//! - `cuCtxGetCurrent`, `cuDriverGetVersion` and the empty-kernel launch (`kernelParams`) through the
//!   dynamically loaded C spelling, against the same symbol linked directly (an `extern` block of
//!   this program: the library is linked for the C twin anyway) and against the C twin; with
//!   `bench-cudarc`, cudarc 0.19's `sys` function (dynamically loaded, its default) against both;
//! - with `--first-init-linked PATH --first-init-dynamic PATH` (the `first_init` program of
//!   `benches/first_init.rs` built without and with `dynamic-loading`), the time from starting a
//!   process to its first successful `cuInit(0)`, each kind started `reps` times in turn: the
//!   linked program (the dynamic linker loads the library before `main`), the dynamically loaded
//!   one (the first call opens it), and, with `bench-cudarc`, the same program calling cudarc's.
//!
//! Without a GPU (`cuInit` fails) only the `cuDriverGetVersion` and `cuGetProcAddress` rows run; the
//! rest is listed as skipped. The exit status is 0 when every row that ran met its target (see the
//! header the program prints for the targets and the noise rule), 1 otherwise or on any error.

#[cfg(feature = "table-only")]
fn main() {
    // The benchmark compares directly linked calls with C, and `table-only` links none.
    println!("driver bench: skipped: built with the table-only feature, which links no driver function to compare");
}

#[cfg(not(feature = "table-only"))]
fn main() {
    bench::main();
}

#[cfg(not(feature = "table-only"))]
mod bench {
    use std::collections::HashMap;
    use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
    use std::hint::black_box;
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::ptr;
    use std::time::Instant;

    use cuda_check::{check_driver, try_driver, DriverError};
    use cuda_driver_sys::*;

    // The C twin, tests/support/c/bench_twin.c. Each returns the seconds its loop took and stores
    // the OR of the loop's results (0: all succeeded) in `acc`.
    extern "C" {
        fn c_bench_compiler() -> *const c_char;
        fn c_bench_ctx_get_current(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_ctx_get_current_check(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_ctx_get_current_try(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_ctx_get_current_pfn(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_driver_get_version(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_driver_get_version_check(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_driver_get_version_try(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_driver_get_version_pfn(n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_launch_args(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_launch_args_check(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_launch_extra(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_launch_extra_check(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
        fn c_bench_host_alloc(bytes: usize, page_locked: c_int) -> *mut c_void;
        fn c_bench_host_free(p: *mut c_void, page_locked: c_int) -> c_uint;
        fn c_bench_htod(
            d: CUdeviceptr,
            h: *const c_void,
            bytes: usize,
            n: i64,
            acc: *mut c_uint,
        ) -> f64;
        fn c_bench_dtoh(
            h: *mut c_void,
            d: CUdeviceptr,
            bytes: usize,
            n: i64,
            acc: *mut c_uint,
        ) -> f64;
        fn c_bench_htod_async(
            d: CUdeviceptr,
            h: *const c_void,
            bytes: usize,
            s: CUstream,
            n: i64,
            acc: *mut c_uint,
        ) -> f64;
        fn c_bench_dtoh_async(
            h: *mut c_void,
            d: CUdeviceptr,
            bytes: usize,
            s: CUstream,
            n: i64,
            acc: *mut c_uint,
        ) -> f64;
        fn c_bench_jit_load(ptx: *const c_void, acc: *mut c_uint) -> f64;
        fn c_bench_proc_address_list(
            symbols: *const *const c_char,
            versions: *const c_int,
            flags: *const u64,
            count: i64,
            rounds: i64,
            found: *mut i64,
            sink: *mut usize,
        ) -> f64;
        fn c_bench_proc_address_one(
            symbol: *const c_char,
            version: c_int,
            flags: u64,
            n: i64,
            found: *mut i64,
            sink: *mut usize,
        ) -> f64;
    }

    /// The empty kernel of the launch benchmarks, hand-written PTX (ISA 8.0, sm_52: loads on every
    /// driver from CUDA 12.0 on; ptxas 12.0 accepts it for sm_52 and sm_90). Two 64-bit parameters,
    /// so the parameter buffer is 16 bytes with no padding.
    const EMPTY_PTX: &CStr = c".version 8.0
.target sm_52
.address_size 64

.visible .entry bench_empty(
	.param .u64 bench_empty_param_0,
	.param .u64 bench_empty_param_1
)
{
	ret;
}
";

    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    const COPY_SIZES: [usize; 3] = [4 * KIB, MIB, 256 * MIB];
    const MAX_COPY: usize = 256 * MIB;

    // ---- settings --------------------------------------------------------------------------------

    struct Settings {
        /// Measure and judge the targets; else (run by `cargo test`) a smoke run.
        measure: bool,
        quick: bool,
        passes: usize,
        reps: usize,
        /// Calls per overhead loop.
        calls: u64,
        /// Launches per launch loop.
        launches: u64,
        /// Copies and lookups: each measurement lasts at least this long.
        min_secs: f64,
        link_gbps: f64,
        kernels: Option<PathBuf>,
        /// The `first_init` program, linked and dynamically loaded.
        first_init_linked: Option<PathBuf>,
        first_init_dynamic: Option<PathBuf>,
        command: String,
    }

    const USAGE: &str =
        "usage: driver [--bench] [--passes N] [--reps N] [--quick] [--link-gbps G] [--kernels DIR]
  [--first-init-linked PATH --first-init-dynamic PATH]
  (or: cargo bench --bench driver -- [options]; run by cargo test without options: a smoke run)";

    fn settings() -> Settings {
        let args: Vec<String> = std::env::args().collect();
        // `cargo test --benches` / `--all-targets` runs this program with no arguments (cargo sets
        // CARGO in its environment): a smoke run. `--bench` (what `cargo bench` passes), any option
        // of this program, or a run without cargo measures.
        let own_option = |a: &String| {
            let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f);
            [
                "--bench",
                "--quick",
                "--passes",
                "--reps",
                "--link-gbps",
                "--kernels",
                "--first-init-linked",
                "--first-init-dynamic",
            ]
            .contains(&flag)
        };
        let measure = std::env::var_os("CARGO").is_none() || args.iter().skip(1).any(own_option);
        let mut quick = false;
        let mut passes = 1;
        let mut reps = None;
        let mut link_gbps = 63.0;
        let mut kernels = std::env::var_os("CUDA_KERNELS_DIR").map(PathBuf::from);
        let (mut first_init_linked, mut first_init_dynamic) = (None, None);
        let mut it = args.iter().skip(1);
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            let mut value = |name: &str| -> String {
                inline
                    .clone()
                    .or_else(|| it.next().cloned())
                    .unwrap_or_else(|| {
                        usage_error(&format!("{name} needs a value"));
                    })
            };
            match flag {
                "--bench" => {}
                "--quick" => quick = true,
                "--passes" => passes = parse_count(&value("--passes"), "--passes"),
                "--reps" => reps = Some(parse_count(&value("--reps"), "--reps")),
                "--link-gbps" => {
                    let v = value("--link-gbps");
                    link_gbps = match v.parse::<f64>() {
                        Ok(g) if g > 0.0 && g.is_finite() => g,
                        _ => usage_error(&format!("--link-gbps: not a positive number: {v}")),
                    };
                }
                "--kernels" => kernels = Some(PathBuf::from(value("--kernels"))),
                "--first-init-linked" => {
                    first_init_linked = Some(PathBuf::from(value("--first-init-linked")))
                }
                "--first-init-dynamic" => {
                    first_init_dynamic = Some(PathBuf::from(value("--first-init-dynamic")))
                }
                "-h" | "--help" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                // `cargo test -- <args>` hands its arguments to every target: ignored in a smoke run.
                other if !measure => {
                    eprintln!("driver bench: smoke run ignores argument {other:?}")
                }
                other => usage_error(&format!("unknown argument {other:?}")),
            }
        }
        let (reps, calls, launches, min_secs) = match (measure, quick) {
            (false, _) => (reps.unwrap_or(1), 1_000, 100, 0.000_5),
            (true, true) => (reps.unwrap_or(3), 1_000_000, 5_000, 0.005),
            (true, false) => (reps.unwrap_or(7), 10_000_000, 50_000, 0.05),
        };
        let passes = if measure { passes } else { 1 };
        Settings {
            measure,
            quick,
            passes,
            reps,
            calls,
            launches,
            min_secs,
            link_gbps,
            kernels,
            first_init_linked,
            first_init_dynamic,
            command: args
                .iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn parse_count(v: &str, name: &str) -> usize {
        match v.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => usage_error(&format!("{name}: not a positive integer: {v}")),
        }
    }

    fn usage_error(msg: &str) -> ! {
        eprintln!("driver bench: {msg}\n{USAGE}");
        std::process::exit(2);
    }

    fn shell_quote(s: &str) -> String {
        let plain = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%".contains(&b));
        if plain {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    }

    fn die(msg: &str) -> ! {
        let _ = std::io::stdout().flush();
        eprintln!("driver bench: error: {msg}");
        std::process::exit(1);
    }

    /// A setup call: on failure, the report of `try_driver!` and exit 1.
    macro_rules! setup {
        ($($call:tt)+) => {
            if let Err(e) = try_driver!($($call)+) {
                die(&format!("setup failed:\n{e}"));
            }
        };
    }

    // ---- the Rust loops ----------------------------------------------------------------------------
    // Each mirrors a C function of bench_twin.c and returns (seconds, OR of the results).

    macro_rules! overhead_twins {
        ($f:ident: $out:ty = $init:expr; $bare:ident, $check:ident, $tried:ident, $table:ident) => {
            #[inline(never)]
            fn $bare(n: u64) -> (f64, u32) {
                let mut out: $out = $init;
                let mut acc = 0u32;
                let t0 = Instant::now();
                for _ in 0..n {
                    acc |= unsafe { $f(&mut out) }.0;
                }
                let secs = t0.elapsed().as_secs_f64();
                black_box(out);
                (secs, black_box(acc))
            }

            #[inline(never)]
            fn $check(n: u64) -> (f64, u32) {
                let mut out: $out = $init;
                let mut ok = true;
                let t0 = Instant::now();
                for _ in 0..n {
                    ok &= check_driver!(unsafe { $f(&mut out) });
                }
                let secs = t0.elapsed().as_secs_f64();
                black_box(out);
                (secs, u32::from(!black_box(ok)))
            }

            /// `try_driver!(..)?` as library code uses it; C: return on the first error.
            #[inline(never)]
            fn $tried(n: u64) -> (f64, u32) {
                fn tried(n: u64, out: &mut $out) -> Result<(), DriverError> {
                    for _ in 0..n {
                        try_driver!(unsafe { $f(out) })?;
                    }
                    Ok(())
                }
                let mut out: $out = $init;
                let t0 = Instant::now();
                let result = tried(n, &mut out);
                let secs = t0.elapsed().as_secs_f64();
                black_box(out);
                (secs, u32::from(black_box(result.is_err())))
            }

            /// Through the driver-entry table; C: through the pointer from `cuGetProcAddress`.
            #[inline(never)]
            fn $table(n: u64) -> (f64, u32) {
                let mut out: $out = $init;
                let mut acc = 0u32;
                let t0 = Instant::now();
                for _ in 0..n {
                    acc |= unsafe { table().$f(&mut out) }.0;
                }
                let secs = t0.elapsed().as_secs_f64();
                black_box(out);
                (secs, black_box(acc))
            }
        };
    }

    overhead_twins!(cuCtxGetCurrent: CUcontext = ptr::null_mut();
        r_ctx_get_current, r_ctx_get_current_check, r_ctx_get_current_try, r_ctx_get_current_table);
    overhead_twins!(cuDriverGetVersion: c_int = 0;
        r_driver_get_version, r_driver_get_version_check, r_driver_get_version_try,
        r_driver_get_version_table);

    #[inline(never)]
    fn r_launch_args(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
        let (mut p0, mut p1) = (0u64, 0u64);
        let mut args: [*mut c_void; 2] = [(&raw mut p0).cast(), (&raw mut p1).cast()];
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe {
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    stream,
                    args.as_mut_ptr(),
                    ptr::null_mut(),
                )
            }
            .0;
        }
        acc |= unsafe { cuStreamSynchronize(stream) }.0;
        (t0.elapsed().as_secs_f64(), black_box(acc))
    }

    #[inline(never)]
    fn r_launch_args_check(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
        let (mut p0, mut p1) = (0u64, 0u64);
        let mut args: [*mut c_void; 2] = [(&raw mut p0).cast(), (&raw mut p1).cast()];
        let mut ok = true;
        let t0 = Instant::now();
        for _ in 0..n {
            ok &= check_driver!(unsafe {
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    stream,
                    args.as_mut_ptr(),
                    ptr::null_mut(),
                )
            });
        }
        ok &= check_driver!(unsafe { cuStreamSynchronize(stream) });
        (t0.elapsed().as_secs_f64(), u32::from(!black_box(ok)))
    }

    #[inline(never)]
    fn r_launch_extra(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
        let mut buffer = [0u64; 2];
        let mut size: usize = size_of_val(&buffer);
        let mut extra: [*mut c_void; 5] = [
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            buffer.as_mut_ptr().cast(),
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            (&raw mut size).cast(),
            CU_LAUNCH_PARAM_END,
        ];
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe {
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    stream,
                    ptr::null_mut(),
                    extra.as_mut_ptr(),
                )
            }
            .0;
        }
        acc |= unsafe { cuStreamSynchronize(stream) }.0;
        (t0.elapsed().as_secs_f64(), black_box(acc))
    }

    #[inline(never)]
    fn r_launch_extra_check(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
        let mut buffer = [0u64; 2];
        let mut size: usize = size_of_val(&buffer);
        let mut extra: [*mut c_void; 5] = [
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            buffer.as_mut_ptr().cast(),
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            (&raw mut size).cast(),
            CU_LAUNCH_PARAM_END,
        ];
        let mut ok = true;
        let t0 = Instant::now();
        for _ in 0..n {
            ok &= check_driver!(unsafe {
                cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    stream,
                    ptr::null_mut(),
                    extra.as_mut_ptr(),
                )
            });
        }
        ok &= check_driver!(unsafe { cuStreamSynchronize(stream) });
        (t0.elapsed().as_secs_f64(), u32::from(!black_box(ok)))
    }

    #[inline(never)]
    fn r_htod(d: CUdeviceptr, h: *const c_void, bytes: usize, n: u64) -> (f64, u32) {
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe { cuMemcpyHtoD(d, h, bytes) }.0;
        }
        (t0.elapsed().as_secs_f64(), black_box(acc))
    }

    #[inline(never)]
    fn r_dtoh(h: *mut c_void, d: CUdeviceptr, bytes: usize, n: u64) -> (f64, u32) {
        let mut acc = 0u32;
        let t0 = Instant::now();
        for _ in 0..n {
            acc |= unsafe { cuMemcpyDtoH(h, d, bytes) }.0;
        }
        (t0.elapsed().as_secs_f64(), black_box(acc))
    }

    #[inline(never)]
    fn r_htod_async(
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
    fn r_dtoh_async(
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
    fn r_jit_load(ptx: *const c_void) -> (f64, u32) {
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
    fn r_lookup_list(list: &[EntryPointInfo], rounds: u64) -> (f64, i64, usize) {
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

    #[inline(never)]
    fn r_lookup_one(n: u64) -> (f64, i64, usize) {
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

    /// Dynamically loaded calls against the same symbols linked, the C twin and cudarc.
    #[cfg(feature = "dynamic-loading")]
    mod dynamic {
        use super::*;

        /// The library's own symbols, linked directly by this program (the library is linked for
        /// the C twin anyway): what a call through a dynamically loaded C spelling costs more.
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
        fn linked_launch(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
            let (mut p0, mut p1) = (0u64, 0u64);
            let mut args: [*mut c_void; 2] = [(&raw mut p0).cast(), (&raw mut p1).cast()];
            let mut acc = 0u32;
            let t0 = Instant::now();
            for _ in 0..n {
                acc |= unsafe {
                    linked::cuLaunchKernel(
                        f,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        0,
                        stream,
                        args.as_mut_ptr(),
                        ptr::null_mut(),
                    )
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
            pub fn launch(f: CUfunction, stream: CUstream, n: u64) -> (f64, u32) {
                let (f, stream): (sys::CUfunction, sys::CUstream) = (f.cast(), stream.cast());
                let (mut p0, mut p1) = (0u64, 0u64);
                let mut args: [*mut c_void; 2] = [(&raw mut p0).cast(), (&raw mut p1).cast()];
                let mut acc = 0u32;
                let t0 = Instant::now();
                for _ in 0..n {
                    acc |= unsafe {
                        sys::cuLaunchKernel(
                            f,
                            1,
                            1,
                            1,
                            1,
                            1,
                            1,
                            0,
                            stream,
                            args.as_mut_ptr(),
                            ptr::null_mut(),
                        )
                    } as u32;
                }
                acc |= unsafe { sys::cuStreamSynchronize(stream) } as u32;
                (t0.elapsed().as_secs_f64(), black_box(acc))
            }
        }

        /// One function's loops: the dynamically loaded C spelling, the linked symbol, the C twin
        /// and cudarc's, in that order; `scale` turns seconds per loop into the row's unit.
        fn compare(
            s: &Settings,
            rows: &mut Vec<Row>,
            what: &str,
            mut runs: Vec<Run<'_>>,
            n: u64,
            unit: Unit,
            scale: f64,
        ) {
            eprintln!("driver bench: {what}: dynamically loaded, linked, C, cudarc");
            let secs = measure(&mut runs, n, (n / 10).max(1), s.reps);
            let v: Vec<f64> = secs.iter().map(|t| t * scale / n as f64).collect();
            let row = |name: String, a: usize, b: usize, note, target| Row {
                name,
                unit,
                rust: v[a],
                other: v[b],
                note,
                target,
            };
            rows.push(row(
                format!("{what}: dynamically loaded C spelling over the linked symbol, both Rust"),
                0,
                1,
                "linked Rust",
                DYNAMIC_VS_LINKED,
            ));
            rows.push(row(
                format!("{what}: dynamically loaded C spelling (C: linked)"),
                0,
                2,
                "",
                RUST_VS_C_TIME,
            ));
            if v.len() > 3 {
                rows.push(row(
                    format!(
                        "{what}: cudarc 0.19 `sys` (dynamically loaded) over the linked symbol"
                    ),
                    3,
                    1,
                    "linked Rust",
                    Target::Reported,
                ));
                rows.push(row(
                    format!("{what}: cudarc 0.19 `sys` (dynamically loaded) (C: linked)"),
                    3,
                    2,
                    "",
                    Target::Reported,
                ));
            }
        }

        pub(super) fn rows(s: &Settings, gpu: Option<&Gpu>, rows: &mut Vec<Row>) {
            if gpu.is_some() {
                #[allow(unused_mut)]
                let mut runs: Vec<Run<'_>> = vec![
                    Box::new(|n| checked("dynamic cuCtxGetCurrent", r_ctx_get_current(n))),
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
                compare(s, rows, "`cuCtxGetCurrent`", runs, s.calls, Unit::Ns, 1e9);
            }
            #[allow(unused_mut)]
            let mut runs: Vec<Run<'_>> = vec![
                Box::new(|n| checked("dynamic cuDriverGetVersion", r_driver_get_version(n))),
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
            compare(
                s,
                rows,
                "`cuDriverGetVersion`",
                runs,
                s.calls,
                Unit::Ns,
                1e9,
            );
            if let Some(gpu) = gpu {
                let (f, st) = (gpu.kernel, gpu.stream);
                #[allow(unused_mut)]
                let mut runs: Vec<Run<'_>> = vec![
                    Box::new(move |n| checked("dynamic launch", r_launch_args(f, st, n))),
                    Box::new(move |n| checked("linked launch", linked_launch(f, st, n))),
                    Box::new(move |n| {
                        c_checked("C launch", |acc| unsafe {
                            c_bench_launch_args(f, st, n as i64, acc)
                        })
                    }),
                ];
                #[cfg(feature = "bench-cudarc")]
                runs.push(Box::new(move |n| {
                    checked("cudarc launch", cudarc_loops::launch(f, st, n))
                }));
                compare(
                    s,
                    rows,
                    "`cuLaunchKernel`, empty kernel, `kernelParams`",
                    runs,
                    s.launches,
                    Unit::Us,
                    1e6,
                );
            }
        }
    }

    // ---- measuring ---------------------------------------------------------------------------------

    /// One timed loop: given the iteration count, the seconds it took (errors end the program).
    type Run<'a> = Box<dyn FnMut(u64) -> f64 + 'a>;

    fn checked(what: &str, (secs, acc): (f64, u32)) -> f64 {
        if acc != 0 {
            die(&format!(
                "{what}: a driver call in the timed loop failed (results OR-ed together: {acc})"
            ));
        }
        secs
    }

    fn c_checked(what: &str, f: impl FnOnce(*mut c_uint) -> f64) -> f64 {
        let mut acc: c_uint = 0;
        let secs = f(&mut acc);
        checked(what, (secs, acc))
    }

    fn median(v: &[f64]) -> f64 {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let m = v.len() / 2;
        if v.len() % 2 == 1 {
            v[m]
        } else {
            (v[m - 1] + v[m]) / 2.0
        }
    }

    /// Runs every loop once with `warm_n` (untimed), then `reps` repetitions of all loops with `n`,
    /// the order rotating by one each repetition (two loops: Rust, C, then C, Rust, ...). Returns the
    /// median seconds of each loop.
    fn measure(runs: &mut [Run<'_>], n: u64, warm_n: u64, reps: usize) -> Vec<f64> {
        for run in runs.iter_mut() {
            run(warm_n);
        }
        let k = runs.len();
        let mut samples = vec![Vec::with_capacity(reps); k];
        for rep in 0..reps {
            for j in 0..k {
                let i = (rep + j) % k;
                samples[i].push(runs[i](n));
            }
        }
        samples.iter().map(|s| median(s)).collect()
    }

    /// An iteration count for which `run` takes at least `min_secs`: doubles from 1 until a run
    /// takes a tenth of that, then scales.
    fn calibrate(run: &mut Run<'_>, min_secs: f64) -> u64 {
        let mut n = 1u64;
        loop {
            let secs = run(n);
            if secs >= min_secs / 10.0 || n >= 1 << 26 {
                let scaled = (n as f64 * min_secs / secs.max(1e-9)).ceil();
                return (scaled as u64).clamp(1, 1 << 30);
            }
            n *= 2;
        }
    }

    #[derive(Clone, Copy)]
    enum Unit {
        Ns,
        Us,
        Ms,
        GBps,
    }

    impl Unit {
        fn format(self, v: f64) -> String {
            match self {
                Unit::Ns => format!("{v:.2} ns"),
                Unit::Us => format!("{v:.3} µs"),
                Unit::Ms => format!("{v:.2} ms"),
                Unit::GBps => format!("{v:.2} GB/s"),
            }
        }
    }

    #[derive(Clone, Copy)]
    enum Target {
        AtMost(f64),
        AtLeast(f64),
        /// A figure reported beside the others, with no target (another crate's, a start time).
        Reported,
    }

    impl Target {
        /// How far `ratio` is outside the target (≤ 0: met).
        fn miss(self, ratio: f64) -> f64 {
            match self {
                Target::AtMost(t) => ratio - t,
                Target::AtLeast(t) => t - ratio,
                Target::Reported => f64::NEG_INFINITY,
            }
        }
        fn text(self) -> String {
            match self {
                Target::AtMost(t) => format!("≤ {t:.2}"),
                Target::AtLeast(t) => format!("≥ {t:.2}"),
                Target::Reported => "none (reported)".to_string(),
            }
        }
    }

    const RUST_VS_C_TIME: Target = Target::AtMost(1.02);
    const RUST_VS_C_BANDWIDTH: Target = Target::AtLeast(0.98);
    const WRAPPER_VS_BARE: Target = Target::AtMost(1.01);
    const TABLE_VS_DIRECT: Target = Target::AtMost(1.02);
    const LINK_FRACTION: Target = Target::AtLeast(0.85);
    #[cfg(feature = "dynamic-loading")]
    const DYNAMIC_VS_LINKED: Target = Target::AtMost(1.02);

    /// One row of one pass: `rust` against `other` (C's figure, or the bare Rust call's, or the
    /// link's nominal bandwidth, as `note` says), `ratio = rust / other`.
    struct Row {
        name: String,
        unit: Unit,
        rust: f64,
        other: f64,
        note: &'static str,
        target: Target,
    }

    impl Row {
        fn ratio(&self) -> f64 {
            self.rust / self.other
        }
    }

    // ---- the GPU state -------------------------------------------------------------------------------

    struct Gpu {
        device: CUdevice,
        context: CUcontext,
        stream: CUstream,
        module: CUmodule,
        kernel: CUfunction,
        device_buffer: CUdeviceptr,
        /// vector_add.ptx, NUL-terminated.
        jit_ptx: Vec<u8>,
        /// A `Box<[u8]>` of `MAX_COPY` bytes, as a raw pointer (the copies write through it).
        rust_pageable: *mut [u8],
        rust_locked: *mut c_void,
        c_pageable: *mut c_void,
        c_locked: *mut c_void,
    }

    fn kernels_dir(s: &Settings) -> PathBuf {
        if let Some(dir) = &s.kernels {
            return dir.clone();
        }
        let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels");
        if built.join("vector_add.ptx").is_file() {
            built
        } else {
            PathBuf::from("examples/kernels")
        }
    }

    fn gpu_setup(s: &Settings) -> Gpu {
        let ptx_path = kernels_dir(s).join("vector_add.ptx");
        let mut jit_ptx = std::fs::read(&ptx_path).unwrap_or_else(|e| {
            die(&format!(
                "cannot read {} ({e}): pass --kernels DIR or set CUDA_KERNELS_DIR to the folder of vector_add.ptx",
                ptx_path.display()
            ))
        });
        jit_ptx.push(0);
        eprintln!("driver bench: PTX JIT input: {}", ptx_path.display());

        let mut device: CUdevice = 0;
        setup!(unsafe { cuDeviceGet(&mut device, 0) });
        let mut context: CUcontext = ptr::null_mut();
        setup!(unsafe { cuDevicePrimaryCtxRetain(&mut context, device) });
        setup!(unsafe { cuCtxSetCurrent(context) });
        let mut stream: CUstream = ptr::null_mut();
        setup!(unsafe { cuStreamCreate(&mut stream, CU_STREAM_NON_BLOCKING.0) });
        let mut module: CUmodule = ptr::null_mut();
        setup!(unsafe { cuModuleLoadData(&mut module, EMPTY_PTX.as_ptr().cast()) });
        let mut kernel: CUfunction = ptr::null_mut();
        setup!(unsafe { cuModuleGetFunction(&mut kernel, module, c"bench_empty".as_ptr()) });
        // A fresh context and a JIT load now, so that a machine where either fails stops here
        // rather than after the other measurements (this also loads the JIT compiler library).
        let probe = fresh_context(device);
        let mut jit_module: CUmodule = ptr::null_mut();
        setup!(unsafe { cuModuleLoadData(&mut jit_module, jit_ptx.as_ptr().cast()) });
        setup!(unsafe { cuModuleUnload(jit_module) });
        setup!(unsafe { cuCtxDestroy(probe) });
        setup!(unsafe { cuCtxSetCurrent(context) });
        let mut device_buffer: CUdeviceptr = 0;
        setup!(unsafe { cuMemAlloc(&mut device_buffer, MAX_COPY) });
        // Host buffers, every byte written once (no first-touch faults in the copies).
        let rust_pageable = Box::into_raw(vec![0xA5u8; MAX_COPY].into_boxed_slice());
        let mut rust_locked: *mut c_void = ptr::null_mut();
        setup!(unsafe { cuMemAllocHost(&mut rust_locked, MAX_COPY) });
        unsafe { ptr::write_bytes(rust_locked.cast::<u8>(), 0xA5, MAX_COPY) };
        let c_pageable = unsafe { c_bench_host_alloc(MAX_COPY, 0) };
        let c_locked = unsafe { c_bench_host_alloc(MAX_COPY, 1) };
        if c_pageable.is_null() || c_locked.is_null() {
            die("the C twin's host buffers could not be allocated (see above)");
        }
        Gpu {
            device,
            context,
            stream,
            module,
            kernel,
            device_buffer,
            jit_ptx,
            rust_pageable,
            rust_locked,
            c_pageable,
            c_locked,
        }
    }

    fn gpu_teardown(gpu: Gpu) {
        setup!(unsafe { cuCtxSetCurrent(gpu.context) });
        if unsafe { c_bench_host_free(gpu.c_pageable, 0) } != 0
            || unsafe { c_bench_host_free(gpu.c_locked, 1) } != 0
        {
            die("the C twin's cuMemFreeHost failed");
        }
        setup!(unsafe { cuMemFreeHost(gpu.rust_locked) });
        drop(unsafe { Box::from_raw(gpu.rust_pageable) });
        setup!(unsafe { cuMemFree(gpu.device_buffer) });
        setup!(unsafe { cuModuleUnload(gpu.module) });
        setup!(unsafe { cuStreamDestroy(gpu.stream) });
        setup!(unsafe { cuDevicePrimaryCtxRelease(gpu.device) });
    }

    // ---- one pass ------------------------------------------------------------------------------------

    struct Lookups {
        list: Vec<EntryPointInfo>,
        symbols: Vec<*const c_char>,
        versions: Vec<c_int>,
        flags: Vec<u64>,
    }

    fn lookups(driver: c_int) -> Lookups {
        // Versions above the driver's are refused by the Rust helper without asking the driver:
        // left out, so that both sides make the same calls.
        let list: Vec<EntryPointInfo> = entry::ALL
            .iter()
            .copied()
            .filter(|i| i.version <= driver)
            .collect();
        Lookups {
            symbols: list.iter().map(|i| i.symbol.as_ptr()).collect(),
            versions: list.iter().map(|i| i.version).collect(),
            flags: list
                .iter()
                .map(|i| u64::from(i.default_flags().0))
                .collect(),
            list,
        }
    }

    /// Iteration counts found by calibration in the first pass, reused by the next.
    type Calibration = HashMap<String, u64>;

    fn overhead_rows(
        s: &Settings,
        rows: &mut Vec<Row>,
        f: &str,
        rust: [fn(u64) -> (f64, u32); 4],
        c: [unsafe extern "C" fn(i64, *mut c_uint) -> f64; 4],
    ) {
        eprintln!("driver bench: {f}: call overhead");
        let labels = ["bare", "check_driver!", "try_driver!", "table"];
        let mut runs: Vec<Run<'_>> = Vec::new();
        for ((r, cf), label) in rust.into_iter().zip(c).zip(labels) {
            runs.push(Box::new(move |n| {
                checked(&format!("Rust {f} {label}"), r(n))
            }));
            runs.push(Box::new(move |n| {
                c_checked(&format!("C {f} {label}"), |acc| unsafe {
                    cf(n as i64, acc)
                })
            }));
        }
        let secs = measure(&mut runs, s.calls, (s.calls / 10).max(1), s.reps);
        let ns: Vec<f64> = secs.iter().map(|t| t * 1e9 / s.calls as f64).collect();
        let row = |name: String, a: usize, b: usize, note, target| Row {
            name,
            unit: Unit::Ns,
            rust: ns[a],
            other: ns[b],
            note,
            target,
        };
        rows.push(row(format!("`{f}`, bare"), 0, 1, "", RUST_VS_C_TIME));
        rows.push(row(
            format!("`check_driver!({f}(..))` (C: the posts' `checkDriver`)"),
            2,
            3,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            format!("`check_driver!({f}(..))` over bare `{f}`, both Rust"),
            2,
            0,
            "bare Rust",
            WRAPPER_VS_BARE,
        ));
        rows.push(row(
            format!("`try_driver!({f}(..))?` (C: return on error)"),
            4,
            5,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            format!("`try_driver!({f}(..))?` over bare `{f}`, both Rust"),
            4,
            0,
            "bare Rust",
            WRAPPER_VS_BARE,
        ));
        rows.push(row(
            format!("`table().{f}` (C: pointer from `cuGetProcAddress`)"),
            6,
            7,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            format!("`table().{f}` over direct `{f}`, both Rust"),
            6,
            0,
            "direct Rust",
            TABLE_VS_DIRECT,
        ));
    }

    fn launch_rows(s: &Settings, gpu: &Gpu, rows: &mut Vec<Row>) {
        eprintln!("driver bench: kernel launch rate");
        let (f, st) = (gpu.kernel, gpu.stream);
        type RustLaunch = fn(CUfunction, CUstream, u64) -> (f64, u32);
        type CLaunch = unsafe extern "C" fn(CUfunction, CUstream, i64, *mut c_uint) -> f64;
        let loops: [(&str, RustLaunch, CLaunch); 4] = [
            ("kernelParams", r_launch_args, c_bench_launch_args),
            (
                "kernelParams check_driver!",
                r_launch_args_check,
                c_bench_launch_args_check,
            ),
            ("extra", r_launch_extra, c_bench_launch_extra),
            (
                "extra check_driver!",
                r_launch_extra_check,
                c_bench_launch_extra_check,
            ),
        ];
        let mut runs: Vec<Run<'_>> = Vec::new();
        for (label, r, c) in loops {
            runs.push(Box::new(move |n| {
                checked(&format!("Rust launch {label}"), r(f, st, n))
            }));
            runs.push(Box::new(move |n| {
                c_checked(&format!("C launch {label}"), |acc| unsafe {
                    c(f, st, n as i64, acc)
                })
            }));
        }
        let secs = measure(&mut runs, s.launches, (s.launches / 10).max(1), s.reps);
        let us: Vec<f64> = secs.iter().map(|t| t * 1e6 / s.launches as f64).collect();
        let row = |name: &str, a: usize, b: usize, note, target| Row {
            name: name.to_string(),
            unit: Unit::Us,
            rust: us[a],
            other: us[b],
            note,
            target,
        };
        rows.push(row(
            "`cuLaunchKernel`, empty kernel, `kernelParams`",
            0,
            1,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            "`cuLaunchKernel`, `kernelParams`, in `check_driver!` (C: `checkDriver`)",
            2,
            3,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            "`cuLaunchKernel`, `kernelParams`: `check_driver!` over bare, both Rust",
            2,
            0,
            "bare Rust",
            WRAPPER_VS_BARE,
        ));
        rows.push(row(
            "`cuLaunchKernel`, empty kernel, `CU_LAUNCH_PARAM_BUFFER_POINTER`",
            4,
            5,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            "`cuLaunchKernel`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, in `check_driver!` (C: `checkDriver`)",
            6,
            7,
            "",
            RUST_VS_C_TIME,
        ));
        rows.push(row(
            "`cuLaunchKernel`, `CU_LAUNCH_PARAM_BUFFER_POINTER`: `check_driver!` over bare, both Rust",
            6,
            4,
            "bare Rust",
            WRAPPER_VS_BARE,
        ));
    }

    #[derive(Clone, Copy, PartialEq)]
    enum CopyOp {
        HtoD,
        DtoH,
        HtoDAsync,
        DtoHAsync,
    }

    impl CopyOp {
        fn name(self) -> &'static str {
            match self {
                CopyOp::HtoD => "`cuMemcpyHtoD`",
                CopyOp::DtoH => "`cuMemcpyDtoH`",
                CopyOp::HtoDAsync => "`cuMemcpyHtoDAsync` + sync",
                CopyOp::DtoHAsync => "`cuMemcpyDtoHAsync` + sync",
            }
        }
    }

    fn size_name(bytes: usize) -> String {
        if bytes >= MIB {
            format!("{} MiB", bytes / MIB)
        } else {
            format!("{} KiB", bytes / KIB)
        }
    }

    fn copy_rows(s: &Settings, gpu: &Gpu, calibration: &mut Calibration, rows: &mut Vec<Row>) {
        let (d, st) = (gpu.device_buffer, gpu.stream);
        let mut link_rows = Vec::new();
        for op in [
            CopyOp::HtoD,
            CopyOp::DtoH,
            CopyOp::HtoDAsync,
            CopyOp::DtoHAsync,
        ] {
            for locked in [false, true] {
                let rust_host = if locked {
                    gpu.rust_locked
                } else {
                    gpu.rust_pageable.cast::<c_void>()
                };
                let c_host = if locked { gpu.c_locked } else { gpu.c_pageable };
                let memory = if locked { "page-locked" } else { "pageable" };
                for bytes in COPY_SIZES {
                    let name = format!("{} {memory} {}", op.name(), size_name(bytes));
                    eprintln!("driver bench: {name}");
                    let rust_what = format!("Rust {name}");
                    let c_what = format!("C {name}");
                    let mut runs: Vec<Run<'_>> = vec![
                        Box::new(|n| {
                            checked(
                                &rust_what,
                                match op {
                                    CopyOp::HtoD => r_htod(d, rust_host, bytes, n),
                                    CopyOp::DtoH => r_dtoh(rust_host, d, bytes, n),
                                    CopyOp::HtoDAsync => r_htod_async(d, rust_host, bytes, st, n),
                                    CopyOp::DtoHAsync => r_dtoh_async(rust_host, d, bytes, st, n),
                                },
                            )
                        }),
                        Box::new(|n| {
                            let n = n as i64;
                            c_checked(&c_what, |acc| unsafe {
                                match op {
                                    CopyOp::HtoD => c_bench_htod(d, c_host, bytes, n, acc),
                                    CopyOp::DtoH => c_bench_dtoh(c_host, d, bytes, n, acc),
                                    CopyOp::HtoDAsync => {
                                        c_bench_htod_async(d, c_host, bytes, st, n, acc)
                                    }
                                    CopyOp::DtoHAsync => {
                                        c_bench_dtoh_async(c_host, d, bytes, st, n, acc)
                                    }
                                }
                            })
                        }),
                    ];
                    let n = match calibration.get(&name) {
                        Some(&n) => n,
                        None => {
                            let n = calibrate(&mut runs[0], s.min_secs);
                            calibration.insert(name.clone(), n);
                            n
                        }
                    };
                    let secs = measure(&mut runs, n, 1, s.reps);
                    let gbps: Vec<f64> = secs
                        .iter()
                        .map(|t| (bytes as f64 * n as f64) / t / 1e9)
                        .collect();
                    rows.push(Row {
                        name: format!("{name}, ×{n}"),
                        unit: Unit::GBps,
                        rust: gbps[0],
                        other: gbps[1],
                        note: "",
                        target: RUST_VS_C_BANDWIDTH,
                    });
                    if locked && bytes == MAX_COPY {
                        link_rows.push(Row {
                            name: format!(
                                "{} page-locked {}, Rust over the link's nominal bandwidth",
                                op.name(),
                                size_name(bytes)
                            ),
                            unit: Unit::GBps,
                            rust: gbps[0],
                            other: s.link_gbps,
                            note: "nominal",
                            target: LINK_FRACTION,
                        });
                    }
                }
            }
        }
        rows.extend(link_rows);
    }

    /// A new context on `device`, current. The CUDA 13 header's `cuCtxCreate` is `cuCtxCreate_v4`,
    /// which drivers before 12.5 lack: reached through the table there, so that the program still
    /// links against (and runs its no-GPU part on) an older driver library.
    fn fresh_context(device: CUdevice) -> CUcontext {
        let mut ctx: CUcontext = ptr::null_mut();
        #[cfg(feature = "cuda-13000")]
        setup!(unsafe { table().cuCtxCreate(&mut ctx, ptr::null_mut(), 0, device) });
        #[cfg(not(feature = "cuda-13000"))]
        setup!(unsafe { cuCtxCreate(&mut ctx, 0, device) });
        ctx
    }

    fn jit_rows(s: &Settings, gpu: &Gpu, rows: &mut Vec<Row>) {
        eprintln!("driver bench: PTX JIT (a fresh context per load)");
        let (device, ptx) = (gpu.device, gpu.jit_ptx.as_ptr().cast::<c_void>());
        // Untimed around each load: cuCtxCreate before, cuCtxDestroy after (the same for both).
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(|_| {
                let ctx = fresh_context(device);
                let secs = checked("Rust PTX JIT", r_jit_load(ptx));
                setup!(unsafe { cuCtxDestroy(ctx) });
                secs
            }),
            Box::new(|_| {
                let ctx = fresh_context(device);
                let secs = c_checked("C PTX JIT", |acc| unsafe { c_bench_jit_load(ptx, acc) });
                setup!(unsafe { cuCtxDestroy(ctx) });
                secs
            }),
        ];
        let secs = measure(&mut runs, 1, 1, s.reps);
        setup!(unsafe { cuCtxSetCurrent(gpu.context) });
        rows.push(Row {
            name: "`cuModuleLoadData` of `vector_add.ptx`, fresh context, `CUDA_CACHE_DISABLE=1`"
                .to_string(),
            unit: Unit::Ms,
            rust: secs[0] * 1e3,
            other: secs[1] * 1e3,
            note: "",
            target: RUST_VS_C_TIME,
        });
    }

    fn lookup_rows(s: &Settings, l: &Lookups, calibration: &mut Calibration, rows: &mut Vec<Row>) {
        eprintln!(
            "driver bench: cuGetProcAddress over {} entry points",
            l.list.len()
        );
        let count = l.list.len() as i64;
        let (rust_found, c_found) = (std::cell::Cell::new(0i64), std::cell::Cell::new(0i64));
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(|rounds| {
                let (secs, found, _) = r_lookup_list(&l.list, rounds);
                rust_found.set(found / rounds as i64);
                secs
            }),
            Box::new(|rounds| {
                let (mut found, mut sink) = (0i64, 0usize);
                let secs = unsafe {
                    c_bench_proc_address_list(
                        l.symbols.as_ptr(),
                        l.versions.as_ptr(),
                        l.flags.as_ptr(),
                        count,
                        rounds as i64,
                        &mut found,
                        &mut sink,
                    )
                };
                black_box(sink);
                c_found.set(found / rounds as i64);
                secs
            }),
        ];
        let key = "cuGetProcAddress list".to_string();
        let rounds = match calibration.get(&key) {
            Some(&n) => n,
            None => {
                let n = calibrate(&mut runs[0], s.min_secs);
                calibration.insert(key, n);
                n
            }
        };
        let secs = measure(&mut runs, rounds, 1, s.reps);
        drop(runs);
        if rust_found.get() != c_found.get() {
            die(&format!(
                "cuGetProcAddress: the Rust helper found {} of {count} entry points, the raw C call {}",
                rust_found.get(),
                c_found.get()
            ));
        }
        let per = |t: f64| t * 1e9 / (rounds as f64 * count as f64);
        rows.push(Row {
            name: format!(
                "`EntryPointInfo::lookup`, {count} entry points ({} found) once each (C: raw `cuGetProcAddress`)",
                c_found.get()
            ),
            unit: Unit::Ns,
            rust: per(secs[0]),
            other: per(secs[1]),
            note: "",
            target: RUST_VS_C_TIME,
        });

        let info = entry::cuCtxGetCurrent.info();
        let flags = u64::from(info.default_flags().0);
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(|n| {
                let (secs, found, _) = r_lookup_one(n);
                if found != n as i64 {
                    die("entry::cuCtxGetCurrent.get() failed");
                }
                secs
            }),
            Box::new(|n| {
                let (mut found, mut sink) = (0i64, 0usize);
                let secs = unsafe {
                    c_bench_proc_address_one(
                        info.symbol.as_ptr(),
                        info.version,
                        flags,
                        n as i64,
                        &mut found,
                        &mut sink,
                    )
                };
                black_box(sink);
                if found != n as i64 {
                    die("C cuGetProcAddress(\"cuCtxGetCurrent\") failed");
                }
                secs
            }),
        ];
        let key = "cuGetProcAddress one".to_string();
        let n = match calibration.get(&key) {
            Some(&n) => n,
            None => {
                let n = calibrate(&mut runs[0], s.min_secs);
                calibration.insert(key, n);
                n
            }
        };
        let secs = measure(&mut runs, n, 1, s.reps);
        rows.push(Row {
            name: "`entry::cuCtxGetCurrent.get()`, repeated (C: raw `cuGetProcAddress`)"
                .to_string(),
            unit: Unit::Ns,
            rust: secs[0] * 1e9 / n as f64,
            other: secs[1] * 1e9 / n as f64,
            note: "",
            target: RUST_VS_C_TIME,
        });
    }

    fn run_pass(
        s: &Settings,
        gpu: Option<&Gpu>,
        lookups: &Lookups,
        calibration: &mut Calibration,
    ) -> Vec<Row> {
        let mut rows = Vec::new();
        if gpu.is_some() {
            overhead_rows(
                s,
                &mut rows,
                "cuCtxGetCurrent",
                [
                    r_ctx_get_current,
                    r_ctx_get_current_check,
                    r_ctx_get_current_try,
                    r_ctx_get_current_table,
                ],
                [
                    c_bench_ctx_get_current,
                    c_bench_ctx_get_current_check,
                    c_bench_ctx_get_current_try,
                    c_bench_ctx_get_current_pfn,
                ],
            );
        }
        overhead_rows(
            s,
            &mut rows,
            "cuDriverGetVersion",
            [
                r_driver_get_version,
                r_driver_get_version_check,
                r_driver_get_version_try,
                r_driver_get_version_table,
            ],
            [
                c_bench_driver_get_version,
                c_bench_driver_get_version_check,
                c_bench_driver_get_version_try,
                c_bench_driver_get_version_pfn,
            ],
        );
        #[cfg(feature = "dynamic-loading")]
        dynamic::rows(s, gpu, &mut rows);
        if let Some(gpu) = gpu {
            launch_rows(s, gpu, &mut rows);
            copy_rows(s, gpu, calibration, &mut rows);
            jit_rows(s, gpu, &mut rows);
        }
        lookup_rows(s, lookups, calibration, &mut rows);
        if gpu.is_some() && first_init_skipped(s).is_none() {
            first_init_rows(s, &mut rows);
        }
        rows
    }

    // ---- the time to the first successful cuInit -------------------------------------------------

    /// Why the start-time rows are not measured, or `None`.
    fn first_init_skipped(s: &Settings) -> Option<&'static str> {
        match (&s.first_init_linked, &s.first_init_dynamic) {
            (Some(_), Some(_)) => None,
            _ => Some("pass --first-init-linked PATH and --first-init-dynamic PATH (the first_init program built without and with dynamic-loading; the GPU bundle has both)"),
        }
    }

    /// CLOCK_MONOTONIC in nanoseconds: the clock `first_init` prints, the same in every process.
    fn monotonic_ns() -> u64 {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid out-pointer.
        if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) } != 0 {
            die("clock_gettime(CLOCK_MONOTONIC) failed");
        }
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    }

    /// Starts `program args`, which prints `<cuInit's result> <CLOCK_MONOTONIC ns after it>`:
    /// the seconds from just before the start to the end of its first successful `cuInit`.
    fn first_init_once(what: &str, program: &Path, args: &[&str]) -> f64 {
        let t0 = monotonic_ns();
        let out = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| die(&format!("{what}: cannot run {}: {e}", program.display())));
        let text = String::from_utf8_lossy(&out.stdout);
        let parsed = text
            .split_once(' ')
            .and_then(|(code, t)| Some((code.parse::<u32>().ok()?, t.trim().parse::<u64>().ok()?)));
        match parsed {
            Some((0, t1)) if out.status.success() && t1 >= t0 => (t1 - t0) as f64 * 1e-9,
            _ => die(&format!(
                "{what}: {} {args:?} did not report a successful cuInit ({}): {text}{}",
                program.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    }

    fn first_init_rows(s: &Settings, rows: &mut Vec<Row>) {
        let (Some(linked), Some(dynamic)) = (&s.first_init_linked, &s.first_init_dynamic) else {
            return;
        };
        eprintln!("driver bench: time from process start to the first successful cuInit");
        let mut runs: Vec<Run<'_>> = vec![
            Box::new(|_| first_init_once("linked first_init", linked, &[])),
            Box::new(|_| first_init_once("dynamically loaded first_init", dynamic, &[])),
        ];
        #[cfg(feature = "bench-cudarc")]
        runs.push(Box::new(|_| {
            first_init_once("first_init --cudarc", dynamic, &["--cudarc"])
        }));
        let secs = measure(&mut runs, 1, 1, s.reps);
        let ms: Vec<f64> = secs.iter().map(|t| t * 1e3).collect();
        rows.push(Row {
            name: "time from process start to the first successful `cuInit`: dynamically loaded over linked".to_string(),
            unit: Unit::Ms,
            rust: ms[1],
            other: ms[0],
            note: "linked",
            target: Target::Reported,
        });
        #[cfg(feature = "bench-cudarc")]
        rows.push(Row {
            name: "time from process start to the first successful `cuInit`: cudarc 0.19 `sys` over linked".to_string(),
            unit: Unit::Ms,
            rust: ms[2],
            other: ms[0],
            note: "linked",
            target: Target::Reported,
        });
    }

    // ---- the report ----------------------------------------------------------------------------------

    fn date() -> String {
        if let Ok(d) = std::env::var("BENCH_DATE") {
            return d;
        }
        std::process::Command::new("date")
            .args(["-u", "+%Y-%m-%d %H:%M:%S UTC"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown (set BENCH_DATE)".to_string())
    }

    fn c_string(buf: &[c_char]) -> String {
        let bytes: Vec<u8> = buf
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Device 0: name, compute capability, PCI bus id and what sysfs says of its link.
    fn describe_device() -> String {
        let mut device: CUdevice = 0;
        setup!(unsafe { cuDeviceGet(&mut device, 0) });
        let mut name = [0 as c_char; 256];
        setup!(unsafe { cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, device) });
        let (mut major, mut minor) = (0, 0);
        setup!(unsafe {
            cuDeviceGetAttribute(
                &mut major,
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                device,
            )
        });
        setup!(unsafe {
            cuDeviceGetAttribute(
                &mut minor,
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                device,
            )
        });
        let mut bus = [0 as c_char; 64];
        setup!(unsafe { cuDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as c_int, device) });
        let bus = c_string(&bus);
        let sys = Path::new("/sys/bus/pci/devices").join(bus.to_lowercase());
        let read = |f: &str| {
            std::fs::read_to_string(sys.join(f))
                .ok()
                .map(|v| v.trim().to_string())
        };
        let link = match (
            read("current_link_speed"),
            read("current_link_width"),
            read("max_link_speed"),
            read("max_link_width"),
        ) {
            (Some(cs), Some(cw), Some(ms), Some(mw)) => {
                format!("; sysfs PCIe link: current {cs} x{cw}, max {ms} x{mw}")
            }
            _ => String::new(),
        };
        format!(
            "0, {}, compute capability {major}.{minor}, PCI {bus}{link}",
            c_string(&name)
        )
    }

    pub fn main() {
        // Before any driver call (the driver reads it in cuInit), for both twins: they share this
        // process and its environment. Nothing else runs yet, so changing the environment is safe.
        std::env::set_var("CUDA_CACHE_DISABLE", "1");
        let s = settings();

        let mut driver: c_int = 0;
        setup!(unsafe { cuDriverGetVersion(&mut driver) });
        let init = unsafe { cuInit(0) };
        let mut count: c_int = 0;
        let has_gpu = init == CUDA_SUCCESS
            && unsafe { cuDeviceGetCount(&mut count) } == CUDA_SUCCESS
            && count > 0;
        let device = if has_gpu {
            describe_device()
        } else {
            let why = match try_driver!(init) {
                Err(e) => format!(
                    "cuInit(0) = {}",
                    e.name().map_or_else(
                        || format!("CUresult {}", init.0),
                        |n| n.to_string_lossy().into_owned()
                    )
                ),
                Ok(()) => format!("cuDeviceGetCount = {count}"),
            };
            format!("none ({why})")
        };
        let c_compiler = unsafe { CStr::from_ptr(c_bench_compiler()) }.to_string_lossy();

        println!("## Driver API: Rust against its C twin\n");
        println!("- command: `{}`", s.command);
        println!("- date: {}", date());
        println!("- device: {device}");
        println!("- driver: {driver} (`cuDriverGetVersion`)");
        println!(
            "- build: bindings and C twin from the CUDA {} `cuda.h`, {} default stream; Rust {}; {} (cc crate, same cargo profile)",
            env!("CUDA_HEADER_VERSION"),
            match StreamMode::BUILD {
                StreamMode::Legacy => "legacy",
                StreamMode::PerThread => "per-thread",
            },
            if cfg!(debug_assertions) { "debug build" } else { "optimized" },
            c_compiler,
        );
        println!(
            "- settings: {}{} repetition(s) per pass, {} pass(es); {} calls per overhead loop, {} launches per launch loop (then `cuStreamSynchronize`, timed), copies and lookups repeated to ≥ {} ms per measurement; `CUDA_CACHE_DISABLE=1` set by the program before `cuInit`",
            match (s.measure, s.quick) {
                (false, _) => "SMOKE RUN (cargo test; targets not judged): ",
                (true, true) => "quick (--quick): ",
                (true, false) => "",
            },
            s.reps,
            s.passes,
            s.calls,
            s.launches,
            s.min_secs * 1e3,
        );
        #[cfg(feature = "dynamic-loading")]
        println!(
            "- Rust calls: dynamically loaded (`dynamic-loading`: the Rust side links no driver symbol; the C twin and this program's `linked` extern block link the library){}",
            if cfg!(feature = "bench-cudarc") { "; cudarc 0.19 `sys` calls (`bench-cudarc`)" } else { "" }
        );
        println!("- each figure: the median of the repetitions (Rust and C loops alternate, the order rotating every repetition); with several passes, the median of the passes");
        println!("- Rust/C: Rust's figure over C's in the row's unit. Times (ns, µs, ms per operation): below 1 means Rust is faster, target ≤ 1.02. Bandwidth (GB/s): above 1 means Rust is faster, target ≥ 0.98");
        println!("- rows \"over bare\" / \"over direct\" compare two Rust forms (the C column holds the bare Rust figure): target ≤ 1.01 for `check_driver!` and `try_driver!`, ≤ 1.02 for the table. Link rows: Rust's page-locked 256 MiB bandwidth over the link's nominal ({:.1} GB/s, `--link-gbps`; the driver API has no link-speed attribute), target ≥ 0.85", s.link_gbps);
        println!("- a row fails only if its ratio is outside the target by more than the pass-to-pass spread (max − min of the ratio over the passes; 0 with one pass)");
        println!();
        let _ = std::io::stdout().flush();

        let lookups = lookups(driver);
        let gpu = has_gpu.then(|| gpu_setup(&s));
        let mut calibration = Calibration::new();
        let mut passes: Vec<Vec<Row>> = Vec::new();
        for pass in 0..s.passes {
            eprintln!("driver bench: pass {} of {}", pass + 1, s.passes);
            passes.push(run_pass(&s, gpu.as_ref(), &lookups, &mut calibration));
        }
        if let Some(gpu) = gpu {
            gpu_teardown(gpu);
        }

        let multi = s.passes > 1;
        if multi {
            println!("| benchmark | Rust | C | Rust/C | target | spread | ok |");
            println!("|---|---:|---:|---:|---|---:|---|");
        } else {
            println!("| benchmark | Rust | C | Rust/C | target | ok |");
            println!("|---|---:|---:|---:|---|---|");
        }
        let (mut met, mut noisy, mut reported, mut failed) = (0, 0, 0, Vec::new());
        for (i, first) in passes[0].iter().enumerate() {
            let all: Vec<&Row> = passes.iter().map(|p| &p[i]).collect();
            let rust = median(&all.iter().map(|r| r.rust).collect::<Vec<_>>());
            let other = median(&all.iter().map(|r| r.other).collect::<Vec<_>>());
            let ratios: Vec<f64> = all.iter().map(|r| r.ratio()).collect();
            let ratio = median(&ratios);
            let spread = ratios.iter().copied().fold(f64::MIN, f64::max)
                - ratios.iter().copied().fold(f64::MAX, f64::min);
            let miss = first.target.miss(ratio);
            let ok = if !s.measure {
                "not judged (smoke run)".to_string()
            } else if matches!(first.target, Target::Reported) {
                reported += 1;
                "reported".to_string()
            } else if miss <= 0.0 {
                met += 1;
                "yes".to_string()
            } else if miss <= spread {
                noisy += 1;
                format!("no, within noise (by {miss:.3})")
            } else {
                failed.push(format!(
                    "{}: {ratio:.3}, target {}",
                    first.name,
                    first.target.text()
                ));
                format!("**NO** (by {miss:.3})")
            };
            let other_cell = if first.note.is_empty() {
                first.unit.format(other)
            } else {
                format!("{} ({})", first.unit.format(other), first.note)
            };
            let spread_cell = if multi {
                format!(" {spread:.3} |")
            } else {
                String::new()
            };
            println!(
                "| {} | {} | {} | {ratio:.3} | {} |{spread_cell} {ok} |",
                first.name,
                first.unit.format(rust),
                other_cell,
                first.target.text(),
            );
        }
        println!();
        if !has_gpu {
            for what in [
                "`cuCtxGetCurrent` overhead (bare, `check_driver!`, `try_driver!`, table)",
                "kernel launch rate (`kernelParams`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, bare and checked)",
                "copy bandwidth (`cuMemcpyHtoD`/`DtoH` and `Async`, pageable and page-locked, 4 KiB/1 MiB/256 MiB, link fraction)",
                "PTX JIT (`cuModuleLoadData` of `vector_add.ptx`)",
            ] {
                println!("skipped (no GPU): {what}");
            }
            #[cfg(feature = "dynamic-loading")]
            println!("skipped (no GPU): dynamically loaded against linked: `cuCtxGetCurrent`, the kernel launch, the time to the first successful `cuInit`");
            println!();
        } else if let Some(why) = first_init_skipped(&s) {
            println!("skipped: the time to the first successful `cuInit`: {why}");
            println!();
        }
        for f in &failed {
            println!("target missed by more than the noise: {f}");
        }
        let total = passes[0].len();
        let verdict = if !s.measure {
            "smoke run, targets not judged"
        } else if failed.is_empty() {
            "PASS"
        } else {
            "FAIL"
        };
        println!(
            "driver bench: {total} rows: {met} met the target, {noisy} missed it within the noise, {} missed it, {reported} reported without a target; {}: {verdict}",
            failed.len(),
            if has_gpu { "GPU run" } else { "no GPU, device rows skipped" },
        );
        let _ = std::io::stdout().flush();
        if s.measure && !failed.is_empty() {
            std::process::exit(1);
        }
    }
}
