//! `cuda-check` against C, for every `CUresult` the selected header defines: the name and message
//! the macros report equal what `cuGetErrorName` / `cuGetErrorString` give C code
//! (`tests/support/c/error_strings.c`, compiled against the same `cuda.h`), and the whole report is
//! byte for byte what the posts' `__check_cuda_driver` formats (C's `(null)` for a code the driver
//! does not know being cuda-check's documented `<unknown CUresult N>` /
//! `<no message for CUresult N>`).
//!
//! The codes come from the selected bindings (`impl cudaError_enum { pub const ... }`), checked
//! to be exactly the enumerators of `enum cudaError_enum` in the header. Only `cuGetErrorName`,
//! `cuGetErrorString`, `cuDriverGetVersion` and `cuInit` are called, so this runs on a 12.0 driver
//! under any header.
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::path::Path;

use cuda_check::{error_name, error_string, try_driver, DriverError};
use cuda_driver_sys::*;

mod common;

extern "C" {
    fn c_error_name(code: c_uint, status: *mut c_uint) -> *const c_char;
    fn c_error_string(code: c_uint, status: *mut c_uint) -> *const c_char;
    fn c_check_report(
        buf: *mut c_char,
        size: usize,
        code: c_uint,
        op: *const c_char,
        file: *const c_char,
        line: c_int,
    ) -> c_int;
}

/// What C gets: the string (`None` for NULL) and the call's own result.
fn c_lookup(
    get: unsafe extern "C" fn(c_uint, *mut c_uint) -> *const c_char,
    code: u32,
) -> (Option<&'static CStr>, u32) {
    let mut status = u32::MAX;
    let s = unsafe { get(code, &mut status) };
    // SAFETY: non-null means a static NUL-terminated string of the driver.
    ((!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }), status)
}

/// The report C's `__check_cuda_driver` formats for `code`, as bytes.
fn c_report(code: u32, op: &str, file: &str, line: u32) -> Vec<u8> {
    let op = std::ffi::CString::new(op).unwrap();
    let file = std::ffi::CString::new(file).unwrap();
    let mut buf = vec![0u8; 4096];
    let n = unsafe {
        c_check_report(
            buf.as_mut_ptr().cast(),
            buf.len(),
            code,
            op.as_ptr(),
            file.as_ptr(),
            line as c_int,
        )
    };
    assert!(
        n >= 0 && (n as usize) < buf.len(),
        "C report of {code}: {n}"
    );
    buf.truncate(n as usize);
    buf
}

/// The text of `file` between the first `open` and the next `close`.
fn between<'a>(text: &'a str, open: &str, close: &str, file: &Path) -> &'a str {
    let start = text
        .find(open)
        .unwrap_or_else(|| panic!("{}: no {open:?}", file.display()));
    let body = &text[start + open.len()..];
    let end = body
        .find(close)
        .unwrap_or_else(|| panic!("{}: no {close:?} after {open:?}", file.display()));
    &body[..end]
}

/// `NAME = VALUE` pairs of `impl cudaError_enum { pub const NAME: cudaError_enum = cudaError_enum(VALUE); }`
/// (however rustfmt wrapped the lines).
fn codes_from_bindings(path: &Path) -> BTreeMap<String, u32> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = between(&text, "impl cudaError_enum {", "\n}", path);
    // Without comments and attributes, and without any whitespace:
    // `pubconstNAME:cudaError_enum=cudaError_enum(VALUE);` (a `,` before `)` where wrapped).
    let compact: String = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with("#["))
        .flat_map(|l| l.chars().filter(|c| !c.is_whitespace()))
        .collect();
    let mut codes = BTreeMap::new();
    for item in compact.split(';').filter(|i| !i.is_empty()) {
        let rest = item.strip_prefix("pubconst").expect(item);
        let (name, rest) = rest
            .split_once(":cudaError_enum=cudaError_enum(")
            .expect(item);
        let value = rest.strip_suffix(')').expect(item).trim_end_matches(',');
        let value = value
            .parse()
            .unwrap_or_else(|_| panic!("value of {name}: {value:?}"));
        assert!(
            codes.insert(name.to_string(), value).is_none(),
            "{name} twice"
        );
    }
    codes
}

/// The enumerators of `typedef enum cudaError_enum { ... } CUresult;` in `cuda.h`.
fn codes_from_header(path: &Path) -> BTreeMap<String, u32> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut body = between(&text, "typedef enum cudaError_enum {", "} CUresult;", path);
    // Strip the /** ... */ and // comments.
    let mut code = String::new();
    while let Some(i) = body.find("/*") {
        code.push_str(&body[..i]);
        body = &body[i + body[i..].find("*/").unwrap() + 2..];
    }
    code.push_str(body);
    let mut codes = BTreeMap::new();
    for item in code
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
        .split(',')
    {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (name, value) = item
            .split_once('=')
            .unwrap_or_else(|| panic!("no value: {item:?}"));
        let value = value.trim();
        let value = match value.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
            None => value
                .parse()
                .unwrap_or_else(|_| panic!("value of {name}: {value:?}")),
        };
        codes.insert(name.trim().to_string(), value);
    }
    codes
}

fn every_defined_code() -> BTreeMap<String, u32> {
    // The committed bindings.rs as this version compiles it (the build script projects it).
    let bindings = Path::new(env!("CUDA_PROJECTED_DIR")).join("projected_bindings.rs");
    let from_bindings = codes_from_bindings(&bindings);
    let from_header = codes_from_header(&Path::new(env!("CUDA_HEADER_DIR")).join("cuda.h"));
    assert_eq!(
        from_bindings, from_header,
        "the bindings' CUresult values are not the header's"
    );
    assert!(from_bindings.len() > 80, "{} codes", from_bindings.len());
    assert_eq!(from_bindings.get("CUDA_SUCCESS"), Some(&0));
    assert_eq!(from_bindings.get("CUDA_ERROR_UNKNOWN"), Some(&999));
    from_bindings
}

fn show(s: Option<&CStr>) -> String {
    s.map_or("(null)".into(), |s| s.to_string_lossy().into_owned())
}

#[test]
fn names_and_messages_equal_cs_for_every_defined_code() {
    let codes = every_defined_code();
    let mut version = 0;
    let _ = unsafe { cuDriverGetVersion(&mut version) };
    let (mut known, mut unknown, mut renamed) = (Vec::new(), Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for (enumerator, &value) in &codes {
        let (c_name, name_status) = c_lookup(c_error_name, value);
        let (c_message, message_status) = c_lookup(c_error_string, value);
        let code = CUresult(value);
        if (error_name(code), error_string(code)) != (c_name, c_message) {
            failures.push(format!(
                "{enumerator} = {value}: Rust gives {:?} / {:?}, C gives {:?} / {:?}",
                error_name(code),
                error_string(code),
                c_name,
                c_message
            ));
        }
        match c_name {
            Some(name) => {
                assert_eq!(name_status, 0, "{enumerator}");
                assert!(
                    c_message.is_some() && message_status == 0,
                    "{enumerator}: name but no message"
                );
                if name.to_bytes() != enumerator.as_bytes() {
                    renamed.push(format!("{enumerator} = {value} is {name:?} to the driver"));
                }
                known.push(value);
            }
            None => {
                assert_eq!(name_status, CUDA_ERROR_INVALID_VALUE.0, "{enumerator}");
                unknown.push(format!("{enumerator} = {value}"));
            }
        }

        // The whole report, through the macro, against C's format. (`CUDA_SUCCESS` is no failure:
        // C prints nothing and `try_driver!` gives Ok.)
        let result = try_driver!(code);
        if value == 0 {
            assert!(result.is_ok());
            assert_eq!(
                unsafe {
                    c_check_report(
                        std::ptr::null_mut(),
                        0,
                        0,
                        c"code".as_ptr(),
                        c"f".as_ptr(),
                        1,
                    )
                },
                -1
            );
            continue;
        }
        let err: DriverError = result.unwrap_err();
        let rust = format!("{err}\n");
        let c = String::from_utf8(c_report(value, err.expr(), err.file(), err.line())).unwrap();
        let expected_c = format!(
            "{}:{}  code failed. \n  code = {}, message = {}\n",
            err.file(),
            err.line(),
            show(c_name),
            show(c_message)
        );
        assert_eq!(c, expected_c, "C's report of {enumerator}");
        let expected_rust = match (c_name, c_message) {
            (Some(_), Some(_)) => c.clone(),
            _ => c
                .replace(
                    "code = (null)",
                    &format!("code = <unknown CUresult {value}>"),
                )
                .replace(
                    "message = (null)",
                    &format!("message = <no message for CUresult {value}>"),
                ),
        };
        if rust != expected_rust {
            failures.push(format!(
                "{enumerator} = {value}: Rust reports {rust:?}, C {c:?}"
            ));
        }
    }
    println!(
        "CUDA {} header: compared {} CUresult codes with C (driver {version}: {} known, {} unknown{}{})",
        env!("CUDA_HEADER_VERSION"),
        codes.len(),
        known.len(),
        unknown.len(),
        if unknown.is_empty() { String::new() } else { format!(": {}", unknown.join(", ")) },
        if renamed.is_empty() { String::new() } else { format!("; named otherwise: {}", renamed.join(", ")) },
    );
    assert!(
        failures.is_empty(),
        "{} codes differ from C:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        known.len() >= 80,
        "the driver knows only {} codes",
        known.len()
    );
}

#[test]
fn lookups_agree_with_c_on_undefined_values_too() {
    let mut values: Vec<u32> = (0..=1_100).collect();
    values.extend([10_000, 65_535, 1 << 31, u32::MAX - 1, u32::MAX]);
    let mut unknown = 0;
    for &value in &values {
        let code = CUresult(value);
        assert_eq!(
            error_name(code),
            c_lookup(c_error_name, value).0,
            "name of {value}"
        );
        assert_eq!(
            error_string(code),
            c_lookup(c_error_string, value).0,
            "message of {value}"
        );
        if error_name(code).is_none() {
            unknown += 1;
            let err = try_driver!(code).unwrap_err();
            assert!(err.to_string().ends_with(&format!(
                "code = <unknown CUresult {value}>, message = <no message for CUresult {value}>"
            )));
        }
    }
    println!(
        "{} values compared with C, {unknown} unknown to the driver",
        values.len()
    );
    assert!(unknown >= 1_000);
}

/// The C twin of the `check_driver` example really prints (printf, not snprintf) what the macro
/// reports for the same failing `cuInit(0)`, after its own file and line. Not under `table-only`,
/// which links no `cuInit`, nor for the 13.0 header and newer: there the twin calls
/// `cuCtxCreate_v4`, which Debian's 535 driver lacks, so it stops at start (examples_parity checks
/// that both sides stop alike).
#[cfg(not(any(feature = "table-only", feature = "cuda-13000")))]
#[test]
fn c_twin_prints_the_same_report() {
    let twin =
        Path::new(env!("C_TWIN_DIR")).join(format!("check_driver{}", std::env::consts::EXE_SUFFIX));
    assert!(
        twin.exists(),
        "no C twin {} for the CUDA {} header: the build script builds one for every 12.x header",
        twin.display(),
        env!("CUDA_HEADER_VERSION")
    );
    let out = common::runner::target_command(&twin)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", twin.display()));
    // (C's text mode ends Windows lines with \r\n.)
    let stdout = String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n");
    let Err(err) = try_driver!(unsafe { cuInit(0) }) else {
        // A GPU: cuInit succeeds on both sides, and neither reports it.
        assert!(
            !stdout.contains("cuInit(0) failed"),
            "twin printed {stdout:?}"
        );
        return;
    };
    let rust = format!("{err}\n");
    let rust_tail = rust
        .strip_prefix(&format!("{}:{}", err.file(), err.line()))
        .unwrap();
    // The twin's first report: `<file>:<line>  cuInit(0) failed. \n  code = ..., message = ...\n`.
    let first: String = stdout.split_inclusive('\n').take(2).collect();
    let at = first
        .find("  cuInit(0) failed. ")
        .unwrap_or_else(|| panic!("twin printed {stdout:?}"));
    let (location, c_tail) = first.split_at(at);
    assert!(
        location.rsplit(':').next().unwrap().parse::<u32>().is_ok(),
        "{location:?}"
    );
    assert_eq!(c_tail, rust_tail, "C twin printed {stdout:?}");
}
