//! The bytes `check_driver!` really writes to standard output, and where `expect_driver!`'s panic
//! is located. Runs without the test harness: the test re-executes itself as a child with
//! `CUDA_CHECK_PRINTED_CHILD=1`, whose standard output is nothing but what the macros print, and
//! compares that output with the expected bytes.
mod runner;

use cuda_check::{check_driver, expect_driver};
use cuda_driver_sys::*;

const CHILD: &str = "CUDA_CHECK_PRINTED_CHILD";

// The lines of the calls in `child`, checked there with `line!()`.
const INIT_LINE: u32 = 22;
const VERSION_LINE: u32 = 27;
const DEVICE_LINE: u32 = 32;
const ALLOC_LINE: u32 = 36;
const UNKNOWN_LINE: u32 = 39;
const EXPECT_LINE: u32 = 47;

fn child() {
    // What C's checkDriver(cuInit(0)) prints with no GPU.
    let ok = check_driver!(unsafe { cuInit(0) });
    assert_eq!(line!() - 1, INIT_LINE);
    println!("returned {ok}");

    let mut version = 0;
    let ok = unsafe { check_driver!(cuDriverGetVersion(&mut version)) };
    assert_eq!(line!() - 1, VERSION_LINE);
    println!("returned {ok}");

    let mut device: CUdevice = 0;
    let ok = unsafe { check_driver!(cuDeviceGet(&mut device, 0)) };
    assert_eq!(line!() - 1, DEVICE_LINE);
    println!("returned {ok}");
    let (mut p, n): (CUdeviceptr, usize) = (0, 100);
    let ok = check_driver!(unsafe { cuMemAlloc(&mut p, n) }, "allocating {n} bytes");
    assert_eq!(line!() - 1, ALLOC_LINE);
    println!("returned {ok}");
    let ok = check_driver!(CUresult(u32::MAX));
    assert_eq!(line!() - 1, UNKNOWN_LINE);
    println!("returned {ok}");

    std::panic::set_hook(Box::new(|info| {
        let at = info.location().unwrap();
        println!("panicked at {}:{}", at.file(), at.line());
    }));
    let r = std::panic::catch_unwind(|| expect_driver!(unsafe { cuInit(0) }));
    assert_eq!(line!() - 1, EXPECT_LINE);
    let message = r.unwrap_err().downcast::<String>().unwrap();
    println!("with message [{message}]");
}

fn expected() -> String {
    let f = file!();
    let no_device = "code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected";
    let not_init = "code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error";
    [
        format!("{f}:{INIT_LINE}  cuInit(0) failed. \n  {no_device}\n"),
        "returned false\n".into(),
        "returned true\n".into(),
        format!("{f}:{DEVICE_LINE}  cuDeviceGet(&mut device, 0) failed. \n  {not_init}\n"),
        "returned false\n".into(),
        format!("{f}:{ALLOC_LINE}  cuMemAlloc(&mut p, n) failed. \n  {not_init}\n"),
        "  context = allocating 100 bytes\n".into(),
        "returned false\n".into(),
        format!(
            "{f}:{UNKNOWN_LINE}  CUresult(u32::MAX) failed. \n  code = <unknown CUresult 4294967295>, \
             message = <no message for CUresult 4294967295>\n"
        ),
        "returned false\n".into(),
        format!("panicked at {f}:{EXPECT_LINE}\n"),
        format!("with message [{f}:{EXPECT_LINE}  cuInit(0) failed. \n  {no_device}]\n"),
    ]
    .concat()
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    print!("test check_driver! output, byte for byte ... ");
    let out = runner::target_command(std::env::current_exe().unwrap())
        .env(CHILD, "1")
        .output()
        .expect("re-running the test binary");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child failed: {}\n{stdout}\n{stderr}",
        out.status
    );
    let expected = expected();
    if stdout != expected {
        eprintln!("--- expected\n{expected}--- got\n{stdout}---\n{expected:?}\n{stdout:?}");
        std::process::exit(1);
    }
    println!("ok ({} bytes)", stdout.len());
}
