//! Reading `cuda.h` and `cudaTypedefs.h` as the C preprocessor leaves them: shared by the layout
//! probe (`layout.rs`) and the prototype probe (`prototypes.rs`), in the build script and in the
//! prototype test (which includes this file by path).

use std::path::{Path, PathBuf};

use quote::ToTokens;

/// The driver-API headers the bindings bind, as a C program includes them: `cuda.h` and, with the
/// tests' `interop` feature (the crate's `profiler`, `gl`, `egl` and `vdpau` modules), the other
/// headers, each with its typedef header (`cudaGL.h` after `GL/gl.h`, `cudaVDPAU.h` after
/// `vdpau/vdpau.h`). The build script is compiled with the package's features too.
pub const INCLUDES: &str = if cfg!(feature = "interop") {
    "#include <cuda.h>\n#include <cudaTypedefs.h>\n\
    #include <cudaProfiler.h>\n#include <cudaProfilerTypedefs.h>\n\
    #include <GL/gl.h>\n#include <cudaGL.h>\n#include <cudaGLTypedefs.h>\n\
    #include <cudaEGL.h>\n#include <cudaEGLTypedefs.h>\n\
    #include <vdpau/vdpau.h>\n#include <cudaVDPAU.h>\n#include <cudaVDPAUTypedefs.h>\n"
} else {
    "#include <cuda.h>\n#include <cudaTypedefs.h>\n"
};

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

/// The prefixes of the generated files of each header set (`gl_bindings.rs`) the tests cover:
/// the modules' with the `interop` feature only.
pub const SETS: &[&str] = if cfg!(feature = "interop") {
    &["", "profiler_", "gl_", "egl_", "vdpau_"]
} else {
    &[""]
};

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

/// The committed generated files hold every header version, each item under the cfg of the
/// versions it exists in. The items of a merged generated file that version `selected` compiles, without their
/// `cuda_ge_<V>` cfgs (other cfgs, such as the stream mode's, stay): top-level items, and the
/// items of `impl` and `extern` blocks.
pub fn project(text: &str, selected: u32) -> String {
    let mut file = syn::parse_file(text)
        .unwrap_or_else(|e| panic!("a committed generated file does not parse: {e}"));
    file.items.retain_mut(|item| {
        let keep = match item {
            syn::Item::Impl(i) => {
                i.items.retain_mut(|ii| match ii {
                    syn::ImplItem::Const(x) => keep_for(&mut x.attrs, selected),
                    syn::ImplItem::Fn(x) => keep_for(&mut x.attrs, selected),
                    syn::ImplItem::Type(x) => keep_for(&mut x.attrs, selected),
                    _ => true,
                });
                keep_for(&mut i.attrs, selected)
            }
            syn::Item::ForeignMod(m) => {
                m.items.retain_mut(|fi| match fi {
                    syn::ForeignItem::Fn(x) => keep_for(&mut x.attrs, selected),
                    syn::ForeignItem::Static(x) => keep_for(&mut x.attrs, selected),
                    _ => true,
                });
                keep_for(&mut m.attrs, selected)
            }
            syn::Item::Const(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Struct(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Union(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Type(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Use(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Enum(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Fn(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Static(x) => keep_for(&mut x.attrs, selected),
            other => panic!(
                "a generated item the probes cannot project: {}",
                other.to_token_stream()
            ),
        };
        keep
    });
    prettyplease::unparse(&file)
}

/// Whether the `cuda_ge_<V>` cfgs of `attrs` hold for `selected`; removes them.
fn keep_for(attrs: &mut Vec<syn::Attribute>, selected: u32) -> bool {
    let mut keep = true;
    attrs.retain(|a| {
        if !a.path().is_ident("cfg") || !a.to_token_stream().to_string().contains("cuda_ge_") {
            return true;
        }
        let meta: syn::Meta = a.parse_args().expect("a cfg predicate");
        keep &= eval_cfg(&meta, selected);
        false
    });
    keep
}

/// A cfg predicate of `cuda_ge_<V>`, `all`, `any` and `not`.
fn eval_cfg(meta: &syn::Meta, selected: u32) -> bool {
    match meta {
        syn::Meta::Path(p) => {
            let name = p.to_token_stream().to_string();
            let v: u32 = name
                .strip_prefix("cuda_ge_")
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("a version cfg mixed with {name}"));
            v <= selected
        }
        syn::Meta::List(l) => {
            let args = l
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .expect("cfg arguments");
            let mut values = args.iter().map(|m| eval_cfg(m, selected));
            match l.path.to_token_stream().to_string().as_str() {
                "all" => values.all(|b| b),
                "any" => values.any(|b| b),
                "not" => !values.next().expect("not(..) has an argument"),
                other => panic!("cfg predicate {other} in a version cfg"),
            }
        }
        syn::Meta::NameValue(_) => panic!("a name = value predicate in a version cfg"),
    }
}
