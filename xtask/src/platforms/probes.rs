//! The layout and constant probes (tests/support/c/*_probe.c with the tables the tests' build
//! script writes from the committed bindings) compiled by each target's C compiler: their tables,
//! as that compiler evaluates them ([`super::asm_data`], nothing run), equal to x86-64 Linux's,
//! which the ABI tests compare with the bindings; and the bindings use no Rust type whose size or
//! alignment differs between these targets, so their Rust layout is the same on each. The
//! control: with -fshort-enums the comparison sees differences.

use super::asm_data::{tables, Dialect};
use crate::process::{self, root};
use crate::Result;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The targets, their compilers' prefix and assembler dialect; x86-64 Linux first, the reference.
const TARGETS: [(&str, &str, Dialect); 3] = [
    ("x86_64-unknown-linux-gnu", "", Dialect::X86_64),
    (
        "aarch64-unknown-linux-gnu",
        "aarch64-linux-gnu-",
        Dialect::Aarch64,
    ),
    (
        "x86_64-pc-windows-gnu",
        "x86_64-w64-mingw32-",
        Dialect::X86_64,
    ),
];

/// Rust types of a size that differs between these targets (`c_long`/`c_ulong`: 32 bits on
/// Windows).
const VARYING: [&str; 5] = ["c_long", "c_ulong", "c_longdouble", "u128", "i128"];

/// Compares the probes' tables per target for each version.
pub fn check(scratch: &Path, versions: &[u32]) -> Result {
    let types = primitive_types()?;
    let listed: String = types.iter().map(|t| format!("{t} ")).collect();
    println!("primitive types of the bindings: {listed}");
    if let Some(t) = types.iter().find(|t| VARYING.contains(&t.as_str())) {
        return Err(
            format!("the bindings use {t}, whose size differs between these targets").into(),
        );
    }
    let stub = stub_library(scratch)?;
    let driver = super::driver_version()?;
    let probes = probe_sources()?;
    let mut flags = Vec::new();
    for &v in versions {
        let dir = out_dir(v, if v > driver { Some(&stub) } else { None })?;
        flags = base_flags(&dir)?;
        let mut compared = 0;
        for probe in &probes {
            let files = compile_all(scratch, probe, v, &flags, &[])?;
            let name = file_name(probe);
            let values = super::read(&files[0])?.lines().count();
            if values == 0 {
                continue; // no table (a header-scan helper)
            }
            compared += 1;
            for ((target, _, _), other) in TARGETS.iter().zip(&files).skip(1) {
                // (Each line of x86-64 Linux's is also in the other's: none missing.)
                let (differing, missing, diff) = super::diff(&files[0], other)?;
                println!(
                    "{target}, CUDA {v}, {name}: {values} values, {} equal to x86-64 Linux's, {differing} differ",
                    values - differing
                );
                if differing != 0 || missing != 0 {
                    println!("{}", diff.lines().take(20).collect::<Vec<_>>().join("\n"));
                    return Err(
                        format!("{target}, CUDA {v}, {name}: the tables differ (above)").into(),
                    );
                }
            }
        }
        // Every constant of the table is in the data read (none filled by code).
        let inc = super::read(&dir.join("constants.inc"))?;
        let constants = inc
            .lines()
            .filter(|l| l.starts_with("K(") || l.starts_with("P("))
            .count();
        let host = super::read(&asm_lines(scratch, TARGETS[0].0, "constants_table.c"))?;
        let read_back = host.lines().filter(|l| is_platform_constant(l)).count();
        println!("CUDA {v}: {read_back} of the {constants} constants of constants.inc read from the tables");
        if read_back != constants {
            return Err("constants missing from the tables read".into());
        }
        if compared == 0 {
            return Err("no probe holds a table of values: the assembly reader reads none".into());
        }
    }
    // The comparison sees a difference where there is one: enums of one byte (-fshort-enums).
    let last = versions[versions.len() - 1];
    let mut seen = 0;
    for probe in &probes {
        let name = file_name(probe);
        let host = asm_lines(scratch, TARGETS[0].0, &name);
        let aarch64 = compile(scratch, TARGETS[1], probe, last, &flags, &["-fshort-enums"])?;
        super::wait_all(vec![aarch64.0])?;
        write_tables(TARGETS[1].2, &aarch64.1)?;
        seen += super::diff(&host, &asm_lines(scratch, TARGETS[1].0, &name))?.0;
    }
    println!("self-check: with -fshort-enums, {seen} values of the aarch64 probes differ");
    if seen == 0 {
        return Err("the probe comparison saw no difference with -fshort-enums".into());
    }
    Ok(())
}

/// `cdsys_platform_constants[N] ...: string ...`: a constant of the static table.
fn is_platform_constant(line: &str) -> bool {
    line.strip_prefix("cdsys_platform_constants[")
        .and_then(|rest| rest.split_once("] "))
        .is_some_and(|(index, rest)| {
            index.chars().all(|c| c.is_ascii_digit()) && rest.contains(": string ")
        })
}

/// The Rust primitive types the bindings name, sorted.
fn primitive_types() -> Result<BTreeSet<String>> {
    const FFI: &str = "::core::ffi::c_";
    let primitive = |word: &str| {
        let bits = word.strip_prefix(['i', 'u', 'f']).unwrap_or("");
        ["8", "16", "32", "64", "128", "size"].contains(&bits)
    };
    let mut types = BTreeSet::new();
    for file in super::generated(".rs")? {
        let text = super::read(&file)?;
        for (at, _) in text.match_indices(FFI) {
            let rest = &text[at + FFI.len()..];
            let letters: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            if !letters.is_empty() {
                types.insert(format!("c_{letters}"));
            }
        }
        let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        types.extend(words.filter(|w| primitive(w)).map(str::to_string));
    }
    Ok(types)
}

/// The stub libcuda.so.1 that builds for headers newer than the driver link: the caller's
/// (`CUDA_STUB_LIBRARY_PATH`, built with the same configuration), else one made here.
fn stub_library(scratch: &Path) -> Result<PathBuf> {
    if let Ok(dir) = std::env::var("CUDA_STUB_LIBRARY_PATH") {
        if Path::new(&dir).is_dir() {
            return Ok(dir.into());
        }
    }
    let stub = scratch.join("stub");
    process::run(
        super::xtask("stub-libcuda")?
            .arg(&stub)
            .stderr(std::process::Stdio::null()),
    )?;
    Ok(stub)
}

/// The tests' build script's OUT_DIR for `version` with the interop modules (the probes' C
/// sources); headers newer than the driver link the stub.
fn out_dir(version: u32, stub: Option<&Path>) -> Result<PathBuf> {
    let mut command = process::command("cargo");
    command
        .args(["test", "--quiet", "--no-default-features", "--features"])
        .arg(format!("cuda-{version},interop"))
        .args(["--all-targets", "--no-run", "--message-format=json"]);
    if let Some(stub) = stub {
        command.env("CUDA_LIBRARY_PATH", stub);
    }
    let messages = process::output(&mut command)?;
    let mut dirs = Vec::new();
    for line in messages.lines() {
        let message: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("cargo's message `{line}`: {e}"))?;
        let package = message["package_id"].as_str().unwrap_or("");
        if message["reason"] == "build-script-executed" && package.contains("/tests#") {
            dirs.extend(message["out_dir"].as_str().map(PathBuf::from));
        }
    }
    match &dirs[..] {
        [dir] if dir.is_dir() => Ok(dir.clone()),
        _ => Err(format!("no OUT_DIR of the tests' build script for cuda-{version}").into()),
    }
}

/// What the probes are compiled with (the tests' build script: c_header::FOREIGN_DEFINES, the
/// interop headers, OUT_DIR). -S: the tables are read from the assembly (-O1 folds the
/// constants' table into one block of data).
fn base_flags(out_dir: &Path) -> Result<Vec<String>> {
    Ok(vec![
        "-S".into(),
        "-O1".into(),
        "-DEGL_NO_X11".into(),
        format!("-I{}", super::env("CUDA_INTEROP_INCLUDE")?),
        "-Itests/support/c".into(),
        format!("-I{}", out_dir.display()),
    ])
}

/// The probes' generic C halves (tests/support/c/*, those that include probe.h); in place of
/// one, the file of the task's data that includes it (constants_table.c: the constants probe's
/// table in static storage).
fn probe_sources() -> Result<Vec<PathBuf>> {
    let dir = root().join("tests/support/c");
    let wrappers = super::files(&root().join(super::DATA), "", ".c")?;
    let mut probes = Vec::new();
    for source in [
        super::files(&dir, "", ".c")?,
        super::files(&dir, "", ".cpp")?,
    ]
    .concat()
    {
        if !super::read(&source)?
            .lines()
            .any(|l| l.starts_with("#include \"probe.h\""))
        {
            continue;
        }
        let include = format!("#include \"{}\"", file_name(&source));
        let mut wrapper = None;
        for w in &wrappers {
            if super::read(w)?.lines().any(|l| l.starts_with(&include)) {
                wrapper = Some(w.clone());
            }
        }
        probes.push(wrapper.unwrap_or(source));
    }
    if probes.is_empty() {
        return Err("no probe source (#include \"probe.h\") in tests/support/c".into());
    }
    Ok(probes)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The file of `target`'s tables of the probe `name`.
fn asm_lines(scratch: &Path, target: &str, name: &str) -> PathBuf {
    scratch.join(format!("{target}-{name}.s.txt"))
}

/// The probe compiled for the three targets at once; their table files, in [`TARGETS`]' order.
fn compile_all(
    scratch: &Path,
    probe: &Path,
    version: u32,
    flags: &[String],
    extra: &[&str],
) -> Result<Vec<PathBuf>> {
    let mut children = Vec::new();
    let mut assemblies = Vec::new();
    for target in TARGETS {
        let (child, asm) = compile(scratch, target, probe, version, flags, extra)?;
        children.push(child);
        assemblies.push((target.2, asm));
    }
    super::wait_all(children)?;
    assemblies
        .iter()
        .map(|(dialect, asm)| write_tables(*dialect, asm))
        .collect()
}

/// Starts the compiler of `target` on the probe: the child, and the assembly it writes.
fn compile(
    scratch: &Path,
    (target, prefix, _): (&str, &str, Dialect),
    probe: &Path,
    version: u32,
    flags: &[String],
    extra: &[&str],
) -> Result<((std::process::Child, String), PathBuf)> {
    let name = file_name(probe);
    let compiler = if name.ends_with(".cpp") { "g++" } else { "gcc" };
    let asm = scratch.join(format!("{target}-{name}.s"));
    let mut command = process::command(format!("{prefix}{compiler}"));
    command
        .arg(format!("-I{}", super::headers(version)?))
        .args(flags)
        .args(extra)
        .arg("-o")
        .arg(&asm)
        .arg(probe);
    Ok((super::spawn(command)?, asm))
}

/// Reads the tables of the assembly `asm` and writes them beside it (`.s.txt`), for `diff`.
fn write_tables(dialect: Dialect, asm: &Path) -> Result<PathBuf> {
    let lines = tables(dialect, &String::from_utf8_lossy(&std::fs::read(asm)?));
    let path = PathBuf::from(format!("{}.txt", asm.display()));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn platform_constants_are_recognized() {
        assert!(super::is_platform_constant(
            "cdsys_platform_constants[3] 'CU_X': string 'CU_X'"
        ));
        assert!(!super::is_platform_constant(
            "cdsys_platform_constants[x] a: string 'b'"
        ));
        assert!(!super::is_platform_constant(
            "cdsys_platform_constants[3] a: u32 1"
        ));
    }
}
