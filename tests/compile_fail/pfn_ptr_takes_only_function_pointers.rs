// The examples' `pfn_ptr` (C's `(void*)pfn`) takes only a C function pointer's `Option`: the
// `Option<u32>` that used to be read as a pointer (uninitialised bytes) does not compile.
#[path = "../../examples/common/mod.rs"]
mod common;

fn main() {
    let pfn: cuda_driver_sys::PFN_cuInit = None;
    let _ = common::pfn_ptr(pfn);
    let _ = common::pfn_ptr::<u32>(None);
}
