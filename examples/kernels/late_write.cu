// Kernels of examples/groups/ipc and green_contexts, which check that an event orders one
// stream's work after another's (in another process, or another green context): a write that
// comes late, and a copy that reads what it wrote. Compiled to late_write.ptx by
// `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).

// The GPU's global timer, in nanoseconds.
__device__ unsigned long long global_time()
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// Waits `ns` nanoseconds by the global timer (each block's first thread spins, the block waits
// for it), then writes `value` to the `n` words at `words`: only work ordered after this kernel
// is sure to see `value`, work that runs beside it sees what was there before.
extern "C" __global__ void late_fill(unsigned int* words, unsigned int n, unsigned int value,
                                     unsigned long long ns)
{
    if (threadIdx.x == 0) {
        unsigned long long start = global_time();
        while (global_time() - start < ns) {
        }
    }
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        words[i] = value;
}

// Copies the `n` words at `from` to `to`: what a kernel read of them when it ran.
extern "C" __global__ void copy_words(const unsigned int* from, unsigned int* to, unsigned int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        to[i] = from[i];
}
