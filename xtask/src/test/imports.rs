//! What a test binary imports from the driver library: its `cu*` undefined dynamic symbols
//! (`nm -D --undefined-only`) and whether it loads `libcuda.so.1` (`readelf -d`).

use crate::base::{process, Result};

/// The `cu*` symbols `binary` imports, sorted.
pub fn driver_symbols(binary: &std::path::Path) -> Result<Vec<String>> {
    let mut nm = process::command("nm");
    nm.args(["-D", "--undefined-only"]).arg(binary);
    Ok(cu_symbols(&process::output(&mut nm)?))
}

/// Whether `binary` names `libcuda.so.1` among the libraries it needs.
pub fn loads_libcuda(binary: &std::path::Path) -> Result<bool> {
    let mut readelf = process::command("readelf");
    readelf.arg("-d").arg(binary);
    Ok(process::output(&mut readelf)?.contains("[libcuda.so.1]"))
}

/// The path of the `table` test binary that `cargo test ARGS --no-run` built, as its `Executable`
/// line gives it (relative to the workspace root).
pub fn table_test_binary(cargo_output: &str) -> Option<&str> {
    cargo_output.lines().find_map(|line| {
        let (_, rest) = line.split_once("Executable ")?;
        let rest = rest.strip_prefix("tests/").unwrap_or(rest);
        rest.strip_prefix("table.rs (")?.strip_suffix(')')
    })
}

/// The last field of each line of `nm`'s output that starts with `cu`, sorted.
fn cu_symbols(nm_output: &str) -> Vec<String> {
    let mut symbols: Vec<String> = nm_output
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|s| s.starts_with("cu"))
        .map(String::from)
        .collect();
    symbols.sort();
    symbols
}

/// The symbols as the log shows them: each followed by a space.
pub fn shown(symbols: &[String]) -> String {
    symbols.iter().map(|s| format!("{s} ")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_symbols_of_nm_output() {
        let nm = "                 w __gmon_start__\n                 U cuGetProcAddress_v2\n\
                  U cuDriverGetVersion\n                 U memcpy@GLIBC_2.14\n";
        assert_eq!(
            cu_symbols(nm),
            ["cuDriverGetVersion", "cuGetProcAddress_v2"]
        );
        assert_eq!(
            shown(&cu_symbols(nm)),
            "cuDriverGetVersion cuGetProcAddress_v2 "
        );
    }

    #[test]
    fn the_table_binary_of_cargo_output() {
        let out = "    Finished `test` profile\n  Executable tests/interop.rs (target/debug/deps/interop-1)\n\
                   \x20 Executable tests/table.rs (target/debug/deps/table-2)\n";
        assert_eq!(table_test_binary(out), Some("target/debug/deps/table-2"));
        assert_eq!(
            table_test_binary("  Executable tests/interop.rs (x)\n"),
            None
        );
        assert_eq!(
            table_test_binary("  Executable table.rs (target/debug/deps/table-3)"),
            Some("target/debug/deps/table-3")
        );
    }
}
