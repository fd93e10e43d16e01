//! An entry point of one symbol cannot be taken as the entry point of another.
use cuda_driver_sys::{entry, EntryPoint, PFN_cuInit_v2000};

fn main() {
    let _init: EntryPoint<PFN_cuInit_v2000> = entry::cuMemAlloc_v3020;
}
