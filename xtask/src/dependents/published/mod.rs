//! rustacuda-check and cust-check: a published crate built on its old bindings and on this crate
//! with each `dependents` version, run and compared as docs/DESIGN.md ("The test command", step
//! 10) says. With `--bundle DIR`, the oldest and newest `dependents` builds (and the old bindings'
//! build, if gpu-run compares with it) go into DIR for gpu-bundle.

mod build;

use crate::base::args::Args;
use crate::base::driver::binds_ctx_create_v4;
use crate::base::files::{self, read};
use crate::base::outcomes as compare;
use crate::base::{versions, Result};
use crate::dependents::trees::{link_folders, patch_config, run_build, start};
use build::Builder;
use std::path::Path;
use std::time::Instant;

/// One published dependent and how it is checked.
pub struct Dependent {
    /// The crate's name and version in the package registry (`rustacuda`, `0.1.3`).
    pub name: &'static str,
    pub version: &'static str,
    /// The old bindings it is published on, as the outcomes of that build are tagged (`0.3.0`).
    pub baseline: &'static str,
    /// The name its Cargo.toml gives cuda-driver-sys after the patch (`<dependency>/cuda-<V>`).
    pub dependency: &'static str,
    /// Whether the builds for the headers that bind cuCtxCreate_v4 (which the 535 library lacks)
    /// use `dynamic-loading` and run in CI (else they run on the GPU only).
    pub dynamic_when_newer: bool,
    /// What every build must have made, relative to its folder (`tests/unit`).
    pub required: &'static [&'static str],
    /// Whether the GPU bundle holds the old bindings' build too, for gpu-run to compare with as CI
    /// does (else gpu-run wants every test to pass but the expected differences).
    pub gpu_baseline: bool,
    /// An optional dependency that the migrated tree's lock must hold (its control).
    pub control: Option<&'static str>,
}

/// rustacuda-check: rustacuda 0.1.3, written for the registry's cuda-driver-sys 0.3.0; its
/// example too must build; its 13.0 build runs on the GPU only.
pub fn rustacuda(args: &Args) -> Result {
    let rustacuda = Dependent {
        name: "rustacuda",
        version: "0.1.3",
        baseline: "0.3.0",
        dependency: "cuda-driver-sys",
        dynamic_when_newer: false,
        gpu_baseline: false,
        control: None,
        required: &["tests/unit", "examples/launch"],
    };
    run(&rustacuda, args)
}

/// cust-check: cust 0.3.2 (Rust-CUDA's driver layer), written for cust_raw 0.11.3 (the CUDA 11.4
/// bindings, whose find_cuda_helper wants a folder with `lib64/`); its 13.0 build uses
/// `dynamic-loading` in CI, so that it runs on the 535 library too. On the GPU its outcomes are
/// compared with cust_raw's build, as in CI: four of its doctests do not compile on either.
pub fn cust(args: &Args) -> Result {
    let cust = Dependent {
        name: "cust",
        version: "0.3.2",
        baseline: "cust_raw-0.11.3",
        dependency: "cust_raw",
        dynamic_when_newer: true,
        gpu_baseline: true,
        control: Some("half"),
        required: &["tests/unit"],
    };
    run(&cust, args)
}

/// The check of `dep`: the builds, then (without `--bundle`) the runs and their comparison.
fn run(dep: &Dependent, args: &Args) -> Result {
    let started = Instant::now();
    let trees = [("published", "published"), ("migrated", "migrated")];
    let Some((work, data, [published, migrated], bundle)) =
        start(dep.name, Some(dep.version), trees, args)?
    else {
        return Ok(());
    };
    let task = format!("{}-check", dep.name);
    // The crate's own warnings (the same on both bindings) are not this check's business.
    std::env::set_var("RUSTFLAGS", "--cap-lints allow");
    if let Some(optional) = dep.control {
        migrated.control_without(optional, &work.join("control"))?;
    }
    let (links, published_link) = link_folders(&work)?;
    let builder = Builder::new(dep, &work)?;
    let ours = |v: u32, dynamic: bool, dest: &Path| -> Result<usize> {
        let mut features = format!("{}/cuda-{v}", dep.dependency);
        if dynamic {
            features.push_str(&format!(",{}/dynamic-loading", dep.dependency));
        }
        let tag = format!("ours-{v}{}", if dynamic { "-dynamic" } else { "" });
        let args = ["--config", &patch_config(), "--features", &features];
        builder.build(&tag, &migrated.dir, dest, links.for_header(v)?, &args)
    };
    let baseline =
        |dest: &Path| builder.build(dep.baseline, &published.dir, dest, &published_link, &[]);
    let dependents = versions::tagged("dependents")?;
    let expected_file = data.join("expected-differences");

    if let Some(bundle) = bundle {
        files::create_dir(&bundle)?;
        // One build per end of the range the GPU run covers, linked.
        let (Some(&oldest), Some(&newest)) = (dependents.first(), dependents.last()) else {
            return Err("cuda-driver-sys-items/versions.txt tags no version `dependents`".into());
        };
        for v in [oldest, newest] {
            ours(v, false, &bundle.join(format!("ours-{v}")))?;
        }
        if dep.gpu_baseline {
            baseline(&bundle.join("baseline"))?;
        }
        return files::copy(&expected_file, &bundle.join("expected-differences"));
    }

    // Ours first: a migration edit missing stops the check at once, with the compiler's error.
    let mut run_tags = vec![dep.baseline.to_string()];
    let (mut built, mut built_features) = (0, Vec::new());
    for &v in &dependents {
        let newer = binds_ctx_create_v4(v)?;
        let dynamic = newer && dep.dynamic_when_newer;
        let tag = format!("ours-{v}");
        built += ours(v, dynamic, &work.join(format!("run-{tag}")))?;
        let loading = if dynamic { " + dynamic-loading" } else { "" };
        built_features.push(format!("cuda-{v}{loading}"));
        // Not the builds that link cuCtxCreate_v4, which that driver lacks (run on the GPU).
        if !newer || dynamic {
            run_tags.push(tag);
        }
    }
    built += baseline(&work.join(format!("run-{}", dep.baseline)))?;
    println!(
        "{task}: built {} times ({}; ours with {}): {built} binaries",
        dependents.len() + 1,
        dep.baseline,
        built_features.join(", ")
    );

    // Run on the 535 library and compare, test by test.
    let outcomes_file = |tag: &str| work.join(format!("outcomes-{tag}"));
    let mut texts = Vec::new();
    for tag in &run_tags {
        let dir = work.join(format!("run-{tag}"));
        texts.push(run_build(&dir, &outcomes_file(tag), &[])?);
    }
    let expected = compare::expected(&read(&expected_file)?);
    let (baseline_file, baseline) = (outcomes_file(dep.baseline), &texts[0]);
    for (tag, ours) in run_tags.iter().zip(&texts).skip(1) {
        let compared = [
            (baseline_file.as_path(), baseline.as_str()),
            (&outcomes_file(tag), ours),
        ];
        if let Some(report) = compare::mismatch(&expected, compared) {
            let why = format!(
                "{tag}: the outcomes that differ from {}'s are not those listed",
                dep.baseline
            );
            println!("{task}: {why}:");
            for line in report {
                println!("  {line}");
            }
            return Err(format!("{why} (above)").into());
        }
    }
    let passed: Vec<String> = (run_tags.iter().zip(&texts))
        .map(|(tag, text)| format!("{tag} {}", compare::passed(text)))
        .collect();
    let listed: Vec<&str> = expected.iter().map(String::as_str).collect();
    println!(
        "{task}: built {built} binaries; run {} tests per build on the 535 library, \
         passed: {}; expected differences: {} ({}); {}s",
        baseline.lines().count(),
        passed.join(", "),
        listed.len(),
        listed.join(" "),
        started.elapsed().as_secs()
    );
    Ok(())
}
