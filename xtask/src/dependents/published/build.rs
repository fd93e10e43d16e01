//! One build of a published dependent: everything its `cargo test` builds (the unit and
//! integration tests, the examples, each doctest), stripped into a folder that dependent-run runs
//! without cargo (its module says what the folder holds).

use super::Dependent;
use crate::base::files::{self, name, sorted};
use crate::base::libtest::{summary, test_line, Outcome};
use crate::base::{cargo_json, process, Result};
use crate::dependents::trees::strip;
use fs_err as fs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// What every build needs: the dependent, the scratch folder of rustdoc's doctests, the rustdoc
/// wrapper, the standard library.
pub struct Builder<'a> {
    dep: &'a Dependent,
    doctests: PathBuf,
    rustdoc: PathBuf,
    libstd: PathBuf,
}

impl<'a> Builder<'a> {
    /// Writes the rustdoc wrapper under `work` and finds the toolchain's standard library.
    pub fn new(dep: &'a Dependent, work: &Path) -> Result<Self> {
        // rustdoc keeps each doctest's binary (--persist-doctests) without running it (--no-run):
        // both unstable, so RUSTC_BOOTSTRAP for rustdoc alone (for rustc it would rebuild
        // proc-macro2).
        let rustdoc = work.join("rustdoc");
        files::write(
            &rustdoc,
            "#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec rustdoc \"$@\"\n",
        )?;
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&rustdoc, std::fs::Permissions::from_mode(0o755))?;
        let lib = process::output(process::command("rustc").args(["--print", "target-libdir"]))?;
        let lib = Path::new(lib.trim_end());
        let libstd = (files::named(lib, "libstd-", ".so")?.into_iter().next())
            .ok_or_else(|| format!("no libstd-*.so in {}", lib.display()))?;
        let doctests = work.join("doctests");
        Ok(Builder {
            dep,
            doctests,
            rustdoc,
            libstd,
        })
    }

    /// Builds the crate in `src` (`tag` in messages), linking `link`, with the extra cargo
    /// `args`, into `dest`; the number of binaries it holds.
    pub fn build(
        &self,
        tag: &str,
        src: &Path,
        dest: &Path,
        link: &Path,
        args: &[&str],
    ) -> Result<usize> {
        files::remove_dir(dest)?;
        for d in ["tests", "examples", "doctests", "lib"] {
            files::create_dir(&dest.join(d))?;
        }
        if src.join("resources").is_dir() {
            process::run(
                process::command("cp")
                    .arg("-r")
                    .arg(src.join("resources"))
                    .arg(dest),
            )?;
        }
        let libstd_name = self.libstd.file_name().expect("a file");
        strip(&self.libstd, &dest.join("lib").join(libstd_name))?;

        let label = format!("{} {}", self.dep.name, self.dep.version);
        println!("building {label} ({tag}): library, tests, examples");
        let failed = || format!("{tag}: the build failed (the compiler's errors are above)");
        let mut cargo_test = cargo(src, link);
        cargo_test.args([
            "test",
            "--offline",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ]);
        let built = cargo_json::built(cargo_test.args(args)).map_err(|_| failed())?;
        for e in built.executables {
            let to = match e.kind.as_str() {
                "lib" => dest.join("tests/unit"),
                "test" => dest.join("tests").join(&e.name),
                "example" => dest.join("examples").join(&e.name),
                _ => continue,
            };
            strip(&e.path, &to).map_err(|_| failed())?;
        }
        if let Some(missing) = self.dep.required.iter().find(|f| !dest.join(f).is_file()) {
            return Err(format!("{tag}: {missing} was not built").into());
        }

        println!("building {label} ({tag}): doctests");
        files::remove_dir(&self.doctests)?;
        // The doctests link the standard library dynamically (lib/): 30 KB each instead of 5 MB.
        let flags = format!(
            "-Zunstable-options --persist-doctests {} --no-run -C prefer-dynamic -C strip=symbols",
            self.doctests.display()
        );
        // A doctest that does not compile fails rustdoc's run; it is an outcome of its own
        // (doctests/unbuilt), compared between the builds like the others.
        let mut command = cargo(src, link);
        command.args(["test", "--offline", "--doc"]).args(args);
        command
            .env("RUSTDOC", &self.rustdoc)
            .env("RUSTDOCFLAGS", flags);
        let out = command.output().map_err(|e| process::error(&command, e))?;
        let said = String::from_utf8_lossy(&out.stdout);
        let results: Vec<&str> = said.lines().filter(|l| summary(l).is_some()).collect();
        if results.is_empty() {
            return Err(format!("{tag}: the doctests did not build").into());
        }
        for line in results {
            println!("  {tag} doctests compiled: {line}");
        }
        let unbuilt = unbuilt_doctests(&said);
        if !out.status.success() && unbuilt.is_empty() {
            return Err(format!("{tag}: the doctests did not build").into());
        }
        let list: String = unbuilt.iter().map(|t| format!("{t}\n")).collect();
        files::write(&dest.join("doctests/unbuilt"), list)?;
        // rustdoc's doctest binaries under stable names, with the index file.
        let dirs: Vec<String> = (sorted(&self.doctests, "")?.iter())
            .filter(|d| d.join("rust_out").exists())
            .map(|d| name(d))
            .collect();
        let mut index = String::new();
        let named = stable_names(&dirs);
        for (name, dir) in &named {
            let to = dest.join("doctests").join(name);
            files::copy(&self.doctests.join(dir).join("rust_out"), &to)?;
            index.push_str(&format!("{name} {dir}\n"));
        }
        files::write(&dest.join("doctests/index"), index)?;

        let [tests, examples] = ["tests", "examples"].map(|d| sorted(&dest.join(d), ""));
        let (tests, examples, doctests) = (tests?.len(), examples?.len(), named.len());
        println!(
            "  {tag}: {tests} test binaries, {examples} examples, {doctests} doctest binaries in {}",
            dest.display()
        );
        Ok(tests + examples + doctests)
    }
}

/// The doctests that rustdoc failed to compile (`test src/a.rs - f (line 9) - compile ...
/// FAILED`), as `src/a.rs - f`: without their line, which a patch moves.
fn unbuilt_doctests(said: &str) -> Vec<String> {
    let mut unbuilt: Vec<String> = (said.lines().filter_map(test_line))
        .filter(|(_, outcome)| *outcome == Outcome::Failed)
        .map(|(t, _)| t.split(" (line ").next().unwrap_or(t).to_string())
        .collect();
    unbuilt.sort();
    unbuilt
}

/// `cargo`, run in the crate `src`, linking `link`, its errors shown.
fn cargo(src: &Path, link: &Path) -> std::process::Command {
    let mut cargo = process::command("cargo");
    cargo.current_dir(src).env("CUDA_LIBRARY_PATH", link);
    cargo.stderr(Stdio::inherit());
    cargo
}

/// rustdoc's doctest folders (`<file>_<line>_<n>`) named `<file>-<rank>`, the rank by line
/// within the file: the same names on both crates (the patch moves lines). In name order; the
/// folders not so named are left out.
fn stable_names(dirs: &[String]) -> Vec<(String, String)> {
    let mut by_file: BTreeMap<&str, Vec<(u64, u64, &str)>> = BTreeMap::new();
    for dir in dirs {
        let mut parts = dir.rsplitn(3, '_');
        let (Some(n), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let number = |s: &str| s.parse::<u64>().ok().filter(|_| !s.starts_with('+'));
        if let (Some(line), Some(n)) = (number(line), number(n)) {
            by_file.entry(file).or_default().push((line, n, dir));
        }
    }
    let mut named = Vec::new();
    for (file, mut tests) in by_file {
        tests.sort();
        for (rank, (_, _, dir)) in tests.into_iter().enumerate() {
            named.push((format!("{file}-{}", rank + 1), dir.to_string()));
        }
    }
    named
}

#[cfg(test)]
mod tests {
    #[test]
    fn doctests_are_ranked_by_line_within_their_file_and_other_folders_left_out() {
        let dirs = "src_a_rs_40_1 index src_a_rs_7_0 src_a_rs_x_1 src_b_rs_12_3 src_a_rs_1_ \
                    src_a_rs_40_0 a_1";
        let dirs: Vec<String> = dirs.split_whitespace().map(String::from).collect();
        let expected = [
            ("src_a_rs-1", "src_a_rs_7_0"),
            ("src_a_rs-2", "src_a_rs_40_0"),
            ("src_a_rs-3", "src_a_rs_40_1"),
            ("src_b_rs-1", "src_b_rs_12_3"),
        ];
        let expected = expected.map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(super::stable_names(&dirs), expected);
    }

    #[test]
    fn doctests_that_did_not_compile_are_named_without_their_line() {
        let summary = "test src/a.rs - f (line 9) - compile ... FAILED\n\
                       test src/a.rs - g (line 20) ... ok\n\
                       test src/b.rs - T::h (line 3) ... FAILED\n";
        let unbuilt = super::unbuilt_doctests(summary);
        assert_eq!(unbuilt, ["src/a.rs - f", "src/b.rs - T::h"]);
    }
}
