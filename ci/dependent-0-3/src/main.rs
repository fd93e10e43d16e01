//! Queries device attributes by name, starts and stops the profiler, and lays out kernel
//! parameters with the vector types, as a dependent of cuda-driver-sys 0.3.0 writes it. Without a
//! GPU every call fails alike; what it prints is the numbers it passes and the codes it gets.
use cuda_driver_sys::CUdevice_attribute::*;
use cuda_driver_sys::*;

/// A kernel's parameters, with the vector types of `vector_types.h`.
#[repr(C)]
struct Params {
    offset: float2,
    scale: double2,
    phase: cuFloatComplex,
}

fn main() {
    unsafe {
        println!("cuInit: {}", cuInit(0) as u32);
        let mut count = 0;
        println!("cuDeviceGetCount: {}", cuDeviceGetCount(&mut count) as u32);
        for attribute in [
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS,
            CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
            CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR,
        ] {
            let mut value = -1;
            let result = cuDeviceGetAttribute(&mut value, attribute, 0);
            println!("attribute {}: {} (value {value})", attribute as u32, result as u32);
        }
        println!("cuProfilerStart: {}", cuProfilerStart() as u32);
        println!("cuProfilerStop: {}", cuProfilerStop() as u32);
    }
    let p = Params {
        offset: float2 { x: 1.0, y: 2.0 },
        scale: double2 { x: 0.5, y: 0.25 },
        phase: float2 { x: 0.0, y: 1.0 },
    };
    println!(
        "float2: size {}, align {}; double2: size {}, align {}; Params: size {}, align {}",
        std::mem::size_of::<float2>(),
        std::mem::align_of::<float2>(),
        std::mem::size_of::<double2>(),
        std::mem::align_of::<double2>(),
        std::mem::size_of::<Params>(),
        std::mem::align_of::<Params>(),
    );
    println!(
        "params: {} {} {} {} {} {}",
        p.offset.x, p.offset.y, p.scale.x, p.scale.y, p.phase.x, p.phase.y
    );
}
