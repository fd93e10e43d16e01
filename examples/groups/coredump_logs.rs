//! The coredump and logs groups of the Driver API: every coredump attribute read process-wide and
//! for the current context, the file name and the generation flags set both ways and read back,
//! coredumps on exceptions turned on and off again process-wide before any context, each read back
//! (coredumps stay off: nothing here faults); the coredump callbacks of CUDA 13.2 headers looked up
//! with the typed cuGetProcAddress (`entry`; where the driver has none, what its lookup answered);
//! a log callback registered, an error the driver logs provoked (a copy to device address 0), the
//! log dumped to memory and to a file from the iterator taken before it, the callback removed. The
//! values set must read back, and the log must have seen the error (Result line).
//! C twin: coredump_logs.cpp.

#[path = "common/mod.rs"]
mod common;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::mem::size_of;
use std::process::exit;
use std::ptr;

#[cfg(feature = "cuda-13020")]
use common::show_missing;
use common::{check, expect, finish, result_name, s, show};
use cuda_driver_sys::*;

/// Reads every coredump attribute, process-wide or for the current context. The boolean ones
/// and the flags are printed; FILE and PIPE name the host and process by default, so only whether
/// they are set is.
unsafe fn read_attributes(global: bool) {
    unsafe {
        let names = [
            "",
            "ENABLE_ON_EXCEPTION",
            "TRIGGER_HOST",
            "LIGHTWEIGHT",
            "ENABLE_USER_TRIGGER",
            "FILE",
            "PIPE",
            "GENERATION_FLAGS",
        ];
        for a in CU_COREDUMP_ENABLE_ON_EXCEPTION.0..=CU_COREDUMP_GENERATION_FLAGS.0 {
            let mut value = [0u8; 1024];
            let attrib = CUcoredumpSettings(a);
            // The size of the attribute's type: bool, unsigned int for the flags, a string's buffer.
            let mut size: usize = if attrib == CU_COREDUMP_FILE || attrib == CU_COREDUMP_PIPE {
                value.len()
            } else if attrib == CU_COREDUMP_GENERATION_FLAGS {
                size_of::<c_uint>()
            } else {
                size_of::<bool>()
            };
            let value_ptr = value.as_mut_ptr() as *mut c_void;
            let code = if global {
                cuCoredumpGetAttributeGlobal(attrib, value_ptr, &mut size)
            } else {
                cuCoredumpGetAttribute(attrib, value_ptr, &mut size)
            };
            print!(
                "  {} {}: {}",
                if global { "global" } else { "context" },
                names[a as usize],
                result_name(code)
            );
            if code == CUDA_SUCCESS {
                if attrib == CU_COREDUMP_FILE || attrib == CU_COREDUMP_PIPE {
                    print!(", {}", if value[0] != 0 { "set" } else { "empty" });
                } else if attrib == CU_COREDUMP_GENERATION_FLAGS {
                    print!(
                        ", {:#x}",
                        c_uint::from_ne_bytes([value[0], value[1], value[2], value[3]])
                    );
                } else {
                    print!(", {}", if value[0] != 0 { "true" } else { "false" });
                }
            }
            println!();
        }
    }
}

/// The log callback: counts the messages.
unsafe extern "C" fn on_log(
    data: *mut c_void,
    _level: CUlogLevel,
    _message: *mut c_char,
    _length: usize,
) {
    unsafe { *(data as *mut c_int) += 1 };
}

fn main() {
    unsafe {
        if !check!(cuInit(0)) {
            exit(1);
        }
        let mut device: CUdevice = 0;
        if !check!(cuDeviceGet(&mut device, 0)) {
            finish();
        }

        // Process-wide, before any context.
        println!("coredump attributes:");
        read_attributes(true);
        let mut file = *b"/tmp/coredump-logs-global.core\0";
        let mut size: usize = file.len();
        check!(cuCoredumpSetAttributeGlobal(
            CU_COREDUMP_FILE,
            file.as_mut_ptr() as *mut c_void,
            &mut size,
        ));
        // Coredumps on exceptions turned on and off again (before any context, which would take
        // the setting), each read back.
        for on in [true, false] {
            let mut enable = on;
            size = size_of::<bool>();
            check!(cuCoredumpSetAttributeGlobal(
                CU_COREDUMP_ENABLE_ON_EXCEPTION,
                &raw mut enable as *mut c_void,
                &mut size,
            ));
            let mut back: u8 = 2;
            size = size_of::<bool>();
            check!(cuCoredumpGetAttributeGlobal(
                CU_COREDUMP_ENABLE_ON_EXCEPTION,
                &raw mut back as *mut c_void,
                &mut size,
            ));
            println!("  enable on exception: {back}");
            expect(
                back == on as u8,
                "the process-wide enable on exception read back",
            );
        }
        let mut back = [0 as c_char; 1024];
        size = back.len();
        check!(cuCoredumpGetAttributeGlobal(
            CU_COREDUMP_FILE,
            back.as_mut_ptr() as *mut c_void,
            &mut size,
        ));
        println!("  file: {}", s(back.as_ptr()));
        expect(
            CStr::from_ptr(back.as_ptr()).to_bytes_with_nul() == file,
            "the process-wide file name read back",
        );

        let mut ctx: CUcontext = ptr::null_mut();
        if !check!(cuDevicePrimaryCtxRetain(&mut ctx, device)) || !check!(cuCtxSetCurrent(ctx)) {
            finish();
        }
        read_attributes(false);
        let mut ctx_file = *b"/tmp/coredump-logs-context.core\0";
        size = ctx_file.len();
        check!(cuCoredumpSetAttribute(
            CU_COREDUMP_FILE,
            ctx_file.as_mut_ptr() as *mut c_void,
            &mut size,
        ));
        let mut flags =
            (CU_COREDUMP_SKIP_GLOBAL_MEMORY.0 | CU_COREDUMP_SKIP_SHARED_MEMORY.0) as c_uint;
        size = size_of::<c_uint>();
        check!(cuCoredumpSetAttribute(
            CU_COREDUMP_GENERATION_FLAGS,
            &raw mut flags as *mut c_void,
            &mut size,
        ));
        back = [0; 1024];
        size = back.len();
        check!(cuCoredumpGetAttribute(
            CU_COREDUMP_FILE,
            back.as_mut_ptr() as *mut c_void,
            &mut size,
        ));
        println!("  file: {}", s(back.as_ptr()));
        expect(
            CStr::from_ptr(back.as_ptr()).to_bytes_with_nul() == ctx_file,
            "the context's file name read back",
        );
        flags = 0;
        size = size_of::<c_uint>();
        check!(cuCoredumpGetAttribute(
            CU_COREDUMP_GENERATION_FLAGS,
            &raw mut flags as *mut c_void,
            &mut size,
        ));
        println!("  generation flags: {:#x}", flags);
        expect(
            flags
                == (CU_COREDUMP_SKIP_GLOBAL_MEMORY.0 | CU_COREDUMP_SKIP_SHARED_MEMORY.0) as c_uint,
            "the generation flags read back",
        );
        #[cfg(feature = "cuda-13020")]
        {
            let mut start: CUcoredumpCallbackHandle = ptr::null_mut();
            let mut complete: CUcoredumpCallbackHandle = ptr::null_mut();
            match entry::cuCoredumpRegisterStartCallback_v13020.get() {
                Ok(register_start) => {
                    show(
                        "cuCoredumpRegisterStartCallback",
                        register_start(None, ptr::null_mut(), &mut start),
                    );
                }
                Err(e) => show_missing("cuCoredumpRegisterStartCallback", e),
            }
            match entry::cuCoredumpRegisterCompleteCallback_v13020.get() {
                Ok(register_complete) => {
                    show(
                        "cuCoredumpRegisterCompleteCallback",
                        register_complete(None, ptr::null_mut(), &mut complete),
                    );
                }
                Err(e) => show_missing("cuCoredumpRegisterCompleteCallback", e),
            }
            match entry::cuCoredumpDeregisterStartCallback_v13020.get() {
                Ok(deregister_start) => {
                    show("cuCoredumpDeregisterStartCallback", deregister_start(start));
                }
                Err(e) => show_missing("cuCoredumpDeregisterStartCallback", e),
            }
            match entry::cuCoredumpDeregisterCompleteCallback_v13020.get() {
                Ok(deregister_complete) => {
                    show(
                        "cuCoredumpDeregisterCompleteCallback",
                        deregister_complete(complete),
                    );
                }
                Err(e) => show_missing("cuCoredumpDeregisterCompleteCallback", e),
            }
        }

        // Logs.
        println!("logs:");
        let mut messages: c_int = 0;
        let mut handle: CUlogsCallbackHandle = ptr::null_mut();
        let mut from: CUlogIterator = 0;
        check!(cuLogsRegisterCallback(
            Some(on_log),
            &raw mut messages as *mut c_void,
            &mut handle
        ));
        check!(cuLogsCurrent(&mut from, 0));
        let word: c_int = 1;
        let logged = cuMemcpyHtoD(0, &raw const word as *const c_void, size_of::<c_int>());
        expect(
            !show("cuMemcpyHtoD(0) (an error to log)", logged),
            "a copy to address 0 refused",
        );
        expect(messages > 0, "the callback saw a message");
        let mut buffer = vec![0 as c_char; 1 << 16];
        size = buffer.len();
        let mut iterator = from;
        check!(cuLogsDumpToMemory(
            &mut iterator,
            buffer.as_mut_ptr(),
            &mut size,
            0
        ));
        expect(size > 0, "the log dumped to memory");
        let path = format!("/tmp/coredump-logs-{}.log", std::process::id());
        let c_path = CString::new(path.clone()).expect("no NUL in the path");
        iterator = from;
        check!(cuLogsDumpToFile(&mut iterator, c_path.as_ptr(), 0));
        let length = std::fs::metadata(&path).map_or(0, |m| m.len());
        let _ = std::fs::remove_file(&path);
        expect(length > 0, "the log dumped to a file");
        check!(cuLogsUnregisterCallback(handle));

        check!(cuDevicePrimaryCtxRelease(device));
        finish()
    }
}
