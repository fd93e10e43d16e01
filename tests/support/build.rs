//! Build script of the tests package (`cuda-driver-tests`). Against the `cuda.h` the selected
//! bindings were generated from, it compiles every C twin `examples/<name>.cpp`, and that of every
//! group program `examples/groups/<name>.cpp` whose oldest header is at most the selected one
//! (`support/programs.rs`), into `$OUT_DIR/c-twins/<name>` (`env!("C_TWIN_DIR")`), writes the
//! group programs' parity tests (`$OUT_DIR/group_programs.rs`), and compiles the C helpers of the tests
//! (`support/c/*.c`, the layout and constant probes among them, with their tables written from the
//! bindings by `support/layout.rs`) into one static library linked into every test. The prototype
//! probe (`support/prototypes.rs`) is run by `tests/prototypes.rs`, with the C++ compiler and the
//! headers found here (`PROTOTYPES_CXX`, `CUDA_HEADER_DIR`, `CUDA_INTEROP_DIR`).
//!
//! Where the headers of version `V`, the CUDA 12 runtime of the twins that include
//! `<cuda_runtime.h>` and the GL, EGL and VDPAU headers are looked for is in `docs/DESIGN.md`
//! ("Headers for the tests"): `CUDA_HEADERS_<V>`, `CUDART_INCLUDE_PATH`/`CUDART_LIBRARY_PATH`,
//! `CUDA_INTEROP_INCLUDE`, then `target/ci-deps` (`ci/fetch-deps.sh`), then a toolkit. When one is
//! missing, the build stops with one line that says where it looked and what to run.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

// The probes' modules (shared with tests/prototypes.rs, which uses the prototype probe's part), the
// generator's syn helpers (the projection of a merged file onto one version), cuda-driver-sys's
// search of a toolkit and the items crate's reading of a header's `#define`s: each user uses its
// part.
#[allow(dead_code)]
mod c_header;
#[allow(dead_code)]
#[path = "../../cuda-driver-sys-items/build/header.rs"]
mod header;
mod layout;
#[allow(dead_code)]
mod model;
mod programs;
#[allow(dead_code)]
#[path = "../../cuda-driver-sys-items/generator/src/rust_syntax.rs"]
mod rust_syntax;
#[allow(dead_code)]
#[path = "../../cuda-driver-sys/build/search.rs"]
mod search;

fn main() {
    if let Err(message) = build() {
        println!("cargo::error={message}");
    }
}

fn build() -> Result<(), String> {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().expect("tests/ is inside the workspace");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    // The header version cuda-driver-sys selected (its features, newest wins), as it tells
    // dependents: the C side compiles against the header the bindings came from.
    let version = env::var("DEP_CUDA_VERSION").expect("DEP_CUDA_VERSION from cuda-driver-sys");
    // The same `cuda_ge_<V>` cfgs as cuda-driver-sys's (the generated linked.rs carries them).
    let known = env::var("DEP_CUDA_VERSIONS").expect("DEP_CUDA_VERSIONS from cuda-driver-sys");
    let known: Vec<u32> = known.split(',').filter_map(|v| v.parse().ok()).collect();
    let selected: u32 = version.parse().expect("DEP_CUDA_VERSION is a number");
    let names: Vec<String> = known.iter().map(|v| format!("cuda_ge_{v}")).collect();
    println!("cargo::rustc-check-cfg=cfg({})", names.join(", "));
    for (_, name) in known.iter().zip(&names).filter(|(v, _)| **v <= selected) {
        println!("cargo:rustc-cfg={name}");
    }
    let per_thread = env::var_os("CARGO_FEATURE_PER_THREAD_DEFAULT_STREAM").is_some();
    println!("cargo:rerun-if-changed=../examples");
    // The group programs' declarations.
    println!("cargo:rerun-if-changed=../Cargo.toml");
    println!("cargo:rerun-if-changed=support");
    let vars = format!(
        "CUDART_INCLUDE_PATH CUDART_LIBRARY_PATH CUDA_INTEROP_INCLUDE CUDA_HEADERS_{version}"
    );
    for var in search::ROOT_VARS.into_iter().chain(vars.split(' ')) {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let headers = header_dir(root, &version)?;
    let interop = interop_dir(root)?;
    println!("cargo:rustc-env=CUDA_HEADER_DIR={}", headers.display());
    println!("cargo:rustc-env=CUDA_INTEROP_DIR={}", interop.display());
    println!("cargo:rustc-env=CUDA_HEADER_VERSION={version}");
    // The target the tests are built for, which examples_parity.rs builds the examples for.
    let target = env::var("TARGET").expect("TARGET from cargo");
    println!("cargo:rustc-env=CUDA_TESTS_TARGET={target}");
    // The generated files of this version alone (layout::generate writes them), and the headers
    // they come from (tests/common/headers.rs).
    println!("cargo:rustc-env=CUDA_PROJECTED_DIR={}", out.display());
    let sets: Vec<String> = c_header::sets().map(|(p, h)| format!("{p}:{h}")).collect();
    println!("cargo:rustc-env=CUDA_PROJECTED_HEADERS={}", sets.join(","));

    // The C helpers of the tests, the probes among them, with their tables.
    // The C compiler of the C probes, the C++ one of the prototype probe and the twins.
    let cxx = cc::Build::new().cpp(true).get_compiler();
    let cc = c_header::Compiler {
        path: cc::Build::new().get_compiler().path().to_path_buf(),
        headers: headers.clone(),
        interop: interop.clone(),
    };
    layout::generate(root, &out, &version, &cc)?;
    println!("cargo:rustc-env=PROTOTYPES_CXX={}", cxx.path().display());
    let mut build = cc::Build::new();
    build.includes([&headers, &interop, &out]).warnings(false);
    let stream = per_thread.then_some("CUDA_API_PER_THREAD_DEFAULT_STREAM");
    for d in c_header::foreign_defines().chain(stream) {
        build.define(d, None);
    }
    build.files(list(&manifest.join("support/c"), "c"));
    build.compile("cuda_driver_tests_c");
    let lib_dir = env::var("DEP_CUDA_LIB_DIR").ok();
    // `-lcuda` where the development symlink exists, else the versioned file itself.
    let has = |file: &str| (lib_dir.as_ref()).is_some_and(|d| Path::new(d).join(file).exists());
    let (rustc_lib, cc_lib) = if has("libcuda.so") || !has("libcuda.so.1") {
        ("dylib=cuda", "-lcuda")
    } else {
        ("dylib:+verbatim=libcuda.so.1", "-l:libcuda.so.1")
    };
    // Under `dynamic-loading` cuda-driver-sys links nothing, but some C helpers call the driver
    // directly (the benchmark's C twin, the error-string probe): the library is linked for them.
    // rustc links with --as-needed, so a test binary that uses none of them (driver.rs, table.rs,
    // dynamic.rs) does not load it: cargo xtask dynamic-check checks that with readelf and nm.
    if env::var_os("CARGO_FEATURE_DYNAMIC_LOADING").is_some() {
        if let Some(dir) = &lib_dir {
            println!("cargo:rustc-link-search=native={dir}");
        }
        println!("cargo:rustc-link-lib={rustc_lib}");
    }

    // The C twins of the examples: one executable each, for every header version (the twins
    // port the posts to CUDA 13 where its header changed a function, as the examples do).
    // Emptied first: a twin an earlier run built and this one does not (a program no longer
    // built for this target) must not stay behind.
    let twins = out.join("c-twins");
    let _ = std::fs::remove_dir_all(&twins);
    std::fs::create_dir_all(&twins).unwrap();
    let mut cudart: Option<(PathBuf, PathBuf)> = None;
    // CUDA 12.0 programs (cuLibraryLoad*, cuGetProcAddress's status, the CUDA 12 runtime), as are
    // their examples (see ../Cargo.toml).
    let cuda_12 = "context_independent_loading proc_address runtime_interop";
    // Windows (mingw-w64's g++, the Windows section of cargo xtask platforms): the twins link the
    // import library cuda.lib of nvcuda.dll, with no run path (Windows finds DLLs on PATH); those
    // using the CUDA runtime are left out, whose library the tests find for Linux only
    // (libcudart.so.12).
    let windows = env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "windows");
    let include = |l: &str| l.trim_start().starts_with("#include <cuda_runtime");
    // The group programs this header builds (their oldest header at most the selected one). They
    // are Linux programs (file descriptors of exported memory, Unix sockets, posix_spawn,
    // /proc/self/exe; POSIX threads and clocks in the twins): none for Windows.
    let groups: Vec<String> = programs::read(root)?
        .into_iter()
        .filter(|p| p.oldest <= selected && !windows)
        .map(|p| p.name)
        .collect();
    let group_twins = groups.iter().map(|n| root.join(programs::FOLDER).join(n));
    let group_twins = group_twins.map(|p| p.with_extension("cpp"));
    write_group_tests(&out, &groups)?;
    for src in list(&root.join("examples"), "cpp")
        .into_iter()
        .chain(group_twins)
    {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        if cuda_12.split(' ').any(|n| n == name) && selected < 12000 {
            continue;
        }
        let source = std::fs::read_to_string(&src).unwrap_or_default();
        let runtime = source.lines().any(include);
        if windows && runtime {
            continue;
        }
        let mut cmd = cxx.to_command();
        let define = stream.map(|d| format!("-D{d}"));
        cmd.args(["-O2", "-std=c++17", &format!("-I{}", headers.display())]);
        cmd.args(define).arg(&src).arg("-o").arg(twins.join(&name));
        if runtime {
            if cudart.is_none() {
                cudart = Some(find_cudart(root)?);
            }
            let (include, lib) = cudart.as_ref().unwrap();
            // After the driver's headers: cuda.h is the selected version's, whatever else is there.
            cmd.arg(format!("-I{}", include.display()))
                .arg(format!("-L{}", lib.display()))
                .arg(format!("-Wl,--enable-new-dtags,-rpath,{}", lib.display()))
                .arg("-l:libcudart.so.12");
        }
        // Position-independent, as the Rust examples are: its addresses are above 4 GiB, which
        // the parity test's rule for addresses relies on (tests/examples_parity.rs).
        if !windows {
            cmd.args(["-fPIE", "-pie"]);
        }
        // RUNPATH, not RPATH: LD_LIBRARY_PATH still wins, so a twin linked against a stub
        // library (a header newer than the machine's driver) runs with the real driver.
        if let Some(dir) = &lib_dir {
            cmd.arg(format!("-L{dir}"));
            if !windows {
                cmd.arg(format!("-Wl,--enable-new-dtags,-rpath,{dir}"));
            }
        }
        cmd.arg(cc_lib);
        if windows {
            // mingw-w64's C++ runtime linked in: wine's DLL search path holds no libstdc++-6.dll.
            cmd.args(["-static-libgcc", "-static-libstdc++"]);
        } else {
            cmd.args(["-ldl", "-lpthread"]);
        }
        run(&mut cmd, &format!("C twin {}", src.display()))?;
    }
    println!("cargo:rustc-env=C_TWIN_DIR={}", twins.display());
    Ok(())
}

/// `$OUT_DIR/group_programs.rs`, `$OUT_DIR/controls.rs` and `$OUT_DIR/argument_controls.rs`,
/// which `tests/examples_parity.rs` includes: the group programs this header builds, with one
/// parity test each, and one test for each of their controls and argument controls
/// (`support/programs.rs`, `CONTROLS` and `ARGUMENT_CONTROLS`).
fn write_group_tests(out: &Path, names: &[String]) -> Result<(), String> {
    let built = |n: &&str| names.iter().any(|m| m == n);
    let quoted = |list: &mut dyn Iterator<Item = &str>| -> String {
        let quoted: Vec<String> = list.map(|n| format!("{n:?}")).collect();
        quoted.join(", ")
    };
    let text = format!(
        "// Written by the tests' build script (support/build.rs) from the root Cargo.toml.\n\
         /// The group programs built for this header (examples/groups/).\n\
         pub const GROUP_PROGRAMS: &[&str] = &[{}];\n\
         /// Those the driver serves only without a tool attached (support/programs.rs).\n\
         pub const WITHOUT_TOOLS: &[&str] = &[{}];\n\
         /// Those that need two devices, waived on fewer (support/programs.rs).\n\
         pub const TWO_GPUS: &[&str] = &[{}];\n\
         /// The exit code of a waived program (support/programs.rs).\n\
         pub const WAIVED_EXIT_CODE: i32 = {};\n\
         parity_tests!({});\n",
        quoted(&mut names.iter().map(String::as_str)),
        quoted(&mut programs::WITHOUT_TOOLS.iter().copied().filter(built)),
        quoted(&mut programs::TWO_GPUS.iter().copied().filter(built)),
        programs::WAIVED_EXIT_CODE,
        names.join(", ")
    );
    let path = out.join("group_programs.rs");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let valid = |kind: &str, program: &str, name: &str| {
        let word =
            |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        match word(program) && word(name) {
            true => Ok(()),
            false => Err(format!(
                "support/programs.rs: the {kind} {name:?} of {program:?}: names are letters, \
                 digits and `_`"
            )),
        }
    };
    let mut text =
        String::from("// Written by the tests' build script (support/build.rs) from CONTROLS.\n");
    for c in programs::CONTROLS.iter().filter(|c| built(&c.program)) {
        valid("control", c.program, c.name)?;
        text.push_str(&format!(
            "#[test]\nfn {}_{}() {{\n    crate::control({:?}, {:?}, {:?});\n}}\n",
            c.program, c.name, c.program, c.name, c.fails_with
        ));
    }
    let path = out.join("controls.rs");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::from(
        "// Written by the tests' build script (support/build.rs) from ARGUMENT_CONTROLS.\n",
    );
    for c in programs::ARGUMENT_CONTROLS
        .iter()
        .filter(|c| built(&c.program))
    {
        valid("argument control", c.program, c.name)?;
        let same = |d: &&programs::Control| d.program == c.program && d.name == c.name;
        if programs::CONTROLS.iter().any(|d| same(&d)) {
            return Err(format!(
                "support/programs.rs: {:?} of {:?} is both a control and an argument control",
                c.name, c.program
            ));
        }
        let (entry, path) = c
            .argument
            .split_once(' ')
            .filter(|(e, p)| !e.is_empty() && !p.is_empty() && !p.contains(' '))
            .ok_or_else(|| {
                format!(
                    "support/programs.rs: the argument control {:?} of {:?}: its argument {:?} \
                     is not `<entry> <argument path>`",
                    c.name, c.program, c.argument
                )
            })?;
        text.push_str(&format!(
            "#[test]\nfn {}_{}() {{\n    crate::argument_control({:?}, {:?}, {entry:?}, \
             {path:?});\n}}\n",
            c.program, c.name, c.program, c.name
        ));
    }
    let path = out.join("argument_controls.rs");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The first of `candidates` holding every one of `files` (space-separated) and, with `define`
/// `(name, value)`, whose first file defines `name` as `value` (as cuda-driver-sys reads a
/// `#define`; an `x` in `value` stands for any character); else each one looked in, with the
/// first file missing there or the value found.
fn search(
    candidates: impl IntoIterator<Item = PathBuf>,
    files: &str,
    define: Option<(&str, &str)>,
) -> Result<PathBuf, String> {
    let mut looked = Vec::new();
    for dir in candidates {
        let why = match (files.split(' ').find(|f| !dir.join(f).is_file()), define) {
            (Some(missing), _) => format!("no {missing}"),
            (None, None) => return Ok(dir),
            (None, Some((name, want))) => {
                let first = dir.join(files.split(' ').next().unwrap());
                let text = std::fs::read_to_string(first).unwrap_or_default();
                let found = header::define_value(&text, name).unwrap_or("unreadable");
                let fits = |(f, w): (u8, u8)| f == w || w == b'x';
                if found.len() == want.len() && found.bytes().zip(want.bytes()).all(fits) {
                    return Ok(dir);
                }
                format!("{name} {found}, not {want}")
            }
        };
        looked.push(format!("{} ({why})", dir.display()));
    }
    Err(looked.join("; "))
}

/// `$var`, then `fetched`, then the `kind` folders (`include`, `lib`) of every toolkit, as
/// cuda-driver-sys looks for them on the target (`search::toolkit_folders`): the roots its
/// variables name (`$CUDA_PATH`, ...), `/usr/local/cuda`, `/usr/local/cuda-X.Y` (the selected
/// version's).
fn candidates(var: &str, fetched: PathBuf, kind: &str) -> Vec<PathBuf> {
    let target = |v: &str| env::var(format!("CARGO_CFG_TARGET_{v}")).unwrap_or_default();
    let (os, arch) = (target("OS"), target("ARCH"));
    let inputs = search::Inputs {
        os,
        arch,
        ..Default::default()
    };
    let v: u32 = env::var("DEP_CUDA_VERSION").unwrap().parse().unwrap();
    let versioned = format!("/usr/local/cuda-{}.{}", v / 1000, v % 1000 / 10);
    let roots = search::ROOT_VARS.iter().filter_map(env::var_os);
    let roots =
        (roots.map(PathBuf::from)).chain(["/usr/local/cuda", &versioned].map(PathBuf::from));
    let under = roots.flat_map(|root| search::toolkit_folders(&inputs, &root, kind));
    let given = env::var_os(var).map(PathBuf::from);
    given.into_iter().chain([fetched]).chain(under).collect()
}

/// The directory holding `cuda.h` and `cudaTypedefs.h` of exactly `version`; or the one-line
/// message of what was searched.
fn header_dir(root: &Path, version: &str) -> Result<PathBuf, String> {
    let var = format!("CUDA_HEADERS_{version}");
    let fetched = root.join("target/ci-deps/headers").join(version);
    let dirs = candidates(&var, fetched, "include");
    search(dirs, "cuda.h cudaTypedefs.h", Some(("CUDA_VERSION", version))).map_err(|looked| {
        format!(
            "the tests compile C against the CUDA {version} headers (cuda.h and cudaTypedefs.h with \
             CUDA_VERSION {version}), and none were found; run `ci/fetch-deps.sh` (it downloads the \
             pinned headers into target/ci-deps/) or set {var} to a directory holding them. Looked \
             in: {looked}"
        )
    })
}

/// The directory holding every other API's header the interop headers include (the
/// `foreign_headers` of the table of header sets: `GL/gl.h`, `EGL/eglext.h`, ...); or the
/// one-line message of what was searched.
fn interop_dir(root: &Path) -> Result<PathBuf, String> {
    let given = env::var_os("CUDA_INTEROP_INCLUDE").map(PathBuf::from);
    let fetched = root.join("target/ci-deps/interop/include");
    let dirs = given.into_iter().chain([fetched, "/usr/include".into()]);
    let needed = c_header::header_set::foreign_headers();
    let sets = c_header::header_set::MODULES.iter();
    let interop: Vec<&str> = (sets.filter(|s| !s.foreign_headers.is_empty()))
        .map(|s| s.headers[0])
        .collect();
    search(dirs, &needed.join(" "), None).map_err(|looked| {
        format!(
            "the tests compile the interop headers ({}), which need {}; run ci/fetch-deps.sh \
             (Debian's {} into target/ci-deps) or set CUDA_INTEROP_INCLUDE. Looked in: {looked}",
            interop.join(", "),
            needed.join(", "),
            c_header::header_set::debian_packages().join(", ")
        )
    })
}

/// The CUDA 12 runtime's headers and the folder of `libcudart.so.12`; or the one-line message of
/// what is missing and where it was searched.
fn find_cudart(root: &Path) -> Result<(PathBuf, PathBuf), String> {
    let fetched = root.join("target/ci-deps/cudart");
    let missing = |what: &str, looked: String| {
        format!(
            "the C twin of runtime_interop compiles against the CUDA 12 runtime \
             (cuda_runtime_api.h with CUDART_VERSION 12xxx and its crt/ headers; libcudart.so.12); \
             run `ci/fetch-deps.sh` (it extracts those of the pinned 12.0 wheels into \
             target/ci-deps/cudart/) or set CUDART_INCLUDE_PATH and CUDART_LIBRARY_PATH. No \
             {what} found; looked in: {looked}"
        )
    };
    let dirs = candidates("CUDART_INCLUDE_PATH", fetched.join("include"), "include");
    let define = Some(("CUDART_VERSION", "12xxx"));
    let include = search(dirs, "cuda_runtime_api.h crt/host_defines.h", define);
    let include = include.map_err(|looked| missing("headers", looked))?;
    let dirs = candidates("CUDART_LIBRARY_PATH", fetched.join("lib"), "lib");
    let lib = search(dirs, "libcudart.so.12", None).map_err(|l| missing("library", l))?;
    Ok((include, lib))
}

/// The files of `dir` ending in `.ext`, sorted.
fn list(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let args = std::iter::once(cmd.get_program()).chain(cmd.get_args());
    let line: Vec<_> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    let why = match cmd.status() {
        Ok(status) if status.success() => return Ok(()),
        Ok(status) => format!("the C++ compiler failed ({status}; its messages above)"),
        Err(e) => format!("cannot run the C++ compiler ({e})"),
    };
    Err(format!("{what}: {why}: {}", line.join(" ")))
}
