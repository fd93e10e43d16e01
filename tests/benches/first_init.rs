//! A child of the driver benchmark (`benches/driver.rs`, `--first-init-linked` and
//! `--first-init-dynamic`): calls `cuInit(0)` once, first thing, and prints its result and the
//! `CLOCK_MONOTONIC` time just after it, in nanoseconds (`<CUresult> <ns>`), so that the parent,
//! which read the same clock before starting it, has the time from process start to the first
//! `cuInit`. Built linked, the dynamic linker loads the driver library before `main`; built with
//! `dynamic-loading`, the call opens it. `--cudarc` (with `bench-cudarc`) calls cudarc 0.19's
//! `sys::cuInit` instead. Run by `cargo test --benches` it does the same and exits 0.

fn main() {
    let code: u32 = match std::env::args().nth(1).as_deref() {
        // `cargo bench` passes --bench.
        #[cfg(not(feature = "table-only"))]
        None | Some("--bench") => unsafe { cuda_driver_sys::cuInit(0) }.0,
        // `table-only` exports no cuInit; the table's is the same function.
        #[cfg(feature = "table-only")]
        None | Some("--bench") => unsafe { cuda_driver_sys::table().cuInit(0) }.0,
        #[cfg(feature = "bench-cudarc")]
        Some("--cudarc") => (unsafe { cudarc::driver::sys::cuInit(0) }) as u32,
        Some(other) => {
            eprintln!("first_init: unknown argument {other:?} (usage: first_init [--cudarc])");
            std::process::exit(2);
        }
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
