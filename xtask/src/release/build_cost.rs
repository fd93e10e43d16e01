//! `cargo xtask build-cost`: the build cost a dependent crate pays (docs/BUILD-COST.md): cold
//! release builds of a scratch crate depending on cuda-driver-sys (one version feature, the driver
//! library only) and of one depending on cudarc driver-only with `dynamic-linking`, in alternating
//! pairs; each build's wall and CPU seconds, each pair's ratios (ours over cudarc) and their
//! medians. A measurement, not a CI step.

use crate::base::args::Args;
use crate::base::files::{create_dir, read, remove_dir, write};
use crate::base::median::median;
use crate::base::{deps, process, versions, Result};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

/// The cudarc release compared with, pinned so that the measurement is repeatable.
const CUDARC_VERSION: &str = "0.19.10";
/// The CUDA version feature cudarc needs with `dynamic-linking`: one of cudarc's own feature
/// names, pinned with its version, not a version of this workspace's list.
const CUDARC_CUDA_FEATURE: &str = "cuda-12090";

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let pairs: usize = match args.value("PAIRS") {
        Some(p) => (p.parse().ok().filter(|&n| n > 0))
            .ok_or_else(|| format!("PAIRS `{p}` is not a count of pairs"))?,
        None => 7,
    };
    let feature = match args.value("FEATURE") {
        Some(feature) => feature.to_string(),
        None => format!("cuda-{}", versions::tagged("default")?[0]),
    };
    deps::use_fetched(false)?;
    let root = process::root();
    let dir = root.join("target/build-cost");
    remove_dir(&dir)?;
    let ours = format!(
        "cuda-driver-sys = {{ path = \"{}\", default-features = false, features = [\"{feature}\"] }}",
        root.join("cuda-driver-sys").display()
    );
    scratch(&dir, "ours", &ours, "cuda_driver_sys")?;
    let cudarc = format!(
        "cudarc = {{ version = \"={CUDARC_VERSION}\", default-features = false, \
         features = [\"std\", \"driver\", \"{CUDARC_CUDA_FEATURE}\", \"dynamic-linking\"] }}"
    );
    scratch(&dir, "cudarc", &cudarc, "cudarc")?;
    // Only the driver library, as a user without a toolkit has it.
    let driver = deps::env_path("CUDA_LIBRARY_PATH", "fetch-deps sets it")?;
    std::env::set_var("LD_LIBRARY_PATH", driver);
    for name in "CUDA_LIBRARY_PATH LIBCLANG_PATH CUDA_PATH CUDA_HOME CUDA_ROOT".split(' ') {
        std::env::remove_var(name);
    }

    println!(
        "pair  ours wall/cpu  cudarc wall/cpu  ratio wall/cpu   (load average: {})",
        load_average()?
    );
    let (mut wall_ratios, mut cpu_ratios) = (Vec::new(), Vec::new());
    for pair in 1..=pairs {
        // The order within each pair flipped from pair to pair.
        let (o, c) = if pair % 2 == 1 {
            let o = build(&dir, "ours")?;
            (o, build(&dir, "cudarc")?)
        } else {
            let c = build(&dir, "cudarc")?;
            (build(&dir, "ours")?, c)
        };
        let (rw, rc) = (rounded(o.0 / c.0, 3), rounded(o.1 / c.1, 3));
        println!(
            "{pair:4}  {:5.2} / {:5.2}    {:5.2} / {:5.2}     {rw:.3} / {rc:.3}",
            o.0, o.1, c.0, c.1
        );
        wall_ratios.push(rw);
        cpu_ratios.push(rc);
    }
    println!(
        "build-cost: {pairs} pairs, {feature}: median ratio ours/cudarc wall {}, CPU {} (load average after: {})",
        shown_median(&wall_ratios),
        shown_median(&cpu_ratios),
        load_average()?
    );
    Ok(())
}

/// The scratch crate `name` in `dir`, with the one dependency `dependency` whose crate `krate`
/// its library names, its sources fetched (once, before the first pair).
fn scratch(dir: &Path, name: &str, dependency: &str, krate: &str) -> Result {
    let (manifest, lib) = (
        dir.join(name).join("Cargo.toml"),
        dir.join(name).join("src/lib.rs"),
    );
    create_dir(&dir.join(name).join("src"))?;
    write(
        &manifest,
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\
             [dependencies]\n{dependency}\n[workspace]\n"
        ),
    )?;
    write(&lib, format!("extern crate {krate};\n"))?;
    let fetch = ["fetch", "--quiet", "--manifest-path"];
    process::run(process::command("cargo").args(fetch).arg(manifest))
}

/// A cold release build of the scratch crate `name`: wall and CPU (user and system) seconds,
/// each rounded to hundredths as printed.
fn build(dir: &Path, name: &str) -> Result<(f64, f64)> {
    let crate_dir = dir.join(name);
    let target = crate_dir.join("target");
    remove_dir(&target)?;
    let mut cargo = process::command("cargo");
    cargo.args([
        "build",
        "--release",
        "--offline",
        "--quiet",
        "--manifest-path",
    ]);
    cargo
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target);
    cargo.stdout(Stdio::null()).stderr(Stdio::null());
    let cpu_before = children_cpu();
    let start = Instant::now();
    process::run(&mut cargo)?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu_before;
    Ok((rounded(wall, 2), rounded(cpu, 2)))
}

/// The user and system seconds of every child process waited for so far (their children too).
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// `x` rounded to `places` decimals, as printed (seconds to hundredths, ratios to thousandths).
fn rounded(x: f64, places: usize) -> f64 {
    format!("{x:.places$}").parse().unwrap_or(x)
}

/// The median of `ratios` as printed: the middle one to thousandths, or the mean of the two
/// middle ones to 6 significant digits, trailing zeros dropped.
fn shown_median(ratios: &[f64]) -> String {
    let m = median(ratios);
    if ratios.len() % 2 == 1 {
        return format!("{m:.3}");
    }
    let integer_digits = (m.abs().max(1.0).log10().floor() as usize) + 1;
    let text = format!("{m:.*}", 6usize.saturating_sub(integer_digits));
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

/// The 1, 5 and 15 minute load averages.
fn load_average() -> Result<String> {
    let text = read(Path::new("/proc/loadavg"))?;
    let averages: Vec<&str> = text.split_whitespace().take(3).collect();
    Ok(averages.join(" "))
}

#[cfg(test)]
mod tests {
    use super::{rounded, shown_median};

    #[test]
    fn medians_as_printed() {
        assert_eq!(shown_median(&[1.5, 0.9, 1.2]), "1.200");
        assert_eq!(shown_median(&[1.0, 1.25]), "1.125");
        assert_eq!(shown_median(&[1.0, 2.0]), "1.5");
        assert_eq!(rounded(1.0 / 3.0, 3), 0.333);
    }
}
