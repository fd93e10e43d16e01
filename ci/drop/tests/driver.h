/* The driver functions the dropper's tests call (xtask's gpu::bundle::dropper): the fake driver
 * (fake_driver.c) defines them, the test program (calls.c) calls them. Their signatures are
 * cuda.h's, their types reduced to what the calling convention sees; the one passing a large
 * structure by value stands in for cuEGLStreamProducerPresentFrame's CUeglFrame. */
#ifndef DROP_TEST_DRIVER_H
#define DROP_TEST_DRIVER_H

#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

/* CUmemLocation: 8 bytes, passed in one register. */
typedef struct {
    int type;
    int id;
} Location;

/* Larger than 16 bytes: passed in memory, on the stack. */
typedef struct {
    unsigned long long words[6];
} Frame;

/* What the fake driver answers every call but cuDriverGetVersion and cuGetProcAddress*: a result
 * no dropped call gives. */
#define FAKE_RESULT 999

/* The version cuDriverGetVersion reports. */
#define FAKE_VERSION 12345

/* The ABI version the test program asks cuGetProcAddress for (the fake driver ignores it). */
#define ASKED_VERSION 3020

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuLaunchKernel(void *f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int shared_bytes, void *stream, void **params, void **extra);
CUresult cuParamSetf(void *f, int offset, float value);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr dptr, size_t bytes, Location location,
                               unsigned int flags, void *stream);
CUresult cuEGLStreamProducerPresentFrame(void *connection, Frame frame, void *stream);
CUresult cuGetProcAddress(const char *symbol, void **function, int version,
                          unsigned long long flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **function, int version,
                             unsigned long long flags, int *status);

#endif
