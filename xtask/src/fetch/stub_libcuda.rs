//! `cargo xtask stub-libcuda DIR`: a stub `libcuda.so.1` (and `libcuda.so`) in DIR that exports
//! every function of every committed header version (the interop modules' too), as the toolkit's
//! `stubs/libcuda.so` does: for linking builds of a header newer than the machine's driver
//! (Debian's 535 library has no `cuCtxCreate_v4`, which the CUDA 13.0 header's `cuCtxCreate`
//! binds). Nothing runs against it: the loader finds the real driver at run time. Keep DIR outside
//! cargo's target folder (cargo puts link-search folders inside it on the loader path of
//! `cargo run` and `cargo test`). `CC` names the target's C compiler (`cc` by default).

use crate::base::args::Args;
use crate::base::{files, process, prototypes, Result};

/// `cargo xtask stub-libcuda DIR`.
pub fn run(args: &Args) -> Result {
    let shown = args.value("DIR").expect("declared");
    let dir = std::path::absolute(shown).map_err(|e| format!("{shown}: {e}"))?;
    files::create_dir(&dir)?;
    let names = prototypes::functions()?;
    let source: String = names
        .iter()
        .map(|n| format!("void {n}(void) {{}}\n"))
        .collect();
    let stub_c = dir.join("stub.c");
    files::write(&stub_c, source)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    process::run(
        process::command(cc)
            .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
            .arg(dir.join("libcuda.so.1"))
            .arg(&stub_c),
    )?;
    files::link("libcuda.so.1", &dir.join("libcuda.so"))?;
    eprintln!("stub libcuda.so.1 in {shown}: {} symbols", names.len());
    Ok(())
}
