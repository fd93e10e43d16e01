//! `cargo xtask coverage OUT | --check`: the driver API coverage report, `docs/COVERAGE.md`,
//! written from OUT, the logs of a GPU bundle's run (`run.sh OUT`: the recorder's calls, the GPUs,
//! the date); `--check` (a CI step) fails unless its rows are exactly the functions the newest
//! headers declare, and unless the recorder, fed made-up calls without a GPU, writes the trace
//! its format gives. What it shows and what counts: docs/DESIGN.md, "Coverage". Where OUT holds
//! the drop part's results (`drops.txt`) it writes the drop runs' page, `docs/CHECKED.md`, too
//! (docs/DESIGN.md, "The drop runs").

mod answers;
mod calls;
mod checked;
pub mod drop_reasons;
mod headers;
mod report;

use crate::base::args::Args;
use crate::base::process::root;
use crate::base::versions::dotted;
use crate::base::{files, Result};
use crate::gpu::run::drop;
use std::collections::BTreeSet;
use std::path::Path;

/// The report.
const PAGE: &str = "docs/COVERAGE.md";

/// The drop runs' page.
const CHECKED: &str = "docs/CHECKED.md";

/// Runs the task.
pub fn run(args: &Args) -> Result {
    match args.value("OUT") {
        None => check(),
        Some(out) => write(Path::new(out)),
    }
}

/// Writes the pages whose logs the run in `out` holds: the report from the recorder's calls
/// (`calls/`), the drop runs' page from the drop part's results (`drops.txt`).
fn write(out: &Path) -> Result {
    let machine = report::Machine::read(out)?;
    let drops = out.join("drops.txt");
    let recorded = out.join("calls").is_dir();
    if recorded || !drops.is_file() {
        write_coverage(out, &machine)?;
    }
    if drops.is_file() {
        write_checked(&drops, &machine)?;
    }
    Ok(())
}

/// Writes the report from the recorder's calls of the run in `out`, on `machine`.
fn write_coverage(out: &Path, machine: &report::Machine) -> Result {
    let headers = headers::Headers::read(true)?;
    let calls = calls::read(out)?;
    let text = report::render(
        &headers,
        &calls,
        machine,
        &answers::table(answers::ERROR_ONLY),
    )?;
    files::write(&root().join(PAGE), &text)?;
    let (functions, processes) = (headers.functions.len(), calls.processes);
    let calls = calls.calls;
    println!("coverage: wrote {PAGE}: {functions} functions; {calls} calls recorded in {processes} processes");
    Ok(())
}

/// Writes the drop runs' page from the drop part's results `drops` (`drops.txt`), on `machine`.
fn write_checked(drops: &Path, machine: &report::Machine) -> Result {
    let results = drop::results::Results::parse(&files::read(drops)?)
        .map_err(|e| format!("{}: {e}", drops.display()))?;
    let build = checked::build(&results)?;
    let groups = crate::base::examples::group_programs_at(build)?;
    let reasons = drop_reasons::table(drop_reasons::PASSING_DROPS)?;
    let text = checked::render(&results, &groups, machine, &reasons)?;
    files::write(&root().join(CHECKED), &text)?;
    let (runs, build) = (results.runs.len(), dotted(build));
    println!("coverage: wrote {CHECKED}: {runs} drops of the {build} build's programs");
    Ok(())
}

/// The report's function rows against the newest headers' functions; the recorder's test.
fn check() -> Result {
    crate::gpu::bundle::recorder::test()?;
    let headers = headers::Headers::read(false)?;
    let rows = report::function_rows(&files::read(&root().join(PAGE))?);
    let declared: BTreeSet<String> = headers.functions.iter().map(|f| f.name.clone()).collect();
    let newest = dotted(headers.newest);
    if rows == declared {
        let n = declared.len();
        println!("coverage: {PAGE} has a row for each of the {n} functions of the {newest} headers, and no other");
        return Ok(());
    }
    let missing = Vec::from_iter(declared.difference(&rows).map(String::as_str));
    let extra = Vec::from_iter(rows.difference(&declared).map(String::as_str));
    Err(format!(
        "{PAGE} is not the {newest} headers' function list: missing {} ({}), not declared {} ({}); \
         regenerate it with `cargo xtask coverage OUT` from a GPU run of `cargo xtask gpu-bundle`",
        missing.len(),
        missing.join(", "),
        extra.len(),
        extra.join(", ")
    )
    .into())
}
