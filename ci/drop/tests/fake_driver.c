/* A fake driver library (SONAME libcuda.so.1) for the dropper's tests: each function of driver.h
 * appends one line to the file FAKE_DRIVER_LOG names, with every argument it was given, and
 * answers FAKE_RESULT; its cuGetProcAddress hands out its own functions by their names in
 * cuda.h (`cuMemcpyHtoD` for cuMemcpyHtoD_v2), as the real driver's does. Linked with
 * -Bsymbolic, as the real driver is, so that its own references to its functions stay its own
 * where the dropper, loaded first, exports the same names. */
#include "driver.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends the line `format`, as printf's, to the log: one write, so that processes sharing the
 * log never interleave within a line. */
__attribute__((format(printf, 1, 2))) static void called(const char *format, ...) {
    char line[512];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(line, sizeof line - 1, format, arguments);
    va_end(arguments);
    if (length < 0 || length >= (int)sizeof line - 1) length = (int)sizeof line - 2;
    line[length++] = '\n';
    const char *path = getenv("FAKE_DRIVER_LOG");
    int log = path != NULL ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (log < 0 || write(log, line, (size_t)length) != length) {
        fprintf(stderr, "fake driver: cannot log to FAKE_DRIVER_LOG (%s)\n", path ? path : "unset");
        abort();
    }
    close(log);
}

CUresult cuInit(unsigned int flags) {
    called("cuInit %u", flags);
    return FAKE_RESULT;
}

CUresult cuDriverGetVersion(int *version) {
    called("cuDriverGetVersion");
    *version = FAKE_VERSION;
    return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
    called("cuMemcpyHtoD_v2 %#llx %s %zu", dst, (const char *)src, bytes);
    return FAKE_RESULT;
}

CUresult cuLaunchKernel(void *f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int shared_bytes, void *stream, void **params, void **extra) {
    called("cuLaunchKernel %p %u %u %u %u %u %u %u %p %p %p", f, grid_x, grid_y, grid_z, block_x,
           block_y, block_z, shared_bytes, stream, (void *)params, (void *)extra);
    return FAKE_RESULT;
}

CUresult cuParamSetf(void *f, int offset, float value) {
    called("cuParamSetf %p %d %.9g", f, offset, value);
    return FAKE_RESULT;
}

CUresult cuMemPrefetchAsync_v2(CUdeviceptr dptr, size_t bytes, Location location,
                               unsigned int flags, void *stream) {
    called("cuMemPrefetchAsync_v2 %#llx %zu {%d %d} %u %p", dptr, bytes, location.type,
           location.id, flags, stream);
    return FAKE_RESULT;
}

CUresult cuEGLStreamProducerPresentFrame(void *connection, Frame frame, void *stream) {
    called("cuEGLStreamProducerPresentFrame %p {%llu %llu %llu %llu %llu %llu} %p", connection,
           frame.words[0], frame.words[1], frame.words[2], frame.words[3], frame.words[4],
           frame.words[5], stream);
    return FAKE_RESULT;
}

static const struct {
    const char *name;
    void *function;
} functions[] = {
    {"cuInit", (void *)cuInit},
    {"cuDriverGetVersion", (void *)cuDriverGetVersion},
    {"cuMemcpyHtoD", (void *)cuMemcpyHtoD_v2},
    {"cuLaunchKernel", (void *)cuLaunchKernel},
    {"cuParamSetf", (void *)cuParamSetf},
    {"cuMemPrefetchAsync", (void *)cuMemPrefetchAsync_v2},
    {"cuEGLStreamProducerPresentFrame", (void *)cuEGLStreamProducerPresentFrame},
    {"cuGetProcAddress", (void *)cuGetProcAddress},
};

/* The function named `symbol` in `*function`: 0, or 500 (CUDA_ERROR_NOT_FOUND) and NULL. */
static CUresult look_up(const char *symbol, void **function) {
    *function = NULL;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcmp(symbol, functions[i].name) == 0) *function = functions[i].function;
    return *function != NULL ? 0 : 500;
}

CUresult cuGetProcAddress(const char *symbol, void **function, int version,
                          unsigned long long flags) {
    called("cuGetProcAddress %s %d %llu", symbol, version, flags);
    return look_up(symbol, function);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **function, int version,
                             unsigned long long flags, int *status) {
    called("cuGetProcAddress_v2 %s %d %llu", symbol, version, flags);
    CUresult result = look_up(symbol, function);
    *status = result == 0 ? 0 : 1;
    return result;
}
