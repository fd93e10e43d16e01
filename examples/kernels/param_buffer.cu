// Kernel for examples/param_buffer (001_690d02e65a5330ea.txt, L.3 Kernel Execution): takes the
// post's six parameters (int, float4, char, float, CUdeviceptr, float2), passed by the host in one
// hand-packed CU_LAUNCH_PARAM_BUFFER_POINTER buffer, and writes back what it received to the
// memory devPtr points to, so that the host can check every value.
// Compiled to param_buffer.ptx by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52; NVRTC knows float4 and
// float2 without includes; CUdeviceptr is the 64-bit integer it is in cuda.h).
typedef unsigned long long CUdeviceptr;

// Plain layout, identical in host and device code (no vector types): 48 bytes.
struct Received {
    int i;                // offset 0
    float f4[4];          // offset 4
    int c;                // offset 20 (the char, widened)
    float f;              // offset 24
    CUdeviceptr devPtr;   // offset 32
    float f2[2];          // offset 40
};

extern "C" __global__ void ParamKernel(int i, float4 f4, char c, float f, CUdeviceptr devPtr, float2 f2)
{
    Received* out = (Received*)devPtr;
    out->i = i;
    out->f4[0] = f4.x;
    out->f4[1] = f4.y;
    out->f4[2] = f4.z;
    out->f4[3] = f4.w;
    out->c = c;
    out->f = f;
    out->devPtr = devPtr;
    out->f2[0] = f2.x;
    out->f2[1] = f2.y;
}
