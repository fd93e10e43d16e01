// The kernels of examples/groups/library.rs and its C twin, loaded as a library and as modules:
// a device global and a managed variable the program reads and writes through the driver, and two
// kernels that use them.
extern "C" __device__ int device_value = 42;
extern "C" __managed__ int managed_value = 7;

// out[0] = device_value + managed_value + k.
extern "C" __global__ void add_values(int *out, int k)
{
    out[0] = device_value + managed_value + k;
}

// Doubles the managed variable.
extern "C" __global__ void double_managed()
{
    managed_value *= 2;
}
