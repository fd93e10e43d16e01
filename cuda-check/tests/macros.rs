//! The macros against the real driver library with no GPU: `cuInit(0)` fails with
//! `CUDA_ERROR_NO_DEVICE` (every time it is called), calls after it fail with
//! `CUDA_ERROR_NOT_INITIALIZED`, `cuDriverGetVersion` succeeds.
use std::cell::Cell;
use std::panic;

use cuda_check::{check_driver, error_name, error_string, expect_driver, try_driver, DriverError};
use cuda_driver_sys::*;

const NO_DEVICE: &str = "code = CUDA_ERROR_NO_DEVICE, message = no CUDA-capable device is detected";
const NOT_INITIALIZED: &str = "code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error";

fn report(line: u32, op: &str, rest: &str) -> String {
    format!("{}:{line}  {op} failed. \n  {rest}", file!())
}

#[test]
fn failing_cuinit_reports_no_device_at_the_call() {
    let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    let line = line!() - 1;
    assert_eq!(err.to_string(), report(line, "cuInit(0)", NO_DEVICE));
    assert_eq!(err.code(), CUDA_ERROR_NO_DEVICE);
    assert_eq!(
        (err.file(), err.line(), err.expr()),
        (file!(), line, "cuInit(0)")
    );
    assert_eq!(err.name(), Some(c"CUDA_ERROR_NO_DEVICE"));
    assert_eq!(err.message(), Some(c"no CUDA-capable device is detected"));
    assert_eq!(err.context(), None);
}

#[test]
fn calls_after_failed_init_report_not_initialized() {
    let _ = unsafe { cuInit(0) };
    let mut device: CUdevice = 0;
    let err = try_driver!(unsafe { cuDeviceGet(&mut device, 0) }).unwrap_err();
    let line = line!() - 1;
    assert_eq!(err.code(), CUDA_ERROR_NOT_INITIALIZED);
    assert_eq!(
        err.to_string(),
        report(line, "cuDeviceGet(&mut device, 0)", NOT_INITIALIZED)
    );
    let mut count = 0;
    assert!(!check_driver!(unsafe { cuDeviceGetCount(&mut count) }));
}

#[test]
fn check_driver_returns_true_on_success_and_false_on_failure() {
    let mut version = 0;
    assert!(check_driver!(unsafe { cuDriverGetVersion(&mut version) }));
    assert!(version >= 12000, "{version}");
    assert!(!check_driver!(unsafe { cuInit(0) }));
    assert!(check_driver!(CUDA_SUCCESS));
    assert!(!check_driver!(CUDA_ERROR_UNKNOWN));
    // The C port's shape.
    let port = || -> i32 {
        let mut v = 0;
        if !check_driver!(unsafe { cuDriverGetVersion(&mut v) }) {
            return -1;
        }
        if !check_driver!(unsafe { cuInit(0) }) {
            return -2;
        }
        0
    };
    assert_eq!(port(), -2);
}

/// A `CUresult` with a side effect, counting evaluations.
fn counted(calls: &Cell<u32>, code: CUresult) -> CUresult {
    calls.set(calls.get() + 1);
    code
}

#[test]
fn expression_is_evaluated_exactly_once() {
    for code in [CUDA_SUCCESS, CUDA_ERROR_NO_DEVICE, CUresult(987_654)] {
        let calls = Cell::new(0);
        let ok = check_driver!(counted(&calls, code));
        assert_eq!((ok, calls.get()), (code == CUDA_SUCCESS, 1));

        let calls = Cell::new(0);
        let ok = check_driver!(counted(&calls, code), "ctx");
        assert_eq!((ok, calls.get()), (code == CUDA_SUCCESS, 1));

        let calls = Cell::new(0);
        let r = try_driver!(counted(&calls, code));
        assert_eq!((r.is_ok(), calls.get()), (code == CUDA_SUCCESS, 1));

        let calls = Cell::new(0);
        let r = try_driver!(counted(&calls, code), "ctx {}", 1);
        assert_eq!((r.is_ok(), calls.get()), (code == CUDA_SUCCESS, 1));

        let calls = Cell::new(0);
        let r = panic::catch_unwind(panic::AssertUnwindSafe(|| {
            expect_driver!(counted(&calls, code))
        }));
        assert_eq!((r.is_ok(), calls.get()), (code == CUDA_SUCCESS, 1));

        // Through a driver call, in the two-token form.
        let calls = Cell::new(0);
        let mut v = 0;
        let ok = check_driver!(unsafe {
            calls.set(calls.get() + 1);
            cuDriverGetVersion(&mut v)
        });
        assert_eq!((ok, calls.get()), (true, 1));
    }
}

#[test]
fn context_is_formatted_only_on_failure() {
    let formatted = Cell::new(0);
    let tick = |n: usize| {
        formatted.set(formatted.get() + 1);
        n
    };
    let mut v = 0;
    assert!(check_driver!(
        unsafe { cuDriverGetVersion(&mut v) },
        "n = {}",
        tick(1)
    ));
    assert!(try_driver!(unsafe { cuDriverGetVersion(&mut v) }, "n = {}", tick(2)).is_ok());
    expect_driver!(unsafe { cuDriverGetVersion(&mut v) }, "n = {}", tick(3));
    assert_eq!(formatted.get(), 0);
    assert!(!check_driver!(CUDA_ERROR_INVALID_VALUE, "n = {}", tick(4)));
    assert!(try_driver!(CUDA_ERROR_INVALID_VALUE, "n = {}", tick(5)).is_err());
    assert_eq!(formatted.get(), 2);
}

#[test]
fn try_driver_works_with_question_mark() {
    fn version() -> Result<i32, DriverError> {
        let mut v = 0;
        try_driver!(unsafe { cuDriverGetVersion(&mut v) })?;
        Ok(v)
    }
    fn init_then_device() -> Result<CUdevice, DriverError> {
        let mut device = 0;
        unsafe {
            try_driver!(cuInit(0))?;
            try_driver!(cuDeviceGet(&mut device, 0), "device {}", 0)?;
        }
        Ok(device)
    }
    fn boxed() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        try_driver!(unsafe { cuInit(0) })?;
        Ok(())
    }
    assert!(version().unwrap() >= 12000);
    let err = init_then_device().unwrap_err();
    assert_eq!(
        (err.code(), err.expr()),
        (CUDA_ERROR_NO_DEVICE, "cuInit(0)")
    );
    let err = boxed().unwrap_err();
    assert!(err
        .to_string()
        .ends_with(&format!("cuInit(0) failed. \n  {NO_DEVICE}")));
    assert!(err.downcast_ref::<DriverError>().is_some());
}

#[test]
fn expect_driver_panics_with_the_report() {
    let mut v = 0;
    expect_driver!(unsafe { cuDriverGetVersion(&mut v) });
    let payload = panic::catch_unwind(|| expect_driver!(unsafe { cuInit(0) })).unwrap_err();
    let line = line!() - 1;
    let message = payload.downcast::<String>().unwrap();
    assert_eq!(*message, report(line, "cuInit(0)", NO_DEVICE));

    let n = 100usize;
    let payload = panic::catch_unwind(|| {
        let mut p: CUdeviceptr = 0;
        expect_driver!(unsafe { cuMemAlloc(&mut p, n) }, "allocating {n} bytes")
    })
    .unwrap_err();
    let line = line!() - 3;
    let message = payload.downcast::<String>().unwrap();
    let expected = report(line, "cuMemAlloc(&mut p, n)", NOT_INITIALIZED)
        + "\n  context = allocating 100 bytes";
    assert_eq!(*message, expected);
}

#[test]
fn context_in_every_form() {
    let n = 100usize;
    let mut p: CUdeviceptr = 0;
    let err = try_driver!(unsafe { cuMemAlloc(&mut p, n) }, "allocating {n} bytes").unwrap_err();
    let line = line!() - 1;
    assert_eq!(err.context(), Some("allocating 100 bytes"));
    assert_eq!(
        err.to_string(),
        report(line, "cuMemAlloc(&mut p, n)", NOT_INITIALIZED)
            + "\n  context = allocating 100 bytes"
    );
    // Positional arguments and a trailing comma.
    let err = try_driver!(CUDA_ERROR_OUT_OF_MEMORY, "{} x {}", 3, "four",).unwrap_err();
    assert_eq!(err.context(), Some("3 x four"));
    assert!(err.to_string().ends_with(
        "CUDA_ERROR_OUT_OF_MEMORY failed. \n  code = CUDA_ERROR_OUT_OF_MEMORY, message = out of memory\n  context = 3 x four"
    ));
    assert!(!check_driver!(CUDA_ERROR_OUT_OF_MEMORY, "{n}"));
    let err = DriverError::new(CUDA_ERROR_NO_DEVICE, "x", "f.rs", 1).with_context("c");
    assert_eq!(
        err.to_string(),
        format!("f.rs:1  x failed. \n  {NO_DEVICE}\n  context = c")
    );
}

#[test]
fn expression_text_is_the_source_text() {
    /// The CUDA 12 `cuCtxCreate` (the 13.0 header's takes 4 arguments); the text is under test.
    #[allow(non_snake_case)]
    unsafe fn cuCtxCreate(_: *mut CUcontext, _: std::ffi::c_uint, _: CUdevice) -> CUresult {
        CUDA_ERROR_NOT_INITIALIZED
    }
    let mut ctx: CUcontext = std::ptr::null_mut();
    let device: CUdevice = 0;
    let inside = try_driver!(unsafe { cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, device) });
    let outside = unsafe { try_driver!(cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, device)) };
    let text = "cuCtxCreate(&mut ctx, CU_CTX_SCHED_AUTO.0, device)";
    assert_eq!(inside.unwrap_err().expr(), text);
    assert_eq!(outside.unwrap_err().expr(), text);

    assert_eq!(
        unsafe { try_driver!(cuInit(0)) }.unwrap_err().expr(),
        "cuInit(0)"
    );
    assert_eq!(
        unsafe { try_driver!(cuda_driver_sys::cuInit(0)) }
            .unwrap_err()
            .expr(),
        "cuda_driver_sys::cuInit(0)"
    );
    assert_eq!(
        try_driver!(unsafe { cuInit(0) }, "c").unwrap_err().expr(),
        "cuInit(0)"
    );
    let code = CUresult(7);
    assert_eq!(try_driver!(code).unwrap_err().expr(), "code");
    assert_eq!(try_driver!(CUresult(7)).unwrap_err().expr(), "CUresult(7)");
    // Not a whole-expression unsafe block: the text as written.
    let e = try_driver!(std::convert::identity(unsafe { cuInit(0) })).unwrap_err();
    assert_eq!(e.expr(), "std::convert::identity(unsafe { cuInit(0) })");
    // Statements in the block: the block's inside.
    let e = try_driver!(unsafe {
        let flags = 0;
        cuInit(flags)
    })
    .unwrap_err();
    assert_eq!(e.expr(), "let flags = 0; cuInit(flags)");

    // stringify! wraps long expressions, and keeps rustfmt's trailing comma; the report has them
    // on one line, without it, like C's `#op`.
    let (grid_x, grid_y, grid_z, block_x, block_y, block_z) = (1u32, 1u32, 1u32, 32u32, 1u32, 1u32);
    let function_handle: CUfunction = std::ptr::null_mut();
    let shared_mem_bytes = 0;
    let stream: CUstream = std::ptr::null_mut();
    let mut kernel_params: [*mut std::ffi::c_void; 0] = [];
    let e = try_driver!(unsafe {
        cuLaunchKernel(
            function_handle,
            grid_x,
            grid_y,
            grid_z,
            block_x,
            block_y,
            block_z,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    })
    .unwrap_err();
    assert_eq!(
        e.expr(),
        "cuLaunchKernel(function_handle, grid_x, grid_y, grid_z, block_x, block_y, block_z, \
         shared_mem_bytes, stream, kernel_params.as_mut_ptr(), std::ptr::null_mut())"
    );
    // rustfmt's layout of a call too long for one line: one argument a line, trailing comma.
    let mut device_name = [0 as std::ffi::c_char; 100];
    let e = try_driver!(unsafe {
        cuDeviceGetName(
            device_name.as_mut_ptr(),
            size_of_val(&device_name) as std::ffi::c_int,
            device,
        )
    })
    .unwrap_err();
    assert_eq!(
        e.expr(),
        "cuDeviceGetName(device_name.as_mut_ptr(), size_of_val(&device_name) as std::ffi::c_int, device)"
    );
    // A one-element tuple keeps its comma; literals are left alone.
    let pick = |(code,): (CUresult,), _: &str| code;
    let e = try_driver!(pick((CUDA_ERROR_UNKNOWN,), "a,)\n",)).unwrap_err();
    assert_eq!(e.expr(), r#"pick((CUDA_ERROR_UNKNOWN,), "a,)\n")"#);
    assert!(!e.to_string().lines().next().unwrap().contains('\n'));
    assert_eq!(e.to_string().lines().count(), 2);
}

#[test]
fn macro_locals_do_not_capture_the_callers_names() {
    // The expansion's own `code` must not shadow the caller's.
    let code = CUDA_ERROR_INVALID_HANDLE;
    let err = try_driver!(code).unwrap_err();
    assert_eq!(err.code(), CUDA_ERROR_INVALID_HANDLE);
    assert!(!check_driver!(code, "{code:?}"));
}

#[test]
fn debug_is_useful_in_a_panic() {
    let err = try_driver!(unsafe { cuInit(0) }).unwrap_err();
    let line = line!() - 1;
    assert_eq!(
        format!("{err:?}"),
        format!(
            "DriverError {{ code: CUDA_ERROR_NO_DEVICE (100), message: \"no CUDA-capable device is detected\", \
             expr: \"cuInit(0)\", at: \"{}:{line}\", context: None }}",
            file!()
        )
    );
    let err = try_driver!(CUresult(u32::MAX), "ctx").unwrap_err();
    assert!(format!("{err:?}").starts_with(
        "DriverError { code: <unknown CUresult 4294967295>, message: <no message for CUresult 4294967295>, expr: \"CUresult(u32::MAX)\""
    ));
    assert!(format!("{err:?}").ends_with("context: Some(\"ctx\") }"));
    // `unwrap` shows it.
    let payload = panic::catch_unwind(|| try_driver!(CUresult(100)).unwrap()).unwrap_err();
    let message = payload.downcast::<String>().unwrap();
    assert!(
        message.contains("DriverError { code: CUDA_ERROR_NO_DEVICE (100)"),
        "{message}"
    );
}

#[test]
fn errors_compare_and_clone() {
    let a = DriverError::new(CUDA_ERROR_NO_DEVICE, "x", "f.rs", 1);
    assert_eq!(a.clone(), a);
    assert_ne!(a.clone().with_context("c"), a);
    fn assert_traits<T: std::error::Error + Send + Sync + Clone + 'static>() {}
    assert_traits::<DriverError>();
}

#[test]
fn unknown_codes_never_panic_and_say_so_with_the_value() {
    // 1 000 .. 2 200 holds no driver code; plus spread values, the top of the range and u32::MAX.
    let mut codes: Vec<u32> = (1_000..2_200).collect();
    codes.extend((0..200u32).map(|i| i.wrapping_mul(2_654_435_761) | 0x1_0000));
    codes.extend([
        u32::MAX,
        u32::MAX - 1,
        i32::MAX as u32,
        i32::MIN as u32,
        0x8000_0001,
        1_000_000,
        12345,
    ]);
    codes.sort_unstable();
    codes.dedup();
    let mut unknown = 0;
    for &value in &codes {
        let code = CUresult(value);
        if error_name(code).is_some() {
            continue; // a newer driver may know some of these
        }
        unknown += 1;
        assert_eq!(error_string(code), None, "{value}");
        let err = try_driver!(code).unwrap_err();
        let line = line!() - 1;
        assert_eq!((err.name(), err.message()), (None, None));
        assert_eq!(
            err.to_string(),
            report(
                line,
                "code",
                &format!("code = <unknown CUresult {value}>, message = <no message for CUresult {value}>")
            )
        );
        assert!(format!("{err:?}").contains(&format!("<unknown CUresult {value}>")));
        let with_context = try_driver!(code, "value {value}").unwrap_err();
        assert!(with_context
            .to_string()
            .ends_with(&format!("\n  context = value {value}")));
        let payload = panic::catch_unwind(|| expect_driver!(code)).unwrap_err();
        assert!(payload
            .downcast::<String>()
            .unwrap()
            .contains(&format!("<unknown CUresult {value}>")));
    }
    assert!(unknown >= 1_000, "only {unknown} unknown codes tried");
    assert!(codes.contains(&u32::MAX));
    // And printed (a few, to keep the captured output small).
    for value in [u32::MAX, 12345, 1_000] {
        assert!(!check_driver!(CUresult(value)));
    }
    println!("{unknown} unknown codes checked");
}
