/* The driver-call dropper: answers one chosen driver call with CUDA_SUCCESS without calling the
 * driver, and passes every other call through untouched.
 *
 * The GPU bundle builds this as lib/libcuda-drop.so (SONAME libcuda.so.1) with the header
 * drop_entries.h that xtask writes: DROP_ENTRY(<index>, <name>, <droppable>) for every driver
 * function the bindings declare (every header version, the interop headers' too), <droppable>
 * being 1 where the droppable rule (xtask/src/base/droppable.rs, ci/drop/droppable.txt) admits
 * it. Loaded by LD_PRELOAD, it is the library a linked program's libcuda.so.1 resolves to, and the
 * one dlopen("libcuda.so.1") returns (the same SONAME, already loaded). It opens the real driver
 * from the absolute path in CUDA_DROP_DRIVER.
 *
 * Each exported name is a trampoline: it saves the argument registers of the System V x86-64
 * calling convention (rdi, rsi, rdx, rcx, r8, r9, rax and xmm0-7), asks drop_decide what to do,
 * restores them and jumps to the real function, leaving the stack (the return address and the
 * arguments past the sixth) as the caller made it; or returns a result itself. So it forwards any
 * signature without knowing it. cuGetProcAddress and cuGetProcAddress_v2 are the dropper's own:
 * they call the real ones and hand back, for a pointer the driver gave, the trampoline of the
 * entry whose real function it is (the table, `dynamic-loading` and the C twins' entry() reach
 * the dropper through them); a pointer that is no entry's is handed back as the driver gave it
 * (an older ABI's function, which the bindings do not declare: cuGetProcAddress("cuMemcpyHtoD",
 * 2000) gives the driver's cuMemcpyHtoD, not cuMemcpyHtoD_v2; its calls pass by the dropper).
 * An entry the real driver lacks answers CUDA_ERROR_NOT_FOUND, and cuGetProcAddress never hands
 * out its trampoline.
 *
 * The environment:
 *   CUDA_DROP_DRIVER      the real driver's absolute path. Without it every call answers
 *                         CUDA_ERROR_NOT_INITIALIZED, after one line on stderr.
 *   CUDA_DROP             `list` (or unset): every call goes through, and is counted.
 *                         `<entry>:<k>` or `<entry>:<k>@<generation>`: the k-th call (from 1, the
 *                         calls of every thread of the process) of the droppable entry <entry>,
 *                         in the processes of that generation (default 0), answers CUDA_SUCCESS
 *                         without calling the driver. Anything else: one line on stderr and exit
 *                         code 2 at the first driver call.
 *   CUDA_DROP_DIR         where each process writes <pid>.drops: at exit (atexit and the
 *                         destructor), and when it drops its call (so that a crash after the drop
 *                         still shows it).
 *   CUDA_DROP_GENERATION  the process's generation: 0 where unset (the program). The dropper sets
 *                         it to one more for the processes a process starts, and
 *                         CUDA_DROP_GENERATION_SET_BY to that process's pid: a process that finds
 *                         its own pid there is the one that set it, after an exec(), and keeps its
 *                         generation. A fork()ed child is of one more too, its counts from zero.
 *
 * <pid>.drops:
 *     # exe <path of the program>
 *     # pid <pid> parent <parent pid> generation <g>
 *     <entry> <calls>        each droppable entry the process called, in order of first call
 *                            (not one the real driver lacks: that answers CUDA_ERROR_NOT_FOUND)
 *     dropped <entry> <k>    where the process dropped that call
 * (a process that exec()s another program writes that program's calls: the counts start anew)
 *
 * DROP_MUTANT_* are deliberate faults for the dropper's own tests (xtask's gpu::bundle::dropper),
 * which build a copy with each and require their checks to fail on it:
 *   DROP_MUTANT_LATE             drops the call after the one named
 *   DROP_MUTANT_NEVER            records the drop but calls the driver
 *   DROP_MUTANT_PER_THREAD       counts each thread's calls apart
 *   DROP_MUTANT_KEEP_RDI         does not restore rdi, the first argument, after drop_decide
 *   DROP_MUTANT_REAL_POINTERS    cuGetProcAddress hands back the driver's pointers
 *   DROP_MUTANT_SAME_GENERATION  a started or forked child keeps its parent's generation
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "the dropper's trampolines are written for x86-64 Linux (the System V calling convention)"
#endif

/* The results the dropper answers itself: each below 4096, which no function's address is. */
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NOT_FOUND 500

enum {
#define DROP_ENTRY(index, name, droppable) ENTRY_##name = index,
#include "drop_entries.h"
#undef DROP_ENTRY
};

static const char *const names[] = {
#define DROP_ENTRY(index, name, droppable) [index] = #name,
#include "drop_entries.h"
#undef DROP_ENTRY
};

#define ENTRIES (sizeof names / sizeof names[0])

static const unsigned char may_drop[ENTRIES] = {
#define DROP_ENTRY(index, name, droppable) [index] = droppable,
#include "drop_entries.h"
#undef DROP_ENTRY
};

/* The trampolines, 16 bytes apart from drop_trampolines in index order: each puts its index in
 * r11 and jumps to drop_common (a jmp of 32-bit displacement, spelled out so that its length is
 * known where the assembler checks it). drop_common saves the argument registers in 200 bytes
 * below rsp (on entry 8 past a 16-byte boundary, the caller's return address: so the call of
 * drop_decide has rsp aligned as the convention wants), and after drop_decide either jumps to
 * the address it gave, with every argument register and the stack as on entry, or returns the
 * result it gave (below 4096). r11, which no argument uses, carries the index and the target. */
#define DROP_ENTRY(index, name, droppable)                                                         \
    ".globl " #name "\n"                                                                           \
    ".type " #name ", @function\n"                                                                 \
    ".p2align 4\n" #name ":\n"                                                                     \
    ".cfi_startproc\n"                                                                             \
    "    movl $" #index ", %r11d\n"                                                                \
    "    .byte 0xe9\n"                                                                             \
    "    .long drop_common - . - 4\n"                                                              \
    ".cfi_endproc\n"                                                                               \
    ".size " #name ", . - " #name "\n"                                                             \
    ".if . - " #name " > 16\n"                                                                     \
    ".error \"a trampoline is longer than 16 bytes\"\n"                                            \
    ".endif\n"
__asm__(".text\n"
        ".p2align 4\n"
        "drop_trampolines:\n"
#include "drop_entries.h"
        ".p2align 4\n"
        "drop_common:\n"
        ".cfi_startproc\n"
        "    subq $200, %rsp\n"
        ".cfi_adjust_cfa_offset 200\n"
        "    movdqu %xmm0, 0(%rsp)\n"
        "    movdqu %xmm1, 16(%rsp)\n"
        "    movdqu %xmm2, 32(%rsp)\n"
        "    movdqu %xmm3, 48(%rsp)\n"
        "    movdqu %xmm4, 64(%rsp)\n"
        "    movdqu %xmm5, 80(%rsp)\n"
        "    movdqu %xmm6, 96(%rsp)\n"
        "    movdqu %xmm7, 112(%rsp)\n"
        "    movq %rdi, 128(%rsp)\n"
        "    movq %rsi, 136(%rsp)\n"
        "    movq %rdx, 144(%rsp)\n"
        "    movq %rcx, 152(%rsp)\n"
        "    movq %r8, 160(%rsp)\n"
        "    movq %r9, 168(%rsp)\n"
        "    movq %rax, 176(%rsp)\n"
        "    movl %r11d, %edi\n"
        "    call drop_decide\n"
        "    movq %rax, %r11\n"
        "    movdqu 0(%rsp), %xmm0\n"
        "    movdqu 16(%rsp), %xmm1\n"
        "    movdqu 32(%rsp), %xmm2\n"
        "    movdqu 48(%rsp), %xmm3\n"
        "    movdqu 64(%rsp), %xmm4\n"
        "    movdqu 80(%rsp), %xmm5\n"
        "    movdqu 96(%rsp), %xmm6\n"
        "    movdqu 112(%rsp), %xmm7\n"
#ifndef DROP_MUTANT_KEEP_RDI
        "    movq 128(%rsp), %rdi\n"
#endif
        "    movq 136(%rsp), %rsi\n"
        "    movq 144(%rsp), %rdx\n"
        "    movq 152(%rsp), %rcx\n"
        "    movq 160(%rsp), %r8\n"
        "    movq 168(%rsp), %r9\n"
        "    movq 176(%rsp), %rax\n"
        "    addq $200, %rsp\n"
        ".cfi_adjust_cfa_offset -200\n"
        "    cmpq $4096, %r11\n"
        "    jb 1f\n"
        "    jmp *%r11\n"
        "1:  movl %r11d, %eax\n"
        "    ret\n"
        ".cfi_endproc\n");
#undef DROP_ENTRY

extern const char drop_trampolines[] __attribute__((visibility("hidden")));

/* The trampoline of entry `index`. */
static void *trampoline(unsigned index) { return (void *)(drop_trampolines + 16 * (size_t)index); }

/* What the process was told, copied at load time (the constructor) and checked at its first
 * call; NULL where unset. */
static const char *drop_spec;       /* CUDA_DROP */
static const char *drops_dir;       /* CUDA_DROP_DIR */
static const char *generation_text; /* CUDA_DROP_GENERATION */
static long generation;

/* The call to drop, where CUDA_DROP names one. */
static struct {
    int active;
    unsigned entry;
    unsigned long long call;
    long generation;
} drop;

/* The real driver's functions, by entry (NULL where it lacks one), and their addresses sorted,
 * for cuGetProcAddress's pointers. */
static void *real[ENTRIES];
static struct address {
    uintptr_t address;
    unsigned entry;
} addresses[ENTRIES];
static size_t known_addresses;

/* Where every call is refused: CUDA_ERROR_NOT_INITIALIZED without a driver; 0 otherwise. */
static uintptr_t refusal;

/* The calls of each droppable entry so far, the order of its first call (from 1), whether the
 * drop happened. */
#ifdef DROP_MUTANT_PER_THREAD
static __thread unsigned long long calls[ENTRIES];
#else
static unsigned long long calls[ENTRIES];
#endif
static unsigned first_call[ENTRIES];
static unsigned entries_called;
static int dropped;

static pthread_once_t started = PTHREAD_ONCE_INIT;
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;

/* The generation the processes this one starts have, in their environment, and who set it. */
static void set_children_generation(void) {
    char text[24];
#ifdef DROP_MUTANT_SAME_GENERATION
    snprintf(text, sizeof text, "%ld", generation);
#else
    snprintf(text, sizeof text, "%ld", generation + 1);
#endif
    setenv("CUDA_DROP_GENERATION", text, 1);
    snprintf(text, sizeof text, "%ld", (long)getpid());
    setenv("CUDA_DROP_GENERATION_SET_BY", text, 1);
}

/* The whole decimal number `text` (digits only, no sign) in `value`; 0 where it is none. */
static int whole_number(const char *text, unsigned long long *value) {
    if (text == NULL || *text < '0' || *text > '9') return 0;
    char *end;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && *end == '\0';
}

/* Ends the process with exit code 2, after one line on stderr saying what is wrong (`format`
 * and what follows, as printf's) and what to set: for a CUDA_DROP or CUDA_DROP_GENERATION the
 * dropper cannot follow. */
__attribute__((format(printf, 1, 2), noreturn)) static void refuse_settings(const char *format,
                                                                            ...) {
    char what[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(what, sizeof what, format, arguments);
    va_end(arguments);
    fprintf(stderr,
            "libcuda-drop: %s; set CUDA_DROP=list, or CUDA_DROP=<entry>:<k>[@<generation>] with an "
            "entry of ci/drop/droppable.txt and k from 1\n",
            what);
    _exit(2);
}

/* Reads CUDA_DROP into `drop`, or ends the process. */
static void read_drop(void) {
    unsigned long long value;
    if (generation_text != NULL && (!whole_number(generation_text, &value) || value >= LONG_MAX))
        refuse_settings("CUDA_DROP_GENERATION=%.64s is not a generation (0, 1, ...)",
                        generation_text);
    if (drop_spec == NULL || *drop_spec == '\0' || strcmp(drop_spec, "list") == 0) return;
    const char *colon = strrchr(drop_spec, ':');
    int length = colon == NULL ? 0 : (int)(colon - drop_spec);
    if (length == 0) refuse_settings("CUDA_DROP=%.256s names no call (<entry>:<k>)", drop_spec);
    char count[64], *at;
    if (strlen(colon + 1) >= sizeof count)
        refuse_settings("CUDA_DROP=%.256s: what follows : is too long", drop_spec);
    snprintf(count, sizeof count, "%s", colon + 1);
    value = 0;
    if ((at = strchr(count, '@')) != NULL) {
        *at = '\0';
        if (!whole_number(at + 1, &value) || value > LONG_MAX)
            refuse_settings("CUDA_DROP=%.256s: the generation after @ is not a whole number",
                            drop_spec);
    }
    if (!whole_number(count, &drop.call) || drop.call == 0)
        refuse_settings("CUDA_DROP=%.256s: the call after : is not a whole number from 1",
                        drop_spec);
    for (unsigned i = 0; i < ENTRIES; i++) {
        if (strncmp(names[i], drop_spec, (size_t)length) != 0 || names[i][length] != '\0') continue;
        if (!may_drop[i])
            refuse_settings("CUDA_DROP=%.256s: %s may not be dropped (it creates, queries, loads, "
                            "releases or maps, or hands something back)",
                            drop_spec, names[i]);
        drop.active = 1;
        drop.entry = i;
        drop.generation = (long)value;
        return;
    }
    refuse_settings("CUDA_DROP=%.256s: no driver entry is named %.*s", drop_spec, length,
                    drop_spec);
}

static int by_address(const void *a, const void *b) {
    const struct address *x = a, *y = b;
    if (x->address != y->address) return x->address < y->address ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Opens the real driver and finds its functions; on failure, says so and refuses every call. */
static void open_driver(void) {
    const char *path = getenv("CUDA_DROP_DRIVER");
    const char *why = NULL;
    void *driver = NULL;
    if (path == NULL || *path == '\0') {
        why = "CUDA_DROP_DRIVER is not set";
    } else if (*path != '/') {
        why = "CUDA_DROP_DRIVER is not an absolute path";
    } else if ((driver = dlopen(path, RTLD_LAZY | RTLD_LOCAL)) == NULL) {
        why = dlerror();
    }
    for (unsigned i = 0; driver != NULL && i < ENTRIES; i++) {
        real[i] = dlsym(driver, names[i]);
        if (real[i] == trampoline(i)) {
            why = "CUDA_DROP_DRIVER names the dropper itself";
            break;
        }
        if (real[i] != NULL) {
            addresses[known_addresses].address = (uintptr_t)real[i];
            addresses[known_addresses].entry = i;
            known_addresses++;
        }
    }
    if (why != NULL) {
        fprintf(stderr,
                "libcuda-drop: %s: set CUDA_DROP_DRIVER to the absolute path of the real driver "
                "library (libcuda.so.1); every driver call answers CUDA_ERROR_NOT_INITIALIZED\n",
                why);
        refusal = CUDA_ERROR_NOT_INITIALIZED;
        return;
    }
    qsort(addresses, known_addresses, sizeof addresses[0], by_address);
}

static void start(void) {
    read_drop();
    open_driver();
}

/* The trampoline for `pointer`, a function the driver handed out: that of the first entry (by
 * index) whose real function it is; `pointer` itself where it is no entry's. */
static void *entry_for(void *pointer) {
#ifdef DROP_MUTANT_REAL_POINTERS
    return pointer;
#endif
    size_t low = 0, high = known_addresses;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (addresses[middle].address < (uintptr_t)pointer)
            low = middle + 1;
        else
            high = middle;
    }
    if (low < known_addresses && addresses[low].address == (uintptr_t)pointer)
        return trampoline(addresses[low].entry);
    return pointer;
}

typedef int (*get_proc_address)(const char *, void **, int, unsigned long long);
typedef int (*get_proc_address_v2)(const char *, void **, int, unsigned long long, void *);

static void hand_back_entry(int result, void **function) {
    if (result == CUDA_SUCCESS && function != NULL && *function != NULL)
        *function = entry_for(*function);
}

static int own_get_proc_address(const char *symbol, void **function, int version,
                                unsigned long long flags) {
    get_proc_address driver = (get_proc_address)real[ENTRY_cuGetProcAddress];
    int result = driver(symbol, function, version, flags);
    hand_back_entry(result, function);
    return result;
}

static int own_get_proc_address_v2(const char *symbol, void **function, int version,
                                   unsigned long long flags, void *status) {
    get_proc_address_v2 driver = (get_proc_address_v2)real[ENTRY_cuGetProcAddress_v2];
    int result = driver(symbol, function, version, flags, status);
    hand_back_entry(result, function);
    return result;
}

/* Writes <pid>.drops into CUDA_DROP_DIR, anew each time (the last write has the final counts). */
static void write_drops(void) {
    if (drops_dir == NULL || *drops_dir == '\0') return;
    pthread_mutex_lock(&writing);
    char path[PATH_MAX + 32], exe[PATH_MAX] = "?";
    snprintf(path, sizeof path, "%s/%ld.drops", drops_dir, (long)getpid());
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 1] = '\0';
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        fprintf(stderr, "libcuda-drop: %s: %s\n", path, strerror(errno));
        pthread_mutex_unlock(&writing);
        return;
    }
    fprintf(file, "# exe %s\n# pid %ld parent %ld generation %ld\n", exe, (long)getpid(),
            (long)getppid(), generation);
    static unsigned called[ENTRIES];
    unsigned count = 0;
    for (unsigned i = 0; i < ENTRIES; i++) {
        if (__atomic_load_n(&calls[i], __ATOMIC_RELAXED) == 0) continue;
        unsigned at = count++;
        for (; at > 0 && first_call[called[at - 1]] > first_call[i]; at--)
            called[at] = called[at - 1];
        called[at] = i;
    }
    for (unsigned i = 0; i < count; i++)
        fprintf(file, "%s %llu\n", names[called[i]],
                __atomic_load_n(&calls[called[i]], __ATOMIC_RELAXED));
    if (__atomic_load_n(&dropped, __ATOMIC_ACQUIRE))
        fprintf(file, "dropped %s %llu\n", names[drop.entry], drop.call);
    if (fclose(file) != 0) fprintf(stderr, "libcuda-drop: %s: %s\n", path, strerror(errno));
    pthread_mutex_unlock(&writing);
}

/* Whether the call numbered `call` of entry `index` is the one to drop. */
static int is_the_drop(unsigned index, unsigned long long call) {
#ifdef DROP_MUTANT_LATE
    call -= 1;
#endif
    return drop.active && index == drop.entry && call == drop.call &&
           generation == drop.generation;
}

/* What the trampoline of entry `index` does: jump to the address this returns (the real
 * function's, or the dropper's own cuGetProcAddress), or return it as the call's result where it
 * is below 4096. Called from drop_common only. */
__attribute__((visibility("hidden"))) uintptr_t drop_decide(unsigned index) {
    pthread_once(&started, start);
    if (refusal != 0) return refusal;
    if (real[index] == NULL) return CUDA_ERROR_NOT_FOUND;
    if (may_drop[index]) {
        unsigned long long call = __atomic_add_fetch(&calls[index], 1, __ATOMIC_RELAXED);
        if (call == 1)
            first_call[index] = __atomic_add_fetch(&entries_called, 1, __ATOMIC_RELAXED);
        if (is_the_drop(index, call)) {
            __atomic_store_n(&dropped, 1, __ATOMIC_RELEASE);
            write_drops();
#ifndef DROP_MUTANT_NEVER
            return CUDA_SUCCESS;
#endif
        }
    }
    if (index == ENTRY_cuGetProcAddress) return (uintptr_t)own_get_proc_address;
    if (index == ENTRY_cuGetProcAddress_v2) return (uintptr_t)own_get_proc_address_v2;
    return (uintptr_t)real[index];
}

/* A fork()ed child is a process of the next generation, with its own counts. */
static void in_forked_child(void) {
    pthread_mutex_init(&writing, NULL);
#ifndef DROP_MUTANT_SAME_GENERATION
    generation++;
#endif
    set_children_generation();
    memset(calls, 0, sizeof calls);
    memset(first_call, 0, sizeof first_call);
    entries_called = 0;
    dropped = 0;
}

/* The value of the environment variable `name` as it is now, or NULL. */
static const char *copy_of(const char *name) {
    const char *value = getenv(name);
    return value != NULL ? strdup(value) : NULL;
}

__attribute__((constructor)) static void at_load(void) {
    drop_spec = copy_of("CUDA_DROP");
    drops_dir = copy_of("CUDA_DROP_DIR");
    generation_text = copy_of("CUDA_DROP_GENERATION");
    unsigned long long value, set_by;
    if (whole_number(generation_text, &value) && value < LONG_MAX) {
        generation = (long)value;
        if (whole_number(getenv("CUDA_DROP_GENERATION_SET_BY"), &set_by) &&
            set_by == (unsigned long long)getpid() && generation > 0)
            generation--;
    }
    set_children_generation();
    atexit(write_drops);
    pthread_atfork(NULL, NULL, in_forked_child);
}

__attribute__((destructor)) static void at_unload(void) { write_drops(); }
