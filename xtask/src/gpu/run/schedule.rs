//! Commands run side by side, each with its output in a log and a time limit, and each in a
//! process group of its own: what it leaves running when it ends (a program's child whose parent
//! was stopped) or when it is stopped at its limit is ended with it.

use crate::base::capture::exit_code;
use crate::base::process::describe;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The most runs side by side by default: more would time the programs' checks against each
/// other's work more than they already are.
const MOST_JOBS: usize = 8;

/// How many runs go side by side: the number in the environment variable `var`, else half the
/// CPUs, at most [`MOST_JOBS`].
pub fn jobs(var: &str) -> crate::base::Result<usize> {
    match std::env::var(var) {
        Ok(text) => match text.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{var}={text}: not a number of runs above 0").into()),
        },
        Err(_) => {
            let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
            Ok((cpus / 2).clamp(1, MOST_JOBS))
        }
    }
}

/// A command, the file its output goes to (stdout and stderr), and how long it may take.
pub struct Job {
    pub command: Command,
    pub log: PathBuf,
    pub limit: Duration,
}

/// How a job ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// Its exit code (128 plus the signal, where one ended it).
    Exited(i32),
    /// Stopped at its time limit, with every process of its group.
    Stopped,
    /// It could not be started or waited for: why.
    Failed(String),
}

/// A job that runs: its index, its process, when it began and how long it may take.
struct Running {
    index: usize,
    child: Child,
    began: Instant,
    limit: Duration,
}

/// Runs `jobs`, at most `at_once` at a time, in order; as each ends, `done(its index, how it
/// ended, how long it took)`.
pub fn run_side_by_side(
    jobs: Vec<Job>,
    at_once: usize,
    mut done: impl FnMut(usize, Ended, Duration),
) {
    let mut waiting = jobs.into_iter().enumerate();
    let mut running: Vec<Running> = Vec::new();
    loop {
        while running.len() < at_once.max(1) {
            let Some((index, job)) = waiting.next() else {
                break;
            };
            // From before the start, so that what it took is never less than what it ran.
            let (limit, began) = (job.limit, Instant::now());
            match start(job) {
                Ok(child) => running.push(Running {
                    index,
                    child,
                    began,
                    limit,
                }),
                Err(e) => done(index, Ended::Failed(e), began.elapsed()),
            }
        }
        if running.is_empty() {
            return;
        }
        let mut i = 0;
        while i < running.len() {
            let job = &mut running[i];
            let ended = match exited(&job.child) {
                Ok(false) if job.began.elapsed() < job.limit => {
                    i += 1;
                    continue;
                }
                Ok(false) => end_group(&mut job.child).map(|_| Ended::Stopped),
                Ok(true) => end_group(&mut job.child).map(Ended::Exited),
                Err(e) => Err(e),
            };
            let job = running.swap_remove(i);
            let ended = ended.unwrap_or_else(|e| Ended::Failed(format!("waiting for it: {e}")));
            done(job.index, ended, job.began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts `job` in a process group of its own, its output into its log.
fn start(job: Job) -> Result<Child, String> {
    let Job {
        mut command, log, ..
    } = job;
    let file = fs_err::File::create(&log).map_err(|e| e.to_string())?;
    let file = file.into_file();
    let stderr = file
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    command.stdout(file).stderr(stderr).process_group(0);
    command
        .spawn()
        .map_err(|e| format!("{}: {e}", describe(&command)))
}

/// Whether `child` has ended, leaving it unreaped (a zombie), so that its process id, its
/// group's, is not given to another process before [`end_group`] signals the group.
fn exited(child: &Child) -> io::Result<bool> {
    // SAFETY: waitid writes only the siginfo_t it is given, which starts zeroed; WNOWAIT leaves
    // the child to be reaped by `Child::wait`.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if libc::waitid(libc::P_PID, child.id(), &mut info, flags) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info.si_pid() != 0)
    }
}

/// Kills every process of `child`'s group (the child itself too, where it still runs), then
/// reaps `child`: its exit code.
fn end_group(child: &mut Child) -> io::Result<i32> {
    let group = child.id() as libc::pid_t;
    // SAFETY: kill takes only numbers. The group is the child's own (`process_group(0)`), and its
    // id is not reused while the child is unreaped. ESRCH, where the group has no process left
    // but the unreaped child, is the usual answer and not an error.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    child.wait().map(exit_code)
}

#[cfg(test)]
mod tests {
    use super::{run_side_by_side, Ended, Job};
    use crate::base::scratch::Scratch;
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// `sh -c script` as a job logging into `scratch`'s file `name`, limited to `limit_ms`.
    fn job(scratch: &Scratch, name: &str, script: &str, limit_ms: u64) -> Job {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        Job {
            command,
            log: scratch.path().join(name),
            limit: Duration::from_millis(limit_ms),
        }
    }

    #[test]
    fn jobs_end_in_their_limit_and_leave_nothing_running() {
        let scratch = Scratch::new("schedule").unwrap();
        let child_pid = scratch.path().join("child.pid");
        let orphan = format!(
            "sleep 60 & echo $! > {}; echo out; echo err >&2; exit 3",
            child_pid.display()
        );
        let jobs = vec![
            job(&scratch, "orphan.log", &orphan, 20_000),
            job(&scratch, "hang.log", "sleep 60", 300),
            job(&scratch, "missing.log", "exit 0", 20_000),
        ];
        let mut jobs = jobs;
        jobs[2].command = Command::new(scratch.path().join("no-such-program"));
        let began = Instant::now();
        let mut ended = Vec::new();
        run_side_by_side(jobs, 2, |index, how, _| ended.push((index, how)));
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "{:?}",
            began.elapsed()
        );
        ended.sort_by_key(|(index, _)| *index);
        assert_eq!(ended[0], (0, Ended::Exited(3)));
        assert_eq!(ended[1], (1, Ended::Stopped));
        assert!(matches!(&ended[2], (2, Ended::Failed(e)) if e.contains("no-such-program")));
        let log = fs_err::read_to_string(scratch.path().join("orphan.log")).unwrap();
        assert_eq!(log, "out\nerr\n");
        // The background sleep its shell left ended with it.
        let pid = fs_err::read_to_string(&child_pid).unwrap();
        let stat = format!("/proc/{}/stat", pid.trim());
        // Running or sleeping, not ended (gone, or a zombie not yet reaped by its new parent).
        let runs = || {
            let state = std::fs::read_to_string(&stat).ok();
            let state = state.and_then(|s| s.rsplit_once(") ")?.1.chars().next());
            state.is_some_and(|s| s != 'Z')
        };
        let waited = Instant::now();
        while runs() && waited.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!runs(), "the orphan {} still runs", pid.trim());
    }

    #[test]
    fn at_most_so_many_run_at_once() {
        let scratch = Scratch::new("schedule-at-once").unwrap();
        let jobs = (0..4)
            .map(|n| job(&scratch, &format!("{n}.log"), "sleep 0.3", 20_000))
            .collect();
        let began = Instant::now();
        let mut ended = 0;
        run_side_by_side(jobs, 2, |_, how, took| {
            assert_eq!(how, Ended::Exited(0));
            assert!(took >= Duration::from_millis(300));
            ended += 1;
        });
        assert_eq!(ended, 4);
        // Two rounds of two: not all four at once.
        assert!(
            began.elapsed() >= Duration::from_millis(600),
            "{:?}",
            began.elapsed()
        );
    }
}
