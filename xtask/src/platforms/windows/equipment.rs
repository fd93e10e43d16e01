//! The test equipment: bcryptprimitives.dll (which wine lacks and Rust's standard library
//! imports), its check, the stub nvcuda.dll and its import library cuda.lib.

use super::environment::Windows;
use super::{nvcuda_table, SOURCES};
use crate::base::process::{self, root};
use crate::base::{files, Result};
use std::path::{Path, PathBuf};

impl Windows {
    /// bcryptprimitives.dll, its check, the stub nvcuda.dll and its import library cuda.lib.
    pub fn equipment(&self, linux_driver: &Path) -> Result {
        let sources = root().join(SOURCES);
        let nvcuda = self.equipment.join("nvcuda");
        files::create_dir(&nvcuda)?;
        let gcc = |args: &[&str], output: PathBuf, inputs: &[PathBuf]| {
            process::run(
                process::command("x86_64-w64-mingw32-gcc")
                    .args(args)
                    .arg("-o")
                    .arg(output)
                    .args(inputs),
            )
        };
        gcc(
            &["-shared", "-O2", "-Wall", "-Werror"],
            self.equipment.join("bcryptprimitives.dll"),
            &[sources.join("bcryptprimitives.c"), "-lbcrypt".into()],
        )?;
        gcc(
            &["-O2", "-Wall", "-Werror"],
            self.equipment.join("prng_check.exe"),
            &[sources.join("prng_check.c")],
        )?;
        let stub = sources.join("nvcuda_stub.c");
        let libcuda = linux_driver.join("libcuda.so.1");
        println!("{}", nvcuda_table::write(&libcuda, &stub, self)?);
        let include = format!("-I{}", self.equipment.display());
        let def = self.equipment.join("nvcuda.def");
        gcc(
            &["-shared", "-O1", "-Wall", "-Wextra", "-Werror", &include],
            nvcuda.join("nvcuda.dll"),
            &[stub, def.clone()],
        )?;
        process::run(
            process::command("x86_64-w64-mingw32-dlltool")
                .arg("-d")
                .arg(&def)
                .arg("-l")
                .arg(nvcuda.join("cuda.lib")),
        )
    }
}
