//! What a parity run requires beyond the same output, and what its line says of it: on a GPU a
//! program must pass and a control fail its check, a `TWO_GPUS` program on one device must be
//! waived, a `WITHOUT_TOOLS` program under a tool is only compared, a post program on a driver
//! older than its header need not succeed, and both sides may stop at start on a symbol the
//! driver lacks (the parent module's documentation says why each).

use crate::common;
use crate::group::{GROUP_PROGRAMS, TWO_GPUS, WAIVED_EXIT_CODE, WITHOUT_TOOLS};
use crate::parity_test::Variant;
use crate::run::Run;
use std::sync::OnceLock;

/// Whether this machine has a GPU the examples must succeed on.
pub fn gpu_expected() -> bool {
    static GPU: OnceLock<bool> = OnceLock::new();
    *GPU.get_or_init(|| {
        if std::env::var("CUDA_EXPECT_GPU").is_ok_and(|v| v == "1") {
            return true;
        }
        // SAFETY: cuInit takes flags only.
        let code = unsafe { cuda_driver_sys::cuInit(0) };
        code == cuda_driver_sys::CUresult::CUDA_SUCCESS
    })
}

/// The devices the driver shows (`cuDeviceGetCount` after `cuInit`); 0 where it shows none.
fn device_count() -> i32 {
    static COUNT: OnceLock<i32> = OnceLock::new();
    *COUNT.get_or_init(|| {
        let mut count = 0;
        // SAFETY: cuInit takes flags only; cuDeviceGetCount writes one int.
        let ok = unsafe {
            cuda_driver_sys::cuInit(0) == cuda_driver_sys::CUresult::CUDA_SUCCESS
                && cuda_driver_sys::cuDeviceGetCount(&mut count)
                    == cuda_driver_sys::CUresult::CUDA_SUCCESS
        };
        if ok {
            count
        } else {
            0
        }
    })
}

/// The driver's CUDA version where it is older than this build's header (`CUDA_HEADER_VERSION`);
/// `None` where it is not, or where there is no driver to ask.
fn older_driver_than_header() -> Option<i32> {
    let mut driver = 0;
    // SAFETY: cuDriverGetVersion writes one int; it needs no cuInit.
    let code = unsafe { cuda_driver_sys::cuDriverGetVersion(&mut driver) };
    let header: i32 = env!("CUDA_HEADER_VERSION").parse().ok()?;
    (code == cuda_driver_sys::CUresult::CUDA_SUCCESS && driver < header).then_some(driver)
}

/// Whether the output has the line `Result = PASS`.
pub fn result_pass(lines: &[String]) -> bool {
    lines.iter().any(|l| l == "Result = PASS")
}

/// The reason of the output's `Result = WAIVED: <why>` line, where it has one.
pub fn waived(lines: &[String]) -> Option<&str> {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("Result = WAIVED: "))
}

/// What this machine requires of one program's runs.
pub struct Required {
    /// Success (or a control's failure) is required: a GPU, a driver at least as new as a post
    /// program's header, and no tool the program's calls are refused to.
    pub gpu: bool,
    /// The driver's version, where it is older than the header of a post program.
    older_driver: Option<i32>,
    /// A `WITHOUT_TOOLS` program with a tool attached (`CUDA_INJECTION64_PATH`).
    refused_to_tools: bool,
    /// A `TWO_GPUS` program on fewer than two devices: it must be waived.
    to_waive: bool,
}

/// What this machine requires of the program `name`'s runs.
pub fn required(name: &str) -> Required {
    // The posts' programs ask the driver for this header's version of a function
    // (`cuGetProcAddress` with `CUDA_VERSION`), which a driver older than the header refuses
    // (CUDA_ERROR_INVALID_VALUE): they run on drivers at least as new as their header. The group
    // programs look a function newer than the driver up at that function's own version (C's
    // `entry`, Rust's typed entry points) and print that the driver lacks it: they must succeed on
    // any driver.
    let older_driver = older_driver_than_header().filter(|_| !GROUP_PROGRAMS.contains(&name));
    // A tool the programs inherit (CUDA_INJECTION64_PATH: the GPU run's coverage recorder), under
    // which the driver refuses some programs' calls: both sides must refuse alike.
    let tool = std::env::var_os("CUDA_INJECTION64_PATH").is_some_and(|p| !p.is_empty());
    let refused_to_tools = tool && WITHOUT_TOOLS.contains(&name);
    Required {
        gpu: gpu_expected() && older_driver.is_none() && !refused_to_tools,
        older_driver,
        refused_to_tools,
        // Where it may be waived, it must be: it cannot test its point on this machine.
        to_waive: TWO_GPUS.contains(&name) && device_count() < 2,
    }
}

impl Required {
    /// Adds to `problems` what the sides (who, run, normalised lines) of the program `name` did
    /// wrong where success is required ([`Required::gpu`]), and then, where anything is wrong,
    /// what the Rust example said failed.
    pub fn check(
        &self,
        name: &str,
        variant: &Variant,
        checks_results: bool,
        sides: [(&str, &Run, &[String]); 2],
        problems: &mut Vec<String>,
    ) {
        if !self.gpu {
            return;
        }
        for (who, run, lines) in sides {
            problems.extend(match variant {
                Variant::Control { fails_with, .. } => {
                    control_on_a_gpu(who, run, lines, fails_with, self.to_waive)
                }
                _ => on_a_gpu(name, who, run, lines, checks_results, self.to_waive),
            });
        }
        // What the program said failed: its check reports and its own `FAILED:` lines.
        let said: Vec<&str> = (sides[1].2.iter())
            .filter(|l| {
                l.starts_with("FAILED: ") || l.ends_with(" failed. ") || l.starts_with("  code = ")
            })
            .map(String::as_str)
            .take(20)
            .collect();
        if !problems.is_empty() && !said.is_empty() {
            problems.push(format!("the Rust example reported:\n{}", said.join("\n")));
        }
    }

    /// What the parity line says after the exit code of a run that is at parity: whether success
    /// was required, and the program's `Result` line.
    pub fn results(&self, variant: &Variant, checks_results: bool, lines: &[String]) -> String {
        if let Some(driver) = self.older_driver.filter(|_| gpu_expected()) {
            format!(
                "; success not required: the driver (CUDA {driver}) is older than this build's \
                 header (CUDA {}), which the posts' programs need",
                env!("CUDA_HEADER_VERSION")
            )
        } else if self.refused_to_tools && gpu_expected() {
            format!(
                "; {} not required: a tool is attached (CUDA_INJECTION64_PATH), and the driver \
                 serves this program's calls only without one",
                match variant {
                    Variant::Control { .. } => "failure",
                    _ => "success",
                }
            )
        } else if let Some(why) = waived(lines) {
            format!(", Result = WAIVED: {why}")
        } else if let Variant::Control { fails_with, .. } = variant {
            match self.gpu {
                true => format!(", FAILED: {fails_with}, Result = FAIL, as the control must"),
                false => ", no `Result = FAIL` required (no GPU: error path)".to_string(),
            }
        } else if !checks_results {
            String::new()
        } else if result_pass(lines) {
            ", Result = PASS".to_string()
        } else if self.gpu {
            unreachable!("checked before")
        } else {
            ", no `Result = PASS` (no GPU: error path)".to_string()
        }
    }
}

/// What one side of the program `name` (or of an argument control, which must pass as its
/// program) did wrong on a GPU: it must exit with 0 and, where it checks its results, print
/// `Result = PASS`; but where it is to be waived (`to_waive`: a `TWO_GPUS` program on fewer than
/// two devices), it must print `Result = WAIVED: <why>` and exit with [`WAIVED_EXIT_CODE`].
fn on_a_gpu(
    name: &str,
    who: &str,
    run: &Run,
    lines: &[String],
    checks_results: bool,
    to_waive: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let devices = device_count();
    if to_waive {
        if run.status.code() != Some(WAIVED_EXIT_CODE) || waived(lines).is_none() {
            problems.push(format!(
                "on a GPU with {devices} device(s) the {who} must print `Result = WAIVED: <why>` \
                 and exit with {WAIVED_EXIT_CODE} ({name} needs two devices to test its point), \
                 not {}",
                run.describe_status()
            ));
        }
        return problems;
    }
    if run.status.code() != Some(0) {
        let waiver = match waived(lines) {
            Some(why) if TWO_GPUS.contains(&name) => format!(
                " (it printed `Result = WAIVED: {why}`, but the machine has {devices} devices: \
                 it must pass)"
            ),
            Some(why) => format!(
                " (it printed `Result = WAIVED: {why}`: only the programs of TWO_GPUS may be \
                 waived, on fewer than two devices)"
            ),
            None => String::new(),
        };
        problems.push(format!(
            "on a GPU the {who} must exit with 0, not {}{waiver}",
            run.describe_status()
        ));
    }
    if checks_results && !result_pass(lines) {
        problems.push(format!("on a GPU the {who} must print `Result = PASS`"));
    }
    problems
}

/// What one side of a control did wrong on a GPU: it must print `FAILED: <fails_with>` and
/// `Result = FAIL` and exit with 1 (a control that passes shows that its check cannot fail); or,
/// where the program is to be waived (`to_waive`), be waived.
fn control_on_a_gpu(
    who: &str,
    run: &Run,
    lines: &[String],
    fails_with: &str,
    to_waive: bool,
) -> Vec<String> {
    if to_waive && run.status.code() == Some(WAIVED_EXIT_CODE) && waived(lines).is_some() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let failed = format!("FAILED: {fails_with}");
    if !lines.contains(&failed) {
        problems.push(format!(
            "on a GPU the {who} of the control must print `{failed}`: the check it targets did \
             not fail"
        ));
    }
    if !lines.iter().any(|l| l == "Result = FAIL") {
        problems.push(format!(
            "on a GPU the {who} of the control must print `Result = FAIL`"
        ));
    }
    if run.status.code() != Some(1) {
        problems.push(format!(
            "on a GPU the {who} of the control must exit with 1, not {}",
            run.describe_status()
        ));
    }
    problems
}

/// The symbol(s) the two sides stopped on, when the dynamic loader refused to start both (exit
/// code 127, `undefined symbol: X` from each) because the loaded driver library really lacks
/// them: a build for a header newer than the driver (the CUDA 13.0 `cuCtxCreate_v4` on a 12.2
/// driver). A program binding several functions the driver lacks may stop on a different one on
/// each side (the loader names the first it meets, in the order each linker laid the relocations
/// out): each must be one the library lacks. Outputs and exit codes were compared before; on a
/// GPU such a stop is a failure there.
pub fn missing_symbol(c: &Run, rust: &Run) -> Option<String> {
    let symbol = |r: &Run| -> Option<String> {
        (r.status.code() == Some(127)).then_some(())?;
        let at = r.stderr.find("undefined symbol: ")? + "undefined symbol: ".len();
        let name: String = r.stderr[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    };
    let (c_symbol, rust_symbol) = (symbol(c)?, symbol(rust)?);
    for (who, symbol) in [
        ("the C twin", &c_symbol),
        ("the Rust example", &rust_symbol),
    ] {
        let name = std::ffi::CString::new(symbol.as_str()).unwrap();
        assert!(
            common::dlsym(&name).is_null(),
            "{who} stopped on {symbol}, which the driver library has"
        );
    }
    Some(if c_symbol == rust_symbol {
        c_symbol
    } else {
        format!("{c_symbol} (C twin) and {rust_symbol} (Rust example)")
    })
}
