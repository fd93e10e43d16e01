//! `cargo xtask coverage OUT | --check`: the driver API coverage report, `docs/COVERAGE.md`.
//!
//!   cargo xtask coverage OUT    writes docs/COVERAGE.md from OUT, the logs of a GPU bundle's run
//!                               (`run.sh OUT`): the recorder's calls (`OUT/calls/`), the GPUs
//!                               (`gpus.csv`, `nvidia-smi.txt`) and the date
//!   cargo xtask coverage --check fails unless the report's functions are exactly those the newest
//!                               headers declare (a CI step: a new header adds rows, and no
//!                               function drops out unseen)
//!
//! The report has a row for every function of the newest headers (`cuda.h` and the interop
//! headers), by Doxygen group (the groups the item docs link): which of the workspace's own
//! programs called it with the same result as their C twins, which of the dependents' suites on
//! this crate called it, and why the others were not counted. A function counts where a call
//! succeeded; one whose calls all returned an error is listed apart with why that error is
//! expected (`answers`). How the calls are recorded: docs/DESIGN.md, "Coverage".

mod answers;
mod calls;
mod headers;
mod report;

use crate::base::args::Args;
use crate::base::process::root;
use crate::base::Result;
use std::collections::BTreeSet;
use std::path::Path;

/// The report.
const PAGE: &str = "docs/COVERAGE.md";

/// Runs the task.
pub fn run(args: &Args) -> Result {
    match args.value("OUT") {
        None => check(),
        Some(out) => write(Path::new(out)),
    }
}

/// Writes the report from the run's logs in `out`.
fn write(out: &Path) -> Result {
    let headers = headers::Headers::read(true)?;
    let calls = calls::read(out)?;
    let machine = report::Machine::read(out)?;
    let text = report::render(&headers, &calls, &machine, answers::ERROR_ONLY)?;
    crate::base::files::write(&root().join(PAGE), &text)?;
    println!(
        "coverage: wrote {PAGE}: {} functions; {} calls recorded in {} processes",
        headers.functions.len(),
        calls.calls,
        calls.processes
    );
    Ok(())
}

/// The report's function rows against the newest headers' functions.
fn check() -> Result {
    let headers = headers::Headers::read(false)?;
    let page = root().join(PAGE);
    let text = crate::base::files::read(&page)?;
    let rows = report::function_rows(&text);
    let declared: BTreeSet<String> = headers.functions.iter().map(|f| f.name.clone()).collect();
    let missing: Vec<&String> = declared.difference(&rows).collect();
    let extra: Vec<&String> = rows.difference(&declared).collect();
    if missing.is_empty() && extra.is_empty() {
        println!(
            "coverage: {PAGE} has a row for each of the {} functions of the {} headers, and no other",
            declared.len(),
            crate::base::versions::dotted(headers.newest)
        );
        return Ok(());
    }
    let list = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    Err(format!(
        "{PAGE} is not the {} headers' function list: missing {} ({}), not declared {} ({}); \
         regenerate it with `cargo xtask coverage OUT` from a GPU run of `cargo xtask gpu-bundle`",
        crate::base::versions::dotted(headers.newest),
        missing.len(),
        list(&missing),
        extra.len(),
        list(&extra)
    )
    .into())
}
