// Kernel for examples/context_independent_loading (004_3d21536251275226.txt, CUDA 12.0
// context-independent loading): the post's "myModule" with its kernel myKernel, and a
// __managed__ variable for cuLibraryGetManaged (section on accessing __managed__ variables).
// Compiled to context_independent_loading.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).

// Counts launches of myKernel; one instance per loaded module (cuModuleLoad), and one instance
// shared by every context and device for a library (cuLibraryLoadFromFile).
__managed__ int launch_count;

extern "C" __global__ void myKernel(int* data, int n, int value)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        data[i] = value + i;
    if (i == 0)
        atomicAdd(&launch_count, 1);
}
