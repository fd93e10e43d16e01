/* The recorder's reading of a driver call's arguments: each parameter printed by the generated
 * table's description of it (call_arguments.h; its types: arguments.h), and the identities that
 * make handles and addresses comparable between processes. The format and the rules are
 * recorder.c's header comment.
 */
#define _GNU_SOURCE
/* CUPTI's parameter structs name the legacy types that cuda.h declares for the driver's own
 * build only. */
#define __CUDA_API_VERSION_INTERNAL
#include "arguments.h"

#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <generated_cuda_meta.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_arguments.h"

/* The most elements of an array printed (then `...`), and of a string's bytes. */
#define ELEMENTS 4096
#define STRING_BYTES 96

/* ---- Text ---- */

/* A growing string; `failed` once memory ran out (what it holds then is cut short). */
struct text {
    char *data;
    size_t length, capacity;
    int failed;
};

/* Appends the `n` bytes at `s`. */
static void put_length(struct text *t, const char *s, size_t n) {
    if (t->failed) return;
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = (t->length + n + 1) * 2;
        char *data = realloc(t->data, capacity);
        if (data == NULL) {
            t->failed = 1;
            return;
        }
        t->data = data;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
}

static void put(struct text *t, const char *s) { put_length(t, s, strlen(s)); }

__attribute__((format(printf, 2, 3))) static void putf(struct text *t, const char *format, ...) {
    char buffer[64];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    put(t, buffer);
}

/* ---- Memory ---- */

/* The unsigned little-endian integer of the `size` (at most 8) bytes at `p`. */
static uint64_t read_uint(const void *p, size_t size) {
    uint64_t value = 0;
    memcpy(&value, p, size < 8 ? size : 8);
    return value;
}

/* The signed integer of the `size` bytes at `p`. */
static int64_t read_int(const void *p, size_t size) {
    uint64_t value = read_uint(p, size);
    if (size < 8 && (value >> (size * 8 - 1)) & 1) value |= ~(uint64_t)0 << (size * 8);
    return (int64_t)value;
}

static const char *read_pointer(const char *p) {
    const char *value;
    memcpy(&value, p, sizeof value);
    return value;
}

/* ---- Identities ---- */

/* All identities are guarded by `lock`: the calls of several threads number them in turn. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* What a handle lives no longer than: the handle (kind, value) while that has the number
 * `number` (a graph, for its nodes); none where `kind` is NULL. */
struct owner {
    const char *kind;
    uint64_t value;
    unsigned number;
};

/* A numbered value of a kind (a handle's typedef, `pid` for a process id, or ADDR for an address
 * in no allocation). */
struct numbered {
    const char *kind;
    uint64_t value;
    unsigned number;
    int state; /* 0: empty, 1: used, 2: forgotten */
    struct owner owner;
};
static struct numbered *numbered;
static size_t numbered_capacity, numbered_used;

/* The numbers handed out so far per kind. */
struct counter {
    const char *kind;
    unsigned count;
};
static struct counter *counters;
static size_t counters_used;

static const char ADDR[] = "addr";

static size_t hash(const char *kind, uint64_t value) {
    uint64_t h = value * 0x9e3779b97f4a7c15ull;
    for (const char *c = kind; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

/* The slot of (kind, value): its own where it is there, else the first free one on its path. */
static struct numbered *slot(const char *kind, uint64_t value) {
    struct numbered *free_slot = NULL;
    size_t mask = numbered_capacity - 1;
    for (size_t i = hash(kind, value) & mask;; i = (i + 1) & mask) {
        struct numbered *n = &numbered[i];
        if (n->state == 0) return free_slot ? free_slot : n;
        if (n->state == 2) {
            if (!free_slot) free_slot = n;
        } else if (n->value == value && strcmp(n->kind, kind) == 0) {
            return n;
        }
    }
}

/* Room for one more: 0 where memory ran out. */
static int make_room(void) {
    if ((numbered_used + 1) * 2 <= numbered_capacity) return 1;
    size_t capacity = numbered_capacity ? numbered_capacity * 2 : 256;
    struct numbered *old = numbered, *grown = calloc(capacity, sizeof *grown);
    if (grown == NULL) return 0;
    size_t old_capacity = numbered_capacity;
    numbered = grown;
    numbered_capacity = capacity;
    numbered_used = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].state != 1) continue;
        *slot(old[i].kind, old[i].value) = old[i];
        numbered_used++;
    }
    free(old);
    return 1;
}

/* The next number of `kind`. */
static unsigned next_number(const char *kind) {
    for (size_t i = 0; i < counters_used; i++)
        if (strcmp(counters[i].kind, kind) == 0) return ++counters[i].count;
    struct counter *grown = realloc(counters, (counters_used + 1) * sizeof *counters);
    if (grown == NULL) return 0;
    counters = grown;
    counters[counters_used++] = (struct counter){kind, 1};
    return 1;
}

/* The most owners above a handle that are asked whether they still are what they were. */
#define OWNERS_ABOVE 16

/* Whether the object numbered in `n` may still be there: its owner, and the owner's owner, ...
 * still have the numbers they had when it was numbered (none was released, nor replaced by a new
 * object at its value). Called with `lock` held. */
static int alive(const struct numbered *n) {
    for (int above = 0; n->owner.kind != NULL && above < OWNERS_ABOVE; above++) {
        const struct numbered *o = slot(n->owner.kind, n->owner.value);
        if (o->state != 1 || o->number != n->owner.number) return 0;
        n = o;
    }
    return 1;
}

/* The number of (kind, value): its own, or the next one where it is new, `fresh` (a new object),
 * no longer alive (its owner ended), or handed back from another owner of the same kind than its
 * own (`owner_kind` and `owner_value`: the handle the call that wrote it names as what it lives
 * no longer than, else NULL); 0 where memory ran out. Called with `lock` held. */
static unsigned number_of(const char *kind, uint64_t value, int fresh, const char *owner_kind,
                          uint64_t owner_value) {
    if (!make_room()) return 0;
    struct owner owner = {NULL, 0, 0};
    if (owner_kind != NULL && owner_value != 0) {
        const struct numbered *o = slot(owner_kind, owner_value);
        if (o->state == 1 && alive(o)) owner = (struct owner){owner_kind, owner_value, o->number};
    }
    struct numbered *n = slot(kind, value);
    int same = n->state == 1 && !fresh && alive(n);
    if (same && owner.kind != NULL && n->owner.kind != NULL &&
        strcmp(owner.kind, n->owner.kind) == 0)
        same = owner.value == n->owner.value && owner.number == n->owner.number;
    if (same) {
        if (n->owner.kind == NULL) n->owner = owner;
        return n->number;
    }
    if (n->state != 1) numbered_used++;
    *n = (struct numbered){kind, value, next_number(kind), 1, owner};
    return n->number;
}

/* Forgets (kind, value). Called with `lock` held. */
static void forget(const char *kind, uint64_t value) {
    if (numbered_capacity == 0) return;
    struct numbered *n = slot(kind, value);
    if (n->state == 1) n->state = 2;
}

/* An allocation: [base, base + size), the `number`-th the process got (an alias of host memory
 * has its host allocation's). */
struct interval {
    uint64_t base, size;
    unsigned number;
};
static struct interval *intervals;
static size_t intervals_used, intervals_capacity;
static unsigned allocations;

/* The newest allocation `value` is in; NULL for none. Called with `lock` held. */
static const struct interval *allocation_of(uint64_t value) {
    const struct interval *found = NULL;
    for (size_t i = 0; i < intervals_used; i++) {
        const struct interval *a = &intervals[i];
        if (value - a->base < a->size && (!found || a->number > found->number)) found = a;
    }
    return found;
}

/* Adds an allocation: `number` 0 for a new one. Called with `lock` held. */
static void add_interval(uint64_t base, uint64_t size, unsigned number) {
    if (base == 0 || size == 0) return;
    if (intervals_used == intervals_capacity) {
        size_t capacity = intervals_capacity ? intervals_capacity * 2 : 64;
        struct interval *grown = realloc(intervals, capacity * sizeof *grown);
        if (grown == NULL) return;
        intervals = grown;
        intervals_capacity = capacity;
    }
    intervals[intervals_used++] = (struct interval){base, size, number ? number : ++allocations};
}

/* Forgets the allocation `value` is in, with its aliases. Called with `lock` held. */
static void forget_allocation(uint64_t value) {
    const struct interval *a = allocation_of(value);
    if (a == NULL) return;
    unsigned number = a->number;
    size_t kept = 0;
    for (size_t i = 0; i < intervals_used; i++)
        if (intervals[i].number != number) intervals[kept++] = intervals[i];
    intervals_used = kept;
}

/* `mem#N+offset` where `value` is in an allocation (1), else nothing (0). */
static int put_allocation(struct text *t, uint64_t value) {
    pthread_mutex_lock(&lock);
    const struct interval *a = allocation_of(value);
    unsigned number = a ? a->number : 0;
    uint64_t offset = a ? value - a->base : 0;
    pthread_mutex_unlock(&lock);
    if (a == NULL) return 0;
    putf(t, "mem#%u+%llu", number, (unsigned long long)offset);
    return 1;
}

/* `<kind>#N`, numbering (kind, value) where new or `fresh` (`owner_kind` and `owner_value`:
 * what it lives no longer than, as number_of takes them). */
static void put_numbered(struct text *t, const char *kind, uint64_t value, int fresh,
                         const char *owner_kind, uint64_t owner_value) {
    pthread_mutex_lock(&lock);
    unsigned number = number_of(kind, value, fresh, owner_kind, owner_value);
    pthread_mutex_unlock(&lock);
    putf(t, "%s#%u", kind, number);
}

/* A device address: null, in an allocation, or by its own number. */
static void put_address(struct text *t, uint64_t value) {
    if (value == 0)
        put(t, "null");
    else if (!put_allocation(t, value))
        put_numbered(t, ADDR, value, 0, NULL, 0);
}

/* A host pointer: null, in an allocation, or `host`. */
static void put_host(struct text *t, uint64_t value) {
    if (value == 0)
        put(t, "null");
    else if (!put_allocation(t, value))
        put(t, "host");
}

/* A pointer-sized word of unknown type: in an allocation; else, where it looks like an address
 * ([2^32, 2^48)), by its number (`host_words`: `host`); else the integer. */
static void put_word(struct text *t, uint64_t value, int host_words) {
    if (value >> 32 != 0 && value >> 48 == 0) {
        if (put_allocation(t, value)) return;
        if (host_words)
            put(t, "host");
        else
            put_numbered(t, ADDR, value, 0, NULL, 0);
    } else if (!put_allocation(t, value)) {
        putf(t, "%llu", (unsigned long long)value);
    }
}

/* `size` bytes of unknown type: an integer of its size, a word, or `[w,w,..]` of words. */
static void put_bytes(struct text *t, const char *p, size_t size) {
    if (size < 8) {
        putf(t, "%llu", (unsigned long long)read_uint(p, size));
    } else if (size == 8) {
        put_word(t, read_uint(p, 8), 0);
    } else {
        put(t, "[");
        for (size_t at = 0; at < size; at += 8) {
            if (at) put(t, ",");
            size_t n = size - at < 8 ? size - at : 8;
            if (n == 8)
                put_word(t, read_uint(p + at, 8), 0);
            else
                putf(t, "%llu", (unsigned long long)read_uint(p + at, n));
        }
        put(t, "]");
    }
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A C string, quoted, `\` escaping `\`, `"`, space (`\s`) and bytes outside printable ASCII;
 * the decimal digits of the process's own pid, where they stand alone as a number, as `<pid>`
 * (programs name their temporary files after it). */
static void put_string(struct text *t, const char *s) {
    if (s == NULL) {
        put(t, "null");
        return;
    }
    char pid[24];
    size_t pid_length = (size_t)snprintf(pid, sizeof pid, "%ld", (long)getpid());
    put(t, "\"");
    size_t i = 0;
    for (; s[i] && i < STRING_BYTES; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t digits = is_digit(s[i]) && (i == 0 || !is_digit(s[i - 1]))
                            ? strspn(s + i, "0123456789")
                            : 0;
        if (digits == pid_length && memcmp(s + i, pid, digits) == 0) {
            put(t, "<pid>");
            i += digits - 1;
        } else if (c == '\\' || c == '"')
            putf(t, "\\%c", c);
        else if (c == ' ')
            put(t, "\\s");
        else if (c < 0x21 || c > 0x7e)
            putf(t, "\\x%02x", c);
        else
            putf(t, "%c", c);
    }
    put(t, s[i] ? "...\"" : "\"");
}

/* ---- The driver ---- */

typedef CUresult (*param_info_fn)(void *, size_t, size_t *, size_t *);
typedef CUresult (*address_range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);

/* The driver functions the recorder asks, from the driver the process loaded (NULL where it has
 * none), resolved at the first call that needs one. The recorder's callback ignores the calls
 * it makes itself. */
static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static param_info_fn func_get_param_info, kernel_get_param_info;
static address_range_fn mem_get_address_range;

static void resolve(void) {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == NULL) return;
    func_get_param_info = (param_info_fn)dlsym(driver, "cuFuncGetParamInfo");
    kernel_get_param_info = (param_info_fn)dlsym(driver, "cuKernelGetParamInfo");
    mem_get_address_range = (address_range_fn)dlsym(driver, "cuMemGetAddressRange_v2");
}

/* The sizes of the parameters of the function `function`, else of the kernel `kernel` (or
 * `function` taken as one: cuLaunchKernel takes a CUkernel cast): how many (-1 where the driver
 * refuses), into `sizes` (up to `max`). */
static long param_sizes(uint64_t function, uint64_t kernel, size_t *sizes, size_t max) {
    pthread_once(&resolved, resolve);
    param_info_fn getters[] = {func_get_param_info, kernel_get_param_info};
    uint64_t handles[] = {function, kernel ? kernel : function};
    for (int g = 0; g < 2; g++) {
        void *handle = (void *)(uintptr_t)handles[g];
        if (getters[g] == NULL || handle == NULL) continue;
        size_t n = 0, offset, size;
        CUresult status = CUDA_SUCCESS;
        while (n < max && (status = getters[g](handle, n, &offset, &size)) == CUDA_SUCCESS)
            sizes[n++] = size;
        // Past the last parameter (or with none) the driver says CUDA_ERROR_INVALID_VALUE.
        if (n > 0 || status == CUDA_ERROR_INVALID_VALUE) return (long)n;
    }
    return -1;
}

/* ---- Values ---- */

/* What a value is read from: the start of its parent (`base`), the entry's parameter struct,
 * whether the call returned (`exit`: outputs are read) and succeeded; at the entry, the call
 * whose inputs are read (its outputs inside them are left as holes, read at its exit). */
struct reading {
    const char *base;
    const char *params;
    int exit;
    int succeeded;
    struct call *call;
};

/* Leaves the output `n`, read as `w` says, as a hole in the text `t` of the parameter the entry
 * of `w->call` is reading. */
static void leave_hole(struct text *t, const struct node *n, const struct reading *w);

static void put_value(struct text *t, const struct node *n, const struct reading *w);

/* The value of a link; -1 where it has none or is negative. */
static int64_t link_value(const struct link *l, const struct reading *w) {
    const char *p;
    switch (l->from) {
    case FROM_BASE: p = w->base + l->offset; break;
    case FROM_PARAMS: p = w->params + l->offset; break;
    case FROM_POINTEE: p = read_pointer(w->params + l->offset); break;
    default: return -1;
    }
    if (p == NULL) return -1;
    int64_t value = read_int(p, l->size);
    return value < (int64_t)l->minus ? -1 : value - (int64_t)l->minus;
}

/* `count` elements of `element` from `p`: `[a,b,c]`, `...` after ELEMENTS. */
static void put_array(struct text *t, const struct node *element, const char *p, int64_t count,
                      const struct reading *w) {
    struct reading at = *w;
    put(t, "[");
    for (int64_t i = 0; i < count; i++) {
        if (i == ELEMENTS) {
            put(t, ",...");
            break;
        }
        if (i) put(t, ",");
        at.base = p + (size_t)i * element->size;
        put_value(t, element, &at);
    }
    put(t, "]");
}

/* The member of the union `n` its discriminant selects; NULL for none. */
static const struct node *selected(const struct node *n, const struct reading *w) {
    const char *p = n->link[0].from == FROM_PARAMS ? w->params : w->base;
    long long value = read_int(p + n->link[0].offset, n->link[0].size);
    for (size_t i = 0; i < n->count; i++)
        if (n->children[i].when == value) return &n->children[i];
    return NULL;
}

/* The items `name=value` of `nodes`, separated by `separator`; an anonymous union's member as
 * one of them. */
static void put_items(struct text *t, const struct node *nodes, size_t count, const char *separator,
                      const struct reading *w) {
    int first = 1;
    for (size_t i = 0; i < count; i++) {
        const struct node *n = &nodes[i];
        if (n->name == NULL && n->kind == K_UNION) {
            const struct node *member = selected(n, w);
            if (member && member->kind == K_NOTHING) continue;
            if (!first) put(t, separator);
            first = 0;
            if (member) {
                put_items(t, member, 1, separator, w);
            } else {
                put(t, "union=?union");
            }
            continue;
        }
        if (!first) put(t, separator);
        first = 0;
        put(t, n->name);
        put(t, "=");
        put_value(t, n, w);
    }
}

/* A launch's `kernelParams` (the array at `p`), each parameter by its size. */
static void put_kernel_params(struct text *t, const struct node *n, const char *p,
                              const struct reading *w) {
    const char *function_at = w->base + n->link[0].offset;
    uint64_t function = read_uint(function_at, n->link[0].size);
    uint64_t kernel = n->link[1].from ? read_uint(w->base + n->link[1].offset, n->link[1].size) : 0;
    size_t sizes[256];
    long count = param_sizes(function, kernel, sizes, sizeof sizes / sizeof *sizes);
    if (count < 0) {
        put(t, "?params");
        return;
    }
    put(t, "[");
    for (long i = 0; i < count; i++) {
        if (i) put(t, ",");
        const char *arg = read_pointer(p + i * sizeof(void *));
        if (arg == NULL)
            put(t, "null");
        else
            put_bytes(t, arg, sizes[i]);
    }
    put(t, "]");
}

/* A launch's `extra` (the array at `p`): the argument buffer it names, as words. */
static void put_extra(struct text *t, const char *p) {
    const char *buffer = NULL;
    const size_t *size = NULL;
    for (int i = 0; i < 16; i += 2) {
        const char *key = read_pointer(p + i * sizeof(void *));
        const char *value = read_pointer(p + (i + 1) * sizeof(void *));
        if (key == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = value;
        else if (key == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = (const size_t *)value;
        else
            break;
    }
    if (buffer == NULL || size == NULL) {
        put(t, "?extra");
        return;
    }
    put_bytes(t, buffer, *size > ELEMENTS * 8 ? ELEMENTS * 8 : *size);
}

/* The value of `n` at `w->base + n->offset`. */
static void put_value(struct text *t, const struct node *n, const struct reading *w) {
    const char *at = w->base + n->offset;
    switch (n->kind) {
    case K_INT: putf(t, "%lld", (long long)read_int(at, n->size)); break;
    case K_UINT: putf(t, "%llu", (unsigned long long)read_uint(at, n->size)); break;
    case K_FLOAT: {
        double value;
        if (n->size == sizeof(float)) {
            float f;
            memcpy(&f, at, sizeof f);
            value = f;
        } else {
            memcpy(&value, at, sizeof value);
        }
        putf(t, "%.9g", value);
        break;
    }
    case K_HANDLE: {
        uint64_t value = read_uint(at, n->size);
        if (value == 0)
            put(t, "null");
        else
            put_numbered(t, n->handle, value, 0, NULL, 0);
        break;
    }
    case K_ADDRESS: put_address(t, read_uint(at, n->size)); break;
    case K_HOST: put_host(t, (uint64_t)(uintptr_t)read_pointer(at)); break;
    case K_STRING: put_string(t, read_pointer(at)); break;
    case K_WRITTEN: put(t, "=>out"); break;
    case K_NOTHING: put(t, "{}"); break;
    case K_RECORD: {
        put(t, "{");
        put_items(t, n->children, n->count, ",", w);
        put(t, "}");
        break;
    }
    case K_UNION: {
        const struct node *member = selected(n, w);
        if (member == NULL) {
            put(t, "?union");
        } else {
            put(t, "{");
            if (member->kind != K_NOTHING) put_items(t, member, 1, ",", w);
            put(t, "}");
        }
        break;
    }
    case K_FIXED: {
        struct reading element = *w;
        element.base = at;
        put_array(t, n->children, at, (int64_t)n->length, &element);
        break;
    }
    case K_POINTER: {
        const char *p = read_pointer(at);
        struct reading pointee = *w;
        pointee.base = p;
        if (p == NULL) {
            put(t, "null");
        } else if (n->link[0].from == FROM_NONE) {
            put_value(t, n->children, &pointee);
        } else {
            int64_t count = link_value(&n->link[0], w);
            if (count < 0)
                put(t, "?count");
            else
                put_array(t, n->children, p, count, &pointee);
        }
        break;
    }
    case K_OUT: {
        if (!w->exit && w->call) {
            leave_hole(t, n, w);
            break;
        }
        const char *p = read_pointer(at);
        if (p == NULL) {
            put(t, "null");
            break;
        }
        put(t, "=>");
        int64_t count = n->link[0].from ? link_value(&n->link[0], w) : -1;
        if (!w->exit || !w->succeeded || n->children == NULL || (n->link[0].from && count < 0)) {
            put(t, "out");
            break;
        }
        const struct node *e = n->children;
        int64_t elements = n->link[0].from ? count : 1;
        uint64_t owner = n->owner ? read_uint(w->params + n->link[1].offset, n->link[1].size) : 0;
        if (n->link[0].from) put(t, "[");
        for (int64_t i = 0; i < elements && i < ELEMENTS; i++) {
            if (i) put(t, ",");
            uint64_t value = read_uint(p + (size_t)i * e->size, e->size);
            if (e->kind == K_HANDLE && value != 0)
                put_numbered(t, e->handle, value, n->fresh, n->owner, owner);
            else if (e->kind == K_ADDRESS)
                put_address(t, value);
            else if (e->kind == K_HANDLE)
                put(t, "null");
            else
                put_host(t, value);
        }
        if (n->link[0].from) put(t, elements > ELEMENTS ? ",...]" : "]");
        break;
    }
    case K_KERNEL_PARAMS: {
        const char *p = read_pointer(at);
        if (p == NULL)
            put(t, "null");
        else
            put_kernel_params(t, n, p, w);
        break;
    }
    case K_EXTRA: {
        const char *p = read_pointer(at);
        if (p == NULL)
            put(t, "null");
        else
            put_extra(t, p);
        break;
    }
    case K_WORDS: {
        const char *p = read_pointer(at);
        int64_t count = link_value(&n->link[0], w);
        if (p == NULL) {
            put(t, "null");
        } else if (count < 0) {
            put(t, "?count");
        } else {
            put(t, "[");
            for (int64_t i = 0; i < count && i < ELEMENTS; i++) {
                if (i) put(t, ",");
                put_word(t, read_uint(p + (size_t)i * 8, 8), 1);
            }
            put(t, count > ELEMENTS ? ",...]" : "]");
        }
        break;
    }
    case K_UNDESCRIBED: putf(t, "?%s", n->why); break;
    }
}

/* ---- Calls ---- */

/* An output inside an input (a member of a structure the call writes): its place in its
 * parameter's text, and how it is read at the exit. */
struct hole {
    size_t param, at;
    const struct node *node;
    struct reading reading;
};

struct call {
    const struct function *function;
    /* Each parameter's text read at the entry (`name=value`); NULL for an output, and where
     * memory ran out (it is then read at the exit). */
    char **inputs;
    /* The outputs inside the inputs, in the order of their places; the parameter being read. */
    struct hole *holes;
    size_t holes_used, param;
};

static void leave_hole(struct text *t, const struct node *n, const struct reading *w) {
    struct call *call = w->call;
    struct hole *grown = realloc(call->holes, (call->holes_used + 1) * sizeof *grown);
    if (grown == NULL) {
        t->failed = 1;
        return;
    }
    call->holes = grown;
    call->holes[call->holes_used++] = (struct hole){call->param, t->length, n, *w};
}

static const struct function undescribed = {0, NULL, 0, -1, NULL};

static const struct function *function_of(uint32_t cbid) {
    if (cbid >= sizeof functions / sizeof *functions || !functions[cbid].described)
        return &undescribed;
    return &functions[cbid];
}

struct call *arguments_enter(uint32_t cbid, const void *params) {
    struct call *call = calloc(1, sizeof *call);
    if (call == NULL) return NULL;
    call->function = function_of(cbid);
    size_t count = call->function->count;
    if (count == 0) return call;
    call->inputs = calloc(count, sizeof *call->inputs);
    if (call->inputs == NULL) {
        free(call);
        return NULL;
    }
    struct reading w = {params, params, 0, 0, call};
    for (size_t i = 0; i < count; i++) {
        const struct node *n = &call->function->params[i];
        if (n->kind == K_OUT) continue;
        struct text t = {0};
        call->param = i;
        put_items(&t, n, 1, " ", &w);
        call->inputs[i] = t.failed ? NULL : t.data;
        if (t.failed) free(t.data);
    }
    return call;
}

/* Reads a place of an allocation rule; 0 where it cannot. */
static uint64_t place_value(const struct place *p, const char *params) {
    const char *at = params + p->param;
    switch (p->how) {
    case W_VALUE: return read_uint(at, p->size);
    case W_POINTEE: at = read_pointer(at); break;
    case W_FIELD: at = read_pointer(at); if (at) at += p->field; break;
    default: return 0;
    }
    return at ? read_uint(at, p->size) : 0;
}

/* Adds the allocation a successful call of `rule` returned. */
static void allocate(const struct allocation *rule, const char *params) {
    uint64_t address = place_value(&rule->address, params);
    uint64_t size = place_value(&rule->size, params);
    if (rule->rule == S_TIMES) size *= place_value(&rule->factor, params);
    if (rule->rule == S_ASKED) {
        pthread_once(&resolved, resolve);
        CUdeviceptr base = 0;
        size_t bytes = 0;
        if (mem_get_address_range &&
            mem_get_address_range(&base, &bytes, (CUdeviceptr)address) == CUDA_SUCCESS &&
            base == address)
            size = bytes;
        else
            size = 1;
    }
    pthread_mutex_lock(&lock);
    if (rule->rule == S_ALIAS_OF) {
        // `size` is the host pointer `address` is the device alias of.
        const struct interval *host = allocation_of(size);
        if (host) {
            struct interval alias = {address - (size - host->base), host->size, host->number};
            add_interval(alias.base, alias.size, alias.number);
        }
    } else {
        add_interval(address, size ? size : 1, 0);
    }
    pthread_mutex_unlock(&lock);
}

/* Forgets the object of the released parameter `n`. */
static void release(const struct node *n, const char *params) {
    uint64_t value = read_uint(params + n->offset, n->size);
    pthread_mutex_lock(&lock);
    if (n->kind == K_HANDLE)
        forget(n->handle, value);
    else
        forget_allocation(value);
    pthread_mutex_unlock(&lock);
}

/* The text of the parameter `param` read at the entry of `call`, its holes filled with the
 * outputs they leave, read now (`exit`). */
static void put_filled(struct text *t, const struct call *call, size_t param,
                       const struct reading *exit) {
    const char *input = call->inputs[param];
    size_t from = 0;
    for (size_t h = 0; h < call->holes_used; h++) {
        const struct hole *hole = &call->holes[h];
        if (hole->param != param) continue;
        put_length(t, input + from, hole->at - from);
        struct reading w = hole->reading;
        w.params = exit->params;
        w.exit = 1;
        w.succeeded = exit->succeeded;
        w.call = NULL;
        put_value(t, hole->node, &w);
        from = hole->at;
    }
    put(t, input + from);
}

char *arguments_exit(struct call *call, const void *params, uint32_t result) {
    if (call == NULL) return NULL;
    const struct function *f = call->function;
    struct text t = {0};
    int succeeded = result == CUDA_SUCCESS;
    if (!f->described) {
        put(&t, "?undescribed");
    } else if (f->count == 0) {
        put(&t, "-");
    } else {
        if (succeeded && f->allocation) allocate(f->allocation, params);
        struct reading w = {params, params, 1, succeeded, NULL};
        for (size_t i = 0; i < f->count; i++) {
            if (i) put(&t, " ");
            if (call->inputs[i])
                put_filled(&t, call, i, &w);
            else
                put_items(&t, &f->params[i], 1, " ", &w);
        }
        if (succeeded && f->released >= 0) release(&f->params[f->released], params);
    }
    for (size_t i = 0; i < f->count; i++) free(call->inputs[i]);
    free(call->inputs);
    free(call->holes);
    free(call);
    if (t.failed) {
        free(t.data);
        return NULL;
    }
    return t.data;
}
