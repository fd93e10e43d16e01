// Kernels of examples/groups/launch.rs and its C twin: a kernel that uses its thread block
// cluster (distributed shared memory), one that needs a cooperative launch, a programmatic
// dependent launch pair, and kernels for the other launch paths. Hopper PTX (compute_90).

// Each block stores its index in its shared memory; after a cluster barrier it reads the shared
// memory of the next block of its cluster (mapa + ld.shared::cluster) and records its rank, the
// cluster's size and what it read.
extern "C" __global__ void cluster_ranks(unsigned int *out)
{
    __shared__ unsigned int mine;
    unsigned int rank, size, local, remote, seen;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0)
        mine = blockIdx.x;
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    local = (unsigned int)__cvta_generic_to_shared(&mine);
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"((rank + 1) % size));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(seen) : "r"(remote) : "memory");
    // No block leaves while another may still read its shared memory.
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = rank;
        out[3 * blockIdx.x + 1] = size;
        out[3 * blockIdx.x + 2] = seen;
    }
}

// A grid-wide barrier made of an atomic counter: it ends only if every block is resident at
// once, which a cooperative launch guarantees. Each block records the count it saw.
extern "C" __global__ void grid_barrier(unsigned int *counter, unsigned int *out)
{
    if (threadIdx.x == 0) {
        atomicAdd(counter, 1u);
        while (atomicAdd(counter, 0u) < gridDim.x) {
        }
        out[blockIdx.x] = atomicAdd(counter, 0u);
    }
}

// Programmatic dependent launch: the primary writes, then lets its dependent start; the
// secondary waits for the primary's memory before it reads.
extern "C" __global__ void pdl_primary(unsigned int *data)
{
    data[threadIdx.x] = threadIdx.x + 1;
    __threadfence();
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

extern "C" __global__ void pdl_secondary(const unsigned int *data, unsigned int *out)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    out[threadIdx.x] = 2 * data[threadIdx.x];
}

// out[i] = value + i, for the launches with one attribute each.
extern "C" __global__ void fill(unsigned int *out, unsigned int value)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = value + i;
}

// The CUDA 3 launch API's kernel: parameters set one by one (cuParamSetv, cuParamSeti,
// cuParamSetf) at their offsets 0, 8 and 12.
extern "C" __global__ void scale(float *out, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * (float)i;
}
