//! The paired design: every loop of a group runs once per round, in a fresh random order, for
//! many rounds, on one pinned thread; a row compares two loops of the group through the ratios of
//! their times in the same round. Per row: the median of those ratios and a distribution-free
//! 95% confidence interval of that median (order statistics, binomial coverage: statrs), and the
//! verdict against the row's target.

use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::statistics::{Data, Median, OrderStatistics};

/// One timed loop: given the iteration count, the seconds it took (errors end the program).
pub type Run<'a> = Box<dyn FnMut(u64) -> f64 + 'a>;

/// The rounds of every group, their random order and the shortest loop timed.
pub struct Rounds {
    pub count: usize,
    rng: fastrand::Rng,
    /// The shortest loop timed so far, in seconds (against the timer's resolution).
    pub shortest: f64,
}

impl Rounds {
    pub fn new(count: usize, seed: u64) -> Rounds {
        Rounds {
            count,
            rng: fastrand::Rng::with_seed(seed),
            shortest: f64::INFINITY,
        }
    }

    /// Runs every loop once with `n` (warm-up, not kept), then `count` rounds, each running every
    /// loop once with `n` in a fresh random order. The seconds of each loop in each round:
    /// `[loop][round]`.
    pub fn measure(&mut self, runs: &mut [Run<'_>], n: u64) -> Vec<Vec<f64>> {
        self.measure_longer(runs, n, 1)
    }

    /// [`Rounds::measure`] with `factor` times the rounds: for the groups whose rounds vary most
    /// (a ratio's interval narrows as the square root of the rounds).
    pub fn measure_longer(&mut self, runs: &mut [Run<'_>], n: u64, factor: usize) -> Vec<Vec<f64>> {
        let count = self.count * factor;
        let started = std::time::Instant::now();
        for run in runs.iter_mut() {
            run(n);
        }
        let mut order: Vec<usize> = (0..runs.len()).collect();
        let mut secs = vec![Vec::with_capacity(count); runs.len()];
        for _ in 0..count {
            self.rng.shuffle(&mut order);
            for &i in &order {
                let t = runs[i](n);
                self.shortest = self.shortest.min(t);
                secs[i].push(t);
            }
        }
        eprintln!(
            "driver bench:   {count} rounds in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        secs
    }
}

/// The median of a row's per-round ratios and its 95% confidence interval.
#[derive(Clone, Copy)]
pub struct Interval {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

/// The order statistic k (1-based) whose pair (k, n + 1 - k) bounds the median of n values with
/// at least 95% confidence whatever their distribution: the largest k with
/// P(B ≤ k − 1) ≤ 2.5% for B ~ Binomial(n, ½). `None` below 6 values, where no k reaches 95%.
pub fn interval_rank(n: usize) -> Option<usize> {
    let binomial = Binomial::new(0.5, n as u64).ok()?;
    let k = (0..n as u64)
        .take_while(|&j| binomial.cdf(j) <= 0.025)
        .count();
    (k >= 1).then_some(k)
}

/// The exact coverage of the interval of rank `k` over `n` values: 1 − 2·P(B ≤ k − 1).
pub fn coverage(n: usize, k: usize) -> f64 {
    let binomial = Binomial::new(0.5, n as u64).expect("p = ½ is a probability");
    1.0 - 2.0 * binomial.cdf(k as u64 - 1)
}

/// The median of `values` and the interval of [`interval_rank`] (`values.len()` ≥ 6).
pub fn median_interval(values: &[f64]) -> Interval {
    let n = values.len();
    let k = interval_rank(n).expect("at least 6 rounds (checked by the settings)");
    let mut data = Data::new(values.to_vec());
    Interval {
        median: data.median(),
        low: data.order_statistic(k),
        high: data.order_statistic(n + 1 - k),
    }
}

/// Pins the calling thread to the CPU it runs on: the measured loops then never migrate.
/// Returns that CPU.
pub fn pin_to_current_cpu() -> Result<usize, String> {
    // SAFETY: no arguments.
    let cpu = unsafe { libc::sched_getcpu() };
    if cpu < 0 {
        return Err(format!(
            "sched_getcpu failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes inside it (cpu < CPU_SETSIZE,
    // as the kernel gave it); sched_setaffinity reads it.
    let result = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set)
    };
    if result != 0 {
        return Err(format!(
            "sched_setaffinity(CPU {cpu}) failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(cpu as usize)
}

/// The resolution `clock_getres` gives for `CLOCK_MONOTONIC` (the clock of both twins' timers),
/// and the smallest non-zero step seen between consecutive reads of it, in nanoseconds.
pub fn timer_resolution_ns() -> (u64, u64) {
    let mut res = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer.
    unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut res) };
    let step = (0..1000)
        .filter_map(|_| {
            let t0 = std::time::Instant::now();
            loop {
                let d = t0.elapsed().as_nanos() as u64;
                if d > 0 {
                    return Some(d);
                }
            }
        })
        .min()
        .unwrap_or(0);
    (res.tv_sec as u64 * 1_000_000_000 + res.tv_nsec as u64, step)
}

/// An iteration count for which `run` takes at least `min_secs`: doubles from 1 until a run
/// takes a tenth of that, then scales.
pub fn calibrate(run: &mut Run<'_>, min_secs: f64) -> u64 {
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
