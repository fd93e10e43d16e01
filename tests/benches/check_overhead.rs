//! What `check_driver!` and `try_driver!` cost around a successful driver call: `cuDriverGetVersion`
//! (which succeeds without a GPU) in a tight loop, bare, inside `check_driver!` and inside
//! `try_driver!`. A program, not a timed test: `cargo bench --bench check_overhead`.
//!
//! Run by `cargo test --benches` / `--all-targets` (no `--bench` argument), it only does a short
//! smoke run, to check that it works.
//!
//! Each round times every form once, in a rotating order; the figure per form is the median over
//! the rounds (and the fastest round), in nanoseconds per call, with its ratio to the bare call.
use std::hint::black_box;
use std::time::{Duration, Instant};

use cuda_check::{check_driver, try_driver, DriverError};
use cuda_driver_sys::*;

// Many short rounds, so that a round disturbed by other work on the machine moves no median.
const CALLS: u32 = 200_000;
const ROUNDS: usize = 301;

/// The bare call; its result is kept (black_box) as the checked forms use theirs.
#[inline(never)]
fn bare(calls: u32) -> Duration {
    let mut version = 0;
    let start = Instant::now();
    for _ in 0..calls {
        let code = unsafe { cuDriverGetVersion(black_box(&mut version)) };
        let _ = black_box(code);
    }
    start.elapsed()
}

#[inline(never)]
fn checked(calls: u32) -> Duration {
    let mut version = 0;
    let start = Instant::now();
    for _ in 0..calls {
        let ok = check_driver!(unsafe { cuDriverGetVersion(black_box(&mut version)) });
        black_box(ok);
    }
    start.elapsed()
}

/// `try_driver!(...)?` in a function returning `Result`, as library code uses it.
#[inline(never)]
fn tried(calls: u32) -> Duration {
    fn version(v: &mut i32) -> Result<(), DriverError> {
        try_driver!(unsafe { cuDriverGetVersion(black_box(v)) })?;
        Ok(())
    }
    let mut v = 0;
    let start = Instant::now();
    for _ in 0..calls {
        black_box(version(&mut v).is_ok());
    }
    start.elapsed()
}

/// One timed form: `calls` calls, the time they took.
type Form = fn(u32) -> Duration;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut version = 0;
    let code = unsafe { cuDriverGetVersion(&mut version) };
    assert_eq!(
        code, CUDA_SUCCESS,
        "cuDriverGetVersion must succeed for this benchmark"
    );

    let forms: [(&str, Form); 3] = [
        ("bare cuDriverGetVersion", bare),
        ("check_driver!(...)", checked),
        ("try_driver!(...)?", tried),
    ];
    // `cargo bench` passes `--bench`; `cargo test` runs this too, without it.
    let (calls, rounds) = if std::env::args().any(|a| a == "--bench") {
        (CALLS, ROUNDS)
    } else {
        println!("smoke run (the figures need `cargo bench --bench check_overhead`)");
        (1_000, 3)
    };
    for (_, f) in &forms {
        f(calls / 10); // warm-up
    }
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); forms.len()];
    for round in 0..rounds {
        for k in 0..forms.len() {
            let i = (round + k) % forms.len();
            let t = (forms[i].1)(calls);
            ns[i].push(t.as_nanos() as f64 / f64::from(calls));
        }
    }
    println!("driver {version}; {calls} calls x {rounds} rounds per form; ns/call:");
    let medians: Vec<f64> = ns.iter().cloned().map(median).collect();
    let mins: Vec<f64> = ns
        .iter()
        .map(|v| v.iter().cloned().fold(f64::INFINITY, f64::min))
        .collect();
    for (i, (name, _)) in forms.iter().enumerate() {
        println!(
            "  {name:<24} median {:>6.3} (ratio {:.3})   fastest round {:>6.3} (ratio {:.3})",
            medians[i],
            medians[i] / medians[0],
            mins[i],
            mins[i] / mins[0],
        );
    }
}
