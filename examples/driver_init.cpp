// C twin of examples/driver_init.rs. Ports 000_c1fa1a8379f4e9c9.txt, section 1.2 (初始化和检查),
// first program: cuInit with its error reported through cuGetErrorString, cuDriverGetVersion,
// cuDeviceGetName. As in the post; only comments shortened.
// CUDA driver header cuda.h
#include <cuda.h>
#include <stdio.h> // for printf
#include <string.h>
int main(){
    /*
    cuInit(int flags): flags must be 0 for now.
        Every other driver API call returns CUDA_ERROR_NOT_INITIALIZED until cuInit succeeded. */
    CUresult code=cuInit(0);  // CUresult: receives the error code
    if(code != CUresult::CUDA_SUCCESS){
        const char* err_message = nullptr;
        cuGetErrorString(code, &err_message);    // the error code's description
        // cuGetErrorName (code, &err_message);  // or its name
        printf("Initialize failed. code = %d, message = %s\n", code, err_message);
        return -1;
    }
    // the CUDA driver version, e.g. 11020 for 11.2
    int driver_version = 0;
    code = cuDriverGetVersion(&driver_version);
    printf("CUDA Driver version is %d\n", driver_version);

    // the current device's name
    char device_name[100]; // char array
    CUdevice device = 0;
    code = cuDeviceGetName(device_name, sizeof(device_name), device);  // e.g. Tesla V100-SXM2-32GB
    printf("Device %d name is %s\n", device, device_name);
    return 0;
}
