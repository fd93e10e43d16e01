// First PTX input (PTXCode0) for examples/ptx_link (001_690d02e65a5330ea.txt, L.2 second example:
// cuLinkCreate / cuLinkAddData / cuLinkComplete over several PTX inputs). The kernel calls
// scale_and_offset(), which is defined only in ptx_link1.cu: the two PTX files must be linked.
// Compiled with -rdc=true (relocatable device code) by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).
extern "C" __device__ float scale_and_offset(float x);

extern "C" __global__ void LinkedKernel(const float* in, float* out, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        out[i] = scale_and_offset(in[i]);
}
