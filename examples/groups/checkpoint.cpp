// C twin of examples/groups/checkpoint.rs. The checkpoint group of the Driver API: the program
// starts a second copy of itself (spawned, before that copy initialises CUDA), which fills 1 MiB
// of device memory and waits; the parent reads its state and restore thread, locks it,
// checkpoints it (its GPU memory moved to the host and the device released), restores it and
// unlocks it, reading the state after each step; then the child checks its device memory holds
// what it wrote. cuCheckpointOperationComplete (CUDA 13.4 headers) is looked up with
// cuGetProcAddress: CUDA_ERROR_NOT_FOUND where the driver has none.
// argv[1]: the kernels folder (unused); the child is started with a second argument, --child.
#include "common.h"
#include <cudaTypedefs.h>
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

// Prints the child's state.
static void print_state(int pid)
{
    CUprocessState state = CU_PROCESS_STATE_FAILED;
    if (show("  cuCheckpointProcessGetState", cuCheckpointProcessGetState(pid, &state)))
        printf("    %s\n", state_name(state));
}

int main(int argc, char** argv)
{
    if (argc > 2 && strcmp(argv[2], "--child") == 0)
        return child();

    if (!check(cuInit(0)))
        return 1;
    printf("sizes of the arguments: lock %zu, checkpoint %zu, restore %zu, unlock %zu\n", sizeof(CUcheckpointLockArgs),
           sizeof(CUcheckpointCheckpointArgs), sizeof(CUcheckpointRestoreArgs), sizeof(CUcheckpointUnlockArgs));

    // The child, with pipes to its standard input and output.
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
        printf("the child could not be started\n");
        return 1;
    }
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    FILE* child_out = fdopen(from_child[0], "r");
    char line[256];
    bool ready = fgets(line, sizeof(line), child_out) && strcmp(line, "ready\n") == 0;
    printf("the child filled its device memory: %s\n", ready ? "yes" : "no");

    bool ok = ready;
    if (ready) {
        print_state(pid);
        int tid = 0;
        show("cuCheckpointProcessGetRestoreThreadId", cuCheckpointProcessGetRestoreThreadId(pid, &tid));
        printf("  a thread id: %s\n", tid > 0 ? "yes" : "no");
        CUcheckpointLockArgs lock;
        memset(&lock, 0, sizeof(lock));
        lock.timeoutMs = 10000;
        ok = show("cuCheckpointProcessLock", cuCheckpointProcessLock(pid, &lock)) && ok;
        print_state(pid);
        CUcheckpointCheckpointArgs checkpoint;
        memset(&checkpoint, 0, sizeof(checkpoint));
        ok = show("cuCheckpointProcessCheckpoint", cuCheckpointProcessCheckpoint(pid, &checkpoint)) && ok;
        print_state(pid);
        CUcheckpointRestoreArgs restore;
        memset(&restore, 0, sizeof(restore));
        ok = show("cuCheckpointProcessRestore", cuCheckpointProcessRestore(pid, &restore)) && ok;
        print_state(pid);
        CUcheckpointUnlockArgs unlock;
        memset(&unlock, 0, sizeof(unlock));
        ok = show("cuCheckpointProcessUnlock", cuCheckpointProcessUnlock(pid, &unlock)) && ok;
        print_state(pid);
#if CUDA_VERSION >= 13040
        PFN_cuCheckpointOperationComplete_v13040 complete =
            (PFN_cuCheckpointOperationComplete_v13040)entry("cuCheckpointOperationComplete", 13040);
        show("cuCheckpointOperationComplete", complete ? complete(nullptr) : CUDA_ERROR_NOT_FOUND);
#endif
    }
    // The child goes on: it checks its memory.
    if (write(to_child[1], "go\n", 3) != 3)
        ok = false;
    close(to_child[1]);
    while (fgets(line, sizeof(line), child_out))
        printf("child: %s", line);
    fclose(child_out);
    int status = 0;
    waitpid(pid, &status, 0);
    bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("the child's exit: %s\n", child_ok ? "success" : "failure");
    ok = ok && child_ok;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
