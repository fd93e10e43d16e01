//! The function `get` returns has the typedef's exact type: `cuMemAlloc`'s pointer is no `cuInit`.
use cuda_driver_sys::{entry, PFN_cuInit_v2000};

fn main() {
    let _init: PFN_cuInit_v2000 = entry::cuMemAlloc_v3020.get().ok();
}
