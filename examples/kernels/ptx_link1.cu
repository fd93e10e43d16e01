// Second PTX input (PTXCode1) for examples/ptx_link (001_690d02e65a5330ea.txt, L.2 second
// example): defines the device function that ptx_link0.cu's kernel calls.
// Compiled with -rdc=true (relocatable device code) by `cargo xtask gen-ptx` (NVRTC 12.0, compute_52).
extern "C" __device__ float scale_and_offset(float x)
{
    return x * 2.0f + 1.0f;
}
