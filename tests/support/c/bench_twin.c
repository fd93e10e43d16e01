/* C twin of tests/benches/driver.rs: the timed loops of the driver benchmark, written in C99
 * against the same cuda.h, compiled by the root build script (cc crate) into the static library
 * that the benchmark links, and called by it in the same process, on the same context, stream,
 * kernel and device buffer, alternating with the Rust loops.
 *
 * Every function here mirrors one Rust function of the benchmark line for line: same iteration
 * count, same calls in the same order, the result of each call OR-ed into an accumulator (`acc`)
 * that the caller checks afterwards (so no call can be dropped, and a failed call is caught
 * without a check inside the bare loops), and the time taken with clock_gettime(CLOCK_MONOTONIC)
 * around the loop only (Rust's Instant is the same clock). Each returns the seconds the loop took
 * and stores the accumulated result in *acc_out (0: every call succeeded).
 *
 * Setup (context, stream, module, device memory, the host buffers of the copies) is the Rust
 * side's, checked there, and shared by both twins; the handles and buffers come in as arguments. */
#define _POSIX_C_SOURCE 200112L /* clock_gettime under -std=c99 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CUDA 11's cuGetProcAddress has no status argument: there a found symbol reads as success. */
#if CUDA_VERSION >= 12000
typedef CUdriverProcAddressQueryResult bench_status_t;
#define BENCH_FOUND CU_GET_PROC_ADDRESS_SUCCESS
#define BENCH_GET_PROC(symbol, pfn, version, flags, status) \
    cuGetProcAddress(symbol, pfn, version, flags, status)
#else
typedef int bench_status_t;
#define BENCH_FOUND 0
#define BENCH_GET_PROC(symbol, pfn, version, flags, status) \
    ((void)(status), cuGetProcAddress(symbol, pfn, version, flags))
#endif

static double seconds_between(const struct timespec* t0, const struct timespec* t1) {
    return (double)(t1->tv_sec - t0->tv_sec) + (double)(t1->tv_nsec - t0->tv_nsec) * 1e-9;
}

/* The posts' __check_cuda_driver / checkDriver (000 and 003), in C99. */
static bool check_cuda_driver(CUresult code, const char* op, const char* file, int line) {
    if (code != CUDA_SUCCESS) {
        const char* err_name = NULL;
        const char* err_message = NULL;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}
#define checkDriver(op) check_cuda_driver((op), #op, __FILE__, __LINE__)

/* What compiled this file, for the benchmark's header. */
#if defined(__clang__)
#define BENCH_CC "C: " __VERSION__
#elif defined(__GNUC__)
#define BENCH_CC "C: gcc " __VERSION__
#else
#define BENCH_CC "C: unknown compiler"
#endif
const char* c_bench_compiler(void) {
#if defined(__OPTIMIZE__)
    return BENCH_CC ", optimized";
#else
    return BENCH_CC ", not optimized";
#endif
}

/* ---- driver call overhead: cuCtxGetCurrent --------------------------------------------------- */

/* The out-parameter every call-overhead loop writes, Rust's and C's: one address for all, so that
 * where it lies (the stack moves with ASLR from run to run, and with it any aliasing against the
 * driver's own data) is the same for both sides of every ratio. */
_Alignas(64) unsigned char c_bench_out[64];
#define CTX_OUT ((CUcontext*)c_bench_out)
#define VERSION_OUT ((int*)c_bench_out)

double c_bench_ctx_get_current(long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuCtxGetCurrent(CTX_OUT);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_ctx_get_current_check(long long n, unsigned* acc_out) {
    bool ok = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        if (!checkDriver(cuCtxGetCurrent(CTX_OUT))) ok = false;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = !ok;
    return seconds_between(&t0, &t1);
}

/* The C form of `try_driver!(...)?`: return the first error. */
static CUresult try_ctx_get_current(long long n, CUcontext* ctx) {
    for (long long i = 0; i < n; i++) {
        CUresult code = cuCtxGetCurrent(ctx);
        if (code != CUDA_SUCCESS) return code;
    }
    return CUDA_SUCCESS;
}

double c_bench_ctx_get_current_try(long long n, unsigned* acc_out) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CUresult code = try_ctx_get_current(n, CTX_OUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = code != CUDA_SUCCESS;
    return seconds_between(&t0, &t1);
}

/* Through the pointer cuGetProcAddress gives (the C counterpart of the Rust driver-entry table),
 * looked up before the timer. */
double c_bench_ctx_get_current_pfn(long long n, unsigned* acc_out) {
    PFN_cuCtxGetCurrent_v4000 pfn = NULL;
    bench_status_t status = BENCH_FOUND;
    CUresult code = BENCH_GET_PROC("cuCtxGetCurrent", (void**)&pfn, 4000, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (code != CUDA_SUCCESS || status != BENCH_FOUND || pfn == NULL) {
        fprintf(stderr, "bench_twin.c: cuGetProcAddress(\"cuCtxGetCurrent\", 4000) failed: %d, status %d\n", (int)code, (int)status);
        *acc_out = 1;
        return 0.0;
    }
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)pfn(CTX_OUT);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

/* ---- driver call overhead: cuDriverGetVersion ------------------------------------------------ */

double c_bench_driver_get_version(long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuDriverGetVersion(VERSION_OUT);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_driver_get_version_check(long long n, unsigned* acc_out) {
    bool ok = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        if (!checkDriver(cuDriverGetVersion(VERSION_OUT))) ok = false;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = !ok;
    return seconds_between(&t0, &t1);
}

static CUresult try_driver_get_version(long long n, int* version) {
    for (long long i = 0; i < n; i++) {
        CUresult code = cuDriverGetVersion(version);
        if (code != CUDA_SUCCESS) return code;
    }
    return CUDA_SUCCESS;
}

double c_bench_driver_get_version_try(long long n, unsigned* acc_out) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CUresult code = try_driver_get_version(n, VERSION_OUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = code != CUDA_SUCCESS;
    return seconds_between(&t0, &t1);
}

double c_bench_driver_get_version_pfn(long long n, unsigned* acc_out) {
    PFN_cuDriverGetVersion_v2020 pfn = NULL;
    bench_status_t status = BENCH_FOUND;
    CUresult code = BENCH_GET_PROC("cuDriverGetVersion", (void**)&pfn, 2020, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (code != CUDA_SUCCESS || status != BENCH_FOUND || pfn == NULL) {
        fprintf(stderr, "bench_twin.c: cuGetProcAddress(\"cuDriverGetVersion\", 2020) failed: %d, status %d\n", (int)code, (int)status);
        *acc_out = 1;
        return 0.0;
    }
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)pfn(VERSION_OUT);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

/* ---- kernel launch rate: n launches of the empty kernel f(u64, u64), then one sync ----------- */

double c_bench_launch_args(CUfunction f, CUstream stream, long long n, unsigned* acc_out) {
    unsigned long long p0 = 0, p1 = 0;
    void* args[2] = {&p0, &p1};
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, args, NULL);
    }
    acc |= (unsigned)cuStreamSynchronize(stream);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_launch_args_check(CUfunction f, CUstream stream, long long n, unsigned* acc_out) {
    unsigned long long p0 = 0, p1 = 0;
    void* args[2] = {&p0, &p1};
    bool ok = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        if (!checkDriver(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, args, NULL))) ok = false;
    }
    if (!checkDriver(cuStreamSynchronize(stream))) ok = false;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = !ok;
    return seconds_between(&t0, &t1);
}

double c_bench_launch_extra(CUfunction f, CUstream stream, long long n, unsigned* acc_out) {
    unsigned long long buffer[2] = {0, 0};
    size_t size = sizeof buffer;
    void* extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, NULL, extra);
    }
    acc |= (unsigned)cuStreamSynchronize(stream);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_launch_extra_check(CUfunction f, CUstream stream, long long n, unsigned* acc_out) {
    unsigned long long buffer[2] = {0, 0};
    size_t size = sizeof buffer;
    void* extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    bool ok = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        if (!checkDriver(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, NULL, extra))) ok = false;
    }
    if (!checkDriver(cuStreamSynchronize(stream))) ok = false;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = !ok;
    return seconds_between(&t0, &t1);
}

/* ---- copy bandwidth ------------------------------------------------------------------------- */

double c_bench_htod(CUdeviceptr d, const void* h, size_t bytes, long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuMemcpyHtoD(d, h, bytes);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_dtoh(void* h, CUdeviceptr d, size_t bytes, long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuMemcpyDtoH(h, d, bytes);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_htod_async(CUdeviceptr d, const void* h, size_t bytes, CUstream stream, long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuMemcpyHtoDAsync(d, h, bytes, stream);
    }
    acc |= (unsigned)cuStreamSynchronize(stream);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

double c_bench_dtoh_async(void* h, CUdeviceptr d, size_t bytes, CUstream stream, long long n, unsigned* acc_out) {
    unsigned acc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        acc |= (unsigned)cuMemcpyDtoHAsync(h, d, bytes, stream);
    }
    acc |= (unsigned)cuStreamSynchronize(stream);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

/* ---- PTX JIT: cuModuleLoadData (timed), then cuModuleUnload, in the fresh context the caller
 * made current (cuCtxCreate and cuCtxDestroy are the harness's, for both twins). -------------- */

double c_bench_jit_load(const void* ptx, unsigned* acc_out) {
    CUmodule module = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CUresult code = cuModuleLoadData(&module, ptx);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsigned acc = (unsigned)code;
    if (code == CUDA_SUCCESS) acc |= (unsigned)cuModuleUnload(module);
    *acc_out = acc;
    return seconds_between(&t0, &t1);
}

/* ---- cuGetProcAddress ----------------------------------------------------------------------- */

/* The driver's version, read once by the program: a lookup at a version above it is refused by the
 * driver with CUDA_ERROR_INVALID_VALUE, writing nothing, so C code checks first, as
 * EntryPointInfo::lookup does (its fast path: a load of the cached version and a compare). */
int c_bench_driver_version;

/* One entry point of a C program's table of them; 24 bytes, as a Rust EntryPointInfo: both loops
 * walk the same stride of memory (over three separate arrays, C ran about 1.5% faster than over the
 * Rust records, with the same calls and the same instructions in the driver). */
struct bench_entry {
    const char* symbol;
    int version;
    unsigned long long flags;
};
_Static_assert(sizeof(struct bench_entry) == 24, "struct bench_entry is 24 bytes");

/* `rounds` times over entries[0..count), each looked up once per round, after the version check.
 * *found_out: the lookups that gave a function; *sink_out: their XOR. */
double c_bench_proc_address_list(const struct bench_entry* entries, long long count, long long rounds,
                                 long long* found_out, uintptr_t* sink_out) {
    long long found = 0;
    uintptr_t sink = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long r = 0; r < rounds; r++) {
        for (long long i = 0; i < count; i++) {
            const struct bench_entry* e = &entries[i];
            if (c_bench_driver_version == 0 || e->version > c_bench_driver_version) continue;
            void* pfn = NULL;
            bench_status_t status = BENCH_FOUND;
            CUresult code = BENCH_GET_PROC(e->symbol, &pfn, e->version, e->flags, &status);
            if (code == CUDA_SUCCESS && status == BENCH_FOUND && pfn != NULL) {
                found++;
                sink ^= (uintptr_t)pfn;
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *found_out = found;
    *sink_out = sink;
    return seconds_between(&t0, &t1);
}

/* The same entry looked up n times, after the version check. */
double c_bench_proc_address_one(const char* symbol, int version, unsigned long long flags, long long n,
                                long long* found_out, uintptr_t* sink_out) {
    long long found = 0;
    uintptr_t sink = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < n; i++) {
        if (c_bench_driver_version == 0 || version > c_bench_driver_version) continue;
        void* pfn = NULL;
        bench_status_t status = BENCH_FOUND;
        CUresult code = BENCH_GET_PROC(symbol, &pfn, version, flags, &status);
        if (code == CUDA_SUCCESS && status == BENCH_FOUND && pfn != NULL) {
            found++;
            sink ^= (uintptr_t)pfn;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *found_out = found;
    *sink_out = sink;
    return seconds_between(&t0, &t1);
}
