// The kernels of examples/groups/tensor_map.rs and its C twin, which move data with the tensor
// memory accelerator (cp.async.bulk.tensor, completing on an mbarrier): one moves a 16 x 16 tile
// of floats through shared memory with a tiled map, the other loads im2col columns with an
// im2col map. Hopper PTX (compute_90). The tensor maps are kernel parameters
// (__grid_constant__), as cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col wrote them: 128
// bytes, 64-byte aligned. Every wait on an mbarrier gives up after about a second, so that a load
// that never completes leaves its output unwritten (which the program's check reports) rather
// than hanging.

struct __align__(64) TensorMap {
    unsigned long long opaque[16];
};

// Waits, for about a second at most (%globaltimer), for phase 0 of the mbarrier at `barrier_at`
// (a shared-memory address) to complete; whether it did.
__device__ bool wait_phase0(unsigned int barrier_at)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        unsigned int done;
        asm volatile("{\n\t.reg .pred done;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 done, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, done;\n}"
                     : "=r"(done) : "r"(barrier_at) : "memory");
        if (done)
            return true;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > 1000000000)
            return false;
    }
}

// Makes the mbarrier at `barrier_at` expect `bytes` from the tensor memory accelerator, for one
// arrival (the calling thread's).
__device__ void expect_bytes(unsigned int barrier_at, unsigned int bytes)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(barrier_at) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 : : "r"(barrier_at), "r"(bytes) : "memory");
}

// One thread per block moves the 16 x 16 tile (blockIdx.x, blockIdx.y) of the tensor `in` into
// shared memory and from there into the tensor `out`.
extern "C" __global__ void copy_tile(const __grid_constant__ TensorMap in, const __grid_constant__ TensorMap out)
{
    __shared__ __align__(128) float tile[16 * 16];
    __shared__ __align__(8) unsigned long long barrier;
    if (threadIdx.x != 0)
        return;
    unsigned int tile_at = (unsigned int)__cvta_generic_to_shared(tile);
    unsigned int barrier_at = (unsigned int)__cvta_generic_to_shared(&barrier);
    int x = blockIdx.x * 16, y = blockIdx.y * 16;
    expect_bytes(barrier_at, 16 * 16 * 4);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 : : "r"(tile_at), "l"(&in), "r"(x), "r"(y), "r"(barrier_at) : "memory");
    if (!wait_phase0(barrier_at))
        return;
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 : : "l"(&out), "r"(x), "r"(y), "r"(tile_at) : "memory");
    asm volatile("cp.async.bulk.commit_group;" : : : "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" : : : "memory");
}

// The im2col map `image` describes an NHWC tensor of floats (dimensions {C, W, H, N}) in columns
// of 64 pixels of 16 channels. Block (x, y) loads one column from the tensor coordinates
// {c, w, h, n} = {0, -1, -1, 0} with the im2col offsets {w, h} = {offset_w + x, offset_h + y}
// (cp.async.bulk.tensor.4d ... .im2col) and stores its 64 x 16 floats at
// columns[(3 * y + x) * 1024]. With a map whose pixel box has the corners {-1, -1} and {-1, -1},
// offsets of 0 and a 3 x 3 grid, that is the im2col of an 8 x 8 image for a 3 x 3 convolution
// with padding 1: block (s, r) holds filter tap (r, s), each of its rows one output pixel.
extern "C" __global__ void im2col_columns(const __grid_constant__ TensorMap image, float* columns, int offset_w,
                                          int offset_h)
{
    __shared__ __align__(128) float column[64 * 16];
    __shared__ __align__(8) unsigned long long barrier;
    unsigned int column_at = (unsigned int)__cvta_generic_to_shared(column);
    unsigned int barrier_at = (unsigned int)__cvta_generic_to_shared(&barrier);
    if (threadIdx.x == 0) {
        unsigned short w = (unsigned short)(offset_w + blockIdx.x);
        unsigned short h = (unsigned short)(offset_h + blockIdx.y);
        expect_bytes(barrier_at, 64 * 16 * 4);
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                     : : "r"(column_at), "l"(&image), "r"(0), "r"(-1), "r"(-1), "r"(0), "r"(barrier_at),
                       "h"(w), "h"(h)
                     : "memory");
    }
    __syncthreads();
    if (!wait_phase0(barrier_at))
        return;
    float* out = columns + (3 * blockIdx.y + blockIdx.x) * 64 * 16;
    for (unsigned int i = threadIdx.x; i < 64 * 16; i += blockDim.x)
        out[i] = column[i];
}
