//! The header sets the generator binds: `cuda.h` ([`CORE`]) and the other driver-API headers
//! ([`MODULES`]), each with its typedef header, and what each needs to be parsed. Self-contained:
//! the tests' probes include this file by path (`tests/support/c_header.rs`).

use std::fmt::Write as _;

/// One driver-API header and its typedef header, generated into one set of files.
pub struct HeaderSet {
    /// The module of `cuda-driver-sys` (and the feature) it becomes, and the prefix of its files
    /// (`gl` → `gl_bindings.rs`, ...); empty for `cuda.h`, whose files have no prefix.
    pub module: &'static str,
    /// The header and its typedef header: their items are what the set binds.
    pub headers: [&'static str; 2],
    /// What a C program includes before them (`cudaVDPAU.h` does not include `vdpau/vdpau.h`).
    pub prelude: &'static [&'static str],
    /// Preprocessor definitions for the foreign headers (`EGL_NO_X11`: EGL's native types without
    /// Xlib, the same sizes).
    pub defines: &'static [&'static str],
}

/// `cuda.h` and `cudaTypedefs.h`.
pub const CORE: HeaderSet = HeaderSet {
    module: "",
    headers: ["cuda.h", "cudaTypedefs.h"],
    prelude: &[],
    defines: &[],
};

/// The other driver-API headers, each bound as an optional module of `cuda-driver-sys`. Their
/// items from other APIs (`GLuint`, `EGLImageKHR`, `VdpDevice`, ...) are bound from those APIs'
/// own headers; `cuda.h`'s items are not repeated (the modules use the crate's).
pub const MODULES: [HeaderSet; 4] = [
    HeaderSet {
        module: "profiler",
        headers: ["cudaProfiler.h", "cudaProfilerTypedefs.h"],
        prelude: &[],
        defines: &[],
    },
    HeaderSet {
        module: "gl",
        headers: ["cudaGL.h", "cudaGLTypedefs.h"],
        prelude: &["GL/gl.h"],
        defines: &[],
    },
    HeaderSet {
        module: "egl",
        headers: ["cudaEGL.h", "cudaEGLTypedefs.h"],
        prelude: &[],
        defines: &["-DEGL_NO_X11"],
    },
    HeaderSet {
        module: "vdpau",
        headers: ["cudaVDPAU.h", "cudaVDPAUTypedefs.h"],
        prelude: &["vdpau/vdpau.h"],
        defines: &[],
    },
];

impl HeaderSet {
    pub(crate) fn is_core(&self) -> bool {
        self.module.is_empty()
    }

    /// The field of `DriverTable` that holds this header's slots (`core` for `cuda.h`).
    pub fn table_field(&self) -> &'static str {
        if self.is_core() {
            "core"
        } else {
            self.module
        }
    }

    /// The file `name` of this set (`gl_bindings.rs`).
    pub fn file(&self, name: &str) -> String {
        if self.is_core() {
            name.to_string()
        } else {
            format!("{}_{name}", self.module)
        }
    }

    /// What the bindings are generated from: the headers as a C program includes them.
    pub(crate) fn wrapper(&self) -> String {
        let mut w = String::from("#include <cuda.h>\n");
        for h in self.prelude.iter().chain(&self.headers) {
            if *h != "cuda.h" {
                writeln!(w, "#include <{h}>").unwrap();
            }
        }
        w
    }
}
