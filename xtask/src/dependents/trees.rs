//! What the checks of dependents share: their start ([`start`]), the committed lock of each tree
//! they build offline ([`LockedTree`]; docs/DESIGN.md, "The dependents' locks"), and the folders
//! each build links.

use crate::base::args::Args;
use crate::base::driver::{self, Links};
use crate::base::files::{self, link};
use crate::base::pinned_crate::{lock_field, ENTRY};
use crate::base::process::{self, root, run_task};
use crate::base::{capture, deps, Result};
use fs_err as fs;
use std::path::{Path, PathBuf};

/// A started check: its work folder (`target/NAME-check`), its data folder (`ci/NAME`), its trees
/// as published and migrated, and the folder `--bundle DIR` names.
pub type Started = (PathBuf, PathBuf, [LockedTree; 2], Option<PathBuf>);

/// Starts `cargo xtask NAME-check`: makes its two `trees` (each a folder of the work folder and its
/// lock's name in `ci/NAME/`), the crate NAME `version` unpacked (or the program of `ci/NAME/`
/// copied) twice, the second with `ci/NAME/migration.patch` applied exactly, and fetches their
/// locked crates; with `--update-locks`, `None` once the locks are updated instead.
pub fn start(
    name: &str,
    version: Option<&str>,
    trees: [(&str, &str); 2],
    args: &Args,
) -> Result<Option<Started>> {
    let (task, data) = (format!("{name}-check"), format!("ci/{name}"));
    deps::use_fetched(false)?;
    let work = root().join("target").join(&task);
    files::create_dir(&work)?;
    std::env::set_var("CARGO_TARGET_DIR", work.join("target"));
    let label = version.map_or(data.clone(), |v| format!("{name} {v}"));
    let crate_file = (version.map(|v| crate::base::pinned_crate::path(name, v))).transpose()?;
    let trees = trees.map(|(dir, lock)| LockedTree {
        dir: work.join(dir),
        label: format!("{label} ({dir})"),
        lock: format!("{data}/{lock}.lock"),
        patched: dir == trees[1].0,
        update: format!("cargo xtask {task} --update-locks"),
    });
    let program = ["Cargo.toml", "Cargo.lock", "src"].map(|f| root().join(&data).join(f));
    for tree in &trees {
        files::remove_dir(&tree.dir)?;
        files::create_dir(&tree.dir)?;
        let Some(file) = &crate_file else {
            process::run(
                process::command("cp")
                    .arg("-r")
                    .args(&program)
                    .arg(&tree.dir),
            )?;
            continue;
        };
        let mut tar = process::command("tar");
        tar.arg("xzf").arg(file).arg("-C").arg(&tree.dir);
        process::run(tar.args(["--strip-components", "1"]))?;
        // Unpacked as a workspace of its own.
        let manifest = tree.dir.join("Cargo.toml");
        files::write(&manifest, files::read(&manifest)? + "\n[workspace]\n")?;
    }
    let patch = format!("{data}/migration.patch");
    let mut apply = process::command("patch");
    apply.arg("-d").arg(&trees[1].dir);
    apply.args(["-p1", "--forward", "--fuzz", "0", "--no-backup-if-mismatch"]);
    let applied =
        process::status(apply.stdin(fs::File::open(root().join(&patch))?.into_parts().0))?;
    if !applied.success() {
        return Err(format!("{patch} does not apply to {label}").into());
    }
    let update_locks = args.flag("--update-locks");
    for tree in &trees {
        match update_locks {
            true => tree.update(&root().join(&data).join("Cargo.lock"))?,
            false => tree.fetch()?,
        }
    }
    let bundle = args.value("DIR").map(|dir| root().join(dir));
    Ok((!update_locks).then_some((work, root().join(data), trees, bundle)))
}

/// The folders the builds link, made under `work` (fixed folders outside the target folder: a new
/// path would rebuild cuda-driver-sys each run): the 535 library's and the stub library's, and the
/// one cuda-driver-sys 0.3.0 and cust_raw 0.11.3 (find_cuda_helper) link as
/// `<CUDA_LIBRARY_PATH>/lib64`, whose `lib64` is the 535 library's folder.
pub fn link_folders(work: &Path) -> Result<(Links, PathBuf)> {
    let published = work.join("cuda-0.3");
    files::create_dir(&published)?;
    let library = driver::library()?;
    link(&library.to_string_lossy(), &published.join("lib64"))?;
    Ok((Links::in_folder(&work.join("stub"))?, published))
}

/// Runs the build in the folder `dir` (`cargo xtask dependent-run DIR OUTCOMES ARGS`), its
/// outcomes into the file `outcomes`; their text.
pub fn run_build(dir: &Path, outcomes: &Path, args: &[&str]) -> Result<String> {
    let (dir, file) = (dir.to_string_lossy(), outcomes.to_string_lossy());
    run_task("dependent-run", &[&[&*dir, &*file], args].concat())?;
    files::read(outcomes)
}

/// The `--config` that builds a dependent on this workspace's cuda-driver-sys.
pub fn patch_config() -> String {
    let sys = root().join("cuda-driver-sys");
    format!("patch.crates-io.cuda-driver-sys.path='{}'", sys.display())
}

/// `strip --strip-debug` of `from` into `to`.
pub fn strip(from: &Path, to: &Path) -> Result {
    process::run(
        process::command("strip")
            .arg("--strip-debug")
            .arg("-o")
            .arg(to)
            .arg(from),
    )
}

/// A tree that a check builds offline, and the committed lock it resolves from.
#[derive(Clone)]
pub struct LockedTree {
    /// The folder it is built in (`target/cust-check/migrated`).
    pub dir: PathBuf,
    /// What it is, in messages (`cust 0.3.2 (migrated)`).
    label: String,
    /// Its committed lock, relative to the workspace root (`ci/cust/migrated.lock`).
    lock: String,
    /// Built on this workspace's cuda-driver-sys ([`patch_config`]).
    patched: bool,
    /// The command that regenerates the lock (`cargo xtask cust-check --update-locks`).
    update: String,
}

impl LockedTree {
    /// Puts the committed lock in the tree and fetches every crate it names (`cargo fetch
    /// --locked`), so that the offline builds find them; a lock that lacks what the package needs
    /// as built fails with the lock to regenerate and the command.
    fn fetch(&self) -> Result {
        let (lock, update) = (&self.lock, &self.update);
        if !root().join(lock).is_file() {
            return Err(format!("{lock} is missing: `{update}` writes it (then commit it)").into());
        }
        files::copy(&root().join(lock), &self.dir.join("Cargo.lock"))?;
        let (status, said) = capture::merged(&mut self.cargo_fetch(true))?;
        if status.success() {
            return Ok(());
        }
        let last = said.lines().rfind(|l| l.starts_with("error")).unwrap_or("");
        if said.contains("--locked") {
            return Err(format!(
                "{lock} lacks crates that {} needs as it is built (cargo: {}): regenerate it with \
                 `{update}` and commit it",
                self.label,
                last.trim(),
            )
            .into());
        }
        Err(format!("fetching the crates of {lock} failed: {said}").into())
    }

    /// Completes the lock in the tree (the committed one if there is one, else `start`) with what
    /// the package needs as built (`cargo fetch`, which keeps every version already locked) and
    /// writes it to the committed path.
    fn update(&self, start: &Path) -> Result {
        let lock = root().join(&self.lock);
        let from = if lock.is_file() { &lock } else { start };
        files::copy(from, &self.dir.join("Cargo.lock"))?;
        process::run(&mut self.cargo_fetch(false))?;
        files::copy(&self.dir.join("Cargo.lock"), &lock)?;
        println!("{}: complete for {}", self.lock, self.label);
        Ok(())
    }

    /// `cargo fetch` of the tree, `--locked` or not.
    fn cargo_fetch(&self, locked: bool) -> std::process::Command {
        let mut cargo = process::command("cargo");
        cargo.arg("fetch").arg("--manifest-path");
        cargo.arg(self.dir.join("Cargo.toml"));
        cargo.args(locked.then_some("--locked"));
        if self.patched {
            cargo.args(["--config", &patch_config()]);
        }
        cargo
    }

    /// The control: a copy of the tree whose lock lacks the package `name` (one the package needs
    /// as built) must fail [`fetch`](Self::fetch) with the message that names the lock and the
    /// command; prints that message.
    pub fn control_without(&self, name: &str, scratch: &Path) -> Result {
        let (lock, update) = (&self.lock, &self.update);
        let text = files::read(&root().join(lock))?;
        let Some(cut) = without_package(&text, name) else {
            return Err(format!("control: {lock} locks no package `{name}`").into());
        };
        files::remove_dir(scratch)?;
        process::run(process::command("cp").arg("-r").arg(&self.dir).arg(scratch))?;
        let cut_lock = scratch.join(format!("without-{name}.lock"));
        files::write(&cut_lock, cut)?;
        let control = LockedTree {
            dir: scratch.to_path_buf(),
            lock: cut_lock.to_string_lossy().into_owned(),
            ..self.clone()
        };
        let without = format!("control: {lock} without `{name}`");
        match control.fetch() {
            Err(e) if e.to_string().contains(update) => {
                println!("{without} fails as it must: {e}");
                files::remove_dir(scratch)
            }
            Err(e) => Err(format!("{without} failed, but without naming `{update}`: {e}").into()),
            Ok(()) => Err(format!(
                "{without} was fetched with --locked: the check cannot see a lock that lacks a \
                 crate"
            )
            .into()),
        }
    }
}

/// The lock file `text` without the package `name` and every mention of it in the dependency
/// lists (` "NAME",` or ` "NAME VERSION",`); `None` if it locks no such package.
fn without_package(text: &str, name: &str) -> Option<String> {
    let mut entries = text.split(ENTRY);
    let mut out = entries.next().unwrap_or("").to_string();
    let mut found = false;
    for entry in entries {
        if lock_field(entry, "name") == Some(name) {
            found = true;
            continue;
        }
        out.push_str(ENTRY);
        for line in entry.split_inclusive('\n') {
            let rest = line
                .trim()
                .strip_prefix('"')
                .and_then(|l| l.strip_prefix(name));
            if !rest.is_some_and(|rest| rest.starts_with(['"', ' '])) {
                out.push_str(line);
            }
        }
    }
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_package_and_its_mentions_are_cut() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\ndependencies = [\n \"half 2.7.1\",\n \"halfway\",\n]\n\n[[package]]\nname = \"half\"\nversion = \"2.7.1\"\n\n[[package]]\nname = \"b\"\ndependencies = [\n \"half\",\n]\n";
        let cut = super::without_package(lock, "half").expect("half is locked");
        assert_eq!(cut, "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\ndependencies = [\n \"halfway\",\n]\n\n[[package]]\nname = \"b\"\ndependencies = [\n]\n");
        assert!(super::without_package(lock, "quarter").is_none());
    }
}
