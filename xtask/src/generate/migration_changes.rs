//! `cargo xtask migration-changes [--check]`: the change lists from the older binding crates, by
//! the generator's `migration_changes` bin, from each one's bindings (`src/cuda.rs` of its .crate,
//! pinned by checksum: [`crate::base::pinned_crate`]) and the committed ones:
//! `docs/MIGRATING-CHANGES.md` from cuda-driver-sys 0.3.0, with the generator's list of the
//! enumerators whose value changed (`cuda-driver-sys-items/generator/src/renumbered_since_0_3.txt`),
//! and `docs/MIGRATING-CHANGES-CUST-RAW.md` from cust_raw 0.11.3. `--check`: fail if a file differs
//! from what it would write, instead of rewriting them.

use crate::base::args::Args;
use crate::base::files::recreate_dir;
use crate::base::process::{self, root};
use crate::base::{generator, pinned_crate, Result};

/// The crates compared: the generator's `--baseline` word, the crate's name and version.
const BASELINES: [(&str, &str, &str); 2] = [
    ("0.3", "cuda-driver-sys", "0.3.0"),
    ("cust_raw", "cust_raw", "0.11.3"),
];

/// `cargo xtask migration-changes [--check]`.
pub fn run(args: &Args) -> Result {
    // Relative to the workspace root, the generator's working folder.
    let work_name = "target/migration-changes";
    let work = root().join(work_name);
    recreate_dir(&work, "")?;
    for (baseline, name, version) in BASELINES {
        let crate_file = pinned_crate::path(name, version)?;
        let member = format!("{name}-{version}/src/cuda.rs");
        process::run(
            process::command("tar")
                .arg("xzf")
                .arg(&crate_file)
                .arg("-C")
                .arg(&work)
                .arg(&member),
        )?;
        process::run(
            generator::program("migration_changes")
                .args(["--baseline", baseline])
                .arg(format!("{work_name}/{member}"))
                .args(args.flag("--check").then_some("--check")),
        )?;
    }
    Ok(())
}
