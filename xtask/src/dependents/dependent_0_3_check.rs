//! `cargo xtask dependent-0-3-check`: ci/dependent-0-3/, a program written for cuda-driver-sys
//! 0.3.0 that uses each kind of item docs/MIGRATING.md names, built as it is on 0.3.0, then
//! migrated with each `dependents` version (the newest with `compat-0-3` and `-D deprecated`);
//! on Debian's 535 library (no GPU: every call fails alike) each build must print what the 0.3.0
//! build prints (docs/DESIGN.md, "The test command", step 11).

use crate::base::args::Args;
use crate::base::process;
use crate::base::{files, versions, Result};
use crate::dependents::trees::{link_folders, patch_config, start};
use fs_err as fs;
use std::path::Path;
use std::process::Stdio;

/// `cargo xtask dependent-0-3-check`: the 0.3.0 build, then ours with each version; each
/// program's output compared with 0.3.0's.
pub fn run(args: &Args) -> Result {
    let trees = [("published", "Cargo"), ("migrated", "migrated")];
    let Some((work, _, [published, migrated], _)) = start("dependent-0-3", None, trees, args)?
    else {
        return Ok(());
    };
    let (links, published_link) = link_folders(&work)?;
    // `cargo build --quiet --offline` of the program in `tree`.
    let cargo_build = |tree: &Path| {
        let mut cargo = process::command("cargo");
        cargo
            .current_dir(tree)
            .args(["build", "--quiet", "--offline"]);
        cargo
    };
    // Runs the program built last on the 535 library; its output into `<work>/<tag>.out`.
    let run_program = |tag: &str| -> Result {
        let out = fs::File::create(work.join(format!("{tag}.out")))?;
        let mut command = process::command(work.join("target/debug/dependent-0-3"));
        command.env("LD_LIBRARY_PATH", &links.driver);
        process::run(command.stdout(out.into_parts().0))
            .map_err(|e| format!("{tag}: the program failed: {e}").into())
    };

    let mut cargo = cargo_build(&published.dir);
    cargo.env("CUDA_LIBRARY_PATH", &published_link);
    process::run(cargo.arg("--locked")).map_err(|e| format!("0.3.0: the build failed: {e}"))?;
    run_program("0.3.0")?;
    let dependents = versions::tagged("dependents")?;
    let newest = dependents.last().copied();
    for &v in &dependents {
        let tag = format!("ours-{v}");
        let (compat, deny) = match Some(v) == newest {
            true => (",cuda-driver-sys/compat-0-3", "-D deprecated"),
            false => ("", ""),
        };
        let features = format!("cuda-driver-sys/cuda-{v}{compat}");
        let mut cargo = cargo_build(&migrated.dir);
        cargo
            .env("CUDA_LIBRARY_PATH", links.for_header(v)?)
            .env("RUSTFLAGS", deny);
        cargo.args(["--config", &patch_config(), "--features", &features]);
        let failed = format!("{tag}: the build failed (the compiler's errors are above)");
        process::run(&mut cargo).map_err(|e| format!("{failed}: {e}"))?;
        run_program(&tag)?;
        let mut diff = process::command("diff");
        diff.arg("-u").arg(work.join("0.3.0.out"));
        diff.arg(work.join(format!("{tag}.out")));
        process::run(diff.stdout(Stdio::from(std::io::stderr())))
            .map_err(|e| format!("{tag} prints other than 0.3.0 (above): {e}"))?;
    }
    let printed = files::read(&work.join("0.3.0.out"))?;
    let features: Vec<String> = dependents.iter().map(|v| format!("cuda-{v}")).collect();
    println!(
        "dependent-0-3-check: built on 0.3.0 and on ours with {} (compat-0-3, -D deprecated); \
         each printed the same {} lines on the 535 library",
        features.join(", "),
        printed.lines().count()
    );
    for line in printed.lines() {
        println!("  {line}");
    }
    Ok(())
}
