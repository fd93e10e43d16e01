//! The environment that points the builds and tests at `target/ci-deps`: printed as
//! `export NAME="VALUE"` lines for the shell scripts to `eval`, or set in the process.

use super::drivers::{DRIVER_470, DRIVER_535, DRIVER_535_ARM64};
use super::{clang, cudart, headers, interop};
use crate::base::versions::Version;
use crate::base::{files, Result};
use std::path::{Path, PathBuf};

/// One environment variable.
#[derive(Debug, PartialEq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its value, or the part put before the value it has (a search path).
    pub value: String,
    /// Whether `value` goes before the variable's value (`value:old`) instead of replacing it:
    /// for the one search path, `LD_LIBRARY_PATH`.
    pub prepends: bool,
}

impl Variable {
    /// `export NAME="VALUE"`; a prepended value keeps the variable's value after a `:`.
    pub fn export_line(&self) -> String {
        let Variable { name, value, .. } = self;
        if self.prepends {
            format!("export {name}=\"{value}${{{name}:+:${name}}}\"")
        } else {
            format!("export {name}=\"{value}\"")
        }
    }

    /// Sets it in this process, for every command the process runs after.
    pub fn set_in_process(&self) {
        let value = match std::env::var(&self.name) {
            Ok(old) if self.prepends && !old.is_empty() => format!("{}:{old}", self.value),
            _ => self.value.clone(),
        };
        std::env::set_var(&self.name, value);
    }
}

/// The names of the variables [`variables`] sets besides `CUDA_HEADERS_<V>`, in its order.
const NAMES: &str = "CUDA_VERSIONS CUDA_LIBRARY_PATH CUDA_DRIVER_470 CUDA_DRIVER_ARM64 \
                     CUDART_LIBRARY_PATH_ARM64 CUDART_LIBRARY_PATH CUDART_INCLUDE_PATH \
                     LD_LIBRARY_PATH LIBCLANG_PATH CUDA_INTEROP_INCLUDE BINDGEN_EXTRA_CLANG_ARGS";

/// The variables for the fetched dependencies under `deps`, the headers of `versions` first.
pub fn variables(deps: &Path, versions: &[Version]) -> Result<Vec<Variable>> {
    let path = |dir: &str, sub: &str| deps.join(dir).join(sub).display().to_string();
    let headers = versions.iter().map(|v| {
        let dir = headers::folder(deps, v.number).display().to_string();
        (format!("CUDA_HEADERS_{}", v.number), dir)
    });
    let numbers: Vec<String> = versions.iter().map(|v| v.number.to_string()).collect();
    let clang_lib = path(clang::DIR, "root/usr/lib/x86_64-linux-gnu");
    // clang's resource folder (`usr/lib/clang/<major.minor.patch>`): the first by name.
    let parent = deps.join(clang::DIR).join("root/usr/lib/clang");
    let resource = files::sorted(&parent, "")?.into_iter().find(|p| {
        let name = files::name(p);
        !name.starts_with('.') && name.matches('.').count() >= 2
    });
    let (parent, clang) = (parent.display(), deps.join(clang::DIR));
    let clang = clang.display();
    let none = format!(
        "no clang resource folder (<major.minor.patch>) in {parent}: remove {clang} and fetch again"
    );
    let values = [
        numbers.join(" "),
        path(DRIVER_535, "lib"),
        path(DRIVER_470, "lib"),
        path(DRIVER_535_ARM64, "lib"),
        path(cudart::DIR_ARM64, "lib"),
        path(cudart::DIR, "lib"),
        path(cudart::DIR, "include"),
        format!("{}:{clang_lib}", path(DRIVER_535, "lib")),
        path(clang::DIR, "lib"),
        path(interop::DIR, "include"),
        format!("-resource-dir={}", resource.ok_or(none)?.display()),
    ];
    assert_eq!(NAMES.split_whitespace().count(), values.len());
    let named = NAMES.split_whitespace().map(String::from).zip(values);
    let variables = headers.chain(named).map(|(name, value)| Variable {
        prepends: name == "LD_LIBRARY_PATH",
        name,
        value,
    });
    Ok(variables.collect())
}

/// The value of the required environment variable `name`, which holds `what` (a few words: "the
/// driver library's folder"); an error if it is unset or empty, one line that names it and, where
/// fetch-deps sets it, says to run fetch-deps.
pub fn env_path(name: &str, what: &str) -> Result<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
        _ if name.starts_with("CUDA_HEADERS_") || NAMES.split_whitespace().any(|n| n == name) => {
            Err(format!(
                "{name} ({what}) is not set: run `eval \"$(cargo xtask fetch-deps)\"` first"
            )
            .into())
        }
        _ => Err(format!("{name} ({what}) is not set").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::{env_path, Variable};

    #[test]
    fn a_missing_variable_is_named_with_what_to_do() {
        let err = |name| env_path(name, "x").unwrap_err().to_string();
        assert_eq!(
            err("CUDA_HEADERS_99999"),
            "CUDA_HEADERS_99999 (x) is not set: run `eval \"$(cargo xtask fetch-deps)\"` first"
        );
        assert_eq!(
            err("XTASK_UNSET_VARIABLE"),
            "XTASK_UNSET_VARIABLE (x) is not set"
        );
    }

    #[test]
    fn a_prepended_part_keeps_the_value_after_it() {
        let name = "XTASK_TEST_P";
        let path = Variable {
            name: name.into(),
            value: "/new".into(),
            prepends: true,
        };
        let export = "export XTASK_TEST_P=\"/new${XTASK_TEST_P:+:$XTASK_TEST_P}\"";
        assert_eq!(path.export_line(), export);
        std::env::remove_var(name);
        path.set_in_process();
        assert_eq!(std::env::var(name).unwrap(), "/new");
        std::env::set_var(name, "/old");
        path.set_in_process();
        assert_eq!(std::env::var(name).unwrap(), "/new:/old");
        let plain = Variable {
            prepends: false,
            ..path
        };
        assert_eq!(plain.export_line(), "export XTASK_TEST_P=\"/new\"");
    }
}
