//! Why a group program may still pass with one of its driver calls taken away: a reason written
//! by hand for each such drop ([`PASSING_DROPS`]), held by the drop runs' page
//! (`docs/CHECKED.md`) as the error-only answers are by the coverage report (`answers.rs`): the
//! page is not written while a passing drop lacks its reason or a reason explains no passing drop.

use crate::base::Result;
use crate::gpu::run::drop::results::{DropRun, Spec};
use std::fmt;

/// The drops a group program passed and why it may, a line a reason (read by [`table`]): a
/// program, then one or more of its drops (`<entry>`, every call of that driver entry;
/// `<entry>:<k>[@<g>]`, the one call), perhaps more programs with theirs, then after `: ` why.
pub const PASSING_DROPS: &str = "\
    launch cuFuncSetCacheConfig:1 library cuKernelSetCacheConfig: a cache preference the driver \
    may ignore, and no call reads a function's or a kernel's cache configuration back\n\
    launch cuFuncSetSharedMemConfig:1 contexts cuCtxSetSharedMemConfig:1: a shared memory bank \
    size: Hopper's banks are 4 bytes wide whatever is asked, so neither a kernel's reads nor \
    cuCtxGetSharedMemConfig can tell the call was made\n\
    launch cuGraphUpload:1 graph_nodes cuGraphUpload:1: uploads the executable graph ahead of \
    its launch, which uploads whatever was not uploaded: the launch's results are the same \
    either way\n\
    launch cuParamSetTexRef:1: binds no texture reference (null) to scale's default slot, and \
    scale reads no texture: nothing a kernel or the host can see\n\
    launch cuParamSetv:1: zeroes the parameter area before the parameters are set, so that a \
    parameter whose own set is taken away reads 0 in every process; each of those sets' drops \
    fails the launch's output\n\
    graph_nodes cuGraphExecEventRecordNodeSetEvent:1: moves the executable graph's record node, \
    with its wait node, to other_event; left on event, the wait node waits for an event never \
    recorded, which lets the graph run the same, and an executable graph has no getter for a \
    node's event\n\
    graph_nodes cuGraphExecEventWaitNodeSetEvent:1: moves the executable graph's wait node, with \
    its record node, to other_event; left on event, it waits for an event the previous launch \
    recorded, which is complete, and an executable graph has no getter for a node's event\n\
    graph_nodes cuGraphExternalSemaphoresSignalNodeSetParams:1 \
    cuGraphExternalSemaphoresWaitNodeSetParams:1: set the parameters just read from a node with \
    no semaphore (none can be exported here): there are no others to set, and the node's graph \
    is never run\n\
    mem cuMemBatchDecompressAsync:1: a batch of no operations (the H200 has no decompression \
    engine to give one to): the call has no effect to observe; its answer is printed\n\
    streams_events cuStreamAttachMemAsync:1: attaching managed memory to one stream matters only \
    on a device without concurrent managed access; the H200 has it, so nothing the program reads \
    changes without it\n\
    contexts cuCtxResetPersistingL2Cache:1: no L2 line was made persisting before it, so there \
    is nothing whose reset this machine can observe\n\
    checkpoint cuCtxSynchronize:1@1: the child's, after it fills its memory: the parent's \
    checkpoint lock waits for the child's submitted work, and the child's later copy is ordered \
    after the fill on the same stream anyway\n\
    device_query cuFlushGPUDirectRDMAWrites:1: no GPUDirect RDMA writer is attached here, so the \
    flush orders no write this machine can observe\n\
    external cuMemsetD32_v2:2 green_contexts cuMemsetD32_v2:1: zeroes memory just allocated, \
    which already reads as zero here, and the checks after it look for values other than zero\n\
    external cuCtxSynchronize:1 green_contexts cuCtxSynchronize:1: waits for that zeroing, which \
    ends long before anything reads the memory (the first writer after it is held back 200 ms, \
    the first round's 300 ms)\n\
    green_contexts cuStreamSynchronize:4 cuStreamSynchronize:6: partition 0's stream at the end \
    of each round: the round's copy, already synchronized, waited for that stream's work through \
    the event, so nothing is left to wait for\n\
    ipc cuMemPoolSetAccess:1@1 pools cuMemPoolSetAccess:1: gives a pool's own device access to \
    it, which that device, the only one here, has whether or not it is set; access from another \
    device needs a second GPU\n\
    tensor_map cuMemsetD32_v2 textures cuMemsetD32_v2:1 cuMemsetD32_v2:2: guards: clear output \
    that the kernel after them overwrites in full, so that a kernel that did nothing shows; that \
    kernel's own drop fails its check\n\
    textures cuCtxSynchronize:1: takes the kernel's answer through the references, which the \
    program prints; the copy after it is on the same legacy stream and waits for the kernel \
    itself\n\
    unified cuPointerSetAttribute:1 cuPointerSetAttribute:2: SYNC_MEMOPS unset, then set: with \
    either call taken away, both read-backs still gave the values the program sets (0, then 1), \
    on both sides; the driver's answer here does not follow these two sets, so no read-back can \
    notice either\n\
    unified cuMemDiscardBatchAsync:1: a discard leaves the memory's contents undefined: nothing \
    the program can read tells discarded memory from kept (the discard-and-prefetch after it is \
    checked by its prefetch)\n\
";

/// A reason: the drops it explains (of the program `program`, the entry `entry`: every call of
/// it, or the call `call`, `(k, generation)`) and why the program may pass without them.
#[derive(Debug, PartialEq, Eq)]
pub struct Reason {
    pub program: &'static str,
    pub entry: &'static str,
    pub call: Option<(u32, u32)>,
    pub why: &'static str,
}

impl Reason {
    /// Whether it explains `run`.
    fn explains(&self, run: &DropRun) -> bool {
        let call = (run.spec.k, run.spec.generation);
        run.program == self.program
            && run.spec.entry == self.entry
            && self.call.is_none_or(|c| c == call)
    }

    /// The drops it explains, as its line names them: `<program> <entry>[:<k>[@<g>]]`.
    pub fn target(&self) -> String {
        match self.call {
            None => format!("{} {}", self.program, self.entry),
            Some((k, generation)) => {
                let entry = self.entry.into();
                format!(
                    "{} {}",
                    self.program,
                    Spec {
                        entry,
                        k,
                        generation
                    }
                )
            }
        }
    }
}

/// The reasons of the lines `text`, one for each drop a line names; an error names a line that
/// is not `<program> <drop>... [<program> <drop>...]: <why>`.
pub fn table(text: &'static str) -> Result<Vec<Reason>> {
    let mut reasons = Vec::new();
    for line in text.lines() {
        let bad = |what: &str| format!("PASSING_DROPS: `{line}`: {what}");
        let (names, why) = line.split_once(": ").ok_or_else(|| bad("no `: <why>`"))?;
        let mut program = None;
        let mut drops = 0;
        for word in names.split(' ') {
            let is_entry = word.starts_with("cu") && word[2..].starts_with(char::is_uppercase);
            if !is_entry {
                if program.is_some() && drops == 0 {
                    return Err(bad(&format!("the program before `{word}` names no drop")).into());
                }
                (program, drops) = (Some(word), 0);
                continue;
            }
            let program = program.ok_or_else(|| bad("a drop before any program"))?;
            let (entry, call) = match word.split_once(':') {
                None => (word, None),
                Some((entry, _)) => {
                    let spec = Spec::parse(word).map_err(|e| bad(&e.to_string()))?;
                    (entry, Some((spec.k, spec.generation)))
                }
            };
            reasons.push(Reason {
                program,
                entry,
                call,
                why,
            });
            drops += 1;
        }
        if drops == 0 {
            return Err(bad("its last program names no drop").into());
        }
    }
    Ok(reasons)
}

/// What is wrong between the passing drops and their reasons: the passing drops without a
/// reason (each `<program> <spec>`), and the reasons that explain none (each its target).
#[derive(Debug, Default)]
pub struct Problems {
    pub unexplained: Vec<String>,
    pub stale: Vec<String>,
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "the passing drops of the group programs and their reasons (PASSING_DROPS in \
             xtask/src/gpu/coverage/drop_reasons.rs: why the program may pass without the call) \
             disagree:",
        )?;
        for run in &self.unexplained {
            write!(f, "\n  {run} passed: no reason")?;
        }
        for target in &self.stale {
            write!(
                f,
                "\n  {target}: its reason explains no passing drop: not needed"
            )?;
        }
        Ok(())
    }
}

/// The passing drops of the group programs among `runs` (`is_group` says which programs are):
/// those whose sides agreed on a verdict that
/// [`passed`](crate::gpu::run::drop::results::Verdict::passed).
pub fn passing(runs: &[DropRun], is_group: impl Fn(&str) -> bool) -> Vec<&DropRun> {
    let passing = runs.iter();
    Vec::from_iter(passing.filter(|r| r.agree && r.verdict.passed() && is_group(&r.program)))
}

/// Each [`passing`] drop of `runs` with the first of `reasons` that explains it; else what is
/// wrong: those without a reason, and the reasons that explain none.
pub fn explain<'a, 'r>(
    runs: &'a [DropRun],
    is_group: impl Fn(&str) -> bool,
    reasons: &'r [Reason],
) -> std::result::Result<Vec<(&'a DropRun, &'r Reason)>, Problems> {
    let passing = passing(runs, is_group);
    let (mut explained, mut problems) = (Vec::new(), Problems::default());
    for run in &passing {
        match reasons.iter().find(|r| r.explains(run)) {
            Some(reason) => explained.push((*run, reason)),
            None => problems.unexplained.push(run.name()),
        }
    }
    for reason in reasons {
        if !passing.iter().any(|run| reason.explains(run)) {
            problems.stale.push(reason.target());
        }
    }
    if problems.unexplained.is_empty() && problems.stale.is_empty() {
        return Ok(explained);
    }
    Err(problems)
}

#[cfg(test)]
mod tests {
    use super::{explain, table, PASSING_DROPS};
    use crate::gpu::run::drop::results::Results;

    #[test]
    fn the_reasons_read_and_a_bad_line_is_named() {
        table(PASSING_DROPS).unwrap();
        let reasons = table(
            "mem cuCtxSynchronize cuMemcpyHtoD_v2:2 launch cuLaunchKernel:1@1: shared\n\
             streams cuStreamSynchronize:3: alone",
        )
        .unwrap();
        let targets = Vec::from_iter(reasons.iter().map(|r| (r.target(), r.why)));
        let want = [
            ("mem cuCtxSynchronize", "shared"),
            ("mem cuMemcpyHtoD_v2:2", "shared"),
            ("launch cuLaunchKernel:1@1", "shared"),
            ("streams cuStreamSynchronize:3", "alone"),
        ];
        assert_eq!(targets, want.map(|(t, w)| (t.to_string(), w)));
        for (bad, says) in [
            ("mem cuCtxSynchronize", "no `: <why>`"),
            ("cuCtxSynchronize: why", "a drop before any program"),
            (
                "mem launch cuLaunchKernel: why",
                "the program before `launch` names no drop",
            ),
            ("mem: why", "its last program names no drop"),
            ("mem cuCtxSynchronize:0: why", "is not a drop"),
        ] {
            let error = table(bad).err().unwrap().to_string();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn a_passing_drop_without_a_reason_and_a_reason_without_one_fail() {
        let results = Results::parse(
            "mem cuCtxSynchronize:1 PASS agree\n\
             mem cuCtxSynchronize:2 PASS agree\n\
             mem cuMemcpyHtoD_v2:1 FAILED agree FAILED: bytes back\n\
             mem cuMemcpyHtoD_v2:2 PASS agree\n\
             vector_add cuCtxSynchronize:1 PASS agree\n",
        )
        .unwrap();
        let runs = &results.runs;
        let is_group = |p: &str| p == "mem";
        let reasons = table("mem cuCtxSynchronize: synchronised again later").unwrap();
        let problems = explain(runs, is_group, &reasons).err().unwrap();
        // The post's passing drop needs no reason; the group program's does.
        assert_eq!(problems.unexplained, ["mem cuMemcpyHtoD_v2:2"]);
        assert!(problems.stale.is_empty());
        let message = problems.to_string();
        assert!(
            message.contains("\n  mem cuMemcpyHtoD_v2:2 passed: no reason"),
            "{message}"
        );

        let reasons = table(
            "mem cuCtxSynchronize cuMemcpyHtoD_v2:2: why\nmem cuMemcpyHtoD_v2:1: it failed\n\
             vector_add cuCtxSynchronize: a post's",
        )
        .unwrap();
        let problems = explain(runs, is_group, &reasons).err().unwrap();
        assert!(problems.unexplained.is_empty());
        assert_eq!(
            problems.stale,
            ["mem cuMemcpyHtoD_v2:1", "vector_add cuCtxSynchronize"]
        );
        let message = problems.to_string();
        let stale = "\n  mem cuMemcpyHtoD_v2:1: its reason explains no passing drop: not needed";
        assert!(message.contains(stale), "{message}");

        let explained = explain(runs, is_group, &reasons[..2]).unwrap();
        let names = Vec::from_iter(explained.iter().map(|(run, r)| (run.name(), r.why)));
        let want = [
            "mem cuCtxSynchronize:1",
            "mem cuCtxSynchronize:2",
            "mem cuMemcpyHtoD_v2:2",
        ];
        assert_eq!(names, want.map(|n| (n.to_string(), "why")));
    }
}
