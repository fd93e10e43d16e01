//! The `tests` part: every test binary of the bundle, OpenGL interop through headless EGL, and the
//! profiler's range under ncu (and nsys where the machine has it).
//!
//! The test binaries run side by side (GPU_RUN_TEST_JOBS, default half the CPUs and at most 8),
//! each running its tests one at a time: the parity tests of the 19 example builds take about two
//! minutes each alone, past what one command may take in a row. Side by side they share the GPU,
//! as the drop part's runs do (`drop`'s docs say what that risks for the checks that measure
//! time); `GPU_RUN_TEST_JOBS=1` runs them in a row.

use super::checks::Checks;
use super::log::Logs;
use super::schedule::{self, Job};
use crate::base::examples::programs::{CONTROLS, TWO_GPUS, WITHOUT_TOOLS};
use crate::base::process::{self, on_path};
use crate::base::{files, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The lines of the test logs that show what ran: parity, results, C spellings, tables, loading.
const SUMMARY: &str = "parity ok|PARITY|Result|C spellings:|C spellings;|table, |dynamic-loading, \
                       |table of the|functions of the|resolved|vector_add through";

/// The lines of the OpenGL and EGL interop tests' logs that show what ran.
const GL_LINES: &str =
    "EGL |OpenGL |GL buffer|GL texture|stream |EGLImage|EGLSync|WAIVED|panicked|failed|FAILED";

/// The EGL vendor files of the NVIDIA driver, the first one present is used.
const EGL_VENDOR_FILES: &[&str] = &[
    "/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json",
    "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
];

/// How long one test binary may run: the longest, a parity test of every program and control of
/// a build, takes about two minutes alone.
const TEST_LIMIT: Duration = Duration::from_secs(20 * 60);

/// Runs the part, on a machine with `gpus` GPUs.
pub fn run(here: &Path, checks: &Checks, logs: &mut Logs, gpus: usize) -> Result {
    println!(
        "== tests (each test binary; logs in {})",
        logs.out.display()
    );
    let binaries = files::sorted(&here.join("tests"), "")?;
    if binaries.is_empty() {
        return Err(format!("{} has no test binaries", here.join("tests").display()).into());
    }
    // Every test binary, side by side: each parity test runs its programs one at a time.
    let jobs = schedule::jobs("GPU_RUN_TEST_JOBS")?;
    println!(
        "  {} test binaries, {jobs} side by side (GPU_RUN_TEST_JOBS)",
        binaries.len()
    );
    let mut runs = Vec::new();
    for test in &binaries {
        let name = files::name(test);
        let mut command = test_command(here, test, tag_of(&name));
        command.args(["--test-threads", "1", "--nocapture"]);
        // The programs and their twins: the coverage of the workspace's own programs.
        if name.starts_with("examples_parity-") {
            super::record_calls(here, &logs.out.join("calls").join(&name), &mut command)?;
        }
        let log = logs.path(&name);
        runs.push(Job {
            command,
            log,
            limit: TEST_LIMIT,
        });
    }
    schedule::run_side_by_side(runs, jobs, |index, ended, took| {
        logs.ended(&files::name(&binaries[index]), &ended, took);
    });
    for test in &binaries {
        let name = files::name(test);
        let tag = tag_of(&name);
        let test_command = || test_command(here, test, tag);
        if !name.starts_with("examples_parity-") {
            continue;
        }
        // The waived programs, apart from those that passed.
        let lines = logs.matching(&name, ": parity ok")?;
        let programs = lines.iter().filter_map(|line| waived(line));
        logs.waived
            .extend(programs.map(|(label, why)| format!("{name}: {label} ({why})")));
        let built = |program: &&&str| here.join(format!("c-twins-{tag}/{program}")).is_file();
        // Those the driver serves only without a tool, and their controls: once more,
        // unrecorded, to succeed (the controls: to fail their check).
        for program in WITHOUT_TOOLS.iter().filter(built) {
            let mut again = test_command();
            again.args(["--exact", &format!("group::{program}")]);
            let controls = CONTROLS.iter().filter(|c| c.program == *program);
            again.args(controls.map(|c| format!("control::{}_{}", c.program, c.name)));
            again.arg("--nocapture");
            logs.run(&format!("{name}-{program}-without-tools"), &mut again);
        }
        // Those that need two GPUs, on a machine that has them: once more on one, where they
        // must be waived (recorded apart from the coverage's runs).
        for program in TWO_GPUS.iter().filter(built).filter(|_| gpus >= 2) {
            let log = format!("{name}-{program}-one-gpu");
            let mut again = test_command();
            again.args(["--exact", &format!("group::{program}"), "--nocapture"]);
            again.env("CUDA_VISIBLE_DEVICES", "0");
            super::record_calls(
                here,
                &logs.out.join("calls-one-gpu").join(&name),
                &mut again,
            )?;
            if logs.run(&log, &mut again) {
                let lines = logs.matching(&log, ": parity ok")?;
                match lines.iter().find_map(|l| waived(l)) {
                    Some((label, why)) => println!(
                        "  {label} on one GPU (CUDA_VISIBLE_DEVICES=0): Result = WAIVED: {why}, as \
                         it must be"
                    ),
                    None => {
                        println!(
                            "{log:<44} FAILED (not waived on one GPU; {})",
                            logs.path(&log).display()
                        );
                        logs.failures.push(format!("{log}-waived"));
                    }
                }
            }
        }
    }
    let mut summary = Vec::new();
    for name in logs.all()? {
        summary.extend(logs.matching(&name, SUMMARY)?);
    }
    for line in summary.iter().take(100) {
        println!("  {line}");
    }
    gl_interop(here, logs)?;
    profiler(here, checks, logs)
}

/// The build tag of the test binary `name` (`tests/<name>-<tag>`): the examples and twins it runs.
fn tag_of(name: &str) -> &str {
    name.split_once('-').map_or("", |(_, tag)| tag)
}

/// The test binary `test` of the bundle `here` (`tests/<name>-<tag>`), given the examples and C
/// twins of its build `tag`.
pub fn test_command(here: &Path, test: &Path, tag: &str) -> Command {
    let mut command = Command::new(test);
    command.env("CUDA_EXAMPLES_DIR", here.join(format!("examples-{tag}")));
    command.env("CUDA_C_TWIN_DIR", here.join(format!("c-twins-{tag}")));
    command
}

/// The program and its reason of a parity line that says it was waived
/// (`<label>: parity ok (...), Result = WAIVED: <why>[; trace: ...]`).
fn waived(line: &str) -> Option<(&str, &str)> {
    let (label, rest) = line.split_once(": parity ok")?;
    let why = rest.split_once(", Result = WAIVED: ")?.1;
    Some((label, why.split_once("; trace: ").map_or(why, |p| p.0)))
}

/// tests/gl_interop-* and tests/egl_interop-* --ignored (linked and dynamic-loading) with the
/// machine's EGL/OpenGL loaders, else the carried Debian packages (unpacked into /, as the device
/// notes say; nothing else is unpacked there), and the NVIDIA EGL vendor file where the driver has
/// one.
fn gl_interop(here: &Path, logs: &mut Logs) -> Result {
    println!("== OpenGL and EGL interop through headless EGL (tests/gl_interop-*, tests/egl_interop-* --ignored: linked, dynamic-loading)");
    let known = process::output(Command::new("ldconfig").arg("-p"))?;
    if let Some(line) = known.lines().find(|l| l.contains("libEGL.so.1")) {
        let path = line.split_once("=> ").map_or(line, |(_, path)| path);
        println!("  loaders: the machine's ({path})");
    } else {
        let debs = files::sorted(&here.join("gl-debs"), "")?;
        for deb in &debs {
            process::run(Command::new("dpkg").arg("-x").arg(deb).arg("/"))?;
        }
        process::run(&mut Command::new("ldconfig"))?;
        let names: Vec<String> = debs.iter().map(|d| files::name(d) + " ").collect();
        println!("  loaders: unpacked from gl-debs/ ({})", names.concat());
    }
    if let Some(file) = EGL_VENDOR_FILES.iter().find(|f| Path::new(f).is_file()) {
        std::env::set_var("__EGL_VENDOR_LIBRARY_FILENAMES", file);
    }
    let vendor = std::env::var("__EGL_VENDOR_LIBRARY_FILENAMES");
    let vendor = vendor.as_deref().unwrap_or("the glvnd default search");
    println!("  EGL vendor file: {vendor}");
    let tests = [
        files::sorted(&here.join("tests"), "gl_interop-")?,
        files::sorted(&here.join("tests"), "egl_interop-")?,
    ];
    for test in tests.concat() {
        let name = format!("{}-ignored", files::name(&test));
        let mut command = Command::new(test);
        command.args(["--ignored", "--test-threads", "1", "--nocapture"]);
        // The graphics, OpenGL and EGL groups' calls: suites without twins in the coverage report.
        super::record_calls(here, &logs.out.join("calls").join(&name), &mut command)?;
        logs.run(&name, &mut command);
        logs.print_matching(&name, GL_LINES, "  ")?;
        // A test that cannot test its point here (a function this driver lacks) says so: waived,
        // apart from what passed.
        let lines = logs.matching(&name, "WAIVED: ")?;
        let whys = lines
            .iter()
            .filter_map(|line| line.strip_prefix("WAIVED: "));
        logs.waived.extend(whys.map(|why| format!("{name}: {why}")));
    }
    Ok(())
}

/// ncu --profile-from-start off: the profiler example opens the range around its launch, so at
/// least one kernel is profiled; vector_add, the same program without the two calls, must have
/// none. nsys too where the machine has it.
fn profiler(here: &Path, checks: &Checks, logs: &mut Logs) -> Result {
    println!("== profiler: ncu --profile-from-start off (kernels profiled only between cuProfilerStart and cuProfilerStop)");
    let kernels = here.join("kernels");
    if let Some(ncu) = on_path("ncu").or_else(nsight_compute) {
        for tag in &checks.profiler {
            for example in ["profiler", "vector_add"] {
                let name = format!("ncu-{example}-{tag}");
                let mut command = Command::new(&ncu);
                command.args(["--profile-from-start", "off", "--section", "LaunchStats"]);
                let program = here.join(format!("examples-{tag}/{example}"));
                command.arg(program).arg(&kernels);
                logs.run(&name, &mut command);
                let mut profiled = logs.matching(&name, "==PROF== Profiling")?;
                profiled.retain(|l| l.starts_with("==PROF== Profiling"));
                let n = profiled.len();
                let results = logs.matching(&name, "Result|cuProfilerStart")?;
                let results: String = results.iter().map(|l| format!("{l} ")).collect();
                println!("  {name}: {n} kernel(s) profiled; {results}");
                if (example == "profiler" && n < 1) || (example == "vector_add" && n != 0) {
                    println!("  {name}: FAILED (profiler: at least one kernel inside the range; vector_add: none)");
                    logs.failures.push(format!("{name}-range"));
                }
            }
        }
        if checks.profiler.contains(&checks.default) {
            let name = format!("ncu-profiler-{}", checks.default);
            let lines = logs.matching(&name, "VecAdd|Block Size|Grid Size")?;
            lines.iter().take(8).for_each(|line| println!("  {line}"));
        }
    } else {
        println!("  no ncu on this machine: profiler ran only as an example (parity above)");
    }
    if let Some(nsys) = on_path("nsys") {
        let mut command = Command::new(nsys);
        let capture =
            "profile --capture-range=cudaProfilerApi --capture-range-end=stop --stats=true";
        command.args(capture.split(' ')).arg("-o");
        command
            .arg(logs.out.join("profiler-nsys"))
            .args(["--force-overwrite", "true"]);
        let profiler = here.join(format!("examples-{}/profiler", checks.default));
        command.arg(profiler).arg(&kernels);
        logs.run("nsys-profiler", &mut command);
        let patterns = "VecAdd|capture|Capture|cuda_gpu_kern_sum|Result";
        let lines = logs.matching("nsys-profiler", patterns)?;
        lines.iter().take(20).for_each(|line| println!("  {line}"));
    } else {
        println!("  nsys: not on this machine's PATH");
    }
    Ok(())
}

/// ncu of the first Nsight Compute under /opt/nvidia/nsight-compute, where it is not on PATH.
fn nsight_compute() -> Option<PathBuf> {
    let versions = files::sorted(Path::new("/opt/nvidia/nsight-compute"), "").ok()?;
    versions
        .into_iter()
        .map(|v| v.join("ncu"))
        .find(|ncu| ncu.exists())
}

#[cfg(test)]
mod waived_lines {
    #[test]
    fn waived_programs_are_read_from_their_parity_lines() {
        let line = "peer: parity ok (40 lines, exit code 100), Result = WAIVED: one GPU; trace: 3 \
                    calls in 3 runs, 1 process, 1 thread, the same";
        assert_eq!(super::waived(line), Some(("peer", "one GPU")));
        let passed = "peer: parity ok (40 lines, exit code 0), Result = PASS; trace: 3 calls";
        assert_eq!(super::waived(passed), None);
    }
}
