// C twin of examples/groups/coredump_logs.rs. The coredump and logs groups of the Driver API:
// every coredump attribute read process-wide and for the current context, the file name and the
// generation flags set both ways and read back, coredumps on exceptions turned on and off again
// process-wide before any context, each read back (coredumps stay off: nothing here faults); the
// coredump callbacks of CUDA 13.2 headers looked up with cuGetProcAddress (where the driver has
// none, what its lookup answered); a log callback registered, an error the
// driver logs provoked (a copy to device address 0), the log dumped to memory and to a file from
// the iterator taken before it, the callback removed. The values set must read back, and the
// log must have seen the error (Result line).
#include "common.h"
#include <cudaTypedefs.h>
#include <unistd.h>

// Reads every coredump attribute, process-wide or for the current context. The boolean ones
// and the flags are printed; FILE and PIPE name the host and process by default, so only
// whether they are set is.
static void read_attributes(bool global)
{
    const char* names[] = { "", "ENABLE_ON_EXCEPTION", "TRIGGER_HOST", "LIGHTWEIGHT", "ENABLE_USER_TRIGGER",
                            "FILE", "PIPE", "GENERATION_FLAGS" };
    for (int a = CU_COREDUMP_ENABLE_ON_EXCEPTION; a <= CU_COREDUMP_GENERATION_FLAGS; ++a) {
        char value[1024];
        memset(value, 0, sizeof(value));
        CUcoredumpSettings attrib = (CUcoredumpSettings)a;
        // The size of the attribute's type: bool, unsigned int for the flags, a string's buffer.
        size_t size = attrib == CU_COREDUMP_FILE || attrib == CU_COREDUMP_PIPE ? sizeof(value)
                      : attrib == CU_COREDUMP_GENERATION_FLAGS                ? sizeof(unsigned int)
                                                                              : sizeof(bool);
        CUresult code = global ? cuCoredumpGetAttributeGlobal(attrib, value, &size)
                               : cuCoredumpGetAttribute(attrib, value, &size);
        printf("  %s %s: %s", global ? "global" : "context", names[a], result_name(code));
        if (code == CUDA_SUCCESS) {
            if (attrib == CU_COREDUMP_FILE || attrib == CU_COREDUMP_PIPE)
                printf(", %s", value[0] ? "set" : "empty");
            else if (attrib == CU_COREDUMP_GENERATION_FLAGS)
                printf(", 0x%x", *(unsigned int*)value);
            else
                printf(", %s", value[0] != 0 ? "true" : "false");
        }
        printf("\n");
    }
}

// The log callback: counts the messages.
static void CUDA_CB on_log(void* data, CUlogLevel level, char* message, size_t length)
{
    (void)level;
    (void)message;
    (void)length;
    *(int*)data += 1;
}

int main()
{
    if (!check(cuInit(0)))
        return 1;
    CUdevice device;
    if (!check(cuDeviceGet(&device, 0)))
        return finish();

    // Process-wide, before any context.
    printf("coredump attributes:\n");
    read_attributes(true);
    char file[] = "/tmp/coredump-logs-global.core";
    size_t size = sizeof(file);
    check(cuCoredumpSetAttributeGlobal(CU_COREDUMP_FILE, file, &size));
    // Coredumps on exceptions turned on and off again (before any context, which would take the
    // setting), each read back.
    const bool settings[] = {true, false};
    for (bool on : settings) {
        bool enable = on;
        size = sizeof(enable);
        check(cuCoredumpSetAttributeGlobal(CU_COREDUMP_ENABLE_ON_EXCEPTION, &enable, &size));
        unsigned char back = 2;
        size = sizeof(bool);
        check(cuCoredumpGetAttributeGlobal(CU_COREDUMP_ENABLE_ON_EXCEPTION, &back, &size));
        printf("  enable on exception: %u\n", back);
        expect(back == (unsigned char)on, "the process-wide enable on exception read back");
    }
    char back[1024];
    memset(back, 0, sizeof(back));
    size = sizeof(back);
    check(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, back, &size));
    printf("  file: %s\n", back);
    expect(strcmp(back, file) == 0, "the process-wide file name read back");

    CUcontext ctx;
    if (!check(cuDevicePrimaryCtxRetain(&ctx, device)) || !check(cuCtxSetCurrent(ctx)))
        return finish();
    read_attributes(false);
    char ctx_file[] = "/tmp/coredump-logs-context.core";
    size = sizeof(ctx_file);
    check(cuCoredumpSetAttribute(CU_COREDUMP_FILE, ctx_file, &size));
    unsigned int flags = CU_COREDUMP_SKIP_GLOBAL_MEMORY | CU_COREDUMP_SKIP_SHARED_MEMORY;
    size = sizeof(flags);
    check(cuCoredumpSetAttribute(CU_COREDUMP_GENERATION_FLAGS, &flags, &size));
    memset(back, 0, sizeof(back));
    size = sizeof(back);
    check(cuCoredumpGetAttribute(CU_COREDUMP_FILE, back, &size));
    printf("  file: %s\n", back);
    expect(strcmp(back, ctx_file) == 0, "the context's file name read back");
    flags = 0;
    size = sizeof(flags);
    check(cuCoredumpGetAttribute(CU_COREDUMP_GENERATION_FLAGS, &flags, &size));
    printf("  generation flags: 0x%x\n", flags);
    expect(flags == (CU_COREDUMP_SKIP_GLOBAL_MEMORY | CU_COREDUMP_SKIP_SHARED_MEMORY), "the generation flags read back");
#if CUDA_VERSION >= 13020
    CUcoredumpCallbackHandle start = nullptr, complete = nullptr;
    PFN_cuCoredumpRegisterStartCallback_v13020 registerStart =
        (PFN_cuCoredumpRegisterStartCallback_v13020)entry("cuCoredumpRegisterStartCallback", 13020);
    if (registerStart)
        show("cuCoredumpRegisterStartCallback", registerStart(nullptr, nullptr, &start));
    else
        show_missing("cuCoredumpRegisterStartCallback");
    PFN_cuCoredumpRegisterCompleteCallback_v13020 registerComplete =
        (PFN_cuCoredumpRegisterCompleteCallback_v13020)entry("cuCoredumpRegisterCompleteCallback", 13020);
    if (registerComplete)
        show("cuCoredumpRegisterCompleteCallback", registerComplete(nullptr, nullptr, &complete));
    else
        show_missing("cuCoredumpRegisterCompleteCallback");
    PFN_cuCoredumpDeregisterStartCallback_v13020 deregisterStart =
        (PFN_cuCoredumpDeregisterStartCallback_v13020)entry("cuCoredumpDeregisterStartCallback", 13020);
    if (deregisterStart)
        show("cuCoredumpDeregisterStartCallback", deregisterStart(start));
    else
        show_missing("cuCoredumpDeregisterStartCallback");
    PFN_cuCoredumpDeregisterCompleteCallback_v13020 deregisterComplete =
        (PFN_cuCoredumpDeregisterCompleteCallback_v13020)entry("cuCoredumpDeregisterCompleteCallback", 13020);
    if (deregisterComplete)
        show("cuCoredumpDeregisterCompleteCallback", deregisterComplete(complete));
    else
        show_missing("cuCoredumpDeregisterCompleteCallback");
#endif

    // Logs.
    printf("logs:\n");
    int messages = 0;
    CUlogsCallbackHandle handle = nullptr;
    CUlogIterator from = 0;
    check(cuLogsRegisterCallback(on_log, &messages, &handle));
    check(cuLogsCurrent(&from, 0));
    int word = 1;
    CUresult logged = cuMemcpyHtoD(0, &word, sizeof(word));
    expect(!show("cuMemcpyHtoD(0) (an error to log)", logged), "a copy to address 0 refused");
    expect(messages > 0, "the callback saw a message");
    static char buffer[1 << 16];
    size = sizeof(buffer);
    CUlogIterator iterator = from;
    check(cuLogsDumpToMemory(&iterator, buffer, &size, 0));
    expect(size > 0, "the log dumped to memory");
    char path[64];
    snprintf(path, sizeof(path), "/tmp/coredump-logs-%d.log", (int)getpid());
    iterator = from;
    check(cuLogsDumpToFile(&iterator, path, 0));
    FILE* f = fopen(path, "rb");
    long length = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        length = ftell(f);
        fclose(f);
        unlink(path);
    }
    expect(length > 0, "the log dumped to a file");
    check(cuLogsUnregisterCallback(handle));

    check(cuDevicePrimaryCtxRelease(device));
    return finish();
}
