//! The headers the bindings bind, and reading them as the C preprocessor leaves them: shared by
//! the layout probe (`layout.rs`, in the build script) and the prototype probe (`prototypes.rs`, in
//! `tests/prototypes.rs`, which includes this file by path), each using its part.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use lang_c::ast::{
    Declaration, DeclarationSpecifier, Declarator, DeclaratorKind, DerivedDeclarator as Derived,
    EnumType, ExternalDeclaration, FunctionSpecifier, Identifier, StorageClassSpecifier,
    StructKind, StructType,
};
use lang_c::span::{Node, Span};
use lang_c::visit::Visit;

// The generator's table of the header sets it binds (`cuda.h`, the interop modules), shared.
#[allow(dead_code)]
#[path = "../../cuda-driver-sys-items/generator/src/header_set.rs"]
pub mod header_set;
use header_set::{HeaderSet, CORE, MODULES};

/// The header sets this build covers: `cuda.h`'s, and with the tests' `interop` feature (every
/// module of the table: `tests/header_sets.rs` checks that the feature turns on each) the others;
/// the build script is compiled with the package's features too.
fn covered() -> impl Iterator<Item = &'static HeaderSet> {
    let modules = if cfg!(feature = "interop") {
        MODULES
    } else {
        &[]
    };
    std::iter::once(&CORE).chain(modules)
}

/// The covered headers: (prefix of their generated files, as in `gl_bindings.rs`; header).
pub fn sets() -> impl Iterator<Item = (String, &'static str)> {
    covered().map(|s| (s.file(""), s.headers[0]))
}

/// The covered headers, in the order a C program includes them.
fn included() -> impl Iterator<Item = &'static str> {
    covered().flat_map(|s| s.prelude.iter().chain(&s.headers).copied())
}

/// The `#include` lines of the covered headers, as a C program includes them.
pub fn includes() -> String {
    included().map(|h| format!("#include <{h}>\n")).collect()
}

/// The definitions the bindings were generated with (see cuda-driver-sys-items/generator): the legacy
/// `_v1` types and the `PFN_*` typedefs of older versions exist only with these.
pub const INTERNAL_DEFINES: &str = "__CUDA_API_VERSION_INTERNAL __CUDA_API_VERSION_INTERNAL_ODR";

/// The definitions the bindings were generated with for the foreign headers (`EGL_NO_X11`).
pub fn foreign_defines() -> impl Iterator<Item = &'static str> {
    let defines = MODULES.iter().flat_map(|s| s.defines);
    defines.map(|d| d.trim_start_matches("-D"))
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
            .args(foreign_defines().map(|d| format!("-D{d}")))
            .env("LC_ALL", "C");
        cmd
    }

    /// The preprocessor's output (`-E`) of the [`includes`] in C with `defines`. Their C++ view
    /// declares the same (inside `extern "C"` blocks), so both probes read the C one.
    pub fn preprocess(&self, defines: &[&str]) -> Result<String, String> {
        let mut cmd = self.command();
        cmd.args(["-E", "-x", "c", "/dev/null"]);
        // Attribute groups and alignment specifiers name nothing declared: the preprocessor drops
        // them (lang-c reads no `_Alignas` in a member's specifiers).
        cmd.args(["-D__attribute__(a)=", "-D__declspec(a)=", "-D_Alignas(a)="]);
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
#[derive(Clone, Debug)]
pub struct CDef {
    pub keyword: &'static str,
    pub tag: Option<String>,
    /// The name a `typedef` of the definition declares first.
    pub typedef: Option<String>,
    pub nested: bool,
}

/// What the preprocessed headers declare, read by a C parser (`lang-c`).
#[derive(Clone, Debug, Default)]
pub struct Decls {
    pub defs: Vec<CDef>,
    /// Every enumerator.
    pub enumerators: Vec<String>,
    /// Typedefs of function types (`typedef VdpStatus VdpGetProcAddress(..);`), not of pointers.
    pub function_typedefs: BTreeSet<String>,
    /// Functions (library symbols), `static inline` functions (defined in the header) and
    /// `typedef R (CUDAAPI *PFN_cuX_vN)(..);`, by name.
    pub signatures: [BTreeSet<String>; 3],
    /// The name of the typedef the declaration being read declares first, while its own
    /// specifiers are read (see [`CDef::typedef`]); the depth of records being read.
    typedef: Option<String>,
    depth: usize,
}

impl Decls {
    /// What `expanded`, a preprocessor's output (from [`Compiler::preprocess`]), declares, parsed
    /// once and sorted by its line markers: in the driver-API headers (every [`HeaderSet`]'s), and
    /// in the other APIs' headers they include (their `foreign_headers`, whose items the bindings
    /// bind where the interop headers use them: `GLuint`, `EGLImageKHR`, `VdpStatus`).
    pub fn scan(expanded: &str) -> Result<[Decls; 2], String> {
        let sets = std::iter::once(&CORE).chain(MODULES);
        let driver: Vec<&str> = sets.flat_map(|s| s.headers).collect();
        let foreign: Vec<&str> = header_set::foreign_headers()
            .iter()
            .map(|h| h.rsplit('/').next().unwrap_or(h))
            .collect();
        // Where each file's lines begin, and which of the two it is, if either.
        let (mut marks, mut offset) = (Vec::new(), 0);
        for line in expanded.split_inclusive('\n') {
            if let Some(file) = line.strip_prefix("# ").and_then(|r| r.split('"').nth(1)) {
                let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
                let set = [&driver, &foreign].iter().position(|s| s.contains(&base));
                marks.push((offset, set));
            }
            offset += line.len();
        }
        let set = |at: usize| marks[..marks.partition_point(|m| m.0 <= at)].last()?.1;
        let config = lang_c::driver::Config::with_gcc();
        let parse = lang_c::driver::parse_preprocessed(&config, expanded.to_string());
        let parse = parse.map_err(|e| format!("the C parser (lang-c) failed on the headers: {e}"));
        let (unit, mut decls) = (parse?.unit, [Decls::default(), Decls::default()]);
        for (ext, s) in unit.0.iter().filter_map(|e| Some((e, set(e.span.start)?))) {
            let d = &mut decls[s];
            match &ext.node {
                ExternalDeclaration::Declaration(decl) => d.declaration(&decl.node),
                ExternalDeclaration::FunctionDefinition(f) => {
                    d.signatures[1].insert(name(&f.node.declarator.node));
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
            d.visit_external_declaration(&ext.node, &ext.span);
        }
        Ok(decls)
    }

    /// The function, function type or `PFN_*` typedef a declaration declares; the name of the
    /// typedef, for its definitions.
    fn declaration(&mut self, decl: &Declaration) {
        let specifier = |s: &DeclarationSpecifier, static_: bool| match s {
            DeclarationSpecifier::StorageClass(c) => match c.node {
                StorageClassSpecifier::Typedef => !static_,
                StorageClassSpecifier::Static => static_,
                _ => false,
            },
            DeclarationSpecifier::Function(f) => static_ && f.node == FunctionSpecifier::Inline,
            _ => false,
        };
        let typedef = decl.specifiers.iter().any(|s| specifier(&s.node, false));
        let inline = decl.specifiers.iter().any(|s| specifier(&s.node, true));
        for d in decl.declarators.iter().map(|d| &d.node.declarator.node) {
            let f = d.derived.first().map(|f| &f.node);
            let function = matches!(f, Some(Derived::Function(_) | Derived::KRFunction(_)));
            let direct = matches!(d.kind.node, DeclaratorKind::Identifier(_));
            let name = name(d);
            if typedef {
                self.typedef.get_or_insert(name.clone());
                if name.starts_with("PFN_") && function && !direct {
                    self.signatures[2].insert(name);
                } else if function && direct {
                    self.function_typedefs.insert(name);
                }
            } else if function && direct {
                self.signatures[usize::from(inline)].insert(name);
                return;
            }
        }
    }

    pub fn count(&self, keyword: &str) -> usize {
        self.defs.iter().filter(|d| d.keyword == keyword).count()
    }

    fn definition(&mut self, keyword: &'static str, tag: &Option<Node<Identifier>>) {
        let nested = self.depth > 0;
        self.defs.push(CDef {
            keyword,
            tag: tag.as_ref().map(|t| t.node.name.clone()),
            typedef: if nested { None } else { self.typedef.clone() },
            nested,
        });
    }
}

/// The struct, union and enum definitions, the enumerators.
impl<'a> Visit<'a> for Decls {
    fn visit_external_declaration(&mut self, ext: &'a ExternalDeclaration, span: &'a Span) {
        lang_c::visit::visit_external_declaration(self, ext, span);
        self.typedef = None;
    }

    fn visit_struct_type(&mut self, s: &'a StructType, span: &'a Span) {
        if s.declarations.is_some() {
            let keyword = match s.kind.node {
                StructKind::Struct => "struct",
                StructKind::Union => "union",
            };
            self.definition(keyword, &s.identifier);
            self.depth += 1;
            lang_c::visit::visit_struct_type(self, s, span);
            self.depth -= 1;
        }
    }

    fn visit_enum_type(&mut self, e: &'a EnumType, _: &'a Span) {
        if e.enumerators.is_empty() {
            return; // `enum E` naming a type
        }
        self.definition("enum", &e.identifier);
        for n in &e.enumerators {
            self.enumerators.push(n.node.identifier.node.name.clone());
        }
    }
}

/// The name a declarator declares.
fn name(d: &Declarator) -> String {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => i.node.name.clone(),
        DeclaratorKind::Declarator(inner) => name(&inner.node),
        DeclaratorKind::Abstract => String::new(),
    }
}
