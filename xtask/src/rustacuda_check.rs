//! `cargo xtask rustacuda-check [--bundle DIR]`: rustacuda 0.1.3, a real dependent written for
//! the registry's cuda-driver-sys 0.3.0, built on this workspace's crate. The test task runs it;
//! gpu-bundle runs it with `--bundle DIR`:
//!
//!   cargo xtask rustacuda-check                # CI: build, run on Debian's 535 library, compare
//!   cargo xtask rustacuda-check --bundle DIR   # the GPU bundle's part: the oldest and newest
//!                                              # `dependents` builds in DIR
//!
//! rustacuda comes from the package registry through cargo, pinned with its checksum by
//! ci/rustacuda/Cargo.lock, and is unpacked from cargo's cache twice under
//! target/rustacuda-check/: as published (on cuda-driver-sys 0.3.0, which links libcuda), and with
//! ci/rustacuda/migration.patch applied (docs/MIGRATING.md gives each edit's reason), on this
//! workspace's cuda-driver-sys through `[patch.crates-io]`. Each build (0.3.0; ours with each
//! `dependents` version; the headers newer than the 535 driver link the stub library) compiles
//! the library, the unit and integration tests, the example and every doctest, into a folder
//! dependent-run runs ([`build`]). In CI, the 0.3.0 build and ours but for the headers that bind
//! cuCtxCreate_v4 (the 535 driver lacks it: run on the GPU) run on Debian's 535 library (no GPU:
//! what needs a device fails alike), and every outcome of ours must equal 0.3.0's but those
//! ci/rustacuda/expected-differences lists ([`outcomes`]). One target folder serves every build.

mod build;

use crate::checks::binds_ctx_create_v4;
use crate::dependents::{apply, patch_config, pinned_crate, LinkFolders};
use crate::outcomes;
use crate::process::root;
use crate::versions;
use crate::{deps, run_task, Result};
use build::Builder;
use std::path::Path;
use std::time::Instant;

/// The data folder: the pinning package, the patch, the expected differences.
const DATA: &str = "ci/rustacuda";

/// `cargo xtask rustacuda-check [--bundle DIR]`: the builds, then (without `--bundle`) the runs
/// and their comparison.
pub fn run(args: &[String]) -> Result {
    let started = Instant::now();
    let bundle = match args {
        [] => None,
        [flag, dir] if flag == "--bundle" => Some(root().join(dir)),
        _ => return Err("usage: cargo xtask rustacuda-check [--bundle DIR]".into()),
    };
    deps::use_fetched(&[])?;
    let work = root().join("target/rustacuda-check");
    std::fs::create_dir_all(&work)?;
    std::env::set_var("CARGO_TARGET_DIR", work.join("target"));
    // rustacuda's own warnings (42, the same on both crates) are not this check's business.
    std::env::set_var("RUSTFLAGS", "--cap-lints allow");

    let crate_file = pinned_crate("rustacuda", "0.1.3")?;
    let (published, migrated) = (work.join("published"), work.join("migrated"));
    unpack(&crate_file, &published)?;
    unpack(&crate_file, &migrated)?;
    if !apply(&format!("{DATA}/migration.patch"), &migrated)? {
        return Err(format!("{DATA}/migration.patch does not apply to rustacuda 0.1.3").into());
    }
    let links = LinkFolders::new(&work)?;
    let builder = Builder::new(&work)?;
    let ours = |v: u32, dest: &Path| -> Result {
        let features = format!("cuda-driver-sys/cuda-{v}");
        builder.build(
            &format!("ours-{v}"),
            &migrated,
            dest,
            links.ours(v)?,
            &["--config", &patch_config(), "--features", &features],
        )
    };
    let dependents = versions::tagged("dependents")?;

    if let Some(bundle) = bundle {
        std::fs::create_dir_all(&bundle)?;
        // One build per end of the range the GPU run covers.
        let (Some(&oldest), Some(&newest)) = (dependents.first(), dependents.last()) else {
            return Err("cuda-driver-sys-items/versions.txt tags no version `dependents`".into());
        };
        for v in [oldest, newest] {
            ours(v, &bundle.join(format!("ours-{v}")))?;
        }
        std::fs::copy(
            root().join(DATA).join("expected-differences"),
            bundle.join("expected-differences"),
        )?;
        return Ok(());
    }

    // Ours first: a migration edit missing stops the check at once, with the compiler's error.
    for &v in &dependents {
        ours(v, &work.join(format!("run-ours-{v}")))?;
    }
    builder.build(
        "0.3.0",
        &published,
        &work.join("run-0.3.0"),
        &links.published,
        &[],
    )?;
    let built = build::count_binaries(&work)?;
    let features: Vec<String> = dependents.iter().map(|v| format!("cuda-{v}")).collect();
    println!(
        "rustacuda-check: built {} times (0.3.0; ours with {}): {built} binaries",
        dependents.len() + 1,
        features.join(", ")
    );

    // Run on the 535 library and compare, test by test; not ours for the headers that bind
    // cuCtxCreate_v4, which that driver lacks (built here, run on the GPU).
    let mut run_tags = vec!["0.3.0".to_string()];
    for &v in &dependents {
        if !binds_ctx_create_v4(v)? {
            run_tags.push(format!("ours-{v}"));
        }
    }
    for tag in &run_tags {
        let dir = work.join(format!("run-{tag}"));
        let outcomes = work.join(format!("outcomes-{tag}"));
        run_task(
            "dependent-run",
            &[&dir.to_string_lossy(), &outcomes.to_string_lossy()],
        )?;
    }
    let expected_text = std::fs::read_to_string(root().join(DATA).join("expected-differences"))?;
    let expected = outcomes::expected(&expected_text);
    let read_outcomes = |tag: &str| -> Result<String> {
        let path = work.join(format!("outcomes-{tag}"));
        crate::files::read(&path)
    };
    let baseline = read_outcomes("0.3.0")?;
    for tag in &run_tags[1..] {
        let ours = read_outcomes(tag)?;
        let differ = outcomes::differing(&baseline, &ours);
        if differ != expected {
            println!("rustacuda-check: {tag}: the outcomes that differ from 0.3.0's are not those listed:");
            let files = [
                (work.join("outcomes-0.3.0"), baseline.as_str()),
                (work.join(format!("outcomes-{tag}")), ours.as_str()),
            ];
            for line in outcomes::report(&expected, &differ, &files) {
                println!("  {line}");
            }
            return Err(format!(
                "{tag}: the outcomes that differ from 0.3.0's are not those listed (above)"
            )
            .into());
        }
    }
    let mut passed = Vec::new();
    for tag in &run_tags {
        passed.push(format!("{tag} {}", outcomes::passed(&read_outcomes(tag)?)));
    }
    let listed: Vec<&str> = expected.iter().map(String::as_str).collect();
    println!(
        "rustacuda-check: built {built} binaries; run {} tests per build on the 535 library, \
         passed: {}; expected difference: {} ({}); {}s",
        baseline.lines().count(),
        passed.join(", "),
        listed.len(),
        listed.join(" "),
        started.elapsed().as_secs()
    );
    Ok(())
}

/// rustacuda 0.1.3 as published into `dir`, its own workspace, with the pinned lock.
fn unpack(crate_file: &Path, dir: &Path) -> Result {
    crate::dependents::unpack(crate_file, dir, &root().join(DATA).join("Cargo.lock"))
}
