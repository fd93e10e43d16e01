/* The platforms task's driver probe (xtask/src/platforms/arm64_driver.rs): loads the driver
 * library named by argv[1] with dlopen and prints what cuInit, cuDriverGetVersion,
 * cuGetErrorName and cuGetProcAddress answer, then, for every symbol named on stdin (one a line),
 * whether the library exports it. Built for x86-64 and for aarch64 (run under qemu-aarch64): the
 * two outputs must be the same. DRIVER_VERSION (-DDRIVER_VERSION=...): the CUDA version the
 * driver library reports, asked of cuGetProcAddress. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef CUresult (*init_fn)(unsigned int);
typedef CUresult (*version_fn)(int *);
typedef CUresult (*error_name_fn)(CUresult, const char **);
typedef CUresult (*proc_address_fn)(const char *, void **, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult *);

static void *need(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "driver_probe: the library exports no %s\n", name);
    }
    return f;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: driver_probe LIBRARY < SYMBOLS\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "driver_probe: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    init_fn init = (init_fn)need(lib, "cuInit");
    version_fn version = (version_fn)need(lib, "cuDriverGetVersion");
    error_name_fn error_name = (error_name_fn)need(lib, "cuGetErrorName");
    proc_address_fn proc_address = (proc_address_fn)need(lib, "cuGetProcAddress_v2");
    if (!init || !version || !error_name || !proc_address) {
        return 1;
    }
    CUresult r = init(0);
    const char *name = "?";
    CUresult named = error_name(r, &name);
    printf("cuInit(0) = %d (%s; cuGetErrorName = %d)\n", (int)r, name, (int)named);
    int v = 0;
    r = version(&v);
    printf("cuDriverGetVersion = %d, version %d\n", (int)r, v);
    void *pfn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    r = proc_address("cuMemAlloc", &pfn, DRIVER_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    printf("cuGetProcAddress_v2(cuMemAlloc, %d) = %d, status %d, %s\n", DRIVER_VERSION, (int)r,
           (int)status, pfn ? "a function" : "no function");
    pfn = NULL;
    r = proc_address("cuNoSuchFunction", &pfn, DRIVER_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    printf("cuGetProcAddress_v2(cuNoSuchFunction, %d) = %d, status %d, %s\n", DRIVER_VERSION, (int)r,
           (int)status, pfn ? "a function" : "no function");
    char line[256];
    unsigned found = 0, missing = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) {
            continue;
        }
        if (dlsym(lib, line)) {
            found++;
        } else {
            missing++;
            printf("absent: %s\n", line);
        }
    }
    printf("symbols: %u exported, %u absent\n", found, missing);
    return 0;
}
