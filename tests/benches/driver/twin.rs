//! The C twin, `tests/support/c/bench_twin.c`, compiled by the tests' build script against the
//! same `cuda.h` and linked into this program. Each loop returns the seconds it took and stores the
//! OR of its results (0: every call succeeded) in `acc`.

use std::ffi::{c_char, c_int, c_uint, c_void};

use cuda_driver_sys::{CUdeviceptr, CUfunction, CUstream};

extern "C" {
    pub fn c_bench_compiler() -> *const c_char;
    pub fn c_bench_ctx_get_current(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_ctx_get_current_check(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_ctx_get_current_try(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_ctx_get_current_pfn(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_driver_get_version(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_driver_get_version_check(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_driver_get_version_try(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_driver_get_version_pfn(n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_launch_args(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_launch_args_check(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_launch_extra(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_launch_extra_check(f: CUfunction, s: CUstream, n: i64, acc: *mut c_uint) -> f64;
    pub fn c_bench_htod(
        d: CUdeviceptr,
        h: *const c_void,
        bytes: usize,
        n: i64,
        acc: *mut c_uint,
    ) -> f64;
    pub fn c_bench_dtoh(
        h: *mut c_void,
        d: CUdeviceptr,
        bytes: usize,
        n: i64,
        acc: *mut c_uint,
    ) -> f64;
    pub fn c_bench_htod_async(
        d: CUdeviceptr,
        h: *const c_void,
        bytes: usize,
        s: CUstream,
        n: i64,
        acc: *mut c_uint,
    ) -> f64;
    pub fn c_bench_dtoh_async(
        h: *mut c_void,
        d: CUdeviceptr,
        bytes: usize,
        s: CUstream,
        n: i64,
        acc: *mut c_uint,
    ) -> f64;
    pub fn c_bench_jit_load(ptx: *const c_void, acc: *mut c_uint) -> f64;
    /// The out-parameter every call-overhead loop writes (64 bytes, 64-byte aligned).
    pub static mut c_bench_out: [u8; 64];
    /// The driver's version, set once before the lookups: the C twin's version check reads it.
    pub static mut c_bench_driver_version: c_int;
    pub fn c_bench_proc_address_list(
        entries: *const BenchEntry,
        count: i64,
        rounds: i64,
        found: *mut i64,
        sink: *mut usize,
    ) -> f64;
    pub fn c_bench_proc_address_one(
        symbol: *const c_char,
        version: c_int,
        flags: u64,
        n: i64,
        found: *mut i64,
        sink: *mut usize,
    ) -> f64;
}

/// The C twin's `struct bench_entry`: one entry point of a C program's table, 24 bytes as an
/// `EntryPointInfo`, so that both lookup loops walk the same stride.
#[repr(C)]
pub struct BenchEntry {
    pub symbol: *const c_char,
    pub version: c_int,
    pub flags: u64,
}
const _: () = assert!(size_of::<BenchEntry>() == size_of::<cuda_driver_sys::EntryPointInfo>());
