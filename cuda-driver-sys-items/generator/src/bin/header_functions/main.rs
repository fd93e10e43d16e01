//! `header_functions DIR...`: every function the driver-API headers in each DIR declare for C
//! programs ([`declared_functions`]), one line each: `DIR`, the header, the function, its Doxygen
//! group and the group's title, tab-separated (`-` where the header gives none). `cargo xtask
//! coverage` reads it: the newest headers' functions are the report's rows, and the oldest
//! header of the others declaring each says where it first appeared.

use std::path::Path;
use std::process::ExitCode;

use cuda_driver_sys_generator::declared_functions;

fn main() -> ExitCode {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if dirs.is_empty() {
        eprintln!("usage: header_functions DIR...");
        return ExitCode::FAILURE;
    }
    for dir in &dirs {
        match declared_functions(Path::new(dir)) {
            Ok(functions) => {
                for f in functions {
                    let group = f.group.as_deref().unwrap_or("-");
                    let title = f.title.as_deref().unwrap_or("-");
                    println!("{dir}\t{}\t{}\t{group}\t{title}", f.header, f.name);
                }
            }
            Err(e) => {
                eprintln!("header_functions: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
