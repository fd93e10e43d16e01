//! `cargo xtask package-check`: the publishable crates as the registry would get them, packed
//! together by `cargo package` (each names the one before it by version) and each built from its
//! .crate alone; each must carry what a user needs and nothing of the tests, examples or CI
//! ([`check_package`]).

use crate::base::args::Args;
use crate::base::process;
use crate::base::scratch::Scratch;
use crate::base::{cargo_json, deps, files, Result};
use crate::release::CRATES;

/// The size a package may have, in KiB.
const MAX_KIB: u64 = 1024;

/// `cargo xtask package-check`.
pub fn run(_: &Args) -> Result {
    deps::use_fetched(false)?;
    let target = Scratch::new("package-check")?;
    let mut package = process::command("cargo");
    package
        .arg("package")
        .args(CRATES.map(|c| format!("--package={c}")));
    process::run(package.env("CARGO_TARGET_DIR", target.path()))?;

    for (name, package) in CRATES.into_iter().zip(cargo_json::packages(CRATES)?) {
        let version = package["version"].as_str().unwrap_or_default();
        let file = target
            .path()
            .join(format!("package/{name}-{version}.crate"));
        let listing = process::output(process::command("tar").arg("tzf").arg(&file))?;
        let prefix = format!("{name}-{version}/");
        let files: Vec<String> = (listing.lines())
            .map(|l| l.strip_prefix(&prefix).unwrap_or(l).to_string())
            .collect();
        let kib = fs_err::metadata(&file)?.len().div_ceil(1024);
        println!("  {name}-{version}.crate: {} files, {kib} KiB", files.len());
        check_package(name, &files, kib)?;
    }
    println!("package-check: the four crates package and build from their .crate files");
    Ok(())
}

/// What the package `name` (its `files`, `kib` in size) must hold and must not: under 1 MiB; its
/// manifest, both license texts, a README (but the generator); cuda-driver-sys-items's every
/// committed generated file and its build script, not the generator (a crate of its own);
/// cuda-driver-sys's build script that looks for the library; nothing of the tests, the examples
/// or the CI.
fn check_package(name: &str, files: &[String], kib: u64) -> Result {
    if kib >= MAX_KIB {
        let why = "over the 1 MiB this workspace allows itself";
        return Err(format!("{name}'s package is {kib} KiB, {why}").into());
    }
    let own = match name {
        "cuda-driver-sys-generator" => "",
        "cuda-driver-sys-items" => "README.md build/main.rs build/header.rs",
        "cuda-driver-sys" => "README.md build/main.rs build/search.rs src/lib.rs",
        _ => "README.md",
    };
    let mut wanted: Vec<String> = ["Cargo.toml", "LICENSE-MIT", "LICENSE-APACHE"]
        .into_iter()
        .chain(own.split_whitespace())
        .map(String::from)
        .collect();
    if name == "cuda-driver-sys-items" {
        for file in files::named(&crate::base::prototypes::generated(), "", ".rs")? {
            wanted.push(format!("src/generated/{}", files::name(&file)));
        }
    }
    if let Some(f) = wanted.iter().find(|f| !files.contains(f)) {
        return Err(format!("{name}'s package lacks {f}").into());
    }
    let foreign = ["tests/support/", "examples/", "ci/"];
    if (files.iter()).any(|f| foreign.iter().any(|p| f.starts_with(p))) {
        return Err(format!("{name}'s package holds test, example or CI files").into());
    }
    if name == "cuda-driver-sys-items" && files.iter().any(|f| f.starts_with("generator/")) {
        return Err(format!("{name}'s package holds the generator (a crate of its own)").into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_lacking_files_or_holding_tests_are_rejected() {
        let good = "Cargo.toml LICENSE-MIT LICENSE-APACHE README.md src/lib.rs";
        let good: Vec<String> = good.split(' ').map(String::from).collect();
        assert!(check_package("cuda-check", &good, 10).is_ok());
        assert!(check_package("cuda-check", &good, 1024).is_err());
        assert!(check_package("cuda-check", &good[1..], 10).is_err());
        assert!(check_package("cuda-driver-sys-generator", &good[..3], 10).is_ok());
        assert!(check_package("cuda-check", &good[..3], 10).is_err());
        let mut with_tests = good.clone();
        with_tests.push("tests/support/build.rs".into());
        assert!(check_package("cuda-check", &with_tests, 10).is_err());
    }
}
