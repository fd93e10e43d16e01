//! The first call from 64 threads at once, on one CPU and on two: this crate's loader against the
//! same program whose threads wait on `std::sync::Once` (the parking baseline). Built with
//! `dynamic-loading` (Cargo.toml's required-features): the first call opens the driver library,
//! and every thread that arrives while one thread is loading waits for it.
//!
//! Each child process (`--child crate` or `--child once`) starts 64 threads at a barrier; each
//! thread then makes its first driver call, `cuDriverGetVersion`:
//! - `crate`: this crate's `cuDriverGetVersion`, whose first call loads the library through the
//!   loader (`dlopen` of `libcuda.so.1`, the four symbols taken by name);
//! - `once`: a `std::sync::Once` whose one run does the same `dlopen` and the same four `dlsym`s,
//!   then the call through the pointer it stored; the threads that arrive meanwhile park.
//!
//! The child prints the time from the first thread's start (its return from the barrier) to the
//! last thread's answer, in nanoseconds, and checks that every thread got `CUDA_SUCCESS` and the
//! same version. The parent (`cargo bench --bench first_call`) runs the children in a fresh
//! process each (the first call happens once per process) under `taskset -c 0` and
//! `taskset -c 0,1`, `ROUNDS` rounds, each round both variants in a random order, and prints per
//! CPU set each variant's median, mean, 90th percentile and maximum, and over `once` the median of
//! the paired ratios with its 95% confidence interval (the driver benchmark's order statistics,
//! `driver/paired.rs`) and the ratio of the means (the tail, where a spinning wait loses, weighs
//! in the mean).
//! `--compare NAME PATH` adds another build of this program (say, of an older loader) as a third
//! variant, run as `PATH --child crate`. Needs the driver library on `LD_LIBRARY_PATH` (Debian's
//! 535 library does: no GPU is needed). Without `--bench` (`cargo test --benches`) it runs one
//! child of each variant on all CPUs and exits 0: a smoke test.

use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Instant;

#[allow(dead_code)]
#[path = "driver/paired.rs"]
mod paired;

const THREADS: usize = 64;
const ROUNDS: usize = 101;
const CPU_SETS: [&str; 2] = ["0", "0,1"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, variant] = &args[..] {
        if flag == "--child" {
            child(variant);
            return;
        }
    }
    let exe = std::env::current_exe().unwrap();
    let mut variants: Vec<(String, Command)> = ["crate", "once"]
        .iter()
        .map(|v| {
            let mut c = Command::new(&exe);
            c.args(["--child", v]);
            (v.to_string(), c)
        })
        .collect();
    if let Some(i) = args.iter().position(|a| a == "--compare") {
        let (name, path) = (&args[i + 1], &args[i + 2]);
        let mut c = Command::new(path);
        c.args(["--child", "crate"]);
        variants.push((name.clone(), c));
    }
    if !args.iter().any(|a| a == "--bench") {
        for (name, command) in &mut variants {
            let ns = run(command, None);
            println!("first_call (smoke): {name}: {THREADS} threads answered in {ns} ns");
        }
        return;
    }
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    println!(
        "first_call: {THREADS} threads' first call, {ROUNDS} rounds per CPU set, fresh process \
         each, variants in random order (seed {seed}); {}",
        cpu_model()
    );
    for cpus in CPU_SETS {
        let mut times = vec![Vec::with_capacity(ROUNDS); variants.len()];
        let mut order: Vec<usize> = (0..variants.len()).collect();
        for _ in 0..ROUNDS {
            rng.shuffle(&mut order);
            for &v in &order {
                times[v].push(run(&mut variants[v].1, Some(cpus)) as f64);
            }
        }
        println!("taskset -c {cpus}:");
        let once = &times[1];
        for (v, (name, _)) in variants.iter().enumerate() {
            let mut sorted = times[v].clone();
            sorted.sort_by(f64::total_cmp);
            let ms = |x: f64| x / 1e6;
            let mean = sorted.iter().sum::<f64>() / ROUNDS as f64;
            print!(
                "  {name:>10}: median {:7.2} ms, mean {:7.2}, 90th percentile {:7.2}, max {:7.2}",
                ms(sorted[ROUNDS / 2]),
                ms(mean),
                ms(sorted[ROUNDS * 9 / 10]),
                ms(sorted[ROUNDS - 1])
            );
            if v != 1 {
                let ratios: Vec<f64> = times[v].iter().zip(once).map(|(a, b)| a / b).collect();
                let i = paired::median_interval(&ratios);
                let means = times[v].iter().sum::<f64>() / once.iter().sum::<f64>();
                print!(
                    "; over once: median ratio {:.3} [{:.3}, {:.3}], ratio of means {means:.3}",
                    i.median, i.low, i.high
                );
            }
            println!();
        }
    }
}

/// Runs one child (under `taskset -c cpus` if given) and returns the nanoseconds it printed.
fn run(command: &mut Command, cpus: Option<&str>) -> u64 {
    let out = match cpus {
        Some(cpus) => Command::new("taskset")
            .args(["-c", cpus])
            .arg(command.get_program())
            .args(command.get_args())
            .output(),
        None => command.output(),
    }
    .expect("the child starts");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed ({}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("child printed {text:?}"))
}

/// The processor, from /proc/cpuinfo.
fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split(':').nth(1))
        .unwrap_or("unknown CPU")
        .trim()
        .to_string();
    let count = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{count} x {model}")
}

fn child(variant: &str) {
    let call: fn() -> (i32, i32) = match variant {
        "crate" => crate_call,
        "once" => once_call,
        other => panic!("unknown variant {other}"),
    };
    let barrier = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let start = Instant::now();
                let answer = call();
                (start, Instant::now(), answer)
            })
        })
        .collect();
    let seen: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let first = seen.iter().map(|s| s.0).min().unwrap();
    let last = seen.iter().map(|s| s.1).max().unwrap();
    let answer = seen[0].2;
    assert_eq!(answer.0, 0, "cuDriverGetVersion failed: {answer:?}");
    assert!(seen.iter().all(|s| s.2 == answer), "threads disagree");
    println!("{}", (last - first).as_nanos());
}

/// This crate's first call: the loader opens the library.
fn crate_call() -> (i32, i32) {
    let mut v = 0;
    let code = unsafe { cuda_driver_sys::cuDriverGetVersion(&mut v) };
    (code.0 as i32, v)
}

/// The parking baseline: the same loading under `std::sync::Once`.
fn once_call() -> (i32, i32) {
    use std::sync::atomic::{AtomicPtr, Ordering};
    static ONCE: std::sync::Once = std::sync::Once::new();
    static VERSION: AtomicPtr<libc::c_void> = AtomicPtr::new(std::ptr::null_mut());
    ONCE.call_once(|| {
        let handle =
            unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
        assert!(!handle.is_null(), "dlopen libcuda.so.1");
        let mut version = std::ptr::null_mut();
        for name in [
            c"cuGetProcAddress_v2",
            c"cuDriverGetVersion",
            c"cuGetErrorName",
            c"cuGetErrorString",
        ] {
            let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
            assert!(!p.is_null(), "dlsym {name:?}");
            if name == c"cuDriverGetVersion" {
                version = p;
            }
        }
        VERSION.store(version, Ordering::Release);
    });
    let f: unsafe extern "C" fn(*mut i32) -> i32 =
        unsafe { std::mem::transmute(VERSION.load(Ordering::Acquire)) };
    let mut v = 0;
    let code = unsafe { f(&mut v) };
    (code, v)
}
