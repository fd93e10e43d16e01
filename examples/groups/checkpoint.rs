//! The checkpoint group of the Driver API: the program starts a second copy of itself (spawned,
//! before that copy initialises CUDA), which fills 1 MiB of device memory and waits; the parent
//! locks it, checkpoints it (its GPU memory moved to the host and the device released), restores
//! it and unlocks it. Checked: the child's state before and after each step (running, locked,
//! checkpointed, locked, running), its restore thread id (positive), and that the child, told to
//! go on, finds its device memory holds what it wrote (its exit status). A child not running after
//! the unlock is ended rather than told to go on (it would wait for ever), which fails that check.
//! cuCheckpointOperationComplete (CUDA 13.4 headers) is looked up with the typed cuGetProcAddress
//! (`entry`): its answer is printed, or where the driver has no such function, the driver's answer
//! to the lookup (`show_missing`). C twin: checkpoint.cpp.
//! argv[1]: the kernels folder (unused); the child is started with a second argument, --child.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::io::{BufRead, BufReader, Write};
use std::mem::{size_of, zeroed};
use std::process::{exit, Command, Stdio};
use std::ptr;

use common::{check, expect, finish};
use cuda_driver_sys::*;

const WORDS: usize = 256 * 1024;

/// The child: fills its device memory, says so, waits for a line, checks the memory, says how.
unsafe fn child() -> i32 {
    unsafe {
        let mut device: CUdevice = 0;
        let mut ctx: CUcontext = ptr::null_mut();
        let mut data: CUdeviceptr = 0;
        if !check!(cuInit(0))
            || !check!(cuDeviceGet(&mut device, 0))
            || !check!(cuDevicePrimaryCtxRetain(&mut ctx, device))
            || !check!(cuCtxSetCurrent(ctx))
            || !check!(cuMemAlloc(&mut data, WORDS * 4))
            || !check!(cuMemsetD32(data, 0x5eed1234, WORDS))
            || !check!(cuCtxSynchronize())
        {
            return 1;
        }
        println!("ready");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        if std::io::stdin()
            .read_line(&mut line)
            .map_or(true, |n| n == 0)
        {
            return 1;
        }
        let mut host = vec![0 as c_uint; WORDS];
        check!(cuMemcpyDtoH(
            host.as_mut_ptr() as *mut c_void,
            data,
            WORDS * size_of::<c_uint>(),
        ));
        let same = host.iter().filter(|&&w| w == 0x5eed1234).count();
        println!("{} of {} words as written", same, WORDS);
        check!(cuMemFree(data));
        check!(cuDevicePrimaryCtxRelease(device));
        if same == WORDS {
            0
        } else {
            1
        }
    }
}

fn state_name(state: CUprocessState) -> &'static str {
    match state {
        CU_PROCESS_STATE_RUNNING => "running",
        CU_PROCESS_STATE_LOCKED => "locked",
        CU_PROCESS_STATE_CHECKPOINTED => "checkpointed",
        CU_PROCESS_STATE_FAILED => "failed",
        _ => "other",
    }
}

/// Prints the child's state and checks it is `expected`; whether it is.
unsafe fn check_state(pid: c_int, expected: CUprocessState) -> bool {
    unsafe {
        let mut state = CU_PROCESS_STATE_FAILED;
        if check!(cuCheckpointProcessGetState(pid, &mut state)) {
            println!("  state: {}", state_name(state));
        }
        expect(state == expected, "the child's state");
        state == expected
    }
}

fn main() {
    unsafe {
        let argv: Vec<String> = std::env::args().collect();
        if argv.len() > 2 && argv[2] == "--child" {
            exit(child());
        }

        if !check!(cuInit(0)) {
            exit(1);
        }
        println!(
            "sizes of the arguments: lock {}, checkpoint {}, restore {}, unlock {}",
            size_of::<CUcheckpointLockArgs>(),
            size_of::<CUcheckpointCheckpointArgs>(),
            size_of::<CUcheckpointRestoreArgs>(),
            size_of::<CUcheckpointUnlockArgs>()
        );

        // The child, with pipes to its standard input and output, and without a tool injected into
        // it (CUDA_INJECTION64_PATH: the GPU run's coverage recorder, a CUPTI subscriber): the driver
        // does not checkpoint a process a tool is attached to (CUDA_ERROR_NOT_SUPPORTED).
        let spawned = Command::new("/proc/self/exe")
            .args(["-", "--child"])
            .env_remove("CUDA_INJECTION64_PATH")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let Ok(mut process) = spawned else {
            expect(false, "the child started");
            finish();
        };
        let pid = process.id() as c_int;
        let mut to_child = process.stdin.take().expect("a piped stdin");
        let mut child_out = BufReader::new(process.stdout.take().expect("a piped stdout"));
        let mut line = String::new();
        let ready = child_out.read_line(&mut line).is_ok() && line == "ready\n";
        expect(ready, "the child filled its device memory");

        // Whether the child is to be told to go on: not where it is left locked or checkpointed,
        // where it would wait for ever.
        let mut running = ready;
        if ready {
            check_state(pid, CU_PROCESS_STATE_RUNNING);
            let mut tid: c_int = 0;
            check!(cuCheckpointProcessGetRestoreThreadId(pid, &mut tid));
            expect(tid > 0, "the child's restore thread id");
            let mut lock: CUcheckpointLockArgs = zeroed();
            lock.timeoutMs = 10000;
            check!(cuCheckpointProcessLock(pid, &mut lock));
            check_state(pid, CU_PROCESS_STATE_LOCKED);
            let mut checkpoint: CUcheckpointCheckpointArgs = zeroed();
            check!(cuCheckpointProcessCheckpoint(pid, &mut checkpoint));
            check_state(pid, CU_PROCESS_STATE_CHECKPOINTED);
            let mut restore: CUcheckpointRestoreArgs = zeroed();
            check!(cuCheckpointProcessRestore(pid, &mut restore));
            check_state(pid, CU_PROCESS_STATE_LOCKED);
            let mut unlock: CUcheckpointUnlockArgs = zeroed();
            check!(cuCheckpointProcessUnlock(pid, &mut unlock));
            running = check_state(pid, CU_PROCESS_STATE_RUNNING);
            #[cfg(feature = "cuda-13040")]
            match entry::cuCheckpointOperationComplete_v13040.get() {
                Ok(complete) => {
                    common::show("cuCheckpointOperationComplete", complete(ptr::null_mut()));
                }
                Err(e) => common::show_missing("cuCheckpointOperationComplete", e),
            }
        }
        // The child goes on: it checks its memory. A child that is not running is ended instead.
        if running {
            expect(
                to_child.write_all(b"go\n").is_ok(),
                "the child told to go on",
            );
        } else if ready {
            println!("child: ended, not running after the unlock");
            let _ = process.kill();
        }
        drop(to_child);
        line.clear();
        while child_out.read_line(&mut line).is_ok_and(|n| n > 0) {
            print!("child: {}", line);
            line.clear();
        }
        let child_ok = process.wait().is_ok_and(|status| status.success());
        expect(
            child_ok,
            "the child's memory intact after the restore (its exit)",
        );
        finish()
    }
}
