/* The test program of the dropper's tests (xtask's gpu::bundle::dropper): calls the functions of
 * driver.h, each several times with arguments that differ from call to call and from place to
 * place, and prints each call's result, `<how> <entry> <call> -> <result>`. The fake driver logs
 * the arguments it was given: the tests compare a run through the dropper with a run without it.
 *
 * `calls <how>`, how it reaches the driver:
 *   linked    the functions it links (built with -DLINKED, against the fake libcuda.so.1)
 *   dlsym     dlopen("libcuda.so.1") and dlsym
 *   proc      the pointers cuGetProcAddress hands out, each said to be `same` as dlsym's or not
 *   proc_v2   the same through cuGetProcAddress_v2
 *   missing   cuMemsetD8_v2, which the fake driver lacks: through dlsym, and cuGetProcAddress
 *   threads   two threads one after the other, one call each; then four at once, 500 calls each
 *   child     a copy, the program started anew (`dlsym`), waited for, a copy
 *   fork      a copy, a fork()ed child making two copies, waited for, a copy
 *   forkexec  a copy, a fork()ed child that runs the program anew (`dlsym`), waited for, a copy
 *   exec      a copy, then the program anew (`dlsym`) in its place
 * (each copy's arguments, and so its line in the fake driver's log, its own)
 */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The functions of driver.h, however the program reached them. */
static struct {
    CUresult (*init)(unsigned int);
    CUresult (*driver_get_version)(int *);
    CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
    CUresult (*launch_kernel)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
                              unsigned int, unsigned int, unsigned int, void *, void **, void **);
    CUresult (*param_setf)(void *, int, float);
    CUresult (*prefetch)(CUdeviceptr, size_t, Location, unsigned int, void *);
    CUresult (*present_frame)(void *, Frame, void *);
} driver;

static void report(const char *how, const char *entry, long call, CUresult result) {
    printf("%s %s %ld -> %d\n", how, entry, call, result);
}

static void *library(void) {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW);
    if (handle == NULL) {
        fprintf(stderr, "calls: %s\n", dlerror());
        exit(1);
    }
    return handle;
}

static void *symbol(const char *name) {
    void *function = dlsym(library(), name);
    if (function == NULL) {
        fprintf(stderr, "calls: %s\n", dlerror());
        exit(1);
    }
    return function;
}

static void through_dlsym(void) {
    driver.init = symbol("cuInit");
    driver.driver_get_version = symbol("cuDriverGetVersion");
    driver.memcpy_htod = symbol("cuMemcpyHtoD_v2");
    driver.launch_kernel = symbol("cuLaunchKernel");
    driver.param_setf = symbol("cuParamSetf");
    driver.prefetch = symbol("cuMemPrefetchAsync_v2");
    driver.present_frame = symbol("cuEGLStreamProducerPresentFrame");
}

/* The function cuda.h calls `name` (the symbol `symbol`), through cuGetProcAddress (`v2`: _v2). */
static void *proc(const char *name, const char *symbol_name, int v2) {
    void *function = NULL;
    CUresult result;
    if (v2) {
        int status = -1;
        CUresult (*get)(const char *, void **, int, unsigned long long, int *) =
            symbol("cuGetProcAddress_v2");
        result = get(name, &function, ASKED_VERSION, 0, &status);
        printf("proc_v2 %s status %d\n", name, status);
    } else {
        CUresult (*get)(const char *, void **, int, unsigned long long) =
            symbol("cuGetProcAddress");
        result = get(name, &function, ASKED_VERSION, 0);
    }
    printf("proc %s -> %d, %s\n", name, result,
           function == symbol(symbol_name) ? "same as dlsym's" : "not dlsym's");
    return function;
}

static void through_proc(int v2) {
    driver.init = proc("cuInit", "cuInit", v2);
    driver.driver_get_version = proc("cuDriverGetVersion", "cuDriverGetVersion", v2);
    driver.memcpy_htod = proc("cuMemcpyHtoD", "cuMemcpyHtoD_v2", v2);
    driver.launch_kernel = proc("cuLaunchKernel", "cuLaunchKernel", v2);
    driver.param_setf = proc("cuParamSetf", "cuParamSetf", v2);
    driver.prefetch = proc("cuMemPrefetchAsync", "cuMemPrefetchAsync_v2", v2);
    driver.present_frame =
        proc("cuEGLStreamProducerPresentFrame", "cuEGLStreamProducerPresentFrame", v2);
}

/* cuMemsetD8_v2, which the fake driver lacks, through dlsym and cuGetProcAddress. */
static void missing(void) {
    CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t) = dlsym(library(), "cuMemsetD8_v2");
    if (memset_d8 == NULL)
        printf("missing cuMemsetD8_v2 absent\n");
    else
        report("missing", "cuMemsetD8_v2", 1, memset_d8(1, 2, 3));
    void *function = NULL;
    CUresult (*get)(const char *, void **, int, unsigned long long) = symbol("cuGetProcAddress");
    CUresult result = get("cuMemsetD8", &function, ASKED_VERSION, 0);
    printf("missing proc cuMemsetD8 -> %d, %s\n", result, function ? "a pointer" : "none");
}

/* A copy whose arguments tell call `i` apart. */
static void copy(const char *how, long i) {
    char text[32];
    snprintf(text, sizeof text, "bytes-%ld", i);
    report(how, "cuMemcpyHtoD_v2", i, driver.memcpy_htod(0x1000ULL * i + 1, text, (size_t)i + 7));
}

/* Every function, three times over. */
static void round_of_calls(const char *how) {
    report(how, "cuInit", 1, driver.init(0));
    int version = 0;
    CUresult result = driver.driver_get_version(&version);
    printf("%s cuDriverGetVersion 1 -> %d, %d\n", how, result, version);
    for (long i = 1; i <= 3; i++) {
        uintptr_t base = 0x100 * (uintptr_t)i;
        unsigned int n = (unsigned int)(10 * i);
        copy(how, i);
        report(how, "cuLaunchKernel", i,
               driver.launch_kernel((void *)(base + 1), n + 2, n + 3, n + 4, n + 5, n + 6, n + 7,
                                    n + 8, (void *)(base + 9), (void **)(base + 10),
                                    (void **)(base + 11)));
        report(how, "cuParamSetf", i, driver.param_setf((void *)(base + 12), (int)n + 13,
                                                        1.5f * (float)i + 0.25f));
        Location location = {(int)n + 14, (int)n + 15};
        report(how, "cuMemPrefetchAsync_v2", i,
               driver.prefetch(base + 16, n + 17, location, n + 18, (void *)(base + 19)));
        Frame frame = {{n + 20, n + 21, n + 22, n + 23, n + 24, n + 25}};
        report(how, "cuEGLStreamProducerPresentFrame", i,
               driver.present_frame((void *)(base + 26), frame, (void *)(base + 27)));
    }
}

static void *one_copy(void *call) {
    copy("threads", (long)(intptr_t)call);
    return NULL;
}

static void *many_settings(void *answered) {
    for (int i = 0; i < 500; i++)
        if (driver.param_setf(NULL, i, 0.5f) == FAKE_RESULT)
            __atomic_add_fetch((int *)answered, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void threads(void) {
    for (long i = 1; i <= 2; i++) {
        pthread_t thread;
        pthread_create(&thread, NULL, one_copy, (void *)(intptr_t)i);
        pthread_join(thread, NULL);
    }
    pthread_t many[4];
    int answered = 0;
    for (int i = 0; i < 4; i++) pthread_create(&many[i], NULL, many_settings, &answered);
    for (int i = 0; i < 4; i++) pthread_join(many[i], NULL);
    printf("threads cuParamSetf 2000 calls: %d answered %d\n", answered, FAKE_RESULT);
}

static void wait_for(pid_t child) {
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "calls: the child failed\n");
        exit(1);
    }
}

static void child(void) {
    copy("child", 11);
    fflush(stdout);
    char *argv[] = {"calls", "dlsym", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0) {
        perror("calls: posix_spawn");
        exit(1);
    }
    wait_for(pid);
    copy("child", 12);
}

static void forked(void) {
    copy("fork", 21);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        copy("forked", 22);
        copy("forked", 23);
        exit(0);
    }
    wait_for(pid);
    copy("fork", 24);
}

/* A copy, a fork()ed child running the program anew (`dlsym`), waited for, a copy. */
static void fork_exec(void) {
    copy("forkexec", 41);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "calls", "dlsym", (char *)NULL);
        perror("calls: execl");
        _exit(1);
    }
    wait_for(pid);
    copy("forkexec", 42);
}

/* A copy, then the program anew (`dlsym`) in this process's place. */
static void exec_anew(void) {
    copy("exec", 51);
    fflush(stdout);
    execl("/proc/self/exe", "calls", "dlsym", (char *)NULL);
    perror("calls: execl");
    exit(1);
}

int main(int argc, char **argv) {
    const char *how = argc == 2 ? argv[1] : "";
#ifdef LINKED
    if (strcmp(how, "linked") == 0) {
        driver.init = cuInit;
        driver.driver_get_version = cuDriverGetVersion;
        driver.memcpy_htod = cuMemcpyHtoD_v2;
        driver.launch_kernel = cuLaunchKernel;
        driver.param_setf = cuParamSetf;
        driver.prefetch = cuMemPrefetchAsync_v2;
        driver.present_frame = cuEGLStreamProducerPresentFrame;
        round_of_calls(how);
        return 0;
    }
#endif
    if (strcmp(how, "dlsym") == 0) {
        through_dlsym();
        round_of_calls(how);
    } else if (strcmp(how, "proc") == 0 || strcmp(how, "proc_v2") == 0) {
        through_proc(strcmp(how, "proc_v2") == 0);
        round_of_calls(how);
    } else if (strcmp(how, "missing") == 0) {
        missing();
    } else if (strcmp(how, "threads") == 0) {
        through_dlsym();
        threads();
    } else if (strcmp(how, "child") == 0) {
        through_dlsym();
        child();
    } else if (strcmp(how, "fork") == 0) {
        through_dlsym();
        forked();
    } else if (strcmp(how, "forkexec") == 0) {
        through_dlsym();
        fork_exec();
    } else if (strcmp(how, "exec") == 0) {
        through_dlsym();
        exec_anew();
    } else {
        fprintf(stderr, "calls: no way `%s` to reach the driver\n", how);
        return 1;
    }
    return 0;
}
