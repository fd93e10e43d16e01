/* The coverage recorder: which driver API functions a process calls, in which order, from which
 * thread, with which arguments, and what each returned.
 *
 * The GPU bundle builds this as lib/libcuda-calls.so, with arguments.c and the table of the
 * driver entries' parameters that the bindings' generator writes for it (its `call_arguments`
 * bin), against the CUPTI headers of the wheel `cargo xtask gpu-bundle` pins and that wheel's
 * `cuda.h`, with the wheel's libcupti.so.13 beside it (RUNPATH $ORIGIN). `xtask gpu-run` names
 * it in CUDA_INJECTION64_PATH for the runs it records: the driver loads it from cuInit and calls
 * InitializeInjection, which subscribes to CUPTI's driver API domain. CUPTI calls back at the
 * entry and the exit of every driver call, however the program reached it: linked, through
 * cuGetProcAddress (the table, `dynamic-loading`'s trampolines) or another library.
 *
 * Each process appends to CUDA_CALLS_DIR/<pid>.calls:
 *
 *     # exe <path of the program>
 *     # pid <pid> parent <parent pid>
 *     # injected
 *     <thread> <entry> <result> <count> <arguments>
 *     ...
 *
 * `<thread>` is the thread's ordinal in the process: 0 for the first thread that made a driver
 * call after the recorder was loaded, then 1, 2, ... in the order of their first calls. `<entry>`
 * is the name of the driver's entry (`cuMemAlloc_v2`, `cuMemcpyAsync_ptsz`), `<result>` its
 * CUresult as a number, and `<count>` how many calls in a row that thread made of that entry with
 * that result and those arguments: a thread's run is written when the thread's next call differs,
 * and every pending run when the process exits (from atexit and from this library's destructor,
 * whichever comes first; a call after that is written at once, with count 1). A run may so be
 * split over several lines: a reader merges consecutive lines of one thread with the same entry,
 * result and arguments. Each line is one write() to a file opened with O_APPEND, so the lines of
 * a process and of the processes it starts (each with its own file) never interleave within a
 * line.
 *
 * `<arguments>` is everything after the fourth space: `-` for an entry without parameters, and
 * for every call where CUDA_CALLS_ARGUMENTS=0 (the cost measurement; coverage ignores them);
 * `?undescribed` for an entry the table does not describe (the interop headers', the legacy
 * ABIs'); else `<name>=<value>` per parameter, space-separated, `<name>` the parameter's name in
 * `cuda.h` (and CUPTI's `<entry>_params`). A value never holds a space or a newline:
 *
 *     12, -1        an integer, enum or flag, in decimal (signed types signed)
 *     1.5           a float or double (%.9g)
 *     null          a null pointer or handle
 *     CUstream#2    a handle: the 2nd distinct handle of that typedef the process met
 *     pid#1         a process id (cuCheckpointProcess*'s `pid`): the 1st distinct one the
 *                   process met (its own pid too, where it names it)
 *     mem#3+256     an address (device memory, or host memory the driver allocated or
 *                   registered) in the 3rd allocation, at byte offset 256
 *     addr#4        a device address in no known allocation: the 4th distinct such value
 *     host          a non-null host pointer in no known allocation (a function pointer too)
 *     "a\sb"        a C string: `\` escapes `\`, `"`, a space (`\s`) and any byte outside
 *                   printable ASCII (`\xHH`); the decimal digits of the process's own pid,
 *                   where they stand alone as a number (no digit before or after them), as
 *                   `<pid>` (`"/tmp/graph-<pid>.dot"`: programs that run side by side name
 *                   their files after it); after 96 bytes cut, ending `..."`
 *     {a=1,b=...}   a structure (by pointer, or nested): its fields by these rules, but those
 *                   that only pad or are reserved (`pad`, `reserved1`, `_internal_padding`,
 *                   `_oversize`: what the program or the driver leaves there is no argument,
 *                   never printed); a union as `{member=...}`, the member its
 *                   discriminant selects (`{}` for one that selects none), an anonymous
 *                   union's member as one of its parent's fields
 *     [1,2,3]       an array: its length from a count parameter or field (after 4096
 *                   elements `,...`), or fixed
 *     =>CUevent#1   an out-parameter, read after the call: for a handle or an address its
 *                   identity (`=>[...]` for an array of them), for anything else (or where the
 *                   call failed) `=>out`; `null` where the pointer was null. A member of an
 *                   input structure that the call sets to an array of its own is one too,
 *                   read after the call in its place (`CUDA_CONDITIONAL_NODE_PARAMS`'s
 *                   `phGraph_out==>[CUgraph#3,CUgraph#4]`, the conditional node's body graphs)
 *     ?<why>        not described: `?union` (a union whose discriminant is not known),
 *                   `?opaque` (bytes the driver encodes: IPC handles, tensor maps), `?params`
 *                   (kernel arguments where the driver does not give their sizes), `?count`
 *
 * Identities are per process, numbered in call order: a call's inputs at its entry, its outputs
 * at its exit. A handle's number is per typedef, by first appearance; a handle a creating call
 * writes (one that is not a lookup: not `Get`, `Query`, `Enumerate`, `Find` but
 * cuExternalMemoryGetMappedMipmappedArray, nor the few that hand back an existing one, such as
 * cuCtxPopCurrent; nor the node an instantiation names as its error's) is a new object and gets the next number even where an ended object's handle had the
 * same value. Some handles end with another, without a call that names them: a graph's nodes and
 * a conditional node's body graphs with the graph, a module's functions with the module, a
 * library's kernels with the library, a child graph with its node. The calls that write them
 * (cuGraphAdd*Node, cuGraphGetNodes, cuModuleGetFunction, cuLibraryGetKernel, ...: the
 * generator's rules name each one's owner parameter) record that owner's identity; a handle is
 * then another object, with the next number, where it is met again (as an input or an output)
 * after its owner, or an owner above it, was released or replaced by a new object at its value,
 * and where a lookup naming another owner of the same typedef hands back its value (a function
 * of a module that ended with its context, at the value of the old module's). Allocations are
 * intervals: the calls
 * that return memory (cuMemAlloc*, cuMemAllocPitch (pitch × height), cuMemAllocManaged,
 * cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemAddressReserve, cuMemAllocHost,
 * cuMemHostAlloc, cuMemHostRegister, cuModuleGetGlobal, cuLibraryGetGlobal and
 * cuLibraryGetManaged (their size from `bytes`), cuIpcOpenMemHandle and cuMemPoolImportPointer
 * (their size from cuMemGetAddressRange), cuExternalMemoryGetMappedBuffer,
 * cuGraphicsResourceGetMappedPointer, cuGraphAddMemAllocNode) add one, numbered from 1;
 * cuMemHostGetDevicePointer adds the device alias of a host allocation under that allocation's
 * number. A successful release call (`Destroy`, `Free`, `Unload`, `Unregister`, `Release`,
 * `Close`) forgets the handle or the allocation (with its aliases) of its first handle or
 * address parameter, so that a new object at the same value gets a new number.
 *
 * Kernel arguments (`kernelParams` of a launch and of a kernel node) are an array of the
 * kernel's parameters, each by the size cuFuncGetParamInfo gives (cuKernelGetParamInfo for a
 * CUkernel), which the recorder asks the driver the process loaded from within the callback:
 * an 8-byte parameter is a word (an allocation's address, else `addr#N` for a value in
 * [2^32, 2^48), else the integer), a shorter one the unsigned integer of its size, a longer one
 * `[w,w,..]` of 8-byte words by the same rule; `?params` where the driver refuses. `extra`
 * (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE) is its buffer by the same rule. An array of
 * pointer-sized option values (a JIT option's) is words too, `host` for an address in no
 * allocation. The recorder's own driver calls are not recorded.
 *
 * The calls made before the driver loads the recorder (cuInit's own, and whatever came before it:
 * cuDriverGetVersion, cuGetErrorName, cuGetProcAddress) are not seen: the line `# injected` says
 * the driver loaded it, from cuInit. Where CUPTI refuses the subscription, the line
 * `# cupti-error <code> <message>` says so, and nothing more is recorded.
 */
#include <cupti_callbacks.h>
#include <cupti_result.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arguments.h"

/* A thread's pending run: `count` calls in a row of `cbid` (named `name`) that returned
 * `result` with `arguments` (malloc'd; NULL where memory ran out, which no other call equals);
 * none while `count` is 0. */
struct run {
    uint32_t cbid;
    uint32_t result;
    const char *name;
    char *arguments;
    unsigned long long count;
};

/* The pending runs of the first THREADS threads by ordinal; a thread beyond them has each call
 * written at once. Guarded by `lock`, as is everything below. */
#define THREADS 4096
static struct run pending[THREADS];
static int threads = 0;               /* the ordinals handed out so far */
static __thread int ordinal = -1;     /* this thread's, once it made a call */
static int final_flush_done = 0;      /* after it, each call is written at once */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out = -1;                  /* the log; -1 where there is none, and in a fork()ed child */
static int with_arguments = 1;        /* 0 under CUDA_CALLS_ARGUMENTS=0 */

/* The calls this thread entered and has not left, innermost last. */
#define NESTED 16
static __thread struct {
    uint32_t cbid;
    struct call *call;
} entered[NESTED];
static __thread int nested = 0;

/* Set while this thread is in the callback: a driver call the recorder makes itself (the
 * kernels' parameter sizes) is not recorded. */
static __thread int in_callback = 0;

/* Writes all of `text` to the log (append: one write per line). */
static void put(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t n = write(out, text, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        length -= (size_t)n;
    }
}

/* Writes the line of `count` calls of `name` by thread `thread` that returned `result` with
 * `arguments`. */
static void put_run(int thread, const char *name, uint32_t result, unsigned long long count,
                    const char *arguments) {
    if (arguments == NULL) arguments = "?memory";
    if (name == NULL) name = "?";
    size_t size = strlen(name) + strlen(arguments) + 64;
    char *line = malloc(size);
    if (line == NULL) return;
    snprintf(line, size, "%d %s %u %llu %s\n", thread, name, result, count, arguments);
    put(line);
    free(line);
}

/* Writes every pending run; from then on each call is written at once. At exit, from atexit and
 * from the destructor: whichever runs first writes the runs, the other finds none. */
static void flush_all(void) {
    pthread_mutex_lock(&lock);
    if (out >= 0) {
        int known = threads < THREADS ? threads : THREADS;
        for (int t = 0; t < known; t++) {
            struct run *run = &pending[t];
            if (run->count > 0) put_run(t, run->name, run->result, run->count, run->arguments);
            free(run->arguments);
            run->arguments = NULL;
            run->count = 0;
        }
        final_flush_done = 1;
    }
    pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void at_unload(void) { flush_all(); }

/* fork() without exec: the child writes nothing (not its parent's pending runs, nor into its
 * parent's log); `lock` is held across the fork, so that the child's is not left locked. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_in_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_in_child(void) {
    out = -1;
    pthread_mutex_unlock(&lock);
}

/* Whether two calls' arguments are the same (never where memory ran out). */
static int same_arguments(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Records the call of `cbid` (named `name`) that returned `result` with `arguments` (taken). */
static void record(uint32_t cbid, const char *name, uint32_t result, char *arguments) {
    pthread_mutex_lock(&lock);
    if (out < 0) {
        pthread_mutex_unlock(&lock);
        free(arguments);
        return;
    }
    if (ordinal < 0) ordinal = threads++;
    if (final_flush_done || ordinal >= THREADS) {
        put_run(ordinal, name, result, 1, arguments);
        free(arguments);
    } else {
        struct run *run = &pending[ordinal];
        if (run->count > 0 && run->cbid == cbid && run->result == result &&
            same_arguments(run->arguments, arguments)) {
            run->count++;
            free(arguments);
        } else {
            if (run->count > 0)
                put_run(ordinal, run->name, run->result, run->count, run->arguments);
            free(run->arguments);
            run->cbid = cbid;
            run->result = result;
            run->name = name;
            run->arguments = arguments;
            run->count = 1;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* A call's entry: its inputs are read. */
static void on_enter(uint32_t cbid, const CUpti_CallbackData *info) {
    if (!with_arguments || nested == NESTED) return;
    entered[nested].cbid = cbid;
    entered[nested].call = arguments_enter(cbid, info->functionParams);
    nested++;
}

/* A call's exit: its outputs are read and it is recorded. A call whose entry was not seen (the
 * cuInit that loaded the recorder) has its inputs read now. */
static void on_leave(uint32_t cbid, const CUpti_CallbackData *info) {
    uint32_t result = (uint32_t)*(const CUresult *)info->functionReturnValue;
    char *arguments;
    if (!with_arguments) {
        arguments = strdup("-");
    } else {
        struct call *call;
        if (nested > 0 && entered[nested - 1].cbid == cbid)
            call = entered[--nested].call;
        else
            call = arguments_enter(cbid, info->functionParams);
        arguments = arguments_exit(call, info->functionParams, result);
    }
    record(cbid, info->functionName, result, arguments);
}

static void CUPTIAPI on_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data) {
    (void)userdata;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || in_callback || out < 0) return;
    in_callback = 1;
    const CUpti_CallbackData *info = (const CUpti_CallbackData *)data;
    if (info->callbackSite == CUPTI_API_ENTER)
        on_enter(cbid, info);
    else
        on_leave(cbid, info);
    in_callback = 0;
}

/* Called by the driver from cuInit, with CUDA_INJECTION64_PATH naming this library: the one
 * symbol the library exports. */
__attribute__((visibility("default"))) int InitializeInjection(void) {
    const char *dir = getenv("CUDA_CALLS_DIR");
    if (dir == NULL || *dir == '\0') {
        fprintf(stderr, "libcuda-calls: CUDA_CALLS_DIR is not set: nothing recorded\n");
        return 1;
    }
    const char *arguments = getenv("CUDA_CALLS_ARGUMENTS");
    with_arguments = arguments == NULL || strcmp(arguments, "0") != 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%ld.calls", dir, (long)getpid());
    pthread_mutex_lock(&lock);
    out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    pthread_mutex_unlock(&lock);
    if (out < 0) {
        fprintf(stderr, "libcuda-calls: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char exe[PATH_MAX] = "?";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 1] = '\0';
    char line[PATH_MAX + 96];
    snprintf(line, sizeof line, "# exe %s\n# pid %ld parent %ld\n# injected\n", exe,
             (long)getpid(), (long)getppid());
    put(line);
    atexit(flush_all);
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    CUpti_SubscriberHandle subscriber;
    CUptiResult status = cuptiSubscribe(&subscriber, on_call, NULL);
    if (status == CUPTI_SUCCESS)
        status = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    if (status != CUPTI_SUCCESS) {
        const char *text = "?";
        cuptiGetResultString(status, &text);
        snprintf(line, sizeof line, "# cupti-error %d %s\n", (int)status, text);
        put(line);
    }
    return 1;
}
