// Kernels for examples/groups/textures: one samples a texture object at each texel's centre, one
// writes each texel of a surface object. Compiled to textures.ptx by `cargo xtask gen-ptx`
// (NVRTC 12.0, compute_52).
extern "C" __global__ void sample(cudaTextureObject_t texture, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}

extern "C" __global__ void paint(cudaSurfaceObject_t surface, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        surf2Dwrite(2.0f * (x + 100 * y), surface, x * (int)sizeof(float), y);
}
