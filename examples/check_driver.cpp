// C twin of examples/check_driver.rs. Ports 000_c1fa1a8379f4e9c9.txt, section 1.2 (初始化和检查),
// second program: the checkDriver macro / __check_cuda_driver function (cuGetErrorName,
// cuGetErrorString), then cuInit, cuDriverGetVersion and cuDeviceGetName through it.
// CUDA driver header cuda.h
#include <cuda.h>
#include <stdio.h>
#include <string.h>
// #define <name>(<parameters>) <body>
#define checkDriver(op)  __check_cuda_driver((op), #op, __FILE__, __LINE__)

bool __check_cuda_driver(CUresult code, const char* op, const char* file, int line){
    if(code != CUresult::CUDA_SUCCESS){
        const char* err_name = nullptr;
        const char* err_message = nullptr;
        cuGetErrorName(code, &err_name);
        cuGetErrorString(code, &err_message);
        printf("%s:%d  %s failed. \n  code = %s, message = %s\n", file, line, op, err_name, err_message);
        return false;
    }
    return true;
}

int main(){
    // check the driver's initialisation (calls __check_cuda_driver)
    checkDriver(cuInit(0));

    // the CUDA driver version
    int driver_version = 0;
    if(!checkDriver(cuDriverGetVersion(&driver_version))){
        return -1;
    }
    printf("Driver version is %d\n", driver_version);

    // the current device's name
    char device_name[100] = ""; // guard: the post leaves it uninitialised; when cuDeviceGetName fails (no GPU) it is printed as it is
    CUdevice device = 0;
    checkDriver(cuDeviceGetName(device_name, sizeof(device_name), device));
    printf("Device %d name is %s\n", device, device_name);
    return 0;
}
