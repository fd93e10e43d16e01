//! The group programs (`examples/groups/<name>.rs`, each with its C twin `<name>.cpp`): read from
//! their declarations in the root `Cargo.toml`, the one place that says which header each needs:
//!
//! ```toml
//! [[example]]
//! name = "device_query"
//! path = "examples/groups/device_query.rs"
//! required-features = ["cuda-12000"]
//! ```
//!
//! `required-features` names exactly one version feature, the oldest header that declares every
//! function the program calls (newer functions under `cfg`/`#if`). The tests' build script (which
//! compiles the twins and writes one parity test per program) and the xtask tasks that run the
//! examples (`first-run`, `dynamic-check`, the GPU bundle) include this file by path.

use std::path::Path;

/// The folder of the group programs and their twins, from the workspace root.
pub const FOLDER: &str = "examples/groups";

/// The group programs whose calls the driver serves only to a process no tool is attached to:
/// with a CUPTI subscriber (the GPU run's coverage recorder) or compute-sanitizer attached, it
/// answers CUDA_ERROR_NOT_SUPPORTED to every `cuCheckpointProcess*` call but
/// `cuCheckpointProcessGetRestoreThreadId` (measured on an H100, driver 580.159.04). Under a tool
/// their parity compares the two sides' refusals; the GPU run runs them once more without one.
pub const WITHOUT_TOOLS: &[&str] = &["checkpoint"];

/// The group programs that need two devices to test their point: on a machine with fewer they
/// print `Result = WAIVED: <why>` and exit with [`WAIVED_EXIT_CODE`]; with two or more they must
/// pass.
pub const TWO_GPUS: &[&str] = &["peer"];

/// A deliberately wrong variant of a group program, to show that one of its checks can fail: both
/// sides run it when `CUDA_GROUP_CONTROL` names it (`control("<name>")` in the program, C and
/// Rust alike), and on a GPU both must print `FAILED: <fails_with>` and `Result = FAIL`, exit
/// with 1, and agree line for line, as in any parity run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    /// The group program.
    pub program: &'static str,
    /// The variant, as `CUDA_GROUP_CONTROL` names it (letters, digits and `_`).
    pub name: &'static str,
    /// The check it breaks: the text of the `FAILED:` line both sides must print.
    pub fails_with: &'static str,
}

/// The controls the parity test runs on every build of their program (`control::<program>_<name>`),
/// cheap enough to run every time.
pub const CONTROLS: &[Control] = &[
    Control {
        program: "mem",
        name: "nv12_planes_mixed",
        fails_with: "NV12 plane 1 bytes back",
    },
    Control {
        program: "external",
        name: "no_wait",
        fails_with:
            "words the reader read after waiting on the semaphore, as the writer wrote them",
    },
    // Another allocation imported in place of the memory: the premise of every words check of
    // the program (what is imported is that memory, not memory of its own), so they all fail at
    // once, the first named here. That each check can fail alone, the drop runs show: one driver
    // call taken away at a time.
    Control {
        program: "external",
        name: "other_memory",
        fails_with:
            "words written through the memory's own mapping, read through the external buffer",
    },
    Control {
        program: "ipc",
        name: "no_wait",
        fails_with: "parent: the child's words in the legacy IPC memory, after its event",
    },
    Control {
        program: "green_contexts",
        name: "no_wait",
        fails_with: "partition 1 copied partition 0's late words after cuStreamWaitEvent",
    },
    Control {
        program: "green_contexts",
        name: "no_green_wait",
        fails_with: "partition 1 copied partition 0's late words after cuGreenCtxWaitEvent",
    },
    Control {
        program: "tensor_map",
        name: "wrong_offsets",
        fails_with: "the im2col map's columns are the host's im2col",
    },
    Control {
        program: "vmm",
        name: "other_offset",
        fails_with: "the tile reads back at each pool offset the data copied in there",
    },
    // grid_exchange launched with plain cuLaunchKernel: no grid workspace, so no grid barrier.
    Control {
        program: "launch",
        name: "plain_launch",
        fails_with: "blocks that found the grid workspace of a cooperative launch",
    },
    // The PDL primary without griddepcontrol.launch_dependents: its wait for the dependent ends
    // after 1 s.
    Control {
        program: "launch",
        name: "no_trigger",
        fails_with: "the dependent began before the primary ended",
    },
    // An ordinary event recorded after the kernel in place of its launch completion event: its
    // wait for the kernel after the event ends after 1 s.
    Control {
        program: "launch",
        name: "plain_event",
        fails_with: "the kernel after the launch completion event ran while the first ran",
    },
];

/// A group program run as one of its controls under one dropped driver call (a drop run's
/// `CUDA_DROP_CONTROL` and `CUDA_DROP`).
// xtask's GPU runner reads these; the tests' build script, which includes this file too, does not.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropControl {
    /// The group program.
    pub program: &'static str,
    /// The control, as `CUDA_GROUP_CONTROL` names it: the program with one check disabled.
    pub name: &'static str,
    /// The drop that check notices, `<entry>:<k>` (the k-th call of the driver entry `<entry>`).
    pub drop: &'static str,
}

/// The control of the drop runs' page (`docs/CHECKED.md`): under its drop, the program without
/// the check that notices it must pass, and the page's report, given that passing drop as the
/// program's, must fail for want of a reason. The GPU runner's drop part runs it and says both.
#[allow(dead_code)]
pub const PAGE_CONTROL: DropControl = DropControl {
    program: "mem",
    name: "no_copy_check",
    drop: "cuMemcpyDtoH_v2:1",
};

/// A deliberately wrong argument in a group program's Rust side that its output does not show, to
/// show that the driver-call trace comparison notices it: the test
/// `argument_control::<program>_<name>` runs the C twin plainly and the Rust example with
/// `CUDA_GROUP_CONTROL=<name>`; their outputs must be the same, and where the recorder records (on
/// a GPU) the trace comparison must fail at a call of the entry, naming the argument.
// Read by the tests' build script alone, not by xtask, which includes this file too.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgumentControl {
    /// The group program.
    pub program: &'static str,
    /// The variant, as `CUDA_GROUP_CONTROL` names it (letters, digits and `_`; not a name of
    /// [`CONTROLS`] for the same program: both write their traces under `<program>-<name>`).
    pub name: &'static str,
    /// `<entry> <argument>`: the driver symbol of the call (its `_ptsz`/`_ptds` variant matches
    /// too) and the path of the argument the comparison must name (`config.sharedMemBytes`).
    pub argument: &'static str,
}

/// The argument controls, run on every build of their program, one of each kind of wrong
/// argument.
#[allow(dead_code)]
pub const ARGUMENT_CONTROLS: &[ArgumentControl] = &[
    // A wrong handle: an event recorded on another stream than the twin's.
    ArgumentControl {
        program: "streams_events",
        name: "wrong_stream",
        argument: "cuEventRecord hStream",
    },
    // A wrong flag: a stream created with other flags.
    ArgumentControl {
        program: "stream_memops",
        name: "wrong_flag",
        argument: "cuStreamCreate Flags",
    },
    // A wrong offset into the right allocation: a pointer's attribute asked of another byte.
    ArgumentControl {
        program: "unified",
        name: "wrong_offset",
        argument: "cuPointerGetAttribute ptr",
    },
    // A wrong field of a structure: a launch configuration with other dynamic shared memory.
    ArgumentControl {
        program: "launch",
        name: "wrong_shared_bytes",
        argument: "cuLaunchKernelEx config.sharedMemBytes",
    },
];

/// The exit code of a program that cannot test what it is for on this machine (one GPU for a
/// peer program): it prints `Result = WAIVED: <why>`, not PASS, and exits with this (as
/// cuda-python's samples do).
pub const WAIVED_EXIT_CODE: i32 = 100;

/// One group program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Its name: the example's and the twin's (`examples/groups/<name>.{rs,cpp}`).
    pub name: String,
    /// The `CUDA_VERSION` of the oldest header it builds with (its `required-features`).
    pub oldest: u32,
}

/// The group programs the root `Cargo.toml` text `manifest` declares, in its order; an error line
/// for a declaration that is not as above.
pub fn parse(manifest: &str) -> Result<Vec<Program>, String> {
    let mut programs = Vec::new();
    let mut lines = manifest.lines().map(str::trim).peekable();
    while let Some(line) = lines.next() {
        if line != "[[example]]" {
            continue;
        }
        let (mut name, mut path, mut features) = (None, None, None);
        while let Some(line) = lines.next_if(|l| !l.starts_with('[')) {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "name" => name = Some(unquote(value)),
                "path" => path = Some(unquote(value)),
                "required-features" => features = Some(value.to_string()),
                _ => {}
            }
        }
        let (Some(name), Some(path)) = (name, path) else {
            continue;
        };
        if !path.starts_with(&format!("{FOLDER}/")) {
            continue;
        }
        if path != format!("{FOLDER}/{name}.rs") {
            return Err(format!(
                "Cargo.toml: the example `{name}` is at {path}, not {FOLDER}/{name}.rs"
            ));
        }
        let oldest = features
            .as_deref()
            .and_then(version_feature)
            .ok_or_else(|| {
                format!(
                    "Cargo.toml: the group program `{name}` needs `required-features = \
                 [\"cuda-<V>\"]`, the oldest header declaring every function it calls"
                )
            })?;
        programs.push(Program { name, oldest });
    }
    Ok(programs)
}

/// The group programs of the workspace at `root`, each checked to have its example and its twin,
/// and every twin in the folder declared.
pub fn read(root: &Path) -> Result<Vec<Program>, String> {
    let manifest = root.join("Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let programs = parse(&text)?;
    let folder = root.join(FOLDER);
    for p in &programs {
        for ext in ["rs", "cpp"] {
            let file = folder.join(format!("{}.{ext}", p.name));
            if !file.is_file() {
                return Err(format!(
                    "Cargo.toml declares the group program `{}`, but {} is missing",
                    p.name,
                    file.display()
                ));
            }
        }
    }
    let entries = std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", folder.display()))?
            .path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let program = path.extension().is_some_and(|e| e == "rs" || e == "cpp");
        if program && !programs.iter().any(|p| p.name == stem) {
            return Err(format!(
                "{} is not a declared group program: add its `[[example]]` to Cargo.toml \
                 (name, path, required-features)",
                path.display()
            ));
        }
    }
    Ok(programs)
}

/// `"text"` without its quotes.
fn unquote(value: &str) -> String {
    value.trim_matches('"').to_string()
}

/// The version of `["cuda-<V>"]`, the one feature of a group program.
fn version_feature(list: &str) -> Option<u32> {
    let inner = list.strip_prefix('[')?.strip_suffix(']')?;
    let features: Vec<String> = inner.split(',').map(|f| unquote(f.trim())).collect();
    match &features[..] {
        [one] => one.strip_prefix("cuda-")?.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_read_and_bad_ones_named() {
        let manifest = "[package]\nname = \"x\"\n\n[[example]]\nname = \"profiler\"\n\
            required-features = [\"interop\"]\n\n[[example]]\nname = \"vmm\"\n\
            path = \"examples/groups/vmm.rs\"\nrequired-features = [\"cuda-12000\"]\n[features]\n";
        let want = Program {
            name: "vmm".into(),
            oldest: 12000,
        };
        assert_eq!(parse(manifest), Ok(vec![want]));
        let two = manifest.replace("[\"cuda-12000\"]", "[\"cuda-12000\", \"interop\"]");
        assert!(parse(&two).unwrap_err().contains("required-features"));
        let moved = manifest.replace("groups/vmm.rs", "groups/other.rs");
        assert!(parse(&moved)
            .unwrap_err()
            .contains("not examples/groups/vmm.rs"));
    }
}
