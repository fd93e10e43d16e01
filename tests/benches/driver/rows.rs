//! The rows: each group of loops measured in paired rounds (`paired.rs`), and the rows that
//! compare two loops of a group. Rust against its C twin, or a Rust form against the bare call.

use std::cell::Cell;
use std::ffi::{c_int, c_uint};
use std::hint::black_box;
use std::path::Path;

use cuda_driver_sys::*;

use crate::gpu::{Gpu, MAX_COPY};
use crate::paired::{calibrate, Rounds, Run};
use crate::twin::*;
use crate::{c_checked, checked, die, loops, Settings};

#[derive(Clone, Copy)]
pub enum Unit {
    Ns,
    Us,
    Ms,
    GBps,
}

impl Unit {
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Ns => format!("{v:.2} ns"),
            Unit::Us => format!("{v:.3} µs"),
            Unit::Ms => format!("{v:.2} ms"),
            Unit::GBps => format!("{v:.2} GB/s"),
        }
    }
}

#[derive(Clone, Copy)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
    /// The rule of every time ratio ([`Row::bound`]): at most 1.02, or one [`TIME_FLOOR_NS`] over
    /// the other side's time where that is more.
    Time,
    /// A figure reported beside the others, with no target (another crate's, a start time, the
    /// link's share of its nominal bandwidth).
    Reported,
}

impl Target {
    pub fn text(self) -> String {
        match self {
            Target::AtMost(t) => format!("≤ {t:.3}"),
            Target::AtLeast(t) => format!("≥ {t:.2}"),
            Target::Time => "≤ max(1.02, 1 + 0.5 ns / other)".to_string(),
            Target::Reported => "none (reported)".to_string(),
        }
    }
}

/// The smallest per-call difference a time row judges: 0.5 ns, about two cycles of the host's
/// clock. Between separate runs of the same loops, the same call (a 5-13 ns driver call) moved by
/// that much (docs/BENCHMARKS.md); a bound tighter than it makes the verdict a coin toss.
pub const TIME_FLOOR_NS: f64 = 0.5;
/// Every time ratio (Rust against C, a Rust form against the bare call, the table against the
/// direct call, dynamically loaded against linked): [`Target::Time`].
pub const TIME: Target = Target::Time;
/// Every bandwidth ratio, Rust against C.
pub const BANDWIDTH: Target = Target::AtLeast(0.98);

/// One row: `rust` against `other` round by round (C's figure, or the bare Rust call's, or the
/// link's nominal bandwidth, as `note` says), in `unit`; the row's ratios are `rust / other`.
pub struct Row {
    pub name: String,
    pub unit: Unit,
    pub rust: Vec<f64>,
    pub other: Vec<f64>,
    pub note: &'static str,
    pub target: Target,
}

impl Row {
    /// Loop `a` against loop `b` of a group whose per-round figures are `v`.
    pub fn pair(
        name: impl Into<String>,
        unit: Unit,
        v: &[Vec<f64>],
        (a, b): (usize, usize),
        note: &'static str,
        target: Target,
    ) -> Row {
        Row {
            name: name.into(),
            unit,
            rust: v[a].clone(),
            other: v[b].clone(),
            note,
            target,
        }
    }

    /// The row's target, with [`Target::Time`] resolved against `other`, the median of the other
    /// side's times (in the row's unit): `1 + max(0.02, TIME_FLOOR_NS / other)`.
    pub fn bound(&self, other: f64) -> Target {
        let Target::Time = self.target else {
            return self.target;
        };
        let ns_per_unit = match self.unit {
            Unit::Ns => 1.0,
            Unit::Us => 1e3,
            Unit::Ms => 1e6,
            Unit::GBps => unreachable!("a time target on a bandwidth row"),
        };
        Target::AtMost(1.0 + f64::max(0.02, TIME_FLOOR_NS / (other * ns_per_unit)))
    }

    pub fn ratios(&self) -> Vec<f64> {
        self.rust
            .iter()
            .zip(&self.other)
            .map(|(r, o)| r / o)
            .collect()
    }
}

/// Per-round seconds turned into the rows' unit by `f`.
pub fn figures(secs: &[Vec<f64>], f: impl Fn(f64) -> f64) -> Vec<Vec<f64>> {
    secs.iter()
        .map(|s| s.iter().map(|&t| f(t)).collect())
        .collect()
}

/// What the row groups share: the settings, the rounds, the rows so far.
pub struct Bench<'s> {
    pub s: &'s Settings,
    pub rounds: Rounds,
    pub rows: Vec<Row>,
}

type RustLoop = fn(u64) -> (f64, u32);
type CLoop = unsafe extern "C" fn(i64, *mut c_uint) -> f64;

/// One call's four forms (bare, `check_driver!`, `try_driver!`, table) and their C twins, in
/// one group of eight loops.
fn overhead(b: &mut Bench, f: &str, rust: [RustLoop; 4], c: [CLoop; 4]) {
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
    let calls = b.s.calls;
    let ns = figures(&b.rounds.measure(&mut runs, calls), |t| {
        t * 1e9 / calls as f64
    });
    let rows = [
        (format!("`{f}`, bare"), (0, 1), "", TIME),
        (
            format!("`check_driver!({f}(..))` (C: the posts' `checkDriver`)"),
            (2, 3),
            "",
            TIME,
        ),
        (
            format!("`check_driver!({f}(..))` over bare `{f}`, both Rust"),
            (2, 0),
            "bare Rust",
            TIME,
        ),
        (
            format!("`try_driver!({f}(..))?` (C: return on error)"),
            (4, 5),
            "",
            TIME,
        ),
        (
            format!("`try_driver!({f}(..))?` over bare `{f}`, both Rust"),
            (4, 0),
            "bare Rust",
            TIME,
        ),
        (
            format!("`table().{f}` (C: pointer from `cuGetProcAddress`)"),
            (6, 7),
            "",
            TIME,
        ),
        (
            format!("`table().{f}` over direct `{f}`, both Rust"),
            (6, 0),
            "direct Rust",
            TIME,
        ),
    ];
    for (name, pair, note, target) in rows {
        b.rows
            .push(Row::pair(name, Unit::Ns, &ns, pair, note, target));
    }
}

pub fn ctx_get_current(b: &mut Bench) {
    overhead(
        b,
        "cuCtxGetCurrent",
        [
            loops::ctx_get_current,
            loops::ctx_get_current_check,
            loops::ctx_get_current_try,
            loops::ctx_get_current_table,
        ],
        [
            c_bench_ctx_get_current,
            c_bench_ctx_get_current_check,
            c_bench_ctx_get_current_try,
            c_bench_ctx_get_current_pfn,
        ],
    );
}

pub fn driver_get_version(b: &mut Bench) {
    overhead(
        b,
        "cuDriverGetVersion",
        [
            loops::driver_get_version,
            loops::driver_get_version_check,
            loops::driver_get_version_try,
            loops::driver_get_version_table,
        ],
        [
            c_bench_driver_get_version,
            c_bench_driver_get_version_check,
            c_bench_driver_get_version_try,
            c_bench_driver_get_version_pfn,
        ],
    );
}

pub fn launches(b: &mut Bench, gpu: &Gpu) {
    eprintln!("driver bench: kernel launch rate");
    let (f, st) = (gpu.kernel, gpu.stream);
    let mut args = loops::LaunchArgs::new();
    let (by_params, by_buffer) = (args.by_params(), args.by_buffer());
    type CLaunch = unsafe extern "C" fn(CUfunction, CUstream, i64, *mut c_uint) -> f64;
    let forms: [(&str, _, CLaunch, CLaunch); 2] = [
        (
            "kernelParams",
            by_params,
            c_bench_launch_args,
            c_bench_launch_args_check,
        ),
        (
            "extra",
            by_buffer,
            c_bench_launch_extra,
            c_bench_launch_extra_check,
        ),
    ];
    let mut runs: Vec<Run<'_>> = Vec::new();
    for (label, how, c, c_check) in forms {
        runs.push(Box::new(move |n| {
            checked(
                &format!("Rust launch {label}"),
                loops::launch(f, st, how, n),
            )
        }));
        runs.push(Box::new(move |n| {
            c_checked(&format!("C launch {label}"), |acc| unsafe {
                c(f, st, n as i64, acc)
            })
        }));
        runs.push(Box::new(move |n| {
            checked(
                &format!("Rust launch {label} check_driver!"),
                loops::launch_check(f, st, how, n),
            )
        }));
        runs.push(Box::new(move |n| {
            c_checked(&format!("C launch {label} check_driver!"), |acc| unsafe {
                c_check(f, st, n as i64, acc)
            })
        }));
    }
    let launches = b.s.launches;
    let us = figures(
        &b.rounds
            .measure_longer(&mut runs, launches, NOISY_GROUP_ROUNDS),
        |t| t * 1e6 / launches as f64,
    );
    drop(runs);
    drop(args);
    for (way, base) in [
        ("`kernelParams`", 0),
        ("`CU_LAUNCH_PARAM_BUFFER_POINTER`", 4),
    ] {
        let rows = [
            (
                format!("`cuLaunchKernel`, empty kernel, {way}"),
                (base, base + 1),
                "",
                TIME,
            ),
            (
                format!("`cuLaunchKernel`, {way}, in `check_driver!` (C: `checkDriver`)"),
                (base + 2, base + 3),
                "",
                TIME,
            ),
            (
                format!("`cuLaunchKernel`, {way}: `check_driver!` over bare, both Rust"),
                (base + 2, base),
                "bare Rust",
                TIME,
            ),
        ];
        for (name, pair, note, target) in rows {
            b.rows
                .push(Row::pair(name, Unit::Us, &us, pair, note, target));
        }
    }
}

#[derive(Clone, Copy)]
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
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

pub fn copies(b: &mut Bench, gpu: &Gpu) {
    let (d, st) = (gpu.device_buffer, gpu.stream);
    let mut link_rows = Vec::new();
    for op in [
        CopyOp::HtoD,
        CopyOp::DtoH,
        CopyOp::HtoDAsync,
        CopyOp::DtoHAsync,
    ] {
        for locked in [false, true] {
            let host = gpu.host(locked);
            let memory = if locked { "page-locked" } else { "pageable" };
            for bytes in [4 << 10, 1 << 20, MAX_COPY] {
                let name = format!("{} {memory} {}", op.name(), size_name(bytes));
                eprintln!("driver bench: {name}");
                let (rust_what, c_what) = (format!("Rust {name}"), format!("C {name}"));
                let mut runs: Vec<Run<'_>> = vec![
                    Box::new(|n| {
                        checked(
                            &rust_what,
                            match op {
                                CopyOp::HtoD => loops::htod(d, host, bytes, n),
                                CopyOp::DtoH => loops::dtoh(host, d, bytes, n),
                                CopyOp::HtoDAsync => loops::htod_async(d, host, bytes, st, n),
                                CopyOp::DtoHAsync => loops::dtoh_async(host, d, bytes, st, n),
                            },
                        )
                    }),
                    Box::new(|n| {
                        let n = n as i64;
                        c_checked(&c_what, |acc| unsafe {
                            match op {
                                CopyOp::HtoD => c_bench_htod(d, host, bytes, n, acc),
                                CopyOp::DtoH => c_bench_dtoh(host, d, bytes, n, acc),
                                CopyOp::HtoDAsync => c_bench_htod_async(d, host, bytes, st, n, acc),
                                CopyOp::DtoHAsync => c_bench_dtoh_async(host, d, bytes, st, n, acc),
                            }
                        })
                    }),
                ];
                let n = calibrate(&mut runs[0], b.s.min_secs);
                let factor = if locked { 1 } else { NOISY_GROUP_ROUNDS };
                let gbps = figures(&b.rounds.measure_longer(&mut runs, n, factor), |t| {
                    (bytes as f64 * n as f64) / t / 1e9
                });
                b.rows.push(Row::pair(
                    format!("{name}, ×{n}"),
                    Unit::GBps,
                    &gbps,
                    (0, 1),
                    "",
                    BANDWIDTH,
                ));
                if locked && bytes == MAX_COPY {
                    link_rows.push(Row {
                        name: format!("{name}, Rust over the link's nominal bandwidth"),
                        unit: Unit::GBps,
                        other: vec![b.s.link_gbps; gbps[0].len()],
                        rust: gbps.into_iter().next().expect("two loops"),
                        note: "nominal",
                        target: Target::Reported,
                    });
                }
            }
        }
    }
    b.rows.extend(link_rows);
}

/// The rounds of the launch group and of the pageable copies, in rounds of the other groups: a
/// round's ratio varies most there (a launch ratio by about 1.5% on an H100; a pageable copy goes
/// through the driver's staging buffer), and at 123 rounds a launch ratio near 1.005 straddled its
/// 1.02 target in one run of three, a pageable 1 MiB copy's 0.994 its 0.98 (H200).
pub const NOISY_GROUP_ROUNDS: usize = 2;
/// The PTX JIT's rounds, in rounds of the other groups: one 11.5 ms compile's ratio varies by
/// about 5% (H100); at 123 rounds the interval was ±0.02-0.03 wide.
pub const JIT_ROUNDS: usize = 5;

pub fn jit(b: &mut Bench, gpu: &Gpu) {
    eprintln!("driver bench: PTX JIT");
    let ptx = gpu.jit_ptx.as_ptr().cast();
    // In the bench's context, each load unloaded (untimed) before the next: with the disk cache
    // off, every load compiles again (the row's time per load says so).
    let mut runs: Vec<Run<'_>> = vec![
        Box::new(|_| checked("Rust PTX JIT", loops::jit_load(ptx))),
        Box::new(|_| c_checked("C PTX JIT", |acc| unsafe { c_bench_jit_load(ptx, acc) })),
    ];
    let ms = figures(&b.rounds.measure_longer(&mut runs, 1, JIT_ROUNDS), |t| {
        t * 1e3
    });
    b.rows.push(Row::pair(
        "`cuModuleLoadData` of `vector_add.ptx`, `CUDA_CACHE_DISABLE=1`",
        Unit::Ms,
        &ms,
        (0, 1),
        "",
        TIME,
    ));
}

/// The entry points of `entry::ALL` the driver's version allows, and the same as the C twin's
/// table.
pub struct Lookups {
    list: Vec<EntryPointInfo>,
    table: Vec<BenchEntry>,
}

impl Lookups {
    pub fn new(driver: c_int) -> Lookups {
        // Versions above the driver's are refused by the Rust helper without asking the driver:
        // left out, so that both sides make the same calls.
        let list: Vec<EntryPointInfo> = entry::ALL
            .iter()
            .copied()
            .filter(|i| i.version <= driver)
            .collect();
        // SAFETY: written once, before any lookup loop runs (one thread).
        unsafe { c_bench_driver_version = driver };
        Lookups {
            table: list
                .iter()
                .map(|i| BenchEntry {
                    symbol: i.symbol.as_ptr(),
                    version: i.version,
                    flags: u64::from(i.default_flags().0),
                })
                .collect(),
            list,
        }
    }
}

pub fn lookups(b: &mut Bench, l: &Lookups) {
    eprintln!(
        "driver bench: cuGetProcAddress over {} entry points",
        l.list.len()
    );
    let count = l.list.len() as i64;
    let (rust_found, c_found) = (Cell::new(0i64), Cell::new(0i64));
    let mut runs: Vec<Run<'_>> = vec![
        Box::new(|rounds| {
            let (secs, found, _) = loops::lookup_list(&l.list, rounds);
            rust_found.set(found / rounds as i64);
            secs
        }),
        Box::new(|rounds| {
            let (mut found, mut sink) = (0i64, 0usize);
            let secs = unsafe {
                c_bench_proc_address_list(
                    l.table.as_ptr(),
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
    let rounds = calibrate(&mut runs[0], b.s.min_secs);
    let ns = figures(&b.rounds.measure(&mut runs, rounds), |t| {
        t * 1e9 / (rounds as f64 * count as f64)
    });
    drop(runs);
    if rust_found.get() != c_found.get() {
        die(&format!(
            "cuGetProcAddress: the Rust helper found {} of {count} entry points, the raw C call {}",
            rust_found.get(),
            c_found.get()
        ));
    }
    b.rows.push(Row::pair(
        format!(
            "`EntryPointInfo::lookup`, {count} entry points ({} found) once each (C: `cuGetProcAddress` after the driver-version check)",
            c_found.get()
        ),
        Unit::Ns,
        &ns,
        (0, 1),
        "",
        TIME,
    ));

    let info = entry::cuCtxGetCurrent.info();
    let flags = u64::from(info.default_flags().0);
    let mut runs: Vec<Run<'_>> = vec![
        Box::new(|n| {
            let (secs, found, _) = loops::lookup_one(n);
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
    let n = calibrate(&mut runs[0], b.s.min_secs);
    let ns = figures(&b.rounds.measure(&mut runs, n), |t| t * 1e9 / n as f64);
    b.rows.push(Row::pair(
        "`entry::cuCtxGetCurrent.get()`, repeated (C: `cuGetProcAddress` after the driver-version check)",
        Unit::Ns,
        &ns,
        (0, 1),
        "",
        TIME,
    ));
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

/// The time from starting a process to its first successful `cuInit`: linked, dynamically
/// loaded (and through cudarc), one start of each per round.
pub fn first_init(b: &mut Bench, linked: &Path, dynamic: &Path) {
    eprintln!("driver bench: time from process start to the first successful cuInit");
    let mut runs: Vec<Run<'_>> = vec![
        Box::new(|_| first_init_once("linked first_init", linked, &[])),
        Box::new(|_| first_init_once("dynamically loaded first_init", dynamic, &[])),
    ];
    #[cfg(feature = "bench-cudarc")]
    runs.push(Box::new(|_| {
        first_init_once("first_init --cudarc", dynamic, &["--cudarc"])
    }));
    let ms = figures(&b.rounds.measure(&mut runs, 1), |t| t * 1e3);
    let what = "time from process start to the first successful `cuInit`";
    b.rows.push(Row::pair(
        format!("{what}: dynamically loaded over linked"),
        Unit::Ms,
        &ms,
        (1, 0),
        "linked",
        Target::Reported,
    ));
    #[cfg(feature = "bench-cudarc")]
    b.rows.push(Row::pair(
        format!("{what}: cudarc 0.19 `sys` over linked"),
        Unit::Ms,
        &ms,
        (2, 0),
        "linked",
        Target::Reported,
    ));
}
