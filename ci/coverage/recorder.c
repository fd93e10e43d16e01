/* The coverage recorder: which driver API functions a process calls, and what each returned.
 *
 * The GPU bundle builds this as lib/libcuda-calls.so against the CUPTI headers of the wheel
 * `cargo xtask gpu-bundle` pins, with that wheel's libcupti.so.13 beside it (RUNPATH $ORIGIN).
 * `xtask gpu-run` names it in CUDA_INJECTION64_PATH for the runs it records: the driver loads it
 * from cuInit and calls InitializeInjection, which subscribes to CUPTI's driver API domain. CUPTI
 * calls back on every driver entry, however the program reached it: linked, through
 * cuGetProcAddress (the table, `dynamic-loading`'s trampolines) or another library.
 *
 * Each process appends to CUDA_CALLS_DIR/<pid>.calls: first `# exe <path of the program>`, then
 * one line `<function> <CUresult>` the first time the function returns that result (the name as
 * the driver's entry is called, `cuMemAlloc_v2`, `cuMemcpyAsync_ptsz`; the result as a number).
 * The calls made before the driver loads the recorder (cuInit's own, and whatever came before it:
 * cuDriverGetVersion, cuGetErrorName, cuGetProcAddress) are not seen: the line `# injected`
 * says the driver loaded it, from cuInit.
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

/* Each (callback id, result) written so far: open addressing, 0 is empty. */
#define SEEN_SLOTS 16384
static uint64_t seen[SEEN_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out = -1;

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

/* Whether (cbid, result) is new; marks it seen. Called under `lock`. */
static int first_time(uint32_t cbid, uint32_t result) {
    uint64_t key = ((uint64_t)cbid << 32 | result) + 1;
    uint64_t slot = (key * 0x9E3779B97F4A7C15ull) % SEEN_SLOTS;
    for (int probes = 0; probes < SEEN_SLOTS; probes++, slot = (slot + 1) % SEEN_SLOTS) {
        if (seen[slot] == key) return 0;
        if (seen[slot] == 0) {
            seen[slot] = key;
            return 1;
        }
    }
    return 0; /* full: more distinct calls than any program makes */
}

static void CUPTIAPI on_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data) {
    (void)userdata;
    const CUpti_CallbackData *info = (const CUpti_CallbackData *)data;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || info->callbackSite != CUPTI_API_EXIT) return;
    uint32_t result = (uint32_t)*(const CUresult *)info->functionReturnValue;
    pthread_mutex_lock(&lock);
    if (first_time(cbid, result)) {
        char line[256];
        snprintf(line, sizeof line, "%s %u\n", info->functionName ? info->functionName : "?",
                 result);
        put(line);
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
    out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out < 0) {
        fprintf(stderr, "libcuda-calls: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char exe[PATH_MAX] = "?";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 1] = '\0';
    char line[PATH_MAX + 16];
    snprintf(line, sizeof line, "# exe %s\n# injected\n", exe);
    put(line);
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
