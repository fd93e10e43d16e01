// Kernel for examples/ptx_jit (001_690d02e65a5330ea.txt, L.2 first example: cuModuleLoadDataEx
// with JIT options). The post points to the ptxjit CUDA sample; this is that sample's kernel.
// Compiled to ptx_jit.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52). The example also loads
// ptx_jit_broken.ptx, a hand-written PTX with a deliberate error (see that file).
extern "C" __global__ void myKernel(int* data)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = tid;
}
