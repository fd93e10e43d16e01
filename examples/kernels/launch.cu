// Kernels of examples/groups/launch.rs and its C twin: a kernel that uses its thread block
// cluster (distributed shared memory), one that needs a cooperative launch, a programmatic
// dependent launch pair that shows their overlap, and kernels for the other launch paths. Hopper
// PTX (compute_90). Every wait is bounded by %globaltimer: a launch that does not do what it
// should fails a check on the host, never hangs. The flags a kernel raises for another are
// cleared by the host to all ones (RAISED is 1), so that a clear that did not happen shows.

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

// The time, in nanoseconds (%globaltimer).
__device__ unsigned long long now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// How long a kernel waits for another: long enough for any launch to start, short enough that a
// wait that cannot end shows as a failed check rather than a hang.
#define WAIT_NS 1000000000ull

// How long a kernel holds back writes that work not ordered after it must not see: far longer
// than the host takes to read them or another stream to start a kernel, so that work that did
// not wait for the kernel certainly sees what was there before.
#define HOLD_NS 100000000ull

// The value of a raised flag.
#define RAISED 1u

// Waits up to WAIT_NS for the word at `flag` to be RAISED; whether it was.
__device__ unsigned int wait_for_flag(volatile unsigned int *flag)
{
    unsigned long long start = now();
    while (*flag != RAISED) {
        if (now() - start > WAIT_NS)
            return 0;
    }
    return 1;
}

// Spins for HOLD_NS.
__device__ void hold()
{
    unsigned long long start = now();
    while (now() - start < HOLD_NS) {
    }
}

// The grid workspace the driver gives a kernel launched cooperatively, as cooperative groups'
// this_grid() reads it (cooperative_groups/details/driver_abi.h): its address in %envreg1 (high
// word) and %envreg2 (low word), null under any other launch (grid_group::is_valid() is false).
// Its second word is the grid barrier's counter.
struct grid_workspace {
    unsigned int size;
    unsigned int barrier;
};

__device__ grid_workspace *this_grid_workspace()
{
    unsigned int high, low;
    asm volatile("mov.u32 %0, %%envreg1;" : "=r"(high));
    asm volatile("mov.u32 %0, %%envreg2;" : "=r"(low));
    return (grid_workspace *)(((unsigned long long)high << 32) | low);
}

// grid_group::sync() on the workspace's barrier (cooperative groups' sync_grids): block 0 adds
// 0x80000000 - (blocks - 1), every other block 1, so the counter's top bit flips when the last
// block arrives; each block waits for the flip, with release and acquire ordering at GPU scope.
// Valid only under a cooperative launch, which makes every block resident at once; the wait ends
// after WAIT_NS regardless, so that a broken barrier fails a check rather than hangs.
__device__ void grid_sync(grid_workspace *workspace)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int *arrived = &workspace->barrier;
        unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        unsigned int old, current;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;"
                     : "=r"(old)
                     : "l"(arrived), "r"(add)
                     : "memory");
        unsigned long long start = now();
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(current) : "l"(arrived) : "memory");
        } while (((old ^ current) & 0x80000000u) == 0 && now() - start <= WAIT_NS);
    }
    __syncthreads();
}

// A grid-wide exchange that needs a cooperative launch: each block writes its slot (index + 1),
// and where the driver gave the grid its workspace, passes the grid barrier and counts the slots
// of the grid that hold what their block wrote. Block b reports whether it found the workspace
// (report[2b]) and the count (report[2b + 1]; 0 without a workspace: no barrier, no reading).
extern "C" __global__ void grid_exchange(unsigned int *slots, unsigned int *report)
{
    __shared__ unsigned int count;
    grid_workspace *workspace = this_grid_workspace();
    if (threadIdx.x == 0) {
        slots[blockIdx.x] = blockIdx.x + 1;
        count = 0;
    }
    if (workspace != 0) {
        grid_sync(workspace);
        unsigned int mine = 0;
        for (unsigned int j = threadIdx.x; j < gridDim.x; j += blockDim.x)
            mine += ((volatile unsigned int *)slots)[j] == j + 1;
        atomicAdd(&count, mine);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        report[2 * blockIdx.x] = workspace != 0;
        report[2 * blockIdx.x + 1] = count;
    }
}

// Programmatic dependent launch. The primary notes whether the flag was raised before it began
// (saw[1]: work that should start only once it began did not wait), lets its dependents start
// (griddepcontrol.launch_dependents, where `trigger` is nonzero), waits up to WAIT_NS for the
// flag the dependent raises before its own wait (saw[0]: whether the dependent began while the
// primary ran), and only HOLD_NS after that writes saw and its data, which the dependent can read
// only by waiting for the primary's end. Without the trigger the dependent starts only once the
// primary has ended.
extern "C" __global__ void pdl_primary(unsigned int *data, volatile unsigned int *flag,
                                       unsigned int *saw, unsigned int trigger)
{
    unsigned int raised_before = 0;
    if (threadIdx.x == 0)
        raised_before = *flag == RAISED;
    if (trigger)
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (threadIdx.x == 0) {
        unsigned int seen = wait_for_flag(flag);
        hold();
        saw[0] = seen;
        saw[1] = raised_before;
    }
    __syncthreads();
    data[threadIdx.x] = threadIdx.x + 1;
}

// The dependent: its preamble raises the flag; then it waits for the primary's completion and
// memory (griddepcontrol.wait) and reads the primary's data.
extern "C" __global__ void pdl_secondary(const unsigned int *data, unsigned int *out,
                                         volatile unsigned int *flag)
{
    if (threadIdx.x == 0) {
        *flag = RAISED;
        __threadfence();
    }
    asm volatile("griddepcontrol.wait;" ::: "memory");
    out[threadIdx.x] = 2 * data[threadIdx.x];
}

// Raises the flag a running kernel waits for (the launch completion event's dependent).
extern "C" __global__ void raise_flag(volatile unsigned int *flag)
{
    *flag = RAISED;
    __threadfence();
}

// out[i] = value + i, for the launches with one attribute each.
extern "C" __global__ void fill(unsigned int *out, unsigned int value)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = value + i;
}

// fill, HOLD_NS late: the kernels behind it in its stream begin that much later.
extern "C" __global__ void slow_fill(unsigned int *out, unsigned int value)
{
    if (threadIdx.x == 0)
        hold();
    __syncthreads();
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = value + i;
}

// The CUDA 3 launch API's kernel: parameters set one by one (cuParamSetv, cuParamSeti,
// cuParamSetf) at their offsets 0, 8 and 12. Its first thread also writes, after the n values,
// the dynamic shared memory the launch gave it (cuFuncSetSharedSize), which it does not use.
extern "C" __global__ void scale(float *out, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * (float)i;
    if (i == 0) {
        unsigned int bytes;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
        out[n] = (float)bytes;
    }
}
