//! What the group programs (`examples/groups/<name>.rs`) share, as their C twins share
//! `examples/groups/common.h`: `check_driver!` counted ([`check!`]), the name of a result, and the
//! tally of the program's own checks behind its last line, `Result = PASS` or `Result = FAIL`.
//! Each program includes it with `#[path = "common/mod.rs"] mod common;`.
#![allow(dead_code, unused_macros, unused_imports)] // every program uses only some of these

use std::ffi::{c_int, c_uint, c_void, CStr, OsString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use cuda_driver_sys::{cuCtxSetCurrent, cuDeviceGet, cuDevicePrimaryCtxRetain, cuGetErrorName};
use cuda_driver_sys::{cuLaunchHostFunc, CUstream};
use cuda_driver_sys::{cuModuleGetFunction, CUfunction, CUmodule, CUresult};
use cuda_driver_sys::{cuModuleLoad, CUcontext, CUdevice, CUmemLocation, CUmemLocationType};

/// The posts' examples' printing helpers (`p`: C's `%p`, ...), for the same text as C's `printf`.
#[path = "../../common/mod.rs"]
mod printing;
pub use printing::*;

/// How many checks failed: calls that [`check!`] reported and [`expect`]s that did not hold.
static FAILURES: AtomicU32 = AtomicU32::new(0);

/// Counts a call that `check_driver!` reported (`ok` false); gives `ok`.
pub fn counted(ok: bool) -> bool {
    if !ok {
        FAILURES.fetch_add(1, Ordering::Relaxed);
    }
    ok
}

/// A call that must succeed: `check_driver!`'s report where it fails, counted (C's `check(op)`).
/// The tokens go to `check_driver!` as written, so that it reports `unsafe { f(..) }` as `f(..)`.
macro_rules! check {
    ($($call:tt)+) => {
        $crate::common::counted(cuda_check::check_driver!($($call)+))
    };
}
pub(crate) use check;

/// The name `cuGetErrorName` gives `code`, or `CUresult <n>` where it gives none.
pub fn result_name(code: CUresult) -> String {
    let mut name = std::ptr::null();
    // SAFETY: an out-pointer to a `const char*`; the driver's strings are static.
    let found = unsafe { cuGetErrorName(code, &mut name) };
    if found != CUresult::CUDA_SUCCESS || name.is_null() {
        return format!("CUresult {}", code.0);
    }
    // SAFETY: a NUL-terminated static string of the driver.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// Prints `what: <result name>` for a call whose answer the program prints rather than requires
/// (it may differ by GPU or driver); whether it is `CUDA_SUCCESS`.
pub fn show(what: &str, code: CUresult) -> bool {
    println!("{what}: {}", result_name(code));
    code == CUresult::CUDA_SUCCESS
}

/// C's `b ? "yes" : "no"`.
pub fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A check of the program's own: counted, and named where it does not hold.
pub fn expect(ok: bool, what: &str) {
    if !ok {
        println!("FAILED: {what}");
        FAILURES.fetch_add(1, Ordering::Relaxed);
    }
}

/// `what: same of n`, and a check that all `n` were.
pub fn expect_all(what: &str, same: usize, n: usize) {
    println!("{what}: {same} of {n}");
    expect(same == n, what);
}

/// Whether a check failed so far.
pub fn failed() -> bool {
    FAILURES.load(Ordering::Relaxed) != 0
}

/// How long [`delay`] holds a stream, in milliseconds: far longer than the host takes from queuing
/// work to reading its results, and than the work the programs queue takes on the GPU.
pub const DELAY_MS: u64 = 100;

/// How many delays the program queued ([`delay`]), and how many of them ran.
static DELAYS_QUEUED: AtomicU32 = AtomicU32::new(0);
static DELAYS_RUN: AtomicU32 = AtomicU32::new(0);

/// Sleeps `ms` milliseconds (C's `sleep_ms`).
pub fn sleep_ms(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

/// [`delay`]'s host function: sleeps [`DELAY_MS`], then counts itself.
unsafe extern "C" fn delay_stream(_user_data: *mut c_void) {
    sleep_ms(DELAY_MS);
    DELAYS_RUN.fetch_add(1, Ordering::SeqCst);
}

/// Holds the work queued in `stream` after this call (null: the legacy default stream) for
/// [`DELAY_MS`], with a host function that sleeps (`cuLaunchHostFunc`): until then that work
/// certainly has not run. A program queues one before work whose results the host reads after
/// waiting for it (`cuStreamSynchronize`, ...), so that where the wait does not happen (a drop
/// run's dropped call) the host reads before the work, and the check fails rather than racing the
/// GPU. [`finish`] checks that every delay ran: one that did not is a failure too.
///
/// # Safety
/// `stream` is a stream of the current context, or null.
pub unsafe fn delay(stream: CUstream) {
    // SAFETY: the caller's stream; the host function takes no data.
    if check!(unsafe { cuLaunchHostFunc(stream, Some(delay_stream), std::ptr::null_mut()) }) {
        DELAYS_QUEUED.fetch_add(1, Ordering::SeqCst);
    }
}

/// A check that every [`delay`] ran (those still queued get up to 2 s): [`finish`] makes it, and a
/// process that ends otherwise (`ipc`'s child) before it exits.
pub fn expect_delays_ran() {
    let all_ran = || DELAYS_RUN.load(Ordering::SeqCst) == DELAYS_QUEUED.load(Ordering::SeqCst);
    for _ in 0..2000 {
        if all_ran() {
            break;
        }
        sleep_ms(1);
    }
    expect(all_ran(), "every delay queued in a stream ran");
}

/// Prints the last line and exits: 0 when every check held, else 1. First, the check that every
/// [`delay`] ran.
pub fn finish() -> ! {
    expect_delays_ran();
    let failures = FAILURES.load(Ordering::Relaxed);
    println!("Result = {}", if failures == 0 { "PASS" } else { "FAIL" });
    std::process::exit(if failures == 0 { 0 } else { 1 })
}

/// The exit code of a program that cannot test what it is for on this machine.
pub const WAIVED_EXIT_CODE: i32 = 100;

/// The last line of a program that cannot test what it is for here (`why`: one GPU for a peer
/// program), and exits with [`WAIVED_EXIT_CODE`]: waived is not passed. A check that failed
/// before still fails the program ([`finish`]).
pub fn waive(why: &str) -> ! {
    if failed() {
        finish();
    }
    println!("Result = WAIVED: {why}");
    std::process::exit(WAIVED_EXIT_CODE)
}

/// Whether this run is the deliberately wrong variant `name` of the program (`CUDA_GROUP_CONTROL`
/// names it), which must fail one of its checks: the controls that show each check can fail
/// (`tests/support/programs.rs`, `CONTROLS`).
pub fn control(name: &str) -> bool {
    std::env::var_os("CUDA_GROUP_CONTROL").is_some_and(|asked| asked == name)
}

/// Prints `what: not in this driver (<why>)`, the driver's answer to the lookup of a function
/// newer than some drivers (C's `show_missing` after `entry`), where a program prints a call's
/// result.
#[cfg(feature = "cuda-12000")]
pub fn show_missing(what: &str, error: cuda_driver_sys::ProcAddressError) {
    use cuda_driver_sys::ProcAddressErrorKind as Kind;
    let version = error.entry.version;
    let why = match error.kind {
        Kind::DriverTooOld { driver } => {
            format!("the driver's version {driver} is below {version}")
        }
        Kind::SymbolNotFound => "symbol not found".to_string(),
        Kind::VersionNotSufficient => format!("not at version {version}"),
        Kind::Driver(code) => format!("cuGetProcAddress: {}", result_name(code)),
        Kind::UnknownStatus(status) => format!("status {}", status.0),
        Kind::Null => "success with a null pointer".to_string(),
    };
    println!("{what}: not in this driver ({why})");
}

/// C's `{ .type = type_, .id = id }` of a `CUmemLocation`: from CUDA 13.2 on its `id` is a member
/// of an anonymous union (C writes `location.id` either way; bindgen names the union).
pub fn location(type_: CUmemLocationType, id: c_int) -> CUmemLocation {
    // SAFETY: a C struct of integers, for which zero is a valid value.
    let mut location: CUmemLocation = unsafe { std::mem::zeroed() };
    location.type_ = type_;
    #[cfg(not(feature = "cuda-13020"))]
    {
        location.id = id;
    }
    #[cfg(feature = "cuda-13020")]
    {
        location.__bindgen_anon_1.id = id;
    }
    location
}

/// C's `location.id`.
pub fn location_id(location: &CUmemLocation) -> c_int {
    #[cfg(not(feature = "cuda-13020"))]
    return location.id;
    // SAFETY: `id` is the union's member of every location type but one that names a locality
    // domain, whose bytes it then holds.
    #[cfg(feature = "cuda-13020")]
    return unsafe { location.__bindgen_anon_1.id };
}

/// Device 0 and its primary context, retained and made current (after `cuInit`); `None` where a
/// call failed (reported and counted).
pub fn primary_context() -> Option<(CUdevice, CUcontext)> {
    let mut device: CUdevice = 0;
    let mut context: CUcontext = std::ptr::null_mut();
    // SAFETY: out-pointers to locals; the context the driver gave.
    let ok = unsafe {
        check!(cuDeviceGet(&mut device, 0))
            && check!(cuDevicePrimaryCtxRetain(&mut context, device))
            && check!(cuCtxSetCurrent(context))
    };
    ok.then_some((device, context))
}

/// The path of `file` in the kernels folder (`argv[1]`; `examples/kernels` by default).
pub fn kernel_file(file: &str) -> PathBuf {
    let dir = std::env::args_os()
        .nth(1)
        .unwrap_or_else(|| OsString::from("examples/kernels"));
    kernel_path(&dir, file)
}

/// The module of the PTX `file` in the kernels folder (null where it does not load: reported and
/// counted).
pub fn load_module(file: &str) -> CUmodule {
    let path = c_path(kernel_file(file));
    let mut module: CUmodule = std::ptr::null_mut();
    check!(unsafe { cuModuleLoad(&mut module, path.as_ptr()) });
    module
}

/// The function `name` of `module`; null where `module` is null (its load reported) or has no
/// such function (reported and counted).
pub fn get_function(module: CUmodule, name: &CStr) -> CUfunction {
    let mut function: CUfunction = std::ptr::null_mut();
    if !module.is_null() {
        // SAFETY: an out-pointer to a local; `name` is NUL-terminated.
        check!(unsafe { cuModuleGetFunction(&mut function, module, name.as_ptr()) });
    }
    function
}

/// Waits up to 10 s for the work queued in `stream` to finish (`cuStreamQuery` each
/// millisecond); whether it did (a failed query reported and counted).
pub fn finished(stream: cuda_driver_sys::CUstream) -> bool {
    for _ in 0..10_000 {
        // SAFETY: a stream of the caller's.
        let code = unsafe { cuda_driver_sys::cuStreamQuery(stream) };
        if code != CUresult::CUDA_ERROR_NOT_READY {
            return check!(code);
        }
        sleep_ms(1);
    }
    false
}

/// Checks that nothing is left in `stream` (null: the legacy default stream), as a synchronisation
/// just before promises: work held by a [`delay`] is still there where it did not wait. Then waits
/// for what is left ([`finished`]), so that the program goes on the same way either way.
///
/// # Safety
/// `stream` is a stream of the caller's, or null.
pub unsafe fn expect_idle(stream: cuda_driver_sys::CUstream, what: &str) {
    // SAFETY: the caller's stream.
    let code = unsafe { cuda_driver_sys::cuStreamQuery(stream) };
    expect(code == CUresult::CUDA_SUCCESS, what);
    finished(stream);
}

/// Waits up to 10 s for the word the GPU writes at `word` to hold `value`; whether it did.
///
/// # Safety
/// `word` points to a `u32` that stays valid (page-locked host memory the GPU writes).
pub unsafe fn wait_for(word: *const c_uint, value: c_uint) -> bool {
    for _ in 0..10_000 {
        // SAFETY: the caller's.
        if unsafe { std::ptr::read_volatile(word) } == value {
            return true;
        }
        sleep_ms(1);
    }
    // SAFETY: the caller's.
    unsafe { std::ptr::read_volatile(word) == value }
}
