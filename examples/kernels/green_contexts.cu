// The kernel of examples/groups/green_contexts.rs and its C twin: each block records the
// streaming multiprocessor it runs on (%smid), so that the program can tell which SMs a green
// context's partition gave its work.
extern "C" __global__ void record_sm(unsigned int *sm_of_block)
{
    unsigned int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (threadIdx.x == 0)
        sm_of_block[blockIdx.x] = sm;
}
