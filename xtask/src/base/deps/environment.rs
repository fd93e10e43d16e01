//! The environment that points the builds and tests at `target/ci-deps`: printed as
//! `export NAME="VALUE"` lines for the shell scripts to `eval`, or set in the process.

use super::drivers::{DRIVER_470, DRIVER_535, DRIVER_535_ARM64};
use super::{clang, cudart, headers, interop};
use crate::base::versions::Version;
use crate::base::Result;
use std::path::{Path, PathBuf};

/// One environment variable.
#[derive(Debug, PartialEq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its value, or the part put before the value it has (a search path).
    pub value: String,
    /// Whether `value` goes before the variable's value (`value:old`) instead of replacing it.
    pub prepends: bool,
}

impl Variable {
    /// `name` set to `value`.
    fn new(name: &str, value: impl Into<String>) -> Variable {
        Variable {
            name: name.to_string(),
            value: value.into(),
            prepends: false,
        }
    }

    /// `name` with `value` put before the value it has.
    fn prepending(name: &str, value: impl Into<String>) -> Variable {
        Variable {
            prepends: true,
            ..Variable::new(name, value)
        }
    }

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

/// The variables for the fetched dependencies under `deps`, the headers of `versions` first.
pub fn variables(deps: &Path, versions: &[Version]) -> Result<Vec<Variable>> {
    let path = |rel: &str| deps.join(rel).display().to_string();
    let lib = |dir: &str| path(&format!("{dir}/lib"));
    let mut variables: Vec<Variable> = versions
        .iter()
        .map(|v| {
            let dir = headers::folder(deps, v.number).display().to_string();
            Variable::new(&format!("CUDA_HEADERS_{}", v.number), dir)
        })
        .collect();
    let numbers: Vec<String> = versions.iter().map(|v| v.number.to_string()).collect();
    let clang_lib = path(&format!("{}/root/usr/lib/x86_64-linux-gnu", clang::DIR));
    variables.extend([
        Variable::new("CUDA_VERSIONS", numbers.join(" ")),
        Variable::new("CUDA_LIBRARY_PATH", lib(DRIVER_535.dir)),
        Variable::new("CUDA_DRIVER_470", lib(DRIVER_470.dir)),
        Variable::new("CUDA_DRIVER_ARM64", lib(DRIVER_535_ARM64.dir)),
        Variable::new("CUDART_LIBRARY_PATH_ARM64", lib(cudart::DIR_ARM64)),
        Variable::new("CUDART_LIBRARY_PATH", lib(cudart::DIR)),
        Variable::new(
            "CUDART_INCLUDE_PATH",
            path(&format!("{}/include", cudart::DIR)),
        ),
        Variable::prepending(
            "LD_LIBRARY_PATH",
            format!("{}:{clang_lib}", lib(DRIVER_535.dir)),
        ),
        Variable::new("LIBCLANG_PATH", lib(clang::DIR)),
        Variable::new(
            "CUDA_INTEROP_INCLUDE",
            path(&format!("{}/include", interop::DIR)),
        ),
        Variable::new(
            "BINDGEN_EXTRA_CLANG_ARGS",
            format!("-resource-dir={}", clang_resource_dir(deps)?),
        ),
    ]);
    Ok(variables)
}

/// clang's resource folder in `clang/` (`usr/lib/clang/<major.minor.patch>`): the first by name.
fn clang_resource_dir(deps: &Path) -> Result<String> {
    let parent = deps.join(clang::DIR).join("root/usr/lib/clang");
    let entries = std::fs::read_dir(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let mut versions: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && name.matches('.').count() >= 2)
        .collect();
    versions.sort();
    let first = versions.first().ok_or_else(|| {
        format!(
            "no clang resource folder (<major.minor.patch>) in {}: remove {} and fetch again",
            parent.display(),
            deps.join(clang::DIR).display()
        )
    })?;
    Ok(parent.join(first).display().to_string())
}

/// The value of the environment variable `name`; an error naming `what` it should hold if it is
/// unset or empty.
pub fn env_path(name: &str, what: &str) -> Result<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
        _ => Err(format!("{name} is not set: {what}").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::Variable;

    #[test]
    fn export_lines_keep_a_search_path_after_a_prepended_part() {
        assert_eq!(Variable::new("A", "x y").export_line(), "export A=\"x y\"");
        let path = Variable::prepending("P", "/a:/b");
        assert_eq!(path.export_line(), "export P=\"/a:/b${P:+:$P}\"");
    }

    #[test]
    fn a_prepended_part_goes_before_the_value_in_the_process() {
        let name = "XTASK_FETCH_DEPS_TEST_PATH";
        let path = Variable::prepending(name, "/new");
        std::env::remove_var(name);
        path.set_in_process();
        assert_eq!(std::env::var(name).unwrap(), "/new");
        std::env::set_var(name, "/old");
        path.set_in_process();
        assert_eq!(std::env::var(name).unwrap(), "/new:/old");
    }
}
