//! What the driver's answers count as: a call succeeded where it returned `CUDA_SUCCESS` or the
//! status its function exists to return ([`STATUSES`]); a function whose calls all returned an
//! error is listed apart, with why that error is the answer expected on the GPU machine
//! ([`ERROR_ONLY`]), and the report is not written while one lacks its reason.

use crate::base::Result;
use std::collections::{BTreeMap, BTreeSet};

/// The functions that exist to return a status besides `CUDA_SUCCESS`, and that status: a call
/// that returned it succeeded.
pub const STATUSES: &[(&str, &str)] = &[
    // A query of work not done yet.
    ("cuStreamQuery", "CUDA_ERROR_NOT_READY"),
    ("cuEventQuery", "CUDA_ERROR_NOT_READY"),
];

/// Whether `result` (a result's name) of the function `function` is a success.
pub fn succeeded(function: &str, result: &str) -> bool {
    result == "CUDA_SUCCESS" || STATUSES.contains(&(function, result))
}

/// A function whose every recorded call returned an error: the error, and why it is the answer
/// expected on the GPU machine (an H100 under Linux, the recorder attached to the process).
pub struct ErrorOnly {
    pub function: &'static str,
    pub answer: &'static str,
    pub why: &'static str,
}

/// The functions that only returned an error on the GPU machine, a line each (read by [`table`]):
/// the functions, then after `: ` their answer and why.
pub const ERROR_ONLY: &str = "\
    cuDeviceGetLuid: CUDA_ERROR_NOT_SUPPORTED: Windows only: a LUID is a WDDM device's\n\
    cuDeviceGetNvSciSyncAttributes: CUDA_ERROR_INVALID_HANDLE: called with no attribute list, the \
    machine having no NvSci: the driver refuses the null list\n\
    cuLibraryGetUnifiedFunction: CUDA_ERROR_INVALID_VALUE: asked for `add_values`, a kernel and \
    not a unified function, which the driver refuses\n\
    cuMemBatchDecompressAsync: CUDA_ERROR_NOT_SUPPORTED: the H100 has no hardware decompression \
    engine: even an empty batch is refused\n\
    cuParamSetTexRef: CUDA_ERROR_INVALID_HANDLE: called with a null texture reference, which the \
    driver refuses\n\
    cuGraphExecExternalSemaphoresSignalNodeSetParams cuGraphExecExternalSemaphoresWaitNodeSetParams: \
    CUDA_ERROR_INVALID_VALUE: given a node of another graph than the executable graph's, which \
    the driver refuses\n\
    cuCheckpointProcessGetState cuCheckpointProcessLock cuCheckpointProcessCheckpoint \
    cuCheckpointProcessRestore cuCheckpointProcessUnlock: CUDA_ERROR_NOT_SUPPORTED: the driver \
    refuses checkpointing to a process a tool is attached to, the recorder included (its parity \
    run without the recorder: above)\n\
    cuProfilerInitialize: CUDA_ERROR_NOT_SUPPORTED: deprecated: since CUDA 12.0 it always returns \
    CUDA_ERROR_NOT_SUPPORTED (its header)";

/// Each name of the lines `table` (`<name>...: <text>`) with its text, in order.
pub fn named(table: &'static str) -> impl Iterator<Item = (&'static str, &'static str)> {
    let line = |l: &'static str| l.split_once(": ");
    let named = |(names, text): (&'static str, _)| names.split(' ').map(move |n| (n, text));
    table.lines().filter_map(line).flat_map(named)
}

/// The reasons of the lines `text` (`<function>...: <answer>: <why>`), a function each.
pub fn table(text: &'static str) -> Vec<ErrorOnly> {
    let reason = |(function, rest): (_, &'static str)| {
        let (answer, why) = rest.split_once(": ").unwrap_or((rest, ""));
        ErrorOnly {
            function,
            answer,
            why,
        }
    };
    named(text).map(reason).collect()
}

/// The reason in `reasons` of each function of `error_only`, by function, (each to the results it returned);
/// fails naming the functions without one, those that returned other than their reason's
/// answer, and the reasons of functions not in `error_only` (which succeeded or were not called).
pub fn reasons<'r>(
    error_only: &BTreeMap<&str, BTreeSet<String>>,
    reasons: &'r [ErrorOnly],
) -> Result<BTreeMap<&'r str, &'r ErrorOnly>> {
    let (mut found, mut problems) = (BTreeMap::new(), Vec::new());
    for (function, results) in error_only {
        let results = Vec::from_iter(results.iter().map(String::as_str)).join(", ");
        match reasons.iter().find(|r| r.function == *function) {
            None => problems.push(format!("{function} (returned {results}): no reason")),
            Some(r) if results != r.answer => problems.push(format!(
                "{function} returned {results}, its reason is for {}",
                r.answer
            )),
            Some(r) => {
                found.insert(r.function, r);
            }
        }
    }
    for r in reasons {
        if !error_only.contains_key(r.function) {
            let what = "did not return only an error (it succeeded or was not called): its \
                        reason is not needed";
            problems.push(format!("{} {what}", r.function));
        }
    }
    if problems.is_empty() {
        return Ok(found);
    }
    Err(format!(
        "the functions that returned only an error and their reasons (ERROR_ONLY in \
         xtask/src/gpu/coverage/answers.rs: why that error is the answer expected on the GPU \
         machine) disagree:\n  {}",
        problems.join("\n  ")
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::{reasons, succeeded, table, ERROR_ONLY, STATUSES};
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn a_status_succeeds_only_for_its_function() {
        assert!(succeeded("cuMemAlloc", "CUDA_SUCCESS"));
        assert!(succeeded("cuStreamQuery", "CUDA_ERROR_NOT_READY"));
        assert!(!succeeded("cuStreamSynchronize", "CUDA_ERROR_NOT_READY"));
        assert!(!succeeded("cuStreamQuery", "CUDA_ERROR_INVALID_VALUE"));
    }

    #[test]
    fn the_tables_name_each_function_once_and_an_error() {
        let mut names = BTreeSet::new();
        for (function, status) in STATUSES {
            assert!(names.insert(*function), "{function} twice");
            assert!(status.starts_with("CUDA_ERROR_"), "{function}: {status}");
        }
        for r in table(ERROR_ONLY) {
            assert!(names.insert(r.function), "{} twice", r.function);
            assert!(r.answer.starts_with("CUDA_ERROR_"), "{}", r.function);
            assert!(!r.why.is_empty(), "{}", r.function);
        }
    }

    #[test]
    fn a_missing_wrong_or_unneeded_reason_fails_naming_it() {
        let table = table(
            "cuA: CUDA_ERROR_NOT_SUPPORTED: a\ncuB: CUDA_ERROR_NOT_SUPPORTED: b\n\
             cuUnneeded: CUDA_ERROR_NOT_SUPPORTED: c",
        );
        let answered = |r: &str| BTreeSet::from([r.to_string()]);
        let mut error_only = BTreeMap::from([
            ("cuA", answered("CUDA_ERROR_NOT_SUPPORTED")),
            ("cuB", answered("CUDA_ERROR_INVALID_VALUE")),
            ("cuNoReason", answered("CUDA_ERROR_INVALID_HANDLE")),
        ]);
        let error = reasons(&error_only, &table).err().unwrap().to_string();
        assert!(error.contains("cuNoReason (returned CUDA_ERROR_INVALID_HANDLE): no reason"));
        assert!(error.contains("cuB returned CUDA_ERROR_INVALID_VALUE, its reason is for"));
        assert!(error.contains("cuUnneeded did not return only an error"));
        assert!(!error.contains("cuA"), "{error}");
        error_only.remove("cuNoReason");
        error_only.insert("cuB", answered("CUDA_ERROR_NOT_SUPPORTED"));
        error_only.insert("cuUnneeded", answered("CUDA_ERROR_NOT_SUPPORTED"));
        let found = reasons(&error_only, &table).unwrap();
        assert_eq!(
            found.values().map(|r| r.why).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }
}
