//! Pairing a symbol with a pointer type is the caller's promise: `EntryPoint::new` is unsafe.
use cuda_driver_sys::{EntryPoint, PFN_cuInit_v2000};

fn main() {
    let _forged: EntryPoint<PFN_cuInit_v2000> = EntryPoint::new(c"cuMemAlloc", 3020);
}
