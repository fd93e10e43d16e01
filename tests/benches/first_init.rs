//! A child of the driver benchmark (`benches/driver.rs`, `--first-init-linked` and
//! `--first-init-dynamic`): calls `cuInit(0)` once, first thing, and prints its result and the
//! `CLOCK_MONOTONIC` time just after it, in nanoseconds (`<CUresult> <ns>`), so that the parent,
//! which read the same clock before starting it, has the time from process start to the first
//! `cuInit`. Built linked, the dynamic linker loads the driver library before `main`; built with
//! `dynamic-loading`, the call opens it. `--cudarc` (with `bench-cudarc`) calls cudarc 0.19's
//! `sys::cuInit` instead. Run by `cargo test --benches` it does the same (other arguments are
//! ignored) and exits 0.

fn main() {
    // Other arguments (`--bench` from `cargo bench`, the harness options `cargo test` passes to
    // every target) change nothing.
    let cudarc = std::env::args().skip(1).any(|a| a == "--cudarc");
    let code: u32 = if cudarc {
        cudarc_init()
    } else {
        #[cfg(not(feature = "table-only"))]
        let code = unsafe { cuda_driver_sys::cuInit(0) }.0;
        // `table-only` exports no cuInit; the table's is the same function.
        #[cfg(feature = "table-only")]
        let code = unsafe { cuda_driver_sys::table().cuInit(0) }.0;
        code
    };
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) } != 0 {
        eprintln!("first_init: clock_gettime(CLOCK_MONOTONIC) failed");
        std::process::exit(1);
    }
    println!(
        "{code} {}",
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    );
}

#[cfg(feature = "bench-cudarc")]
fn cudarc_init() -> u32 {
    (unsafe { cudarc::driver::sys::cuInit(0) }) as u32
}

#[cfg(not(feature = "bench-cudarc"))]
fn cudarc_init() -> u32 {
    eprintln!("first_init: --cudarc needs the bench-cudarc feature");
    std::process::exit(2);
}
