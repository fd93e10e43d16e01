//! cudarc 0.19.10 on its own `sys` and on this crate (cudarc-check --bundle, packed as
//! `cudarc.tar.xz`): each pair of builds (a header version, linked or dynamically loaded) runs its
//! library tests and examples (dependent-run), and every one that passes on cudarc's own `sys`
//! must pass on this crate, but the two that compare timings (`timing-tests`). The linked builds
//! are bound lazily and run with `LD_DEBUG=bindings`: the driver functions each side called are
//! listed in `cudarc-driver-functions-<side>`. The linked pairs from the `mem-location` header on
//! also run the tour of the calls cudarc's tests leave out ([`tour`]), which must print the same
//! on both sides. Then the safe-layer benchmark ([`bench()`]).

use super::log::Logs;
use crate::base::files::{self, read};
use crate::base::median::{median, median_interval};
use crate::base::{outcomes, process, Result};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Runs the part.
pub fn run(here: &Path, exe: &Path, logs: &mut Logs) -> Result {
    let dir = here.join("cudarc");
    if !dir.is_dir() {
        let archive = here.join("cudarc.tar.xz");
        if !archive.is_file() {
            let why = "build it with the part cudarc, or leave cudarc out of GPU_RUN_PARTS";
            return Err(format!("the bundle has no cudarc.tar.xz: {why}").into());
        }
        process::run(
            Command::new("tar")
                .arg("xJf")
                .arg(&archive)
                .arg("-C")
                .arg(here),
        )?;
    }
    let ld_path = process::loader_path_with(&dir.join("nvrtc"));
    let bindings = logs.out.join("cudarc-bindings");
    files::create_dir(&bindings)?;
    let pairs: Vec<String> = files::sorted(&dir, "ours-")?
        .iter()
        .filter_map(|p| Some(files::name(p).strip_prefix("ours-")?.to_string()))
        .collect();
    let n = pairs.len();
    println!("== cudarc 0.19.10, its library tests and examples, on its own sys and on this crate ({n} builds each)");
    // The tests whose outcome is the machine's timing, on either side.
    let timing = outcomes::expected(&read(&dir.join("timing-tests"))?);
    let mut called: [BTreeSet<String>; 2] = Default::default();
    for pair in &pairs {
        let mut texts = Vec::new();
        for (i, side) in ["own", "ours"].into_iter().enumerate() {
            let name = format!("cudarc-{side}-{pair}");
            let outcomes = logs.out.join(format!("{name}.outcomes"));
            let build = dir.join(format!("{side}-{pair}"));
            let mut command = super::dependent_run(exe, &build, &outcomes);
            command.env("LD_LIBRARY_PATH", &ld_path);
            if side == "ours" {
                super::record_calls(here, &logs.out.join("calls").join(&name), &mut command)?;
            }
            let trace = bindings.join(&name);
            if pair.ends_with("-linked") {
                command
                    .env("LD_DEBUG", "bindings")
                    .env("LD_DEBUG_OUTPUT", &trace);
            }
            logs.run(&name, &mut command);
            logs.print_matching(&name, "dependent-run:", "  ")?;
            called[i].extend(driver_functions(&bindings, &name)?);
            texts.push(read(&outcomes).unwrap_or_default());
        }
        let mut lost = outcomes::lost_passes(&texts[0], &texts[1]);
        lost.retain(|test| !timing.contains(test));
        if !lost.is_empty() {
            println!("  {pair}: passed on cudarc's own sys, not on this crate:");
            println!("    {}", lost.join("\n    "));
            logs.failures.push(format!("cudarc-{pair}"));
        }
        if dir.join(format!("ours-{pair}/tour")).is_file() {
            tour(&dir, pair, &ld_path, &bindings, logs)?;
            for (i, side) in ["own", "ours"].into_iter().enumerate() {
                called[i].extend(driver_functions(&bindings, &format!("tour-{side}-{pair}"))?);
            }
        }
    }
    for (side, functions) in ["own", "ours"].iter().zip(&called) {
        let list: String = functions.iter().map(|f| format!("{f}\n")).collect();
        let file = format!("cudarc-driver-functions-{side}");
        files::write(&logs.out.join(file), list)?;
        let n = functions.len();
        println!("  {n} driver functions called through {side} sys (linked builds; cudarc-driver-functions-{side})");
    }
    files::remove_dir(&bindings)?;
    bench(&dir, &ld_path, logs)
}

/// The tour (ci/cudarc/tour.rs) of the pair `pair` on both sides, traced as the linked builds
/// are: it must print the same on both, step by step (`cudarc-tour-<pair>.log` has both).
fn tour(dir: &Path, pair: &str, ld_path: &str, bindings: &Path, logs: &mut Logs) -> Result {
    let (mut printed, mut log) = (Vec::new(), String::new());
    for side in ["own", "ours"] {
        let mut command = Command::new(dir.join(format!("{side}-{pair}/tour")));
        let trace = bindings.join(format!("tour-{side}-{pair}"));
        command.env("LD_LIBRARY_PATH", ld_path);
        command
            .env("LD_DEBUG", "bindings")
            .env("LD_DEBUG_OUTPUT", trace);
        let output = command.output().map_err(|e| process::error(&command, e))?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let errors = String::from_utf8_lossy(&output.stderr);
        let status = output.status.code();
        log.push_str(&format!("== {side} (exit {status:?})\n{text}{errors}"));
        printed.push((status, text));
    }
    let name = format!("cudarc-tour-{pair}");
    files::write(&logs.path(&name), log)?;
    let (own, ours) = (&printed[0], &printed[1]);
    let steps = ours.1.lines().filter(|l| !l.starts_with(' ')).count();
    if own.0 == Some(0) && ours.0 == Some(0) && own.1 == ours.1 {
        println!("{name:<44} ok ({steps} steps, the same on both)");
    } else {
        println!(
            "{name:<44} FAILED (the two differ, or one failed; {})",
            logs.path(&name).display()
        );
        logs.failures.push(name);
    }
    Ok(())
}

/// Rounds of the benchmark: each runs cudarc's safe layer on its own `sys`, then on this crate.
const ROUNDS: usize = 21;

/// The safe-layer benchmark (ci/cudarc/bench.rs, both builds dynamically loaded, the default
/// header, on CPU 1): ROUNDS rounds, each a run of the build on cudarc's own `sys` then one on this crate;
/// per call, the median ratio ours/own of the rounds with a 95% distribution-free interval (the
/// order statistics of the median), into `cudarc-bench.log`. A measurement: no target.
fn bench(dir: &Path, ld_path: &str, logs: &mut Logs) -> Result {
    println!("== cudarc 0.19.10's safe layer on this crate over on its own sys ({ROUNDS} rounds, alternating)");
    let mut times: std::collections::BTreeMap<String, [Vec<f64>; 2]> = Default::default();
    let mut log = String::new();
    for round in 0..ROUNDS {
        for (i, side) in ["own", "ours"].into_iter().enumerate() {
            // Both on one CPU, where taskset is there.
            let program = dir.join(format!("bench-{side}"));
            let mut command = Command::new(&program);
            if Path::new("/usr/bin/taskset").exists() {
                command = Command::new("/usr/bin/taskset");
                command.args(["-c", "1"]).arg(program);
            }
            command.env("LD_LIBRARY_PATH", ld_path);
            let output = command.output().map_err(|e| process::error(&command, e))?;
            let text = String::from_utf8_lossy(&output.stdout).into_owned();
            log.push_str(&format!("round {round} {side}\n{text}"));
            if !output.status.success() {
                log.push_str(&String::from_utf8_lossy(&output.stderr));
                let path = logs.path("cudarc-bench");
                files::write(&path, &log)?;
                println!("cudarc-bench: FAILED ({side}; {})", path.display());
                logs.failures.push("cudarc-bench".into());
                return Ok(());
            }
            for line in text.lines() {
                if let Some((name, ns)) = line.split_once(' ') {
                    let ns: f64 = ns
                        .parse()
                        .map_err(|_| format!("bench-{side} printed `{line}`"))?;
                    times.entry(name.to_string()).or_default()[i].push(ns);
                }
            }
        }
    }
    for (name, [own, ours]) in &times {
        let ratios: Vec<f64> = ours.iter().zip(own).map(|(b, a)| b / a).collect();
        let (low, high) = median_interval(&ratios);
        let row = format!(
            "{name:<30} ours/own {:.3} [{low:.3}, {high:.3}]   own {:.1} ns, ours {:.1} ns (medians)",
            median(&ratios),
            median(own),
            median(ours)
        );
        println!("  {row}");
        log.push_str(&format!("{row}\n"));
    }
    files::write(&logs.path("cudarc-bench"), log)
}

/// The driver functions that the dynamic linker bound in the runs whose `LD_DEBUG_OUTPUT` was
/// `dir/name` (one file `name.PID` per process): the symbols bound to libcuda.
fn driver_functions(dir: &Path, name: &str) -> Result<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    for file in files::sorted(dir, &format!("{name}."))? {
        let text = String::from_utf8_lossy(&fs_err::read(&file)?).into_owned();
        found.extend(bound_to_libcuda(&text));
    }
    Ok(found)
}

/// The symbols of `LD_DEBUG=bindings` lines that bind to libcuda.
fn bound_to_libcuda(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().filter_map(|line| {
        let (_, rest) = line.split_once(" to ")?;
        let (library, symbol) = rest.split_once(": normal symbol `")?;
        let symbol = symbol.split_once('\'')?.0;
        library.contains("/libcuda.so").then(|| symbol.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::bound_to_libcuda;

    #[test]
    fn symbols_bound_to_libcuda_are_found() {
        let text =
            "    41:\tbinding file ./tests/unit [0] to /lib/x86_64-linux-gnu/libcuda.so.1 [0]: \
                    normal symbol `cuInit' [libcuda.so.1]\n    41:\tbinding file ./tests/unit [0] \
                    to /lib/x86_64-linux-gnu/libc.so.6 [0]: normal symbol `malloc' [GLIBC_2.2.5]\n";
        assert_eq!(bound_to_libcuda(text).collect::<Vec<_>>(), ["cuInit"]);
    }
}
