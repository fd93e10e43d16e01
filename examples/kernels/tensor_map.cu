// The kernel of examples/groups/tensor_map.rs and its C twin: one thread per block moves a
// 16 x 16 tile of floats with the tensor memory accelerator, from the tensor `in` into shared
// memory (cp.async.bulk.tensor, completing on an mbarrier) and from there into the tensor `out`.
// Hopper PTX (compute_90). The tensor maps are kernel parameters (__grid_constant__), as
// cuTensorMapEncodeTiled wrote them: 128 bytes, 64-byte aligned.

struct __align__(64) TensorMap {
    unsigned long long opaque[16];
};

extern "C" __global__ void copy_tile(const __grid_constant__ TensorMap in, const __grid_constant__ TensorMap out)
{
    __shared__ __align__(128) float tile[16 * 16];
    __shared__ __align__(8) unsigned long long barrier;
    if (threadIdx.x != 0)
        return;
    unsigned int tile_at = (unsigned int)__cvta_generic_to_shared(tile);
    unsigned int barrier_at = (unsigned int)__cvta_generic_to_shared(&barrier);
    int x = blockIdx.x * 16, y = blockIdx.y * 16;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(barrier_at) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 : : "r"(barrier_at), "r"(16 * 16 * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 : : "r"(tile_at), "l"(&in), "r"(x), "r"(y), "r"(barrier_at) : "memory");
    asm volatile("{\n\t.reg .pred done;\n"
                 "wait:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
                 "@!done bra wait;\n}"
                 : : "r"(barrier_at) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" : : : "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 : : "l"(&out), "r"(x), "r"(y), "r"(tile_at) : "memory");
    asm volatile("cp.async.bulk.commit_group;" : : : "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" : : : "memory");
}
