//! Where the build script looks for `cuda.h` and what it reads there, as pure functions: the
//! variables naming a toolkit root, and a header's `CUDA_VERSION`. The build script (`main.rs`)
//! reads the environment and the file; the test target `header_version` (this file compiled alone,
//! `cargo test -p cuda-driver-sys-items --test header_version`) checks the parsing.

/// The variables naming a toolkit root, in the order they are taken (cuda-driver-sys's build
/// script looks for the library under the same roots; `tests/versions.rs` checks the two lists).
pub const ROOT_VARS: [&str; 4] = [
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_HOME",
];

/// The value of `#define CUDA_VERSION <n>` in a `cuda.h`: `Ok(None)` where there is no such
/// line, an error naming the value where it is not a version number.
pub fn header_version(cuda_h: &str) -> Result<Option<u32>, String> {
    let Some(value) = define_value(cuda_h, "CUDA_VERSION") else {
        return Ok(None);
    };
    match value.parse::<u32>() {
        Ok(v) => Ok(Some(v)),
        Err(_) => Err(format!(
            "defines CUDA_VERSION as {value:?}, which is not a CUDA version (a number such as \
             12040, at most {})",
            u32::MAX
        )),
    }
}

/// The value of the first `#define <name> <value>` in a header's text (`# define` too).
pub fn define_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix('#')?;
        let value = rest.trim_start().strip_prefix("define")?;
        let value = value.trim_start().strip_prefix(name)?;
        // Not `<name>_SOMETHING`.
        (value.starts_with(char::is_whitespace)).then(|| value.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_version_of_the_header() {
        assert_eq!(
            header_version("#define CUDA_VERSION 12040\n"),
            Ok(Some(12040))
        );
        assert_eq!(header_version("#define CUDA_VERSION_X 1\n"), Ok(None));
        let e = header_version("#  define CUDA_VERSION 99999999999999\n").unwrap_err();
        assert!(
            e.contains("\"99999999999999\", which is not a CUDA version"),
            "{e}"
        );
    }
}
