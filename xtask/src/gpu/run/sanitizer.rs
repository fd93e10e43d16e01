//! The `sanitizer` part: every example and its C twin of each build under compute-sanitizer
//! memcheck with leak check, and racecheck for the default build's kernels.

use super::checks::Checks;
use super::log::Logs;
use crate::base::examples::programs::{TWO_GPUS, WAIVED_EXIT_CODE, WITHOUT_TOOLS};
use crate::base::process::on_path;
use crate::base::{files, Result};
use std::path::Path;
use std::process::Command;

/// The group programs whose checks need kernels to run at the same time (a programmatic
/// dependent launch that begins before its primary ends, a kernel that runs after another's
/// launch completion event while that one still runs): compute-sanitizer runs kernels one at a
/// time, so under it those checks fail (seen on an H200 under memcheck) and the program exits
/// with 1; memcheck still counts their memory errors and leaks.
const CONCURRENT_KERNELS: &[&str] = &["launch"];

/// The examples that launch kernels, run under racecheck too.
const RACECHECK: &str =
    "vector_add ptx_jit ptx_link param_buffer context_independent_loading runtime_interop";

/// Runs the part, on a machine with `gpus` GPUs.
pub fn run(here: &Path, checks: &Checks, logs: &mut Logs, gpus: usize) -> Result {
    println!("== compute-sanitizer: every example and its C twin of each header (memcheck with leak check; racecheck for the kernels)");
    let Some(sanitizer) = on_path("compute-sanitizer") else {
        println!("compute-sanitizer not found");
        logs.failures.push("compute-sanitizer".into());
        return Ok(());
    };
    let kernels = here.join("kernels");
    for tag in &checks.sanitizer {
        for example in files::sorted(&here.join(format!("examples-{tag}")), "")? {
            let name = files::name(&example);
            for (side, bin) in [
                ("rust", example.clone()),
                ("c", here.join(format!("c-twins-{tag}/{name}"))),
            ] {
                if !files::executable(&bin) {
                    continue;
                }
                let check = format!("memcheck-{tag}-{name}-{side}");
                let mut command = Command::new(&sanitizer);
                command.args(["--tool", "memcheck", "--leak-check", "full"]);
                // Their API errors are what they print (`Checks::api_errors`).
                if checks.api_errors.contains(&name) {
                    command.args(["--report-api-errors", "no"]);
                }
                command
                    .args(["--error-exitcode", "3"])
                    .arg(&bin)
                    .arg(&kernels);
                // Under a tool the driver refuses their calls, or runs their kernels one at a
                // time, and they exit with 1; a program that needs two GPUs is waived on fewer,
                // with WAIVED_EXIT_CODE. Memcheck still checks the rest and exits with 3 on a
                // memory error or leak.
                let exits: &[i32] = match name.as_str() {
                    n if WITHOUT_TOOLS.contains(&n) || CONCURRENT_KERNELS.contains(&n) => &[0, 1],
                    n if TWO_GPUS.contains(&n) && gpus < 2 => &[0, WAIVED_EXIT_CODE],
                    _ => &[0],
                };
                logs.run_exiting(&check, &mut command, exits);
                logs.print_matching(&check, "ERROR SUMMARY|LEAK SUMMARY", "    ")?;
            }
            if *tag == checks.default && RACECHECK.split(' ').any(|e| e == name) {
                let check = format!("racecheck-{name}");
                let mut command = Command::new(&sanitizer);
                command
                    .args(["--tool", "racecheck", "--error-exitcode", "3"])
                    .arg(&example)
                    .arg(&kernels);
                logs.run(&check, &mut command);
                logs.print_matching(&check, "RACECHECK SUMMARY|ERROR SUMMARY", "    ")?;
            }
        }
    }
    Ok(())
}
