//! `CUresult` is `#[must_use]`: a result thrown away is an error under `deny(unused_must_use)`.
#![deny(unused_must_use)]

fn main() {
    unsafe {
        cuda_driver_sys::cuInit(0);
    }
}
