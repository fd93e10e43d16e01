//! Under `compat-0-3`, an enumerator whose value differs from the one cuda-driver-sys 0.3 gave the
//! same name is deprecated, and the note says what to write; denied here, so the build fails.
#![deny(deprecated)]
use cuda_driver_sys::CUdevice_attribute;

fn main() {
    let _renumbered = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS;
    // The name that keeps 0.3's value is not deprecated.
    let _kept = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1;
}
