// Kernel for examples/groups/peer: reads another GPU's memory through peer access, adding one to
// each element. Compiled to peer.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).
extern "C" __global__ void add_one(const int* peer, int* out, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        out[i] = peer[i] + 1;
}
