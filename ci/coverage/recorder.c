/* The coverage recorder: which driver API functions a process calls, in which order, from which
 * thread, and what each returned.
 *
 * The GPU bundle builds this as lib/libcuda-calls.so against the CUPTI headers of the wheel
 * `cargo xtask gpu-bundle` pins, with that wheel's libcupti.so.13 beside it (RUNPATH $ORIGIN).
 * `xtask gpu-run` names it in CUDA_INJECTION64_PATH for the runs it records: the driver loads it
 * from cuInit and calls InitializeInjection, which subscribes to CUPTI's driver API domain. CUPTI
 * calls back on every driver entry, however the program reached it: linked, through
 * cuGetProcAddress (the table, `dynamic-loading`'s trampolines) or another library.
 *
 * Each process appends to CUDA_CALLS_DIR/<pid>.calls:
 *
 *     # exe <path of the program>
 *     # pid <pid> parent <parent pid>
 *     # injected
 *     <thread> <entry> <result> <count>
 *     ...
 *
 * `<thread>` is the thread's ordinal in the process: 0 for the first thread that made a driver
 * call after the recorder was loaded, then 1, 2, ... in the order of their first calls. `<entry>`
 * is the name of the driver's entry (`cuMemAlloc_v2`, `cuMemcpyAsync_ptsz`), `<result>` its
 * CUresult as a number, and `<count>` how many calls in a row that thread made of that entry with
 * that result: a thread's run is written when the thread's next call differs, and every pending
 * run when the process exits (from atexit and from this library's destructor, whichever comes
 * first; a call after that is written at once, with count 1). A run may so be split over several
 * lines: a reader merges consecutive lines of one thread with the same entry and result. Each line
 * is one write() to a file opened with O_APPEND, so the lines of a process and of the processes it
 * starts (each with its own file) never interleave within a line.
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

/* A thread's pending run: `count` calls in a row of `cbid` (named `name`) that returned
 * `result`; none while `count` is 0. */
struct run {
    uint32_t cbid;
    uint32_t result;
    const char *name;
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

/* Writes the line of `count` calls of `name` by thread `thread` that returned `result`. */
static void put_run(int thread, const char *name, uint32_t result, unsigned long long count) {
    char line[320];
    snprintf(line, sizeof line, "%d %s %u %llu\n", thread, name ? name : "?", result, count);
    put(line);
}

/* Writes every pending run; from then on each call is written at once. At exit, from atexit and
 * from the destructor: whichever runs first writes the runs, the other finds none. */
static void flush_all(void) {
    pthread_mutex_lock(&lock);
    if (out >= 0) {
        int known = threads < THREADS ? threads : THREADS;
        for (int t = 0; t < known; t++) {
            struct run *run = &pending[t];
            if (run->count > 0) put_run(t, run->name, run->result, run->count);
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

static void CUPTIAPI on_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data) {
    (void)userdata;
    const CUpti_CallbackData *info = (const CUpti_CallbackData *)data;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || info->callbackSite != CUPTI_API_EXIT) return;
    uint32_t result = (uint32_t)*(const CUresult *)info->functionReturnValue;
    pthread_mutex_lock(&lock);
    if (out < 0) {
        pthread_mutex_unlock(&lock);
        return;
    }
    if (ordinal < 0) ordinal = threads++;
    if (final_flush_done || ordinal >= THREADS) {
        put_run(ordinal, info->functionName, result, 1);
    } else {
        struct run *run = &pending[ordinal];
        if (run->count > 0 && run->cbid == cbid && run->result == result) {
            run->count++;
        } else {
            if (run->count > 0) put_run(ordinal, run->name, run->result, run->count);
            run->cbid = cbid;
            run->result = result;
            run->name = info->functionName;
            run->count = 1;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Called by the driver from cuInit, with CUDA_INJECTION64_PATH naming this library. */
int InitializeInjection(void) {
    const char *dir = getenv("CUDA_CALLS_DIR");
    if (dir == NULL || *dir == '\0') {
        fprintf(stderr, "libcuda-calls: CUDA_CALLS_DIR is not set: nothing recorded\n");
        return 1;
    }
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
