// What the group programs' C twins (examples/groups/<name>.cpp) share, as their Rust programs share
// examples/groups/common/mod.rs: the posts' checkDriver report, counted; the name of a result; the
// tally of the program's own checks behind its last line, `Result = PASS` or `Result = FAIL`.
#pragma once
#include <cuda.h>
#include <atomic>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// How many checks failed: calls that check() reported and expect()s that did not hold.
static int failures = 0;

// The posts' checkDriver: a failed call's file, line, text, error name and message; false.
static inline bool check_cuda_driver(CUresult code, const char* op, const char* file, int line) {
    if (code != CUDA_SUCCESS) {
        const char* err_name = nullptr;
        const char* err_message = nullptr;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        failures++;
        return false;
    }
    return true;
}

// A call that must succeed: reported and counted where it fails.
#define check(op) check_cuda_driver((op), #op, __FILE__, __LINE__)

// The name cuGetErrorName gives `code`, or "CUresult <n>" where it gives none.
static inline const char* result_name(CUresult code) {
    static char unknown[32];
    const char* name = nullptr;
    if (cuGetErrorName(code, &name) != CUDA_SUCCESS || name == nullptr) {
        snprintf(unknown, sizeof unknown, "CUresult %d", (int)code);
        return unknown;
    }
    return name;
}

// Prints "what: <result name>" for a call whose answer the program prints rather than requires
// (it may differ by GPU or driver); whether it is CUDA_SUCCESS.
static inline bool show(const char* what, CUresult code) {
    printf("%s: %s\n", what, result_name(code));
    return code == CUDA_SUCCESS;
}

static inline const char* yes(bool b) { return b ? "yes" : "no"; }

// The driver's version (cuDriverGetVersion), asked once, as the Rust crate's typed entry points
// ask it; 0 where the driver does not answer.
static inline int driver_version() {
    static int version = -1;
    if (version < 0 && cuDriverGetVersion(&version) != CUDA_SUCCESS) version = 0;
    return version;
}

#if CUDA_VERSION >= 12000
// Why the last entry() found no function, as the driver answered: what show_missing prints.
static char entry_missing[96];

// The driver's function `symbol` with the ABI of CUDA `version` (cuGetProcAddress), or NULL where
// it has none: what the Rust programs' typed entry points (`entry::<name>_v<version>`) find. As
// they do, a version above the driver's own is not asked for (drivers answer it differently).
static inline void* entry(const char* symbol, int version) {
    int driver = driver_version();
    if (version > driver) {
        snprintf(entry_missing, sizeof entry_missing, "the driver's version %d is below %d", driver, version);
        return NULL;
    }
    void* pfn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult code = cuGetProcAddress(symbol, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (code != CUDA_SUCCESS)
        snprintf(entry_missing, sizeof entry_missing, "cuGetProcAddress: %s", result_name(code));
    else if (status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
        snprintf(entry_missing, sizeof entry_missing, "symbol not found");
    else if (status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
        snprintf(entry_missing, sizeof entry_missing, "not at version %d", version);
    else if (status != CU_GET_PROC_ADDRESS_SUCCESS)
        snprintf(entry_missing, sizeof entry_missing, "status %d", (int)status);
    else if (pfn == NULL)
        snprintf(entry_missing, sizeof entry_missing, "success with a null pointer");
    else
        return pfn;
    return NULL;
}

// Prints "what: not in this driver (<why>)": the driver's answer to the last entry() that found
// no function, where a program prints a call's result.
static inline void show_missing(const char* what) {
    printf("%s: not in this driver (%s)\n", what, entry_missing);
}
#endif

// Whether this run is the deliberately wrong variant `name` of the program (CUDA_GROUP_CONTROL
// names it), which must fail one of its checks: the controls that show each check can fail
// (tests/support/programs.rs, CONTROLS).
static inline bool control(const char* name) {
    const char* asked = getenv("CUDA_GROUP_CONTROL");
    return asked != NULL && strcmp(asked, name) == 0;
}

// The exit code of a program that cannot test what it is for on this machine.
#define WAIVED_EXIT_CODE 100

// A check of the program's own: counted, and named where it does not hold.
static inline void expect(bool ok, const char* what) {
    if (!ok) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

// "what: same of n", and a check that all n were.
static inline void expect_all(const char* what, size_t same, size_t n) {
    printf("%s: %zu of %zu\n", what, same, n);
    expect(same == n, what);
}

// How long delay() holds a stream, in milliseconds: far longer than the host takes from queuing
// work to reading its results, and than the work the programs queue takes on the GPU.
#define DELAY_MS 100

// How many delays the program queued (delay()), and how many of them ran.
static int delays_queued = 0;
static std::atomic<int> delays_run{0};

// Sleeps `ms` milliseconds.
static inline void sleep_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

// delay()'s host function: sleeps DELAY_MS, then counts itself.
static inline void CUDA_CB delay_stream(void*) {
    sleep_ms(DELAY_MS);
    delays_run++;
}

// Holds the work queued in `stream` after this call (NULL: the legacy default stream) for DELAY_MS,
// with a host function that sleeps (cuLaunchHostFunc): until then that work certainly has not run.
// A program queues one before work whose results the host reads after waiting for it
// (cuStreamSynchronize, ...), so that where the wait does not happen (a drop run's dropped call)
// the host reads before the work, and the check fails rather than racing the GPU. finish() checks
// that every delay ran: one that did not is a failure too.
static inline void delay(CUstream stream) {
    if (check(cuLaunchHostFunc(stream, delay_stream, NULL))) delays_queued++;
}

// A check that every delay() ran (those still queued get up to 2 s): finish() makes it, and a
// process that ends otherwise (ipc's child) before it exits.
static inline void expect_delays_ran() {
    for (int ms = 0; ms < 2000 && delays_run != delays_queued; ms++) sleep_ms(1);
    expect(delays_run == delays_queued, "every delay queued in a stream ran");
}

// The last line, and the exit code: 0 when every check held. First, the check that every delay()
// ran.
static inline int finish() {
    expect_delays_ran();
    printf("Result = %s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}

// The last line of a program that cannot test what it is for here (`why`: one GPU for a peer
// program), and its exit code, WAIVED_EXIT_CODE: waived is not passed. A check that failed before
// still fails the program (finish()).
static inline int waive(const char* why) {
    if (failures != 0) return finish();
    printf("Result = WAIVED: %s\n", why);
    return WAIVED_EXIT_CODE;
}

// Device 0 and its primary context, retained and made current (after cuInit); false where a call
// failed (reported and counted).
static inline bool primary_context(CUdevice* device, CUcontext* context) {
    return check(cuDeviceGet(device, 0)) && check(cuDevicePrimaryCtxRetain(context, *device)) &&
           check(cuCtxSetCurrent(*context));
}

// The path of `file` in the kernels folder (argv[1]; examples/kernels by default), written to
// `path` (`size` bytes); `path`.
static inline const char* kernel_file(char* path, size_t size, int argc, char** argv, const char* file) {
    snprintf(path, size, "%s/%s", argc > 1 ? argv[1] : "examples/kernels", file);
    return path;
}

// The module of the PTX `file` in the kernels folder (NULL where it does not load: reported and
// counted).
static inline CUmodule load_module(int argc, char** argv, const char* file) {
    char path[4096];
    CUmodule module = NULL;
    check(cuModuleLoad(&module, kernel_file(path, sizeof path, argc, argv, file)));
    return module;
}

// The function `name` of `module`; NULL where `module` is NULL (its load reported) or has no such
// function (reported and counted).
static inline CUfunction get_function(CUmodule module, const char* name) {
    CUfunction function = NULL;
    if (module != NULL)
        check(cuModuleGetFunction(&function, module, name));
    return function;
}

// Waits up to 10 s for the work queued in `stream` to finish (cuStreamQuery each millisecond);
// whether it did (a failed query reported and counted).
static inline bool finished(CUstream stream) {
    for (int ms = 0; ms < 10000; ms++) {
        CUresult code = cuStreamQuery(stream);
        if (code != CUDA_ERROR_NOT_READY) return check(code);
        sleep_ms(1);
    }
    return false;
}

// Checks that nothing is left in `stream` (NULL: the legacy default stream), as a synchronisation
// just before promises: work held by a delay() is still there where it did not wait. Then waits for
// what is left (finished()), so that the program goes on the same way either way.
static inline void expect_idle(CUstream stream, const char* what) {
    expect(cuStreamQuery(stream) == CUDA_SUCCESS, what);
    finished(stream);
}

// Waits up to 10 s for the word the GPU writes at `word` to hold `value`; whether it did.
static inline bool wait_for(volatile unsigned int* word, unsigned int value) {
    for (int ms = 0; ms < 10000; ms++) {
        if (*word == value) return true;
        sleep_ms(1);
    }
    return *word == value;
}
