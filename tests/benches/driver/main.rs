//! The driver benchmarks: what calling the CUDA Driver API from Rust costs, against its C twin
//! (`tests/support/c/bench_twin.c`, compiled by the tests' build script against the same `cuda.h`
//! and linked into this program). Both run in this process, on the same context, stream, kernel
//! and device buffer, in loops of the same structure (`loops.rs`, `twin.rs`).
//!
//! ```text
//! cargo bench --bench driver                        # full run, device 0
//! cargo bench --bench driver -- --quick             # a fast run with short loops and 11 rounds
//! <target>/release/deps/driver-<hash> [options]     # the built program, run without cargo
//! ```
//!
//! Options: `--rounds N` (default 123, at least 6), `--seed S` (the random order of the loops in
//! each round; default from the clock, printed), `--quick`, `--link-gbps G` (the link's nominal
//! bandwidth in decimal GB/s, default 63: PCIe Gen5 x16; the driver API has no attribute for it),
//! `--kernels DIR` (the folder of `vector_add.ptx`; else `$CUDA_KERNELS_DIR`, else
//! `<CARGO_MANIFEST_DIR>/examples/kernels`, else `./examples/kernels`), `--first-init-linked PATH`
//! and `--first-init-dynamic PATH` (see below). `BENCH_DATE` overrides the date in the header.
//!
//! Run by `cargo test --benches` / `--all-targets` (cargo in the environment, no `--bench`, none of
//! the options above) it only makes a smoke run with tiny counts, to prove it works, and does not
//! judge the targets. Run directly, or by `cargo bench`, it measures.
//!
//! The method (`paired.rs`): the measuring thread is pinned to one CPU; each group of loops (a
//! call's forms and their C twins, a copy and its twin, ...) runs once untimed, then `--rounds`
//! rounds, each running every loop of the group once in a fresh random order, every loop long
//! enough to dwarf the timer's resolution (both printed). A row compares two loops of a group:
//! the ratio of their times in each round, the median of those ratios and its distribution-free
//! 95% confidence interval (order statistics whose binomial coverage is at least 95%, statrs).
//! Verdict: **met** when the whole interval is within the target, **missed** when it is wholly
//! beyond it, **indistinguishable** when it straddles it. The exit status is 1 only when a row
//! missed its target (or on an error).
//!
//! What is measured:
//! - call overhead, ns per call: `cuDriverGetVersion` and `cuCtxGetCurrent` in a loop: bare (C:
//!   bare), in `check_driver!` (C: the posts' `checkDriver`), as `try_driver!(..)?` in a function
//!   returning `Result` (C: return on the first error), through `cuda_driver_sys::table()` (C: the
//!   pointer `cuGetProcAddress` gives); and the Rust forms over the bare Rust call;
//! - kernel launch, µs per launch: an empty kernel `bench_empty(u64, u64)` through `cuLaunchKernel`
//!   on a `CU_STREAM_NON_BLOCKING` stream, with `kernelParams` and with a
//!   `CU_LAUNCH_PARAM_BUFFER_POINTER` buffer, bare and in `check_driver!`; each loop ends with
//!   `cuStreamSynchronize`, inside the timed region;
//! - copy bandwidth, decimal GB/s: `cuMemcpyHtoD`, `cuMemcpyDtoH`, and the `Async` forms on that
//!   stream followed by `cuStreamSynchronize`, from pageable (a `Vec`) and page-locked
//!   (`cuMemAllocHost`) memory, 4 KiB, 1 MiB and 256 MiB, as many copies per loop as take the
//!   loop's minimum time; and the page-locked 256 MiB figures over the link's nominal bandwidth;
//! - PTX JIT, ms per load: `cuModuleLoadData` of `vector_add.ptx` (then `cuModuleUnload`, untimed)
//!   in the benchmark's context, with `CUDA_CACHE_DISABLE=1`, which this program sets in its own environment before its first
//!   driver call (the C twin runs in the same process, so the driver sees the same setting);
//! - `cuGetProcAddress`, ns per lookup: every entry point of `cuda_driver_sys::entry::ALL` the
//!   driver's version allows, each once per pass over the list, through the typed
//!   `EntryPointInfo::lookup` (C: the raw call over the same symbol, version and flags arrays), and
//!   `entry::cuCtxGetCurrent.get()` repeated (C: the raw call). The Rust helper also compares the
//!   version with the driver's (cached `cuDriverGetVersion`): its cost is in the ratio.
//!
//! Built with `dynamic-loading` (the GPU bundle's `bench-driver-dynamic`) the Rust calls above go
//! through the dynamically loaded C spellings, and these rows are added (`dynamic.rs`):
//! - `cuCtxGetCurrent`, `cuDriverGetVersion` and the empty-kernel launch (`kernelParams`) through the
//!   dynamically loaded C spelling, against the same symbol linked directly (an `extern` block of
//!   this program: the library is linked for the C twin anyway) and against the C twin; with
//!   `bench-cudarc`, cudarc 0.19's `sys` function (dynamically loaded, its default) against both;
//! - with `--first-init-linked PATH --first-init-dynamic PATH` (the `first_init` program of
//!   `benches/first_init.rs` built without and with `dynamic-loading`), the time from starting a
//!   process to its first successful `cuInit(0)`, one start of each kind per round: the linked
//!   program (the dynamic linker loads the library before `main`), the dynamically loaded one (the
//!   first call opens it), and, with `bench-cudarc`, the same program calling cudarc's.
//!
//! Without a GPU (`cuInit` fails) only the `cuDriverGetVersion` and `cuGetProcAddress` rows run; the
//! rest is listed as skipped.

#[cfg(feature = "table-only")]
fn main() {
    // The benchmark compares directly linked calls with C, and `table-only` links none.
    println!("driver bench: skipped: built with the table-only feature, which links no driver function to compare");
}

/// A setup call: on failure, the report of `try_driver!` and exit 1.
#[cfg(not(feature = "table-only"))]
macro_rules! setup {
    ($($call:tt)+) => {
        if let Err(e) = cuda_check::try_driver!($($call)+) {
            $crate::die(&format!("setup failed:\n{e}"));
        }
    };
}

#[cfg(all(not(feature = "table-only"), feature = "dynamic-loading"))]
mod dynamic;
#[cfg(not(feature = "table-only"))]
mod gpu;
#[cfg(not(feature = "table-only"))]
mod loops;
#[cfg(not(feature = "table-only"))]
mod paired;
#[cfg(not(feature = "table-only"))]
mod rows;
#[cfg(not(feature = "table-only"))]
mod twin;

#[cfg(not(feature = "table-only"))]
use bench::{c_checked, checked, die, Settings};

#[cfg(not(feature = "table-only"))]
fn main() {
    bench::main();
}

#[cfg(not(feature = "table-only"))]
mod bench {
    use std::ffi::{c_int, c_uint, CStr};
    use std::io::Write;
    use std::path::PathBuf;

    use cuda_check::try_driver;
    use cuda_driver_sys::*;

    use crate::paired::{
        coverage, interval_rank, median_interval, pin_to_current_cpu, timer_resolution_ns, Rounds,
    };
    use crate::rows::{Bench, Lookups, Row, Target};
    use crate::twin::c_bench_compiler;
    use crate::{gpu, rows};

    pub struct Settings {
        /// Measure and judge the targets; else (run by `cargo test`) a smoke run.
        pub measure: bool,
        quick: bool,
        rounds: usize,
        seed: u64,
        /// Calls per overhead loop.
        pub calls: u64,
        /// Launches per launch loop.
        pub launches: u64,
        /// Copies and lookups: each loop lasts at least this long.
        pub min_secs: f64,
        pub link_gbps: f64,
        kernels: Option<PathBuf>,
        /// The `first_init` program, linked and dynamically loaded.
        first_init: Option<(PathBuf, PathBuf)>,
        command: String,
    }

    const USAGE: &str =
        "usage: driver [--bench] [--rounds N] [--seed S] [--quick] [--link-gbps G] [--kernels DIR]
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
                "--rounds",
                "--seed",
                "--link-gbps",
                "--kernels",
                "--first-init-linked",
                "--first-init-dynamic",
            ]
            .contains(&flag)
        };
        let measure = std::env::var_os("CARGO").is_none() || args.iter().skip(1).any(own_option);
        let mut quick = false;
        let mut rounds = None;
        let mut seed = None;
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
                    .unwrap_or_else(|| usage_error(&format!("{name} needs a value")))
            };
            match flag {
                "--bench" => {}
                "--quick" => quick = true,
                "--rounds" => rounds = Some(parse_count(&value("--rounds"), "--rounds")),
                "--seed" => seed = Some(parse_count(&value("--seed"), "--seed") as u64),
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
        let first_init = match (first_init_linked, first_init_dynamic) {
            (Some(l), Some(d)) => Some((l, d)),
            (None, None) => None,
            _ => usage_error("--first-init-linked and --first-init-dynamic go together"),
        };
        let (rounds, calls, launches, min_secs) = match (measure, quick) {
            (false, _) => (6, 1_000, 100, 0.000_5),
            (true, true) => (rounds.unwrap_or(11), 100_000, 1_000, 0.002),
            (true, false) => (rounds.unwrap_or(123), 1_000_000, 5_000, 0.01),
        };
        if interval_rank(rounds).is_none() {
            usage_error(&format!(
                "--rounds {rounds}: at least 6 rounds are needed for a 95% interval"
            ));
        }
        let seed = seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
        Settings {
            measure,
            quick,
            rounds,
            seed,
            calls,
            launches,
            min_secs,
            link_gbps,
            kernels,
            first_init,
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

    pub fn die(msg: &str) -> ! {
        let _ = std::io::stdout().flush();
        eprintln!("driver bench: error: {msg}");
        std::process::exit(1);
    }

    /// A Rust loop's seconds, or the end of the program if a call in it failed.
    pub fn checked(what: &str, (secs, acc): (f64, u32)) -> f64 {
        if acc != 0 {
            die(&format!(
                "{what}: a driver call in the timed loop failed (results OR-ed together: {acc})"
            ));
        }
        secs
    }

    /// [`checked`] for a C loop, which stores its results through `acc`.
    pub fn c_checked(what: &str, f: impl FnOnce(*mut c_uint) -> f64) -> f64 {
        let mut acc: c_uint = 0;
        let secs = f(&mut acc);
        checked(what, (secs, acc))
    }

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

    #[derive(Clone, Copy, PartialEq)]
    enum Verdict {
        Met,
        Missed,
        Indistinguishable,
        Reported,
        NotJudged,
    }

    impl Verdict {
        fn of(target: Target, low: f64, high: f64) -> Verdict {
            let (within, beyond) = match target {
                Target::AtMost(t) => (high <= t, low > t),
                Target::AtLeast(t) => (low >= t, high < t),
                Target::Reported => return Verdict::Reported,
                Target::Time => unreachable!("resolved by Row::bound"),
            };
            match (within, beyond) {
                (true, _) => Verdict::Met,
                (_, true) => Verdict::Missed,
                _ => Verdict::Indistinguishable,
            }
        }

        fn text(self) -> &'static str {
            match self {
                Verdict::Met => "met",
                Verdict::Missed => "**missed**",
                Verdict::Indistinguishable => "indistinguishable",
                Verdict::Reported => "reported",
                Verdict::NotJudged => "not judged (smoke run)",
            }
        }
    }

    fn header(s: &Settings, device: &str, driver: c_int) {
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
        #[cfg(feature = "dynamic-loading")]
        println!(
            "- Rust calls: dynamically loaded (`dynamic-loading`: the Rust side links no driver symbol; the C twin and this program's `linked` extern block link the library){}",
            if cfg!(feature = "bench-cudarc") { "; cudarc 0.19 `sys` calls (`bench-cudarc`)" } else { "" }
        );
        println!(
            "- settings: {}{} rounds ({} for the launch group and the pageable copies, {} for the PTX JIT, whose rounds vary most; random order within each round, seed {}); {} calls per overhead loop, {} launches per launch loop (then `cuStreamSynchronize`, timed), copies and lookups repeated to ≥ {} ms per loop; `CUDA_CACHE_DISABLE=1` set by the program before `cuInit`",
            match (s.measure, s.quick) {
                (false, _) => "SMOKE RUN (cargo test; targets not judged): ",
                (true, true) => "quick (--quick): ",
                (true, false) => "",
            },
            s.rounds,
            s.rounds * rows::NOISY_GROUP_ROUNDS,
            s.rounds * rows::JIT_ROUNDS,
            s.seed,
            s.calls,
            s.launches,
            s.min_secs * 1e3,
        );
        let intervals: Vec<String> = [1, rows::NOISY_GROUP_ROUNDS, rows::JIT_ROUNDS]
            .map(|factor| {
                let n = s.rounds * factor;
                let k = interval_rank(n).expect("checked by the settings");
                format!(
                    "{k} to {} of {n}, coverage {:.1}%",
                    n + 1 - k,
                    coverage(n, k) * 100.0
                )
            })
            .into();
        println!(
            "- method: each group of loops runs once untimed, then in rounds on one pinned thread; per row the ratio Rust/other of each round, their median, and the distribution-free interval between two sorted ratios ({})",
            intervals.join("; ")
        );
        println!("- verdict: met (the whole interval within the target), missed (wholly beyond it), indistinguishable (it straddles the target); the exit status is 1 only on a missed target");
        println!("- targets: every time ratio (Rust over C, a Rust form over the bare call, the table over the direct call, dynamically loaded over linked) ≤ 1 + max(0.02, {} ns / the other side's time): 2%, or about two cycles of the host's clock where that is more; bandwidth, Rust over C, ≥ 0.98; reported without a target: other crates, start times, and the page-locked 256 MiB copies over the link's nominal bandwidth ({:.1} GB/s, `--link-gbps`; they measure the link, not Rust against C)", rows::TIME_FLOOR_NS, s.link_gbps);
        println!();
        let _ = std::io::stdout().flush();
    }

    /// Prints the table; returns the rows that missed their target.
    fn report(s: &Settings, rows: &[Row]) -> Vec<String> {
        println!("| benchmark | Rust | other | ratio (median) | 95% interval | target | verdict |");
        println!("|---|---:|---:|---:|---|---|---|");
        let mut counts = [0usize; 5];
        let mut missed = Vec::new();
        for row in rows {
            let ratio = median_interval(&row.ratios());
            let rust = median_interval(&row.rust).median;
            let other = median_interval(&row.other).median;
            let bound = row.bound(other);
            let verdict = if s.measure {
                Verdict::of(bound, ratio.low, ratio.high)
            } else {
                Verdict::NotJudged
            };
            counts[verdict as usize] += 1;
            if verdict == Verdict::Missed {
                missed.push(format!(
                    "{}: {:.3} [{:.3}, {:.3}], target {}",
                    row.name,
                    ratio.median,
                    ratio.low,
                    ratio.high,
                    bound.text()
                ));
            }
            let other_cell = if row.note.is_empty() {
                row.unit.format(other)
            } else {
                format!("{} ({})", row.unit.format(other), row.note)
            };
            println!(
                "| {} | {} | {other_cell} | {:.3} | [{:.3}, {:.3}] | {} | {} |",
                row.name,
                row.unit.format(rust),
                ratio.median,
                ratio.low,
                ratio.high,
                bound.text(),
                verdict.text(),
            );
        }
        println!();
        let [met, miss, indist, reported, not_judged] = counts;
        println!(
            "driver bench: {} rows: {met} met, {indist} indistinguishable, {miss} missed, {reported} reported without a target, {not_judged} not judged (a smoke run's rows)",
            rows.len()
        );
        missed
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
            gpu::describe_device()
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
        header(&s, &device, driver);

        let lookups = Lookups::new(driver);
        // The measuring thread is pinned by the GPU's setup, between the driver's set-up (its own
        // threads keep the default affinity) and the first touch of the host buffers.
        let pin =
            || pin_to_current_cpu().unwrap_or_else(|e| die(&format!("pinning the thread: {e}")));
        let (gpu, cpu) = if has_gpu {
            let (gpu, cpu) = gpu::setup(s.kernels.as_deref(), pin);
            (Some(gpu), cpu)
        } else {
            (None, pin())
        };
        let mut b = Bench {
            s: &s,
            rounds: Rounds::new(s.rounds, s.seed),
            rows: Vec::new(),
        };
        if gpu.is_some() {
            rows::ctx_get_current(&mut b);
        }
        rows::driver_get_version(&mut b);
        #[cfg(feature = "dynamic-loading")]
        crate::dynamic::rows(&mut b, gpu.as_ref());
        if let Some(gpu) = &gpu {
            rows::launches(&mut b, gpu);
            rows::copies(&mut b, gpu);
            rows::jit(&mut b, gpu);
        }
        rows::lookups(&mut b, &lookups);
        if let (Some(_), Some((linked, dynamic))) = (&gpu, &s.first_init) {
            rows::first_init(&mut b, linked, dynamic);
        }
        if let Some(gpu) = gpu {
            gpu::teardown(gpu);
        }

        let missed = report(&s, &b.rows);
        let (res, step) = timer_resolution_ns();
        println!(
            "- measuring thread pinned to CPU {cpu}; timer (CLOCK_MONOTONIC): resolution {res} ns, smallest step between reads {step} ns; shortest timed loop {:.3} ms ({:.0}× that step)",
            b.rounds.shortest * 1e3,
            b.rounds.shortest * 1e9 / step.max(1) as f64,
        );
        if !has_gpu {
            for what in [
                "`cuCtxGetCurrent` overhead (bare, `check_driver!`, `try_driver!`, table)",
                "kernel launch rate (`kernelParams`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, bare and checked)",
                "copy bandwidth (`cuMemcpyHtoD`/`DtoH` and `Async`, pageable and page-locked, 4 KiB/1 MiB/256 MiB, link fraction)",
                "PTX JIT (`cuModuleLoadData` of `vector_add.ptx`)",
            ] {
                println!("- skipped (no GPU): {what}");
            }
            #[cfg(feature = "dynamic-loading")]
            println!("- skipped (no GPU): dynamically loaded against linked: `cuCtxGetCurrent`, the kernel launch, the time to the first successful `cuInit`");
        } else if s.first_init.is_none() {
            println!("- skipped: the time to the first successful `cuInit`: pass --first-init-linked PATH and --first-init-dynamic PATH (the first_init program built without and with dynamic-loading; the GPU bundle has both)");
        }
        for m in &missed {
            println!("target missed: {m}");
        }
        let verdict = if !s.measure {
            "smoke run, targets not judged"
        } else if missed.is_empty() {
            "PASS (no target missed)"
        } else {
            "FAIL (a target missed)"
        };
        println!(
            "driver bench: {}: {verdict}",
            if has_gpu {
                "GPU run"
            } else {
                "no GPU, device rows skipped"
            },
        );
        let _ = std::io::stdout().flush();
        if s.measure && !missed.is_empty() {
            std::process::exit(1);
        }
    }
}
