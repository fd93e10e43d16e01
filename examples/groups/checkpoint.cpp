// C twin of examples/groups/checkpoint.rs. The checkpoint group of the Driver API: the program
// starts a second copy of itself (spawned, before that copy initialises CUDA), which fills 1 MiB
// of device memory and waits; the parent locks it, checkpoints it (its GPU memory moved to the
// host and the device released), restores it and unlocks it. Checked: the child's state before
// and after each step (running, locked, checkpointed, locked, running), its restore thread id
// (positive), and that the child, told to go on, finds its device memory holds what it wrote (its
// exit status). A child not running after the unlock is ended rather than told to go on (it would
// wait for ever), which fails that check. cuCheckpointOperationComplete (CUDA 13.4 headers) is looked up with
// cuGetProcAddress (entry): its answer is printed, or where the driver has no such function, the
// driver's answer to the lookup (show_missing).
// argv[1]: the kernels folder (unused); the child is started with a second argument, --child.
#include "common.h"
#include <cudaTypedefs.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#define WORDS (256 * 1024)

// The child: fills its device memory, says so, waits for a line, checks the memory, says how.
static int child()
{
    CUdevice device;
    CUcontext ctx;
    CUdeviceptr data;
    if (!check(cuInit(0)) || !check(cuDeviceGet(&device, 0)) ||
        !check(cuDevicePrimaryCtxRetain(&ctx, device)) || !check(cuCtxSetCurrent(ctx)) ||
        !check(cuMemAlloc(&data, WORDS * 4)) || !check(cuMemsetD32(data, 0x5eed1234, WORDS)) ||
        !check(cuCtxSynchronize()))
        return 1;
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof(line), stdin))
        return 1;
    static unsigned int host[WORDS];
    check(cuMemcpyDtoH(host, data, sizeof(host)));
    int same = 0;
    for (int i = 0; i < WORDS; ++i)
        if (host[i] == 0x5eed1234)
            ++same;
    printf("%d of %d words as written\n", same, WORDS);
    check(cuMemFree(data));
    check(cuDevicePrimaryCtxRelease(device));
    return same == WORDS ? 0 : 1;
}

static const char* state_name(CUprocessState state)
{
    switch (state) {
    case CU_PROCESS_STATE_RUNNING: return "running";
    case CU_PROCESS_STATE_LOCKED: return "locked";
    case CU_PROCESS_STATE_CHECKPOINTED: return "checkpointed";
    case CU_PROCESS_STATE_FAILED: return "failed";
    default: return "other";
    }
}

// Prints the child's state and checks it is `expected`; whether it is.
static bool check_state(int pid, CUprocessState expected)
{
    CUprocessState state = CU_PROCESS_STATE_FAILED;
    if (check(cuCheckpointProcessGetState(pid, &state)))
        printf("  state: %s\n", state_name(state));
    expect(state == expected, "the child's state");
    return state == expected;
}

int main(int argc, char** argv)
{
    if (argc > 2 && strcmp(argv[2], "--child") == 0)
        return child();

    if (!check(cuInit(0)))
        return 1;
    // A write to a child that has ended fails rather than ending this program, as in Rust.
    signal(SIGPIPE, SIG_IGN);
    printf("sizes of the arguments: lock %zu, checkpoint %zu, restore %zu, unlock %zu\n", sizeof(CUcheckpointLockArgs),
           sizeof(CUcheckpointCheckpointArgs), sizeof(CUcheckpointRestoreArgs), sizeof(CUcheckpointUnlockArgs));

    // The child, with pipes to its standard input and output, and without a tool injected into
    // it (CUDA_INJECTION64_PATH: the GPU run's coverage recorder, a CUPTI subscriber): the driver
    // does not checkpoint a process a tool is attached to (CUDA_ERROR_NOT_SUPPORTED).
    unsetenv("CUDA_INJECTION64_PATH");
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0)
        return 1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    char self[] = "/proc/self/exe";
    char kernels[] = "-";
    char flag[] = "--child";
    char* child_argv[] = { self, kernels, flag, nullptr };
    pid_t pid;
    if (posix_spawn(&pid, self, &actions, nullptr, child_argv, environ) != 0) {
        expect(false, "the child started");
        return finish();
    }
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    FILE* child_out = fdopen(from_child[0], "r");
    char line[256];
    bool ready = fgets(line, sizeof(line), child_out) && strcmp(line, "ready\n") == 0;
    expect(ready, "the child filled its device memory");

    // Whether the child is to be told to go on: not where it is left locked or checkpointed, where
    // it would wait for ever.
    bool running = ready;
    if (ready) {
        check_state(pid, CU_PROCESS_STATE_RUNNING);
        int tid = 0;
        check(cuCheckpointProcessGetRestoreThreadId(pid, &tid));
        expect(tid > 0, "the child's restore thread id");
        CUcheckpointLockArgs lock;
        memset(&lock, 0, sizeof(lock));
        lock.timeoutMs = 10000;
        check(cuCheckpointProcessLock(pid, &lock));
        check_state(pid, CU_PROCESS_STATE_LOCKED);
        CUcheckpointCheckpointArgs checkpoint;
        memset(&checkpoint, 0, sizeof(checkpoint));
        check(cuCheckpointProcessCheckpoint(pid, &checkpoint));
        check_state(pid, CU_PROCESS_STATE_CHECKPOINTED);
        CUcheckpointRestoreArgs restore;
        memset(&restore, 0, sizeof(restore));
        check(cuCheckpointProcessRestore(pid, &restore));
        check_state(pid, CU_PROCESS_STATE_LOCKED);
        CUcheckpointUnlockArgs unlock;
        memset(&unlock, 0, sizeof(unlock));
        check(cuCheckpointProcessUnlock(pid, &unlock));
        running = check_state(pid, CU_PROCESS_STATE_RUNNING);
#if CUDA_VERSION >= 13040
        PFN_cuCheckpointOperationComplete_v13040 complete =
            (PFN_cuCheckpointOperationComplete_v13040)entry("cuCheckpointOperationComplete", 13040);
        if (complete)
            show("cuCheckpointOperationComplete", complete(nullptr));
        else
            show_missing("cuCheckpointOperationComplete");
#endif
    }
    // The child goes on: it checks its memory. A child that is not running is ended instead.
    if (running) {
        expect(write(to_child[1], "go\n", 3) == 3, "the child told to go on");
    } else if (ready) {
        printf("child: ended, not running after the unlock\n");
        kill(pid, SIGKILL);
    }
    close(to_child[1]);
    while (fgets(line, sizeof(line), child_out))
        printf("child: %s", line);
    fclose(child_out);
    int status = 0;
    waitpid(pid, &status, 0);
    bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    expect(child_ok, "the child's memory intact after the restore (its exit)");
    return finish();
}
