//! Wine: the prefix and its server, the test bcryptprimitives.dll's randomness, and what a
//! Windows program does when nvcuda.dll is missing.

use super::environment::Windows;
use super::{GNU, WINESERVER};
use crate::base::{files, process, Result};
use crate::platforms::cross::Suite;
use fs_err as fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

impl Windows {
    /// The prefix, a server kept for the step, and the test bcryptprimitives.dll's randomness.
    pub fn start_wine(&mut self, scratch: &Path) -> Result {
        // The server and the services wineboot starts outlive the commands: their output goes
        // nowhere, so that no pipe of this task waits on them.
        files::create_dir(&self.out.join("wine-prefix"))?;
        let quiet = |mut c: Command| {
            c.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            c
        };
        process::run(quiet(self.command(WINESERVER)).arg("-p"))?;
        let start = Instant::now();
        let log = scratch.join("wineboot.log");
        let file = fs::File::create(&log)?;
        let mut boot = quiet(self.wine());
        boot.args(["wineboot", "--init"])
            .stdout(file.try_clone()?.into_file())
            .stderr(file.into_file());
        if !process::status(&mut boot)?.success() {
            print!("{}", files::read(&log)?);
            return Err("windows: wineboot failed (above)".into());
        }
        println!("wineboot: {} s", start.elapsed().as_secs());
        self.wine_path = vec![self.equipment.clone()];
        let mut draws = String::new();
        for _ in 0..2 {
            draws += &process::output(self.wine().arg(self.equipment.join("prng_check.exe")))?;
        }
        let draws = draws.replace('\r', "");
        let distinct: std::collections::BTreeSet<&str> = draws
            .lines()
            .filter(|l| !l.chars().all(|c| c == '0'))
            .collect();
        println!(
            "ProcessPrng of the test bcryptprimitives.dll: {} of 4 draws distinct and not all zeros",
            distinct.len()
        );
        if distinct.len() != 4 {
            println!("{draws}");
            return Err("ProcessPrng gives no random bytes (above)".into());
        }
        Ok(())
    }

    /// With no nvcuda.dll (`suite` runs without it): dynamic-loading starts and says why every
    /// call fails (303), in one line; Windows' loader refuses to start a linked program
    /// (STATUS_DLL_NOT_FOUND). The linked check_driver is the last of `suite`'s builds.
    pub fn without_library(&self, suite: &Suite, version: u32) -> Result {
        let linked = format!("cuda-{version}");
        let dynamic = format!("{linked},dynamic-loading");
        let base = ["--no-default-features", "--features", &dynamic];
        let mut log = String::new();
        for args in [
            &["--test", "dynamic", "--", "--ignored"][..],
            &["--test", "load_from"],
        ] {
            suite.test(&mut log, version, &[&base[..], args].concat())?;
        }
        print!("{}", crate::platforms::test_counts::report(&log).0);
        // The dynamic-loading check_driver, run before the linked build replaces it.
        let examples_dir = self.examples_dir(GNU);
        let mut args = vec!["build", "--target", GNU, "--example", "check_driver"];
        args.extend(base);
        suite.cargo(version, &args)?;
        let mut dynamic = self.wine();
        dynamic.arg(examples_dir.join("check_driver.exe"));
        let (_, report) = crate::base::capture::merged(&mut dynamic)?;
        let report = report.replace('\r', "");
        println!(
            "check_driver (dynamic-loading), no nvcuda.dll: {}",
            report.trim_end_matches('\n')
        );
        if !report.contains("the CUDA driver library could not be loaded: tried nvcuda.dll (") {
            return Err("the example did not say that nvcuda.dll is missing".into());
        }
        let mut args = vec!["build", "--target", GNU, "--example", "check_driver"];
        args.extend(["--no-default-features", "--features", &linked]);
        suite.cargo(version, &args)?;
        let mut linked = self.wine();
        linked
            .env("WINEDEBUG", "err+module")
            .arg(examples_dir.join("check_driver.exe"));
        let (status, loader) = crate::base::capture::merged(&mut linked)?;
        let code = status.code().unwrap_or(-1);
        let named = loader
            .lines()
            .find(|l| l.contains("nvcuda.dll"))
            .unwrap_or("");
        println!("check_driver (linked), no nvcuda.dll: exit status {code}; {named}");
        let not_found = loader
            .find("nvcuda.dll")
            .is_some_and(|at| loader[at..].contains("not found"));
        if status.success() || !not_found {
            println!("{loader}");
            return Err("the linked example started without nvcuda.dll (above)".into());
        }
        Ok(())
    }
}
