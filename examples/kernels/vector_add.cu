// Kernel for examples/vector_add (001_690d02e65a5330ea.txt, the driver-API host program of
// appendix L): the VecAdd kernel the post loads by name, as in the CUDA Programming Guide.
// Compiled to vector_add.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).
extern "C" __global__ void VecAdd(const float* A, const float* B, float* C, int N)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < N)
        C[i] = A[i] + B[i];
}
