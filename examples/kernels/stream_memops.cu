// Kernel for examples/groups/stream_memops: copies the 64-bit word a stream memory operation
// wrote before the launch, so the result shows the kernel saw it. Compiled to
// stream_memops.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).
extern "C" __global__ void observe(const unsigned long long* written, unsigned long long* seen)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *seen = *written;
}
