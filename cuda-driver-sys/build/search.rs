//! Where the build script looks for the driver library, as pure functions of the target and of
//! the variables' values (no file system, no environment): the ordered list of places, which file
//! each place must hold, and which entries of `LD_LIBRARY_PATH` are cargo's own. The build script
//! (`main.rs`) reads the environment and looks at the files; the test target `search_order`
//! (this file compiled alone, `cargo test -p cuda-driver-sys --test search_order`) checks the
//! order against the CUDA toolkit's layouts:
//!
//! - Linux x86-64: `<root>/lib64` (a link to `targets/x86_64-linux/lib`), stubs in
//!   `<root>/lib64/stubs`; the driver in `/usr/lib/x86_64-linux-gnu` (or `/usr/lib64`);
//! - Linux aarch64: servers (SBSA, Grace Hopper) `<root>/targets/sbsa-linux/lib`, Jetson (L4T)
//!   `<root>/targets/aarch64-linux/lib`, each with `stubs/`; Jetson's driver in
//!   `/usr/lib/aarch64-linux-gnu/tegra` (JetPack 5) or `.../nvidia` (JetPack 6);
//! - Windows: `<root>\lib\x64\cuda.lib`, the import library of the driver's `nvcuda.dll` (no
//!   stubs, no system directory: `CUDA_PATH`, which the installer sets, is the way).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The variables naming a toolkit root, in the order they are taken.
pub const ROOT_VARS: [&str; 4] = [
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_HOME",
];

/// What the search depends on: the target (cargo's `CARGO_CFG_TARGET_OS` and `_ARCH`) and the
/// values of the variables the build script reads.
#[derive(Debug, Default)]
pub struct Inputs {
    /// `"linux"`, `"windows"`, ...
    pub os: String,
    /// `"x86_64"`, `"aarch64"`, ...
    pub arch: String,
    /// `CUDA_LIBRARY_PATH`: a directory.
    pub library_path: Option<PathBuf>,
    /// The toolkit roots of [`ROOT_VARS`], those set, in that order.
    pub roots: Vec<PathBuf>,
    /// `LD_LIBRARY_PATH`'s directories, without cargo's own ([`user_loader_path`]).
    pub loader_path: Vec<PathBuf>,
    /// Whether nothing is linked (`dynamic-loading`): the search only names a directory for
    /// dependents (`DEP_CUDA_LIB_DIR`), and pkg-config is not asked.
    pub dynamic: bool,
}

/// One place to look, in search order.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    /// A directory that may hold the library.
    Dir(PathBuf),
    /// Ask `pkg-config` for the toolkit's `cuda-<major>.<minor>` packages, newest first, and
    /// look in each one's `-L` directories and their `stubs/` (the toolkit's libraries hold no
    /// driver, only its stubs).
    PkgConfig,
}

/// The places to look, in order: `CUDA_LIBRARY_PATH`; each toolkit root's library directories;
/// where the dynamic loader will look (`LD_LIBRARY_PATH`, the system's directories); pkg-config
/// (only where something is linked, not on Windows, whose toolkit has no `.pc` files); last the toolkits' stub libraries (roots, then
/// `/usr/local/cuda`).
pub fn places(inputs: &Inputs) -> Vec<Place> {
    let windows = inputs.os == "windows";
    let mut places: Vec<Place> = inputs
        .library_path
        .iter()
        .cloned()
        .map(Place::Dir)
        .collect();
    for root in &inputs.roots {
        places.extend(toolkit_dirs(inputs, root).into_iter().map(Place::Dir));
    }
    if !windows {
        places.extend(inputs.loader_path.iter().cloned().map(Place::Dir));
        places.extend(system_dirs(&inputs.arch).into_iter().map(Place::Dir));
    }
    if !windows && !inputs.dynamic {
        places.push(Place::PkgConfig);
    }
    if !windows {
        let default_root = PathBuf::from("/usr/local/cuda");
        for root in inputs.roots.iter().chain([&default_root]) {
            places.extend(
                toolkit_dirs(inputs, root)
                    .into_iter()
                    .map(|d| Place::Dir(d.join("stubs"))),
            );
        }
    }
    places
}

/// A toolkit root's library directories for the target: `lib/x64` on Windows; else `lib64`,
/// `lib` and the target directories of the architecture (`targets/x86_64-linux/lib`; on aarch64
/// the server layout `sbsa-linux`, then Jetson's `aarch64-linux`).
pub fn toolkit_dirs(inputs: &Inputs, root: &Path) -> Vec<PathBuf> {
    toolkit_folders(inputs, root, "lib")
}

/// A toolkit root's folders of `kind` (`lib`, `include`) for the target: as [`toolkit_dirs`]
/// (`include` on Windows and as the first on Linux, where `lib` has `lib64` and `lib`).
pub fn toolkit_folders(inputs: &Inputs, root: &Path, kind: &str) -> Vec<PathBuf> {
    if inputs.os == "windows" {
        return vec![match kind {
            "lib" => root.join("lib").join("x64"),
            _ => root.join(kind),
        }];
    }
    let targets: &[&str] = match inputs.arch.as_str() {
        "aarch64" => &["sbsa-linux", "aarch64-linux"],
        "x86_64" => &["x86_64-linux"],
        _ => &[],
    };
    let top = match kind {
        "lib" => vec![root.join("lib64"), root.join("lib")],
        _ => vec![root.join(kind)],
    };
    (top.into_iter())
        .chain(
            targets
                .iter()
                .map(|t| root.join("targets").join(t).join(kind)),
        )
        .collect()
}

/// The system's directories where a Linux driver installs `libcuda.so.1`: the multiarch
/// directory (and on aarch64 Jetson's `tegra` and `nvidia` under it), `/usr/lib64`, `/usr/lib`,
/// the NVIDIA container runtime's `/usr/local/nvidia/lib64`, WSL's `/usr/lib/wsl/lib`.
pub fn system_dirs(arch: &str) -> Vec<PathBuf> {
    let multiarch = PathBuf::from(format!("/usr/lib/{arch}-linux-gnu"));
    let jetson = if arch == "aarch64" {
        vec![multiarch.join("tegra"), multiarch.join("nvidia")]
    } else {
        vec![]
    };
    [multiarch]
        .into_iter()
        .chain(jetson)
        .chain(
            [
                "/usr/lib64",
                "/usr/lib",
                "/usr/local/nvidia/lib64",
                "/usr/lib/wsl/lib",
            ]
            .map(PathBuf::from),
        )
        .collect()
}

/// The files a directory must hold for the library to be linked from it, each with what follows
/// `cargo:rustc-link-lib=dylib`: `cuda.lib` (`=cuda`) on Windows; else `libcuda.so` (`=cuda`),
/// or only `libcuda.so.1` (a driver without the development link: linked verbatim).
pub fn library_files(os: &str) -> &'static [(&'static str, &'static str)] {
    if os == "windows" {
        &[("cuda.lib", "=cuda")]
    } else {
        &[
            ("libcuda.so", "=cuda"),
            ("libcuda.so.1", ":+verbatim=libcuda.so.1"),
        ]
    }
}

/// `LD_LIBRARY_PATH`'s absolute directories without those cargo adds for build scripts: its
/// target folder's (`target/<profile>` and `deps`, which hold `out_dir`) and the toolchain's
/// (under `sysroot`, the folder above the `bin/rustc` cargo runs).
pub fn user_loader_path(
    ld_library_path: &OsStr,
    out_dir: &Path,
    sysroot: Option<&Path>,
) -> Vec<PathBuf> {
    // OUT_DIR is target/<profile>/build/<package>-<hash>/out.
    let profile = out_dir.ancestors().nth(3);
    std::env::split_paths(ld_library_path)
        .filter(|d| d.is_absolute())
        .filter(|d| !profile.is_some_and(|p| d.starts_with(p)))
        .filter(|d| !sysroot.is_some_and(|s| d.starts_with(s)))
        .collect()
}

/// The toolchain folder of the `rustc` cargo names (`RUSTC`): the parent of its `bin/`, when it
/// is a path to `.../bin/rustc`.
pub fn sysroot_of(rustc: &Path) -> Option<&Path> {
    let bin = rustc.parent()?;
    (rustc.is_absolute() && bin.file_name()? == "bin").then(|| bin.parent())?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(os: &str, arch: &str) -> Inputs {
        Inputs {
            os: os.into(),
            arch: arch.into(),
            ..Inputs::default()
        }
    }

    fn dirs(places: &[Place]) -> Vec<String> {
        places
            .iter()
            .map(|p| match p {
                Place::Dir(d) => d.display().to_string(),
                Place::PkgConfig => "pkg-config".into(),
            })
            .collect()
    }

    #[test]
    fn linux_x86_64_order() {
        let mut i = inputs("linux", "x86_64");
        i.library_path = Some("/explicit".into());
        i.roots = vec!["/opt/cuda-12.4".into()];
        i.loader_path = vec!["/user/lib".into()];
        assert_eq!(
            dirs(&places(&i)),
            [
                "/explicit",
                "/opt/cuda-12.4/lib64",
                "/opt/cuda-12.4/lib",
                "/opt/cuda-12.4/targets/x86_64-linux/lib",
                "/user/lib",
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib64",
                "/usr/lib",
                "/usr/local/nvidia/lib64",
                "/usr/lib/wsl/lib",
                "pkg-config",
                "/opt/cuda-12.4/lib64/stubs",
                "/opt/cuda-12.4/lib/stubs",
                "/opt/cuda-12.4/targets/x86_64-linux/lib/stubs",
                "/usr/local/cuda/lib64/stubs",
                "/usr/local/cuda/lib/stubs",
                "/usr/local/cuda/targets/x86_64-linux/lib/stubs",
            ]
        );
    }

    #[test]
    fn linux_aarch64_has_the_sbsa_and_jetson_layouts() {
        let mut i = inputs("linux", "aarch64");
        i.roots = vec!["/usr/local/cuda-13.0".into()];
        let found = dirs(&places(&i));
        let at = |d: &str| {
            found
                .iter()
                .position(|f| f == d)
                .unwrap_or_else(|| panic!("{d} not searched: {found:?}"))
        };
        // The toolkit's own directories, SBSA before Jetson, then the system's, then stubs.
        assert!(
            at("/usr/local/cuda-13.0/lib64") < at("/usr/local/cuda-13.0/targets/sbsa-linux/lib")
        );
        assert!(
            at("/usr/local/cuda-13.0/targets/sbsa-linux/lib")
                < at("/usr/local/cuda-13.0/targets/aarch64-linux/lib")
        );
        assert!(
            at("/usr/local/cuda-13.0/targets/aarch64-linux/lib") < at("/usr/lib/aarch64-linux-gnu")
        );
        assert!(at("/usr/lib/aarch64-linux-gnu") < at("/usr/lib/aarch64-linux-gnu/tegra"));
        assert!(at("/usr/lib/aarch64-linux-gnu/nvidia") < at("pkg-config"));
        assert!(at("pkg-config") < at("/usr/local/cuda-13.0/lib64/stubs"));
        at("/usr/local/cuda-13.0/targets/sbsa-linux/lib/stubs");
        at("/usr/local/cuda/targets/aarch64-linux/lib/stubs");
        assert!(!found.iter().any(|d| d.contains("x86_64")), "{found:?}");
    }

    #[test]
    fn windows_looks_in_lib_x64_for_cuda_lib_only() {
        let mut i = inputs("windows", "x86_64");
        i.roots = vec![r"C:\CUDA\v12.4".into()];
        i.loader_path = vec!["/ignored".into()];
        let sep = std::path::MAIN_SEPARATOR;
        assert_eq!(
            dirs(&places(&i)),
            [format!(r"C:\CUDA\v12.4{sep}lib{sep}x64")]
        );
        assert_eq!(library_files("windows"), [("cuda.lib", "=cuda")]);
        assert_eq!(library_files("linux")[0], ("libcuda.so", "=cuda"));
    }

    #[test]
    fn dynamic_loading_never_asks_pkg_config() {
        let mut i = inputs("linux", "x86_64");
        i.dynamic = true;
        assert!(!places(&i).contains(&Place::PkgConfig));
    }

    #[test]
    fn cargos_own_loader_path_entries_are_left_out() {
        let path = OsStr::new(
            "/t/debug:/t/debug/deps:/home/u/.rustup/toolchains/s/lib/rustlib/x/lib:\
             /home/u/.rustup/toolchains/s/lib:relative:/user/lib",
        );
        let out = Path::new("/t/debug/build/cuda-driver-sys-0123/out");
        let rustc = Path::new("/home/u/.rustup/toolchains/s/bin/rustc");
        assert_eq!(
            user_loader_path(path, out, sysroot_of(rustc)),
            [PathBuf::from("/user/lib")]
        );
        assert_eq!(sysroot_of(Path::new("rustc")), None);
    }
}
