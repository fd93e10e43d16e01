//! `cargo xtask cudarc-check`: cudarc 0.19.10 with its driver module on this workspace's crate
//! (`ours`) beside cudarc on its own `sys` (`own`), built for each `dependents` version, linked and
//! dynamically loaded ([`build`]), run and compared as docs/DESIGN.md ("The test command", step
//! 10) says. With `--bundle DIR`, every build and the benchmark and tour programs go into DIR for
//! gpu-bundle.

mod build;

use crate::base::args::Args;
use crate::base::driver::links_stub;
use crate::base::files::{self, copy, read};
use crate::base::process;
use crate::base::{capture, outcomes, versions, Result};
use crate::dependents::trees::{link_folders, run_build, start};
use build::Build;
use std::path::Path;
use std::time::Instant;

/// The cudarc release, as ci/cudarc/Cargo.lock pins it.
const VERSION: &str = "0.19.10";

/// Runs the task.
pub fn run(args: &Args) -> Result {
    let started = Instant::now();
    let trees = [("own", "own"), ("ours", "ours")];
    let Some((work, data, _, bundle)) = start("cudarc", Some(VERSION), trees, args)? else {
        return Ok(());
    };
    // cudarc's own warnings are not this check's business; no debug info: smaller binaries.
    std::env::set_var("RUSTFLAGS", "--cap-lints allow");
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "0");
    let nvrtc = crate::base::deps::ptx_tools::Pins::read()?.fetch()?.nvrtc;
    let nvrtc_dir = nvrtc.parent().ok_or("NVRTC has no folder")?.to_path_buf();
    let (links, _) = link_folders(&work)?;
    // A folder with `libnvrtc.so`, the name the linker looks for.
    let nvrtc_link = work.join("nvrtc-link");
    files::create_dir(&nvrtc_link)?;
    files::link(&nvrtc.to_string_lossy(), &nvrtc_link.join("libnvrtc.so"))?;
    let links_of = |v: u32| -> Result<[&Path; 2]> { Ok([links.for_header(v)?, &nvrtc_link]) };

    let dependents = versions::tagged("dependents")?;
    // For each version, linked then dynamic; ours first in each pair: a migration edit missing
    // stops the check at once, with the compiler's error.
    let pairs = [(true, true), (true, false), (false, true), (false, false)];
    let builds: Vec<Build> = (dependents.iter())
        .flat_map(|&v| pairs.map(|(linked, ours)| Build::new(ours, v, linked)))
        .collect();
    let build_all = |dest: &Path| -> Result {
        for b in &builds {
            b.build(&work, &dest.join(b.tag()), links_of(b.version)?)?;
        }
        Ok(())
    };

    if let Some(bundle) = bundle {
        files::create_dir(&bundle)?;
        let default = versions::the_one("default")?;
        for ours in [false, true] {
            let build = Build::new(ours, default, false);
            let dest = bundle.join(format!("bench-{}", build.side()));
            build.program(&work, "bench", &dest, links_of(default)?)?;
        }
        // gpu-run lists the driver functions the linked builds call from the dynamic linker's
        // bindings, which must then happen at the first call of each: calls through the PLT
        // (rustc's default on x86-64 calls through the GOT, bound at load time, unstable
        // `-Z plt=yes` changes that), bound lazily (`-z lazy` after rustc's `-z now`).
        std::env::set_var("RUSTC_BOOTSTRAP", "1");
        std::env::set_var(
            "RUSTFLAGS",
            "--cap-lints allow -Z plt=yes -C link-arg=-Wl,-z,lazy",
        );
        files::create_dir(&bundle.join("nvrtc"))?;
        build_all(&bundle)?;
        // The tour needs the CUmemLocation signatures of cuMemAdvise and cuMemPrefetchAsync.
        let mem_location = versions::the_one("mem-location")?;
        for b in builds
            .iter()
            .filter(|b| b.linked && b.version >= mem_location)
        {
            let dest = bundle.join(b.tag()).join("tour");
            b.program(&work, "tour", &dest, links_of(b.version)?)?;
        }
        for file in files::sorted(&nvrtc_dir, "libnvrtc")? {
            copy(&file, &bundle.join("nvrtc").join(files::name(&file)))?;
        }
        copy(&data.join("timing-tests"), &bundle.join("timing-tests"))?;
        return Ok(());
    }

    build_all(&work.join("runs"))?;
    let dotted: Vec<String> = dependents.iter().map(|&v| versions::dotted(v)).collect();
    println!(
        "cudarc-check: built {} times (own and ours; {}; linked and dynamic; NVRTC 12.0)",
        builds.len(),
        dotted.join(", ")
    );

    // Run on the 535 library and compare, test by test; not the linked builds that link the stub
    // (built here, run on the GPU).
    let ld_path = process::loader_path_with(&nvrtc_dir);
    std::env::set_var("LD_LIBRARY_PATH", ld_path);
    let expected_file = data.join("expected-differences");
    let expected = outcomes::expected(&read(&expected_file)?);
    let mut summary = Vec::new();
    for pair in builds.chunks(2) {
        let [ours, own] = pair else { continue };
        if ours.linked && links_stub(ours.version)? {
            summary.push(format!("{}: built, runs on the GPU", ours.pair_name()));
            continue;
        }
        let outcomes_file = |b: &Build| work.join(format!("outcomes-{}", b.tag()));
        let run = |b: &Build, args: &[&str]| {
            run_build(&work.join("runs").join(b.tag()), &outcomes_file(b), args)
        };
        let own_text = run(own, &[])?;
        // Ours is held to own's outcomes, test by test, but those the file lists
        // (dependent-run --same-as).
        let (own_file, listed) = (outcomes_file(own), expected_file.to_string_lossy());
        let ours_text = run(ours, &["--same-as", &own_file.to_string_lossy(), &listed])?;
        summary.push(format!(
            "{}: {} tests and examples, passed own {} ours {}",
            ours.pair_name(),
            own_text.lines().count(),
            outcomes::passed(&own_text),
            outcomes::passed(&ours_text)
        ));
    }
    for line in summary {
        println!("cudarc-check: {line}");
    }
    no_driver(&work, &nvrtc_dir)?;
    println!(
        "cudarc-check: same outcomes on own and ours, expected differences: {}; {}s",
        expected.len(),
        started.elapsed().as_secs()
    );
    Ok(())
}

/// With no driver library to load, cudarc's first example on this crate reports the error its
/// API has for that (`DriverError`, `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`), where cudarc on its
/// own `sys` panics: both dynamically loaded, at the default header.
fn no_driver(work: &Path, nvrtc_dir: &Path) -> Result {
    let version = versions::the_one("default")?;
    let mut ours_ended = (0, String::new());
    for (ours, side) in [(false, "own sys"), (true, "ours")] {
        let dir = work
            .join("runs")
            .join(Build::new(ours, version, false).tag());
        let mut example = process::command(dir.join("examples/01-allocate"));
        example.current_dir(&dir).env("LD_LIBRARY_PATH", nvrtc_dir);
        let (status, text) = capture::merged(&mut example)?;
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let code = capture::exit_code(status);
        println!("cudarc-check: no driver library: 01-allocate on {side} exits {code}: {first}");
        ours_ended = (code, text);
    }
    // 303: CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, as cudarc's Debug of the code prints it.
    let (status, text) = ours_ended;
    if status != 1 || text.contains("panicked") || !text.contains("cudaError_enum(303)") {
        return Err(
            "with no driver library, cudarc's 01-allocate on this crate did not end with its \
             DriverError CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (output above; a libcuda.so.1 on \
             the loader's default path makes this check meaningless)"
                .into(),
        );
    }
    Ok(())
}
