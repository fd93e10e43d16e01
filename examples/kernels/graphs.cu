// The kernels of examples/groups/graph_conditional.rs and graph_nodes.rs (and their C twins).
// cudaGraphSetConditional, the device runtime's call that sets a conditional node's value, is
// resolved by the driver when it loads the PTX (the pinned ptxas, 12.0, predates it: it checks
// this PTX with --compile-only).
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);

// The condition of an IF node: whether *value is nonzero.
extern "C" __global__ void set_if(cudaGraphConditionalHandle handle, const int *value)
{
    cudaGraphSetConditional(handle, *value != 0);
}

// The condition of a SWITCH node: *value.
extern "C" __global__ void set_switch(cudaGraphConditionalHandle handle, const int *value)
{
    cudaGraphSetConditional(handle, (unsigned int)*value);
}

// The body of a WHILE loop: counts one iteration down and goes on while any are left.
extern "C" __global__ void loop_step(cudaGraphConditionalHandle handle, int *count, int *iterations)
{
    *count -= 1;
    *iterations += 1;
    cudaGraphSetConditional(handle, *count > 0);
}

// *out = value.
extern "C" __global__ void write_value(int *out, int value)
{
    *out = value;
}

// out[i] += value for i < n, one thread per element.
extern "C" __global__ void add_value(int *out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] += value;
}
