//! The crate against the real driver library (Debian's 535 in CI, no GPU).
use cuda_driver_sys::*;

#[test]
fn driver_version_is_the_librarys() {
    let mut v = 0;
    let code = unsafe { cuDriverGetVersion(&mut v) };
    assert_eq!(code, CUDA_SUCCESS);
    assert!(v >= 12000, "driver version {v}");
    println!("cuDriverGetVersion: {v}");
}
