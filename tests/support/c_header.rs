//! The headers the bindings bind, and reading them as the C preprocessor leaves them: shared by
//! the layout probe (`layout.rs`, in the build script) and the prototype probe (`prototypes.rs`, in
//! `tests/prototypes.rs`, which includes this file by path), each using its part.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The driver-API headers the bindings bind: (the prefix of their generated files, as in
/// `gl_bindings.rs`; the header; its typedef header; the other API's header it needs first). The
/// tests' `interop` feature (the crate's `profiler`, `gl`, `egl` and `vdpau` modules) adds all but
/// `cuda.h`; the build script is compiled with the package's features too.
const MODULES: [(&str, &str, &str, &str); 5] = [
    ("", "cuda.h", "cudaTypedefs.h", ""),
    ("profiler_", "cudaProfiler.h", "cudaProfilerTypedefs.h", ""),
    ("gl_", "cudaGL.h", "cudaGLTypedefs.h", "GL/gl.h"),
    ("egl_", "cudaEGL.h", "cudaEGLTypedefs.h", ""),
    (
        "vdpau_",
        "cudaVDPAU.h",
        "cudaVDPAUTypedefs.h",
        "vdpau/vdpau.h",
    ),
];

type Module = (&'static str, &'static str, &'static str, &'static str);

/// The [`MODULES`] this build covers.
fn covered() -> &'static [Module] {
    &MODULES[..if cfg!(feature = "interop") { 5 } else { 1 }]
}

/// The covered headers: (prefix of their generated files, header).
pub fn sets() -> impl Iterator<Item = (&'static str, &'static str)> {
    covered().iter().map(|m| (m.0, m.1))
}

/// The covered headers, in the order a C program includes them.
fn included() -> impl Iterator<Item = &'static str> {
    covered()
        .iter()
        .flat_map(|m| [m.3, m.1, m.2])
        .filter(|h| !h.is_empty())
}

/// The `#include` lines of the covered headers, as a C program includes them.
pub fn includes() -> String {
    included().map(|h| format!("#include <{h}>\n")).collect()
}

/// The other APIs' headers the interop headers include: the bindings bind what of them the
/// interop headers use (`GLuint`, `EGLImageKHR`, `VdpStatus`).
pub const FOREIGN_HEADERS: &str = "gl.h egl.h eglext.h eglplatform.h khrplatform.h vdpau.h glext.h";

/// The definitions the bindings were generated with (see cuda-driver-sys/generator): the legacy
/// `_v1` types and the `PFN_*` typedefs of older versions exist only with these.
pub const INTERNAL_DEFINES: &str = "__CUDA_API_VERSION_INTERNAL __CUDA_API_VERSION_INTERNAL_ODR";

/// The definitions the bindings were generated with for the foreign headers (EGL's native types
/// without Xlib, the same sizes).
pub const FOREIGN_DEFINES: [&str; 1] = ["EGL_NO_X11"];

/// The lines of the driver-API headers ([`MODULES`]) in a preprocessor's output (`-E`), by its
/// line markers: what the headers declare, without the system and foreign headers they include.
pub fn header_lines(expanded: &str) -> String {
    let names: Vec<&str> = MODULES.iter().flat_map(|m| [m.1, m.2]).collect();
    lines_of(expanded, &names)
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

/// A compiler of the probes and the directories of the headers it compiles against.
pub struct Compiler {
    /// `cc`/`g++` or what `$CC`/`$CXX` name (the build script asks the `cc` crate).
    pub path: PathBuf,
    /// The directory holding `cuda.h` and `cudaTypedefs.h` of the selected version.
    pub headers: PathBuf,
    /// The directory holding the OpenGL, EGL and VDPAU headers the interop headers include.
    pub interop: PathBuf,
}

impl Compiler {
    /// The command with the include paths and the definitions the bindings were generated with,
    /// errors only (the deprecation warnings of legacy functions are no finding), ASCII quotes.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.path);
        cmd.arg("-w")
            .arg(format!("-I{}", self.headers.display()))
            .arg(format!("-I{}", self.interop.display()))
            .args(FOREIGN_DEFINES.iter().map(|d| format!("-D{d}")))
            .env("LC_ALL", "C");
        cmd
    }

    /// The preprocessor's output (`-E`) of the [`includes`] in C with `defines`. Their C++ view
    /// declares the same (inside `extern "C"` blocks), so both probes read the C one.
    pub fn preprocess(&self, defines: &[&str]) -> Result<String, String> {
        let mut cmd = self.command();
        cmd.args(["-E", "-x", "c", "/dev/null"]);
        // The attribute groups name nothing declared: the preprocessor drops them.
        cmd.args(["-D__attribute__(a)=", "-D__declspec(a)="]);
        cmd.args(included().flat_map(|h| ["-include", h]));
        cmd.args(defines.iter().map(|d| format!("-D{d}")));
        let out = (cmd.output()).map_err(|e| format!("cannot run {}: {e}", self.path.display()))?;
        match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
            false => Err(format!(
                "the preprocessor failed on cuda.h with {defines:?} ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    }
}

/// One struct, union or enum definition (with a body) in the header.
pub struct CDef {
    pub keyword: &'static str,
    pub tag: Option<String>,
    /// The name a `typedef` of the definition declares first.
    pub typedef: Option<String>,
    pub nested: bool,
}

/// What preprocessed header text declares, statement by statement.
#[derive(Default)]
pub struct Decls {
    pub defs: Vec<CDef>,
    /// Every enumerator.
    pub enumerators: Vec<String>,
    /// Typedefs of function types (`typedef VdpStatus VdpGetProcAddress(..);`), not of pointers.
    pub function_typedefs: BTreeSet<String>,
    /// Functions (library symbols), `static inline` functions (defined in the header) and
    /// `typedef R (CUDAAPI *PFN_cuX_vN)(..);`, by name.
    pub signatures: [BTreeSet<String>; 3],
}

/// Identifiers followed by `(` that declare nothing.
const NOT_DECLARATORS: &str = "sizeof alignof _Alignof alignas _Alignas decltype __typeof__ \
    typeof static_assert _Static_assert noexcept asm __asm __asm__";

impl Decls {
    /// Splits `text` (from [`Compiler::preprocess`], without attribute groups) into top-level
    /// statements (a declaration ends at its `;`, a function definition at its body's `}`) and
    /// reads each.
    pub fn scan(text: &str) -> Decls {
        let tokens = c_tokens(text);
        let mut d = Decls::default();
        let (mut stmt, mut depth) = (Vec::new(), 0usize);
        for tok in tokens.iter().map(String::as_str) {
            stmt.push(tok);
            let end = match tok {
                "{" => {
                    depth += 1;
                    false
                }
                "}" => {
                    depth = depth.saturating_sub(1);
                    let body = stmt.iter().position(|s| *s == "{");
                    depth == 0 && body.is_some_and(|b| b > 0 && stmt[b - 1] == ")")
                }
                ";" => depth == 0,
                _ => false,
            };
            if end {
                d.definitions(&stmt);
                d.declaration(&stmt);
                stmt.clear();
            }
        }
        d
    }

    /// The struct, union and enum definitions of one statement, and the enumerators.
    fn definitions(&mut self, s: &[&str]) {
        let mut depth = 0;
        for i in 0..s.len() {
            depth += i32::from(s[i] == "{") - i32::from(s[i] == "}");
            let Some(keyword) = ["struct", "union", "enum"].into_iter().find(|k| *k == s[i]) else {
                continue;
            };
            let mut j = i + 1;
            let tag = (j < s.len() && is_c_ident(s[j])).then(|| s[j].to_string());
            j += usize::from(tag.is_some());
            if j >= s.len() || s[j] != "{" {
                continue;
            }
            let end = group_end(s, j, "{", "}");
            let mut typedef = None;
            if depth == 0 && s[0] == "typedef" {
                let mut k = end + 1;
                while k < s.len() && s[k] != ";" && typedef.is_none() {
                    typedef = is_c_ident(s[k]).then(|| s[k].to_string());
                    k += 1;
                }
            }
            if keyword == "enum" {
                // `A = 1, B, C = A | B,`: the first token of each top-level entry.
                let (body, mut paren) = (&s[j + 1..end], 0);
                for (k, tok) in body.iter().enumerate() {
                    paren += i32::from(*tok == "(") - i32::from(*tok == ")");
                    if paren == 0 && is_c_ident(tok) && (k == 0 || body[k - 1] == ",") {
                        self.enumerators.push(tok.to_string());
                    }
                }
            }
            let nested = depth > 0;
            self.defs.push(CDef {
                keyword,
                tag,
                typedef,
                nested,
            });
        }
    }

    /// The function, function type or `PFN_*` typedef one statement declares.
    fn declaration(&mut self, s: &[&str]) {
        if s[0] == "typedef" {
            let pfn =
                |w: &&[&str]| w[0] == "(" && w[1] == "*" && w[3] == ")" && w[2].starts_with("PFN_");
            if let Some(w) = s.windows(4).find(pfn) {
                self.signatures[2].insert(w[2].to_string());
            }
            let j = s
                .iter()
                .position(|t| matches!(*t, ";" | "(" | "{"))
                .unwrap_or(s.len());
            let function_type = j < s.len() && s[j] == "(" && j > 2 && is_c_ident(s[j - 1]);
            if function_type && s.get(group_end(s, j, "(", ")") + 1) == Some(&";") {
                self.function_typedefs.insert(s[j - 1].to_string());
            }
            return;
        }
        for j in 0..s.len() - 1 {
            if matches!(s[j], "{" | "=") {
                return;
            }
            if is_c_ident(s[j])
                && s[j + 1] == "("
                && !NOT_DECLARATORS.split_whitespace().any(|n| n == s[j])
            {
                let inline = s.contains(&"{")
                    || s[..j]
                        .iter()
                        .any(|k| matches!(*k, "static" | "inline" | "__inline__" | "__inline"));
                let set = &mut self.signatures[usize::from(inline)];
                set.insert(s[j].to_string());
                return;
            }
        }
    }

    pub fn count(&self, keyword: &str) -> usize {
        self.defs.iter().filter(|d| d.keyword == keyword).count()
    }
}

/// Preprocessed C split into tokens: identifiers and numbers, string and character literals,
/// and every other character on its own.
fn c_tokens(text: &str) -> Vec<String> {
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
fn is_c_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The index of the token that closes the first `open` group at or after `j`.
fn group_end(t: &[&str], mut j: usize, open: &str, close: &str) -> usize {
    let mut depth = 0;
    while j < t.len() {
        depth += i32::from(t[j] == open) - i32::from(t[j] == close);
        if depth == 0 && t[j] == close {
            return j;
        }
        j += 1;
    }
    j
}
