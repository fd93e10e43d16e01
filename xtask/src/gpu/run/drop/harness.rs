//! What the parity test binary says in drop mode (`tests/examples_parity.rs`): which of its tests
//! are programs (`--list`), the droppable calls of a list run and the verdict of a drop run, each
//! read from its log.

use super::results::{DropRun, Spec, Verdict};
use crate::base::Result;

/// The tests of `--list`'s output `listed` that run a program: a group program's
/// (`group::<name>`) or a post's (`<name>`, a test without a module), each (its test, its name),
/// where `built(name)` (the bundle has its C twin); not the controls or the other tests.
pub fn programs(listed: &str, built: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let program = |test: &str| match test.strip_prefix("group::") {
        Some(name) => Some(name.to_string()),
        None => Some(test.to_string()).filter(|t| !t.contains("::")),
    };
    let tests = listed.lines().filter_map(|l| l.strip_suffix(": test"));
    tests
        .filter_map(|test| Some((test.to_string(), program(test)?)))
        .filter(|(_, name)| built(name))
        .collect()
}

/// What the test printed on a line of its log: the line without libtest's `test <name> ... `,
/// which `--nocapture` puts before the first line a test prints.
fn printed(line: &str) -> &str {
    match line
        .strip_prefix("test ")
        .and_then(|l| l.split_once(" ... "))
    {
        Some((_, rest)) => rest,
        None => line,
    }
}

/// The droppable calls that a list run of `program` found: a spec for each call of each
/// `<entry>:<calls>[@<g>]` of its line `<program>: drops: ...` in `log`; an error where the log
/// has no such line or the line cannot be read.
pub fn droppable(log: &str, program: &str) -> Result<Vec<Spec>> {
    let prefix = format!("{program}: drops: ");
    let line = (log
        .lines()
        .map(printed)
        .find_map(|l| l.strip_prefix(&prefix)))
    .ok_or_else(|| format!("no `{prefix}...` line"))?;
    let mut specs = Vec::new();
    for item in line.split_whitespace().filter(|i| *i != "none") {
        let calls = Spec::parse(item).map_err(|e| format!("`{prefix}{line}`: {e}"))?;
        specs.extend((1..=calls.k).map(|k| Spec { k, ..calls.clone() }));
    }
    Ok(specs)
}

/// How a drop run of `program` under `spec` ended: the parity test's exit code `code` (`None`:
/// it has none, and `no_exit` says why: it was stopped, or could not be run) and its log `log`. The sides agree
/// where the test passed and said `<label>: drop <spec>: <verdict>[, first check: <check>]; both
/// sides agree` (`<label>`: the program, or the program and more after `, `); anything else is a
/// disagreement, with the verdict where the test gave one and what went wrong.
pub fn drop_run(
    program: &str,
    spec: &Spec,
    code: Option<i32>,
    no_exit: &str,
    log: &str,
) -> DropRun {
    let marker = format!(": drop {spec}: ");
    let said = log.lines().map(printed).find_map(|line| {
        let (label, rest) = line.split_once(&marker)?;
        let ours = label == program || label.starts_with(&format!("{program}, "));
        ours.then_some(rest)
    });
    let agreed = said.and_then(|rest| rest.strip_suffix("; both sides agree"));
    let verdict = said.and_then(Verdict::parse_prefix);
    let run = |verdict, agree, detail: Option<String>| DropRun {
        program: program.into(),
        spec: spec.clone(),
        verdict,
        agree,
        detail,
    };
    if let (Some(0), Some(agreed)) = (code, agreed) {
        if let Some((verdict, rest)) = Verdict::parse_prefix(agreed) {
            let check = rest.strip_prefix(", first check: ").map(String::from);
            if rest.is_empty() || check.is_some() {
                return run(verdict, true, check);
            }
        }
    }
    let verdict = verdict.map_or(Verdict::Unknown, |(v, _)| v);
    let panic = log
        .lines()
        .skip_while(|l| !l.contains("panicked at"))
        .nth(1);
    let detail = match code {
        None => no_exit.to_string(),
        Some(_) if log.contains("never came") => "the call never came".into(),
        Some(0) => format!("no `{program}{marker}<verdict>; both sides agree` line"),
        Some(code) => said
            .or(panic)
            .map_or(format!("exit code {code}"), String::from),
    };
    run(verdict, false, Some(detail))
}

#[cfg(test)]
mod tests {
    use super::super::results::{Spec, Verdict};
    use super::{drop_run, droppable, programs};

    #[test]
    fn the_programs_are_the_posts_and_group_tests_with_a_twin() {
        let listed = "vector_add: test\ngroup::mem: test\ngroup::peer: test\n\
                      control::mem_nv12_planes_mixed: test\nargument_control::mem_offset: test\n\
                      every_twin_has_a_parity_test: test\ntrace::tests::merge: test\n\n\
                      7 tests, 0 benchmarks\n";
        let built = |name: &str| name != "peer" && name != "every_twin_has_a_parity_test";
        let found = programs(listed, built);
        let pair = |t: &str, n: &str| (t.to_string(), n.to_string());
        assert_eq!(
            found,
            [pair("vector_add", "vector_add"), pair("group::mem", "mem")]
        );
    }

    #[test]
    fn a_list_run_gives_every_call_of_each_entry() {
        let log = "running 1 test\nmem: drops: cuMemcpyHtoD_v2:2 cuLaunchKernel:1@1\n";
        let specs = droppable(log, "mem").unwrap();
        let names: Vec<String> = specs.iter().map(Spec::to_string).collect();
        assert_eq!(
            names,
            [
                "cuMemcpyHtoD_v2:1",
                "cuMemcpyHtoD_v2:2",
                "cuLaunchKernel:1@1"
            ]
        );
        assert_eq!(droppable("peer: drops: none\n", "peer").unwrap(), []);
        assert!(droppable("mem: parity ok\n", "mem").is_err());
        assert!(droppable("mem: drops: cuLaunchKernel\n", "mem").is_err());
    }

    #[test]
    fn a_drop_run_agrees_only_where_the_test_passed_and_said_so() {
        let spec = Spec::parse("cuMemcpyDtoH_v2:1").unwrap();
        let said = "mem: drop cuMemcpyDtoH_v2:1: FAILED, first check: FAILED: bytes back; both \
                    sides agree\n";
        let run = drop_run("mem", &spec, Some(0), "", said);
        assert_eq!((run.verdict, run.agree), (Verdict::Failed, true));
        assert_eq!(run.detail.as_deref(), Some("FAILED: bytes back"));
        // As libtest prints it with --nocapture: after the test's name, on the same line.
        let log = format!("\nrunning 1 test\ntest group::mem ... {said}ok\n");
        assert!(drop_run("mem", &spec, Some(0), "", &log).agree);
        let control = "mem, control no_copy_check: drop cuMemcpyDtoH_v2:1: PASS; both sides agree";
        let run = drop_run("mem", &spec, Some(0), "", control);
        assert_eq!(
            (run.verdict, run.agree, run.detail),
            (Verdict::Pass, true, None)
        );
        // Another program's line, or another drop's, is not this run's.
        let other = drop_run("memory_alloc", &spec, Some(0), "", said);
        assert_eq!((other.verdict, other.agree), (Verdict::Unknown, false));
        let longer = said.replace("mem:", "memory_alloc:");
        assert!(!drop_run("mem", &spec, Some(0), "", &longer).agree);
        let other_spec = Spec::parse("cuMemcpyDtoH_v2:2").unwrap();
        assert!(!drop_run("mem", &other_spec, Some(0), "", said).agree);

        let panicked = "thread 'group::mem' panicked at tests/examples_parity.rs:9:5:\n\
                        mem: the sides disagree: C FAILED, Rust PASS\n";
        let run = drop_run("mem", &spec, Some(101), "", panicked);
        assert_eq!((run.verdict, run.agree), (Verdict::Unknown, false));
        assert_eq!(
            run.detail.as_deref(),
            Some("mem: the sides disagree: C FAILED, Rust PASS")
        );
        let never = "mem: C twin: the call never came\n";
        let run = drop_run("mem", &spec, Some(101), "", never);
        assert_eq!(run.detail.as_deref(), Some("the call never came"));
        // A test that failed did not agree, whatever it said before.
        let run = drop_run("mem", &spec, Some(101), "", said);
        assert_eq!((run.verdict, run.agree), (Verdict::Failed, false));
        let run = drop_run("mem", &spec, None, "stopped by gpu-run", said);
        assert_eq!((run.verdict, run.agree), (Verdict::Failed, false));
        assert_eq!(run.detail.as_deref(), Some("stopped by gpu-run"));
    }
}
