//! Reading `cuda.h` and `cudaTypedefs.h` as the C preprocessor leaves them: shared by the layout
//! probe (`layout.rs`) and the prototype probe (`prototypes.rs`), in the build script and in the
//! prototype test (which includes this file by path).

use std::path::{Path, PathBuf};

/// The driver-API headers the bindings bind (`cuda.h` and the headers of the crate's `profiler`,
/// `gl`, `egl` and `vdpau` modules, each with its typedef header), as a C program includes them:
/// `cudaGL.h` after `GL/gl.h`, `cudaVDPAU.h` after `vdpau/vdpau.h`.
pub const INCLUDES: &str = "#include <cuda.h>\n#include <cudaTypedefs.h>\n\
    #include <cudaProfiler.h>\n#include <cudaProfilerTypedefs.h>\n\
    #include <GL/gl.h>\n#include <cudaGL.h>\n#include <cudaGLTypedefs.h>\n\
    #include <cudaEGL.h>\n#include <cudaEGLTypedefs.h>\n\
    #include <vdpau/vdpau.h>\n#include <cudaVDPAU.h>\n#include <cudaVDPAUTypedefs.h>\n";

/// Their file names.
const CUDA_HEADERS: [&str; 10] = [
    "cuda.h",
    "cudaTypedefs.h",
    "cudaProfiler.h",
    "cudaProfilerTypedefs.h",
    "cudaGL.h",
    "cudaGLTypedefs.h",
    "cudaEGL.h",
    "cudaEGLTypedefs.h",
    "cudaVDPAU.h",
    "cudaVDPAUTypedefs.h",
];

/// The other APIs' headers the interop headers include: the bindings bind what of them the
/// interop headers use (`GLuint`, `EGLImageKHR`, `VdpStatus`).
#[allow(dead_code)] // read by the layout probe only
pub const FOREIGN_HEADERS: [&str; 7] = [
    "gl.h",
    "egl.h",
    "eglext.h",
    "eglplatform.h",
    "khrplatform.h",
    "vdpau.h",
    "glext.h",
];

/// The prefixes of the generated files of each header set (`gl_bindings.rs`).
pub const SETS: [&str; 5] = ["", "profiler_", "gl_", "egl_", "vdpau_"];

/// The definitions the bindings were generated with for the foreign headers (EGL's native types
/// without Xlib, the same sizes).
pub const FOREIGN_DEFINES: [&str; 1] = ["EGL_NO_X11"];

/// The directory holding `GL/gl.h`, `EGL/eglext.h` (with `KHR/khrplatform.h`) and
/// `vdpau/vdpau.h`: `$CUDA_INTEROP_INCLUDE`, then `target/ci-deps/interop/include`
/// (`ci/fetch-deps.sh`), then `/usr/include`.
#[allow(dead_code)] // the prototype test includes this file by path and does not search
pub fn interop_dir(root: &Path) -> Result<PathBuf, String> {
    let has = |d: &Path| {
        [
            "GL/gl.h",
            "EGL/eglext.h",
            "KHR/khrplatform.h",
            "vdpau/vdpau.h",
        ]
        .iter()
        .all(|h| d.join(h).is_file())
    };
    let candidates: Vec<PathBuf> = std::env::var_os("CUDA_INTEROP_INCLUDE")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root.join("target/ci-deps/interop/include"),
            PathBuf::from("/usr/include"),
        ])
        .collect();
    candidates.iter().find(|d| has(d)).cloned().ok_or_else(|| {
        format!(
            "the tests compile the interop headers (cudaGL.h, cudaEGL.h, cudaVDPAU.h), which need \
             GL/gl.h, EGL/eglext.h, KHR/khrplatform.h and vdpau/vdpau.h; none of {} has them: run \
             ci/fetch-deps.sh (Debian's libgl-dev, libegl-dev, libvdpau-dev into target/ci-deps) \
             or set CUDA_INTEROP_INCLUDE",
            candidates
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The lines of the driver-API headers ([`INCLUDES`]) in a preprocessor's output (`-E`), by its
/// line markers: what the headers declare, without the system and foreign headers they include.
pub fn header_lines(expanded: &str) -> String {
    lines_of(expanded, &CUDA_HEADERS)
}

/// The lines of the files named `files` (base names) in a preprocessor's output.
pub fn lines_of(expanded: &str, files: &[&str]) -> String {
    let mut keep = false;
    let mut own = String::new();
    for line in expanded.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(file) = rest.split('"').nth(1) {
                let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
                keep = files.contains(&base);
                continue;
            }
        }
        if line.starts_with('#') {
            continue;
        }
        if keep {
            own.push_str(line);
            own.push('\n');
        }
    }
    own
}

/// Preprocessed C split into tokens: identifiers and numbers, string and character literals,
/// and every other character on its own.
pub fn c_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(text[s..i].to_string());
        } else if c == b'"' || c == b'\'' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(text[s..i.min(b.len())].to_string());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

/// A token that is an identifier (or keyword).
pub fn is_c_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The index after the parenthesized group that opens at or after `j` (`__attribute__((..))`).
pub fn skip_parens<S: AsRef<str>>(t: &[S], mut j: usize) -> usize {
    let mut depth = 0;
    while j < t.len() {
        match t[j].as_ref() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}
