//! cudarc 0.19.10 on its own `sys` and on this crate (cudarc-check --bundle, packed as
//! `cudarc.tar.xz`): each pair of builds (a header version, linked or dynamically loaded) runs its
//! library tests and examples (dependent-run), and every one that passes on cudarc's own `sys`
//! must pass on this crate. The linked builds are bound lazily and run with `LD_DEBUG=bindings`:
//! the driver functions each side called are listed in `cudarc-driver-functions-<side>`.

use super::log::Logs;
use crate::files::{self, read};
use crate::{outcomes, process, Result};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Runs the part.
pub fn run(here: &Path, exe: &Path, logs: &mut Logs) -> Result {
    let dir = here.join("cudarc");
    if !dir.is_dir() {
        let archive = here.join("cudarc.tar.xz");
        if !archive.is_file() {
            return Err("the bundle has no cudarc.tar.xz: build it with the part cudarc, or leave \
                        cudarc out of GPU_RUN_PARTS"
                .into());
        }
        process::run(process::command("tar").arg("xJf").arg(&archive).arg("-C").arg(here))?;
    }
    let ld_path = format!(
        "{}:{}",
        dir.join("nvrtc").display(),
        std::env::var("LD_LIBRARY_PATH").unwrap_or_default()
    );
    let bindings = logs.out.join("cudarc-bindings");
    std::fs::create_dir_all(&bindings)?;
    let pairs: Vec<String> = files::sorted(&dir, "ours-")?
        .iter()
        .filter_map(|p| Some(files::name(p).strip_prefix("ours-")?.to_string()))
        .collect();
    println!(
        "== cudarc 0.19.10, its library tests and examples, on its own sys and on this crate ({} builds each)",
        pairs.len()
    );
    let mut called: [BTreeSet<String>; 2] = Default::default();
    for pair in &pairs {
        let mut texts = Vec::new();
        for (i, side) in ["own", "ours"].into_iter().enumerate() {
            let name = format!("cudarc-{side}-{pair}");
            let outcomes = logs.out.join(format!("{name}.outcomes"));
            let mut command = Command::new(exe);
            command
                .arg("dependent-run")
                .arg(dir.join(format!("{side}-{pair}")))
                .arg(&outcomes)
                .env("LD_LIBRARY_PATH", &ld_path);
            let trace = bindings.join(&name);
            if pair.ends_with("-linked") {
                command
                    .env("LD_DEBUG", "bindings")
                    .env("LD_DEBUG_OUTPUT", &trace);
            }
            logs.run(&name, &mut command);
            logs.print_matching(&name, &["dependent-run:"], "  ", usize::MAX)?;
            called[i].extend(driver_functions(&bindings, &name)?);
            texts.push(read(&outcomes).unwrap_or_default());
        }
        let lost = outcomes::lost_passes(&texts[0], &texts[1]);
        if !lost.is_empty() {
            println!("  {pair}: passed on cudarc's own sys, not on this crate:");
            for test in &lost {
                println!("    {test}");
            }
            logs.failures.push(format!("cudarc-{pair}"));
        }
    }
    for (side, functions) in ["own", "ours"].iter().zip(&called) {
        let list: String = functions.iter().map(|f| format!("{f}\n")).collect();
        files::write(
            &logs.out.join(format!("cudarc-driver-functions-{side}")),
            list,
        )?;
        println!(
            "  {} driver functions called through {side} sys (linked builds; cudarc-driver-functions-{side})",
            functions.len()
        );
    }
    std::fs::remove_dir_all(&bindings)?;
    Ok(())
}

/// The driver functions that the dynamic linker bound in the runs whose `LD_DEBUG_OUTPUT` was
/// `dir/name` (one file `name.PID` per process): the symbols bound to libcuda.
fn driver_functions(dir: &Path, name: &str) -> Result<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    for file in files::sorted(dir, &format!("{name}."))? {
        let text = String::from_utf8_lossy(&std::fs::read(&file)?).into_owned();
        found.extend(bound_to_libcuda(&text));
    }
    Ok(found)
}

/// The symbols of `LD_DEBUG=bindings` lines that bind to libcuda.
fn bound_to_libcuda(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().filter_map(|line| {
        let (_, rest) = line.split_once(" to ")?;
        let (library, symbol) = rest.split_once(": normal symbol `")?;
        let symbol = symbol.split_once('\'')?.0;
        library.contains("/libcuda.so").then(|| symbol.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::bound_to_libcuda;

    #[test]
    fn symbols_bound_to_libcuda_are_found() {
        let text = "    41:\tbinding file ./tests/unit [0] to /lib/x86_64-linux-gnu/libcuda.so.1 [0]: \
                    normal symbol `cuInit' [libcuda.so.1]\n    41:\tbinding file ./tests/unit [0] \
                    to /lib/x86_64-linux-gnu/libc.so.6 [0]: normal symbol `malloc' [GLIBC_2.2.5]\n";
        assert_eq!(bound_to_libcuda(text).collect::<Vec<_>>(), ["cuInit"]);
    }
}
