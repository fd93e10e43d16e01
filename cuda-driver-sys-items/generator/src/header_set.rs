//! The header sets the generator binds: `cuda.h` ([`CORE`]) and the other driver-API headers
//! ([`MODULES`]), each with its typedef header, and everything else about each: where its headers
//! come from, what it needs to be parsed, which other APIs' headers it includes and which Debian
//! packages give those. The one table of the interop modules: the generator, cuda-driver-sys's
//! build script (under `bindgen`), the tests' build script and probes and the fetch step read it
//! (the last two include this file by path, so it is self-contained); what cannot read it (Cargo
//! features, `lib.rs`'s module declarations, the docs.rs feature list) is checked against it by
//! `tests/header_sets.rs`.

use std::fmt::Write as _;

/// Which wheel of a CUDA version's line in `cuda-driver-sys-items/versions.txt` has a header (the
/// columns of that file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wheel {
    /// The runtime wheel (`nvidia-cuda-runtime`): `cuda.h`, `cudaTypedefs.h`, `cudaGL.h`, ...
    Runtime,
    /// The profiler wheel (`nvidia-cuda-profiler-api`): `cudaProfiler.h`.
    Profiler,
}

/// One driver-API header and its typedef header, generated into one set of files.
pub struct HeaderSet {
    /// The module of `cuda-driver-sys` (and the feature) it becomes, and the prefix of its files
    /// (`gl` → `gl_bindings.rs`, ...); empty for `cuda.h`, whose files have no prefix.
    pub module: &'static str,
    /// The header and its typedef header: their items are what the set binds.
    pub headers: [&'static str; 2],
    /// The wheel whose `include/` has each of [`headers`](Self::headers).
    pub wheels: [Wheel; 2],
    /// What a C program includes before them (`cudaVDPAU.h` does not include `vdpau/vdpau.h`).
    pub prelude: &'static [&'static str],
    /// Preprocessor definitions for the foreign headers (`EGL_NO_X11`: EGL's native types without
    /// Xlib, the same sizes).
    pub defines: &'static [&'static str],
    /// The headers of other APIs that [`headers`](Self::headers) and
    /// [`prelude`](Self::prelude) include, as an include directory holds them (`GL/gl.h`): the
    /// bindings bind what of them the set uses (`GLuint`, `EGLImageKHR`, `VdpStatus`), and the
    /// directory given for them (`CUDA_INTEROP_INCLUDE`) must hold each.
    pub foreign_headers: &'static [&'static str],
    /// The Debian packages whose files are [`foreign_headers`](Self::foreign_headers) (the fetch
    /// step unpacks them into `target/ci-deps/interop/`).
    pub debian_packages: &'static [&'static str],
}

/// `cuda.h` and `cudaTypedefs.h`.
pub const CORE: HeaderSet = HeaderSet {
    module: "",
    headers: ["cuda.h", "cudaTypedefs.h"],
    wheels: [Wheel::Runtime; 2],
    prelude: &[],
    defines: &[],
    foreign_headers: &[],
    debian_packages: &[],
};

/// The other driver-API headers, each bound as an optional module of `cuda-driver-sys`. Their
/// items from other APIs (`GLuint`, `EGLImageKHR`, `VdpDevice`, ...) are bound from those APIs'
/// own headers; `cuda.h`'s items are not repeated (the modules use the crate's). In this order
/// everywhere: the generated files, `DriverTable`'s fields, `DriverTable::entries`.
pub const MODULES: &[HeaderSet] = &[
    HeaderSet {
        module: "profiler",
        headers: ["cudaProfiler.h", "cudaProfilerTypedefs.h"],
        // The runtime wheel has the typedef header, not `cudaProfiler.h`.
        wheels: [Wheel::Profiler, Wheel::Runtime],
        prelude: &[],
        defines: &[],
        foreign_headers: &[],
        debian_packages: &[],
    },
    HeaderSet {
        module: "gl",
        headers: ["cudaGL.h", "cudaGLTypedefs.h"],
        wheels: [Wheel::Runtime; 2],
        prelude: &["GL/gl.h"],
        defines: &[],
        foreign_headers: &["GL/gl.h", "GL/glext.h", "KHR/khrplatform.h"],
        debian_packages: &["libgl-dev"],
    },
    HeaderSet {
        module: "egl",
        headers: ["cudaEGL.h", "cudaEGLTypedefs.h"],
        wheels: [Wheel::Runtime; 2],
        prelude: &[],
        defines: &["-DEGL_NO_X11"],
        // Debian's KHR/khrplatform.h is libgl-dev's.
        foreign_headers: &[
            "EGL/egl.h",
            "EGL/eglext.h",
            "EGL/eglplatform.h",
            "KHR/khrplatform.h",
        ],
        debian_packages: &["libegl-dev", "libgl-dev"],
    },
    HeaderSet {
        module: "vdpau",
        headers: ["cudaVDPAU.h", "cudaVDPAUTypedefs.h"],
        wheels: [Wheel::Runtime; 2],
        prelude: &["vdpau/vdpau.h"],
        defines: &[],
        foreign_headers: &["vdpau/vdpau.h"],
        debian_packages: &["libvdpau-dev"],
    },
];

/// The [`foreign_headers`](HeaderSet::foreign_headers) of every module, each once, in the
/// table's order.
pub fn foreign_headers() -> Vec<&'static str> {
    each_once(MODULES.iter().flat_map(|s| s.foreign_headers))
}

/// The [`debian_packages`](HeaderSet::debian_packages) of every module, each once, in the table's
/// order.
pub fn debian_packages() -> Vec<&'static str> {
    each_once(MODULES.iter().flat_map(|s| s.debian_packages))
}

fn each_once<'a>(items: impl Iterator<Item = &'a &'static str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for item in items {
        if !out.contains(item) {
            out.push(item);
        }
    }
    out
}

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
