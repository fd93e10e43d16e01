/* TEST EQUIPMENT, not a driver: a stand-in for NVIDIA's nvcuda.dll, so that the Windows builds of
 * the crate, cuda-check and the tests run under wine (cargo xtask platforms). It answers as a
 * driver of the newest header version answers without a GPU, with the error names and messages of
 * Debian's 535 driver library, from tables taken from that library and from the bindings
 * (xtask/src/platforms/windows/nvcuda_table.rs writes them into nvcuda_table.h and nvcuda.def):
 * - it exports every function of the bindings (every header version, the interop modules' too)
 *   and the first ABI of those the bindings know as _v2 or later (cuMemAlloc);
 * - cuInit answers CUDA_ERROR_NO_DEVICE; every other function of the bindings
 *   CUDA_ERROR_NOT_INITIALIZED, as a driver does after a failed cuInit (but for a null handle to
 *   the few functions below that check it first, as the 535 library does);
 * - cuDriverGetVersion answers the newest header version; cuGetErrorName and cuGetErrorString
 *   answer the 535 library's names and messages, for every code it names;
 * - cuGetProcAddress (CUDA 11's, without the status) and cuGetProcAddress_v2 resolve a base name
 *   at a version to one of this DLL's own exports (GetProcAddress on itself): the newest variant
 *   of the bindings whose version is at most the one asked for and at most the driver's, per-thread
 *   where asked for and the function has per-thread variants; a known name with no variant that
 *   old is "version not sufficient", an unknown one "symbol not found"; a function's first ABI,
 *   superseded by a _v2, is its base name (cuMemAlloc at 2000).
 * The real-driver tests stay on Linux (cargo xtask test); this DLL only lets the Windows builds
 * reach their no-device paths. */
#include <stddef.h>
#include <string.h>
#include <windows.h>

typedef int CUresult;
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
};
/* cuda.h's CUdriverProcAddressQueryResult and CUdriverProcAddress_flags. */
enum { STATUS_FOUND = 0, STATUS_SYMBOL_NOT_FOUND = 1, STATUS_VERSION_NOT_SUFFICIENT = 2 };
#define PER_THREAD_DEFAULT_STREAM_FLAG 0x2ull

struct entry {
    const char *base;
    int version;
    int per_thread;
    const char *symbol;
};
struct error_text {
    CUresult code;
    const char *name;
    const char *message;
};

/* nvcuda_table.h is included once per list: with that list's macro defined, the others empty. */
#define STUB_DRIVER_VERSION(v) static const int driver_version = v;
#define STUB_FUNCTION(symbol)
#define STUB_ENTRY(base, version, per_thread, symbol)
#define STUB_ERROR(code, name, message)
#include "nvcuda_table.h"
#undef STUB_DRIVER_VERSION
#define STUB_DRIVER_VERSION(v)

#undef STUB_ENTRY
#define STUB_ENTRY(base, version, per_thread, symbol) {base, version, per_thread, symbol},
static const struct entry entries[] = {
#include "nvcuda_table.h"
};
#undef STUB_ENTRY
#define STUB_ENTRY(base, version, per_thread, symbol)

#undef STUB_ERROR
#define STUB_ERROR(code, name, message) {code, name, message},
static const struct error_text errors[] = {
#include "nvcuda_table.h"
};
#undef STUB_ERROR
#define STUB_ERROR(code, name, message)

/* Every other function: the answer after a failed cuInit. The callee never reads its arguments,
 * which the x64 calling convention makes safe for any prototype. */
#undef STUB_FUNCTION
#define STUB_FUNCTION(symbol) \
    CUresult symbol(void) { return CUDA_ERROR_NOT_INITIALIZED; }
#include "nvcuda_table.h"

/* The calls the 535 library answers otherwise, before its initialisation check: a null handle
 * (as the examples pass one after the failed cuInit). The examples' comparison in the
 * platforms task holds these to that library's answers. */
CUresult cuCtxDestroy_v2(void *context) {
    return context ? CUDA_ERROR_NOT_INITIALIZED : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuLaunchKernel(void *function) {
    return function ? CUDA_ERROR_NOT_INITIALIZED : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLibraryUnload(void *library) {
    return library ? CUDA_ERROR_NOT_INITIALIZED : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLibraryGetKernel(void *kernel, void *library) {
    (void)kernel;
    return library ? CUDA_ERROR_NOT_INITIALIZED : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLibraryGetManaged(void *pointer, void *bytes, void *library) {
    (void)pointer, (void)bytes;
    return library ? CUDA_ERROR_NOT_INITIALIZED : CUDA_ERROR_INVALID_HANDLE;
}

static HMODULE self;

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
    (void)reserved;
    if (reason == DLL_PROCESS_ATTACH) {
        self = instance;
    }
    return TRUE;
}

CUresult cuInit(unsigned int flags) {
    (void)flags;
    return CUDA_ERROR_NO_DEVICE;
}

CUresult cuDriverGetVersion(int *version) {
    if (!version) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *version = driver_version;
    return CUDA_SUCCESS;
}

static const struct error_text *error_text(CUresult code) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == code) {
            return &errors[i];
        }
    }
    return NULL;
}

/* As the 535 library: an unknown code is CUDA_ERROR_INVALID_VALUE, with *text set to NULL. */
CUresult cuGetErrorName(CUresult code, const char **text) {
    const struct error_text *e = error_text(code);
    if (!text) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *text = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult code, const char **text) {
    const struct error_text *e = error_text(code);
    if (!text) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *text = e ? e->message : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The export `base` resolves to at `version` with `flags`, or the status saying why none. */
static int resolve(const char *base, int version, unsigned long long flags, void **pfn) {
    int known = 0, per_thread_variants = 0;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        if (strcmp(entries[i].base, base) == 0) {
            known = 1;
            per_thread_variants |= entries[i].per_thread;
        }
    }
    if (!known) {
        return STATUS_SYMBOL_NOT_FOUND;
    }
    int per_thread = per_thread_variants && (flags & PER_THREAD_DEFAULT_STREAM_FLAG);
    const struct entry *best = NULL;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const struct entry *e = &entries[i];
        if (strcmp(e->base, base) == 0 && e->per_thread == per_thread && e->version <= version &&
            (!best || e->version > best->version)) {
            best = e;
        }
    }
    if (!best) {
        return STATUS_VERSION_NOT_SUFFICIENT;
    }
    *pfn = (void *)GetProcAddress(self, best->symbol);
    return *pfn ? STATUS_FOUND : STATUS_SYMBOL_NOT_FOUND;
}

/* As the 535 library: CUDA 12's function succeeds and says in the status whether the symbol was
 * found; CUDA 11's, which has no status, answers CUDA_ERROR_NOT_FOUND where it was not. */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                             int *status) {
    if (!symbol || !pfn) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pfn = NULL;
    int found = resolve(symbol, version, flags, pfn);
    if (status) {
        *status = found;
    }
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags) {
    if (!symbol || !pfn) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pfn = NULL;
    return resolve(symbol, version, flags, pfn) == STATUS_FOUND ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
