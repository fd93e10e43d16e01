//! What the headers declare: every function of the newest header set with its Doxygen group
//! (the generator's `header_functions`, which reads them as the item docs do), the header each
//! first appeared in, the names of the results, and the driver entries' names mapped back to the
//! functions C programs call.

use crate::base::{process, versions, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A declared function of the newest headers.
pub struct Function {
    pub name: String,
    /// Its group (`CUDA_MEM`), `-` where the header puts it in none.
    pub group: String,
    /// The group's title, `-` where the header gives none.
    pub title: String,
    /// The oldest bound header version declaring it.
    pub since: u32,
}

/// The functions of the newest headers, in the generator's order (header, then name).
pub struct Headers {
    pub newest: u32,
    pub functions: Vec<Function>,
    /// Result codes to their names (`cudaError_enum` of the newest `cuda.h`).
    pub results: BTreeMap<u32, String>,
    /// The driver entries the newest `cuda.h` binds a function's C spelling to under another
    /// name, to that function (`cuGraphInstantiateWithFlags` to `cuGraphInstantiate`).
    renamed: BTreeMap<String, String>,
}

/// The fetched headers' folder of `version`.
fn folder(version: u32) -> PathBuf {
    process::root().join(format!("target/ci-deps/headers/{version}"))
}

impl Headers {
    /// The newest headers' functions; with `history`, each one's first version from every bound
    /// header (else `since` is the newest).
    pub fn read(history: bool) -> Result<Headers> {
        let all: Vec<u32> = versions::all()?.iter().map(|v| v.number).collect();
        let newest = *all.last().ok_or("versions.txt lists no version")?;
        let read = if history {
            &all[..]
        } else {
            &all[all.len() - 1..]
        };
        let dirs = Vec::from_iter(read.iter().map(|v| folder(*v)));
        if let Some(dir) = dirs.iter().find(|d| !d.join("cuda.h").is_file()) {
            let dir = dir.display();
            return Err(format!("{dir} has no cuda.h: run `cargo xtask fetch-deps`").into());
        }
        let mut command = crate::base::generator::program("header_functions");
        command.args(dirs);
        let listing = process::output(&mut command)?;
        let mut since: BTreeMap<String, u32> = BTreeMap::new();
        let mut functions = Vec::new();
        for line in listing.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            let [dir, _header, name, group, title] = fields[..] else {
                return Err(format!("header_functions printed `{line}`").into());
            };
            let version: u32 = (dir.rsplit('/').next().and_then(|v| v.parse().ok()))
                .ok_or_else(|| format!("header_functions printed the folder `{dir}`"))?;
            since.entry(name.to_string()).or_insert(version);
            if version == newest {
                functions.push(Function {
                    name: name.to_string(),
                    group: group.to_string(),
                    title: title.to_string(),
                    since: newest,
                });
            }
        }
        for f in &mut functions {
            f.since = since[&f.name];
        }
        let cuda_h = crate::base::files::read(&folder(newest).join("cuda.h"))?;
        Ok(Headers {
            newest,
            functions,
            results: result_names(&cuda_h),
            renamed: renamed_entries(&cuda_h),
        })
    }

    /// The declared function a driver entry is (`cuMemAlloc_v2` is `cuMemAlloc`,
    /// `cuMemcpyAsync_ptsz` is `cuMemcpyAsync`, `cuCtxSynchronize_v2` is itself,
    /// `cuGraphInstantiateWithFlags` is `cuGraphInstantiate`): the entry's name without its
    /// stream-mode suffix, the function `cuda.h` renames to it, then without its ABI suffixes
    /// until a declared name.
    pub fn function_of(&self, entry: &str) -> Option<&Function> {
        let find = |name: &str| self.functions.iter().find(|f| f.name == name);
        let mut name = entry
            .strip_suffix("_ptsz")
            .or_else(|| entry.strip_suffix("_ptds"))
            .unwrap_or(entry);
        name = self.renamed.get(name).map_or(name, String::as_str);
        loop {
            if let Some(f) = find(name) {
                return Some(f);
            }
            let (stem, suffix) = name.rsplit_once("_v")?;
            if suffix.is_empty() || !suffix.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            name = stem;
        }
    }

    /// The name of the result `code`, or `CUresult <code>`.
    pub fn result(&self, code: u32) -> String {
        (self.results.get(&code).cloned()).unwrap_or_else(|| format!("CUresult {code}"))
    }
}

#[cfg(test)]
impl Headers {
    /// Headers of a made-up version 99.0 that declare only `functions` (`<name>:<group>` each)
    /// and the results `results` (`<code>:<name>` each).
    pub fn of(functions: &str, results: &str) -> Headers {
        fn pairs(text: &str) -> impl Iterator<Item = (&str, &str)> {
            text.split_whitespace().flat_map(|p| p.split_once(':'))
        }
        let function = |(name, group): (&str, &str)| Function {
            name: name.to_string(),
            group: group.to_string(),
            title: group.to_string(),
            since: 99000,
        };
        let result = |(code, name): (&str, &str)| (code.parse().unwrap(), name.to_string());
        Headers {
            newest: 99000,
            functions: pairs(functions).map(function).collect(),
            results: pairs(results).map(result).collect(),
            renamed: BTreeMap::new(),
        }
    }
}

/// `NAME = VALUE` of `cuda.h`'s `cudaError_enum`.
fn result_names(cuda_h: &str) -> BTreeMap<u32, String> {
    let start = cuda_h.find("typedef enum cudaError_enum").unwrap_or(0);
    let body = &cuda_h[start..];
    let body = &body[..body.find("} CUresult;").unwrap_or(body.len())];
    let mut names = BTreeMap::new();
    for (name, value) in body.lines().filter_map(|l| l.split_once('=')) {
        let (name, value) = (name.trim(), value.trim().trim_end_matches(','));
        let value = value.split_whitespace().next().unwrap_or("");
        if let (true, Ok(v)) = (name.starts_with("CUDA_"), value.parse()) {
            names.entry(v).or_insert_with(|| name.to_string());
        }
    }
    names
}

/// The entries of `cuda.h`'s `#define NAME ENTRY` lines that are neither `NAME` with an ABI
/// suffix nor a stream-mode form, to `NAME`.
fn renamed_entries(cuda_h: &str) -> BTreeMap<String, String> {
    let mut renamed = BTreeMap::new();
    for line in cuda_h.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let ["#define", name, entry] = words[..] else {
            continue;
        };
        let identifier = |w: &str| w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let versioned = entry
            .strip_prefix(name)
            .is_some_and(|s| s.starts_with("_v"));
        let stream_mode = entry.ends_with("_ptsz") || entry.ends_with("_ptds");
        if name.starts_with("cu") && identifier(entry) && !versioned && !stream_mode {
            renamed.insert(entry.to_string(), name.to_string());
        }
    }
    renamed
}

#[cfg(test)]
mod tests {
    #[test]
    fn renamed_entries_are_read() {
        let h = "#define cuMemAlloc cuMemAlloc_v2\n#define cuGraphInstantiate  \
                 cuGraphInstantiateWithFlags\n#define cuGetProcAddress_v2 cuGetProcAddress_v2_ptsz\n\
                 #define cuMemcpy __CUDA_API_PTDS(cuMemcpy)\n";
        let renamed = super::renamed_entries(h);
        assert_eq!(renamed.len(), 1);
        assert_eq!(renamed["cuGraphInstantiateWithFlags"], "cuGraphInstantiate");
    }

    #[test]
    fn result_names_are_read() {
        let h = "typedef enum cudaError_enum {\n    CUDA_SUCCESS = 0,\n    /** x */\n    \
                 CUDA_ERROR_INVALID_VALUE = 1,\n    CUDA_ERROR_UNKNOWN = 999\n} CUresult;\n";
        let names = super::result_names(h);
        assert_eq!(names[&1], "CUDA_ERROR_INVALID_VALUE");
        assert_eq!(names[&999], "CUDA_ERROR_UNKNOWN");
    }
}
