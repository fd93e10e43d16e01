//! Which driver calls the dropper (`lib/libcuda-drop.so`, docs/DESIGN.md "Coverage") may answer
//! with `CUDA_SUCCESS` without calling the driver: a call whose effect is on device memory, a
//! stream, an event, a graph or a setting, and that hands nothing back that the program then uses.
//! Never a creation, query, lookup, load, release or map, nor a call with an out-parameter the
//! caller reads.
//!
//! The rule is [`RULES`]: name patterns, each with its reason, over base names (a symbol's
//! `_v<n>`, `_ptds` and `_ptsz` suffixes follow its base name: `cuMemcpyHtoDAsync_v2_ptsz` is
//! `cuMemcpyHtoDAsync`). `ci/drop/droppable.txt` lists every name it admits among the functions of
//! the committed bindings (every header version, the interop headers' too), by rule; a test fails
//! where the two differ, so that a change of the rule or of the bindings shows in that list.

/// One rule: base-name patterns (`*` stands for any run of characters), whether the calls they
/// match may be dropped, and why.
pub struct Rule {
    /// The patterns.
    pub patterns: &'static [&'static str],
    /// Whether their calls may be dropped: `false` for an exception to a later rule.
    pub droppable: bool,
    /// Why.
    pub why: &'static str,
}

const fn droppable(patterns: &'static [&'static str], why: &'static str) -> Rule {
    Rule {
        patterns,
        droppable: true,
        why,
    }
}

const fn kept(patterns: &'static [&'static str], why: &'static str) -> Rule {
    Rule {
        patterns,
        droppable: false,
        why,
    }
}

/// The rule: the first whose pattern matches a name decides; a name none matches is not
/// droppable.
pub static RULES: &[Rule] = &[
    kept(
        &["cuTexRefSetAddress"],
        "hands back ByteOffset, the offset the caller must add to its texture fetches",
    ),
    droppable(
        &[
            "cuMemcpy*",
            "cuFabricCpyBatchAsync",
            "cuMemBatchDecompressAsync",
        ],
        "copies memory (a batch's failure index is written only where the call fails)",
    ),
    droppable(&["cuMemset*"], "sets memory"),
    droppable(
        &["cuMemDiscard*"],
        "discards memory's contents (and prefetches it)",
    ),
    droppable(
        &["cuLaunch*", "cuStreamAddCallback"],
        "launches a kernel or a host function",
    ),
    droppable(&["cuEventRecord*", "cu*RecordEvent"], "records an event"),
    droppable(
        &[
            "cu*WaitEvent",
            "cuStreamWaitValue*",
            "cuStreamWriteValue*",
            "cuStreamBatchMemOp",
            "cu*ExternalSemaphoresAsync",
        ],
        "makes a stream wait, or writes or signals from it",
    ),
    droppable(&["cu*Synchronize"], "waits on the host for work to finish"),
    droppable(
        &["cuGraphLaunch", "cuGraphUpload"],
        "launches or uploads a graph",
    ),
    droppable(
        &[
            "cu*SetParams",
            "cuGraph*NodeSetEvent",
            "cuGraphNodeSetEnabled",
        ],
        "sets a graph node's parameters",
    ),
    droppable(
        &[
            "cuGraphAddDependencies",
            "cuGraphRemoveDependencies",
            "cuStreamUpdateCaptureDependencies",
        ],
        "adds or removes edges of a graph or of a capture",
    ),
    droppable(
        &["cuTexRefSet*", "cuSurfRefSet*"],
        "binds or sets a texture or surface reference",
    ),
    droppable(
        &[
            "cu*Set*Attribute*",
            "cu*CopyAttributes",
            "cu*SetLimit",
            "cu*SetCacheConfig",
            "cu*SetSharedMemConfig",
            "cu*SetFlags",
            "cu*Set*MapFlags",
            "cu*SetMemPool",
            "cuMem*SetAccess",
            "cuMemAdvise",
            "cuMemPrefetch*",
            "cuStreamAttachMemAsync",
        ],
        "sets an attribute, a limit, a configuration, an access or a memory hint",
    ),
    droppable(
        &["cuFuncSetBlockShape", "cuFuncSetSharedSize", "cuParamSet*"],
        "sets the shape or the parameters of a legacy launch (cuLaunch, cuLaunchGrid)",
    ),
    droppable(
        &["cuCtxResetPersistingL2Cache", "cuFlushGPUDirectRDMAWrites"],
        "acts on the device's cache or on the order of its writes",
    ),
    droppable(
        &[
            "cuCheckpointProcessLock",
            "cuCheckpointProcessCheckpoint",
            "cuCheckpointProcessRestore",
            "cuCheckpointProcessUnlock",
        ],
        "locks, saves, restores or unlocks a process's device state",
    ),
    droppable(
        &["cuProfilerStart", "cuProfilerStop"],
        "starts or stops the profiler's collection",
    ),
];

/// `name` without its `_ptds` or `_ptsz` suffix, then without its `_v<n>` suffix.
pub fn base_name(name: &str) -> &str {
    let name = (name.strip_suffix("_ptds"))
        .or_else(|| name.strip_suffix("_ptsz"))
        .unwrap_or(name);
    match name.rsplit_once("_v") {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Whether `text` matches `pattern`, whose `*` stands for any run of characters.
fn matches(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(after) = text.strip_prefix(head) else {
                return false;
            };
            (0..=after.len()).any(|at| after.is_char_boundary(at) && matches(rest, &after[at..]))
        }
    }
}

/// The rule that decides for the driver function `name`, if one matches its base name.
pub fn rule_for(name: &str) -> Option<&'static Rule> {
    let base = base_name(name);
    RULES
        .iter()
        .find(|rule| rule.patterns.iter().any(|p| matches(p, base)))
}

/// Whether the dropper may drop a call of the driver function `name`.
pub fn is_droppable(name: &str) -> bool {
    rule_for(name).is_some_and(|rule| rule.droppable)
}

#[cfg(test)]
mod tests {
    use super::{base_name, is_droppable, matches, rule_for, RULES};
    use crate::base::{files, process, prototypes};

    /// The text of `ci/drop/droppable.txt` for the functions `names`: each droppable rule's patterns
    /// and reason as a comment, then the names it admits, sorted.
    fn list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
        let names: std::collections::BTreeSet<&str> = names.into_iter().collect();
        let mut text = String::from(
            "# The driver functions the dropper may drop: what the rule in xtask/src/base/droppable.rs\n\
             # gives for the committed bindings (every header version, the interop headers' too).\n",
        );
        for rule in RULES.iter().filter(|rule| rule.droppable) {
            let patterns = rule.patterns.join(" ");
            text += &format!("\n# {patterns}: {}\n", rule.why);
            for name in names
                .iter()
                .filter(|n| rule_for(n).is_some_and(|r| std::ptr::eq(r, rule)))
            {
                text += &format!("{name}\n");
            }
        }
        text
    }

    #[test]
    fn suffixes_follow_their_base_name() {
        for (name, base) in [
            ("cuMemcpyHtoDAsync_v2_ptsz", "cuMemcpyHtoDAsync"),
            ("cuMemcpy_ptds", "cuMemcpy"),
            ("cuCtxCreate_v4", "cuCtxCreate"),
            ("cuTexRefSetAddress2D_v3", "cuTexRefSetAddress2D"),
            ("cuLaunchKernel", "cuLaunchKernel"),
            ("cuGraphExecUpdate_v", "cuGraphExecUpdate_v"),
        ] {
            assert_eq!(base_name(name), base, "{name}");
        }
        assert!(is_droppable("cuMemcpyHtoDAsync_v2_ptsz"));
        assert!(is_droppable("cuTexRefSetAddress2D_v3"));
        assert!(!is_droppable("cuTexRefSetAddress_v2"));
        assert!(!is_droppable("cuMemAlloc_v2"));
    }

    #[test]
    fn stars_match_any_run_of_characters() {
        assert!(matches("cu*Set*Attribute*", "cuCoredumpSetAttributeGlobal"));
        assert!(matches("cu*Synchronize", "cuCtxSynchronize"));
        assert!(matches("cuMemcpy*", "cuMemcpy"));
        assert!(!matches("cuMemset*", "cuMemSetAccess"));
        assert!(!matches("cu*WaitEvent", "cuGraphAddEventWaitNode"));
        assert!(!matches("cuGraphLaunch", "cuGraphLaunchX"));
    }

    /// The committed list is what the rule gives for the committed bindings, and every pattern of
    /// the rule matches one of their functions at least (a pattern that matches none says nothing).
    #[test]
    fn the_committed_list_is_what_the_rule_gives() {
        let functions = prototypes::functions().unwrap();
        for pattern in RULES.iter().flat_map(|rule| rule.patterns) {
            assert!(
                functions.iter().any(|n| matches(pattern, base_name(n))),
                "the droppable rule's pattern {pattern} matches no function of the bindings"
            );
        }
        let given = list(functions.iter().map(String::as_str));
        let path = process::root().join("ci/drop/droppable.txt");
        let committed = files::read(&path).unwrap();
        if given != committed {
            let diff = similar::TextDiff::from_lines(&committed, &given);
            panic!(
                "ci/drop/droppable.txt differs from what the droppable rule gives (- the file, + \
                 the rule); if the rule is right, put its lines in the file:\n{}",
                diff.unified_diff().context_radius(2)
            );
        }
    }
}
