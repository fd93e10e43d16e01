//! The driver-call dropper in the bundle, `lib/libcuda-drop.so` (`ci/drop/dropper.c`): loaded by
//! `LD_PRELOAD` in place of `libcuda.so.1`, it answers the call `CUDA_DROP` names with
//! `CUDA_SUCCESS` without calling the driver (`CUDA_DROP_DRIVER`), and passes every other call
//! through. It exports every function the bindings declare, each a trampoline; which of them it
//! may drop is [`crate::base::droppable`]'s rule. docs/DESIGN.md, "Coverage".

use crate::base::files::{create_dir, write};
use crate::base::scratch::Scratch;
use crate::base::{droppable, process, prototypes, Result};
use std::path::Path;

// The dropper is x86-64 code (its trampolines), as the GPU machine is.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;

/// The dropper's file name in the bundle's `lib/`.
pub const LIBRARY: &str = "libcuda-drop.so";

/// Builds the dropper, for every function the bindings declare, into `out/lib/`.
pub fn build(out: &Path) -> Result {
    let names = prototypes::functions()?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let work = Scratch::new("dropper")?;
    let lib = out.join("lib");
    create_dir(&lib)?;
    compile(&names, &[], work.path(), &lib.join(LIBRARY))?;
    let droppable = names.iter().filter(|n| droppable::is_droppable(n)).count();
    println!(
        "  lib/{LIBRARY} ({} entries, {droppable} droppable)",
        names.len()
    );
    Ok(())
}

/// The header the dropper is compiled with: `DROP_ENTRY(<index>, <name>, <droppable>)` for each
/// of `names`, in their order, `<droppable>` 1 where the rule admits the name, with the reason of
/// the rule that decided, where one did.
fn entries_header(names: &[&str]) -> String {
    let mut text = String::from(
        "/* The dropper's entries: every driver function it exports, and whether the droppable\n \
         * rule (xtask/src/base/droppable.rs) admits it. Written by xtask. */\n",
    );
    for (index, name) in names.iter().enumerate() {
        let droppable = u8::from(droppable::is_droppable(name));
        text += &format!("DROP_ENTRY({index}, {name}, {droppable})");
        if let Some(rule) = droppable::rule_for(name) {
            text += &format!(" /* {} */", rule.why);
        }
        text += "\n";
    }
    text
}

/// Compiles the dropper exporting `names` (among them `cuGetProcAddress` and
/// `cuGetProcAddress_v2`, which it answers itself) into the file `library`, its header written
/// into the folder `work`, with the C macros `defines` (`-D` options).
fn compile(names: &[&str], defines: &[&str], work: &Path, library: &Path) -> Result {
    for own in ["cuGetProcAddress", "cuGetProcAddress_v2"] {
        if !names.contains(&own) {
            return Err(format!("the dropper answers {own} itself: it must be an entry").into());
        }
    }
    write(&work.join("drop_entries.h"), entries_header(names))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut compile = process::command(cc);
    compile
        .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"])
        .args(["-fvisibility=hidden", "-Wl,-soname,libcuda.so.1"])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(format!("-I{}", work.display()))
        .arg(process::root().join("ci/drop/dropper.c"))
        .arg("-o")
        .arg(library)
        .args(["-ldl", "-lpthread"]);
    process::run(&mut compile)
}
