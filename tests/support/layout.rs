//! Generates the layout and constant probes of the ABI tests (`tests/layout.rs`,
//! `tests/constants.rs`) from the committed bindings of the selected CUDA version
//! (`cuda-driver-sys/src/generated/bindings.rs` and `names.rs`, the items whose `cuda_ge_<V>` cfgs
//! hold for that version), never from a hand-kept
//! list: a new header version is covered as soon as its bindings are committed.
//!
//! Each probe has two halves that name the same entries:
//! - C files, compiled by the build script with the C compiler against the same `cuda.h` the
//!   bindings came from: `sizeof`, `_Alignof`, `offsetof` and the arithmetic class (signed,
//!   unsigned, floating, other) of every struct, union, field and typedef, the bytes a bit-field
//!   assignment writes, and the value of every enumerator and macro constant;
//! - Rust files in `OUT_DIR` (`layout_probe.rs`, `constants_probe.rs`), included by the tests, with
//!   the same entries taken from the crate with `size_of`, `align_of`, `offset_of!`, bindgen's
//!   bit-field setters and the constants themselves.
//!
//! The layout half is compiled as the bindings were generated: with `__CUDA_API_VERSION_INTERNAL`
//! and `__CUDA_API_VERSION_INTERNAL_ODR`, so the legacy `_v1` types exist. The constants half and
//! the C spellings of `names.rs` are compiled as a C program sees the header (with
//! `CUDA_API_PER_THREAD_DEFAULT_STREAM` under the `per-thread-default-stream` feature).
//!
//! The header itself is read through the C preprocessor too, to count the structs, unions, enums
//! and enumerators it defines: the tests check that the bindings have every one of them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;

use crate::c_header::{
    c_tokens, header_lines, is_c_ident, lines_of, project, skip_parens, FOREIGN_DEFINES,
    FOREIGN_HEADERS, INCLUDES, SETS,
};

/// The defines the bindings were generated with (see the generator).
const INTERNAL_DEFINES: [&str; 2] = [
    "__CUDA_API_VERSION_INTERNAL",
    "__CUDA_API_VERSION_INTERNAL_ODR",
];

/// Writes the C probe sources into `out` and returns them, for the C helpers' library; writes the
/// Rust halves next to them.
pub fn generate(
    manifest: &Path,
    out: &Path,
    version: &str,
    headers: &Path,
    interop: &Path,
) -> Vec<PathBuf> {
    let dir = manifest.join("cuda-driver-sys/src/generated");
    let selected: u32 = version.parse().expect("a numeric CUDA version");
    // The committed files hold every header version, each item under the cfg of the versions it
    // exists in: the probes are made from what this version compiles (written to OUT_DIR too,
    // for the tests that read the bindings as text).
    let read_generated = |name: &str| -> String {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "the layout and constant probes of the ABI tests are generated from the committed \
                 bindings, and {} cannot be read ({e}): restore it \
                 (`git checkout -- cuda-driver-sys/src/generated`) or regenerate it from the \
                 pinned headers with `ci/regenerate.sh`.",
                path.display()
            )
        });
        let projected = project(&text, selected);
        write(&out.join(format!("projected_{name}")), &projected);
        projected
    };
    // cuda.h's files and those of the interop modules (gl_bindings.rs, ...), as one model: the
    // modules are re-exported at the crate root, as their headers are included in one C program.
    let concat = |name: &str| -> String {
        SETS.iter()
            .map(|p| read_generated(&format!("{p}{name}")))
            .collect()
    };
    let bindings_src = concat("bindings.rs");
    let names_src = concat("names.rs");
    println!("cargo:rerun-if-changed={}", headers.display());

    let model = Model::parse(&bindings_src, &names_src);
    let expanded = preprocess(out, headers, interop, true);
    let mut header = HeaderDecls::scan(&header_lines(&expanded));
    // What the bindings bind from the other APIs' headers (`VdpStatus` of vdpau.h) counts as
    // defined by the header too, where those headers define it.
    header.adopt(
        HeaderDecls::scan(&lines_of(&expanded, &FOREIGN_HEADERS)),
        &model,
    );
    // The enumerators a C program sees: the constants probe compiles as one, and the bindings
    // leave out those declared only under __CUDA_API_VERSION_INTERNAL (12.1-12.4's `_MAX`s).
    let public_expanded = preprocess(out, headers, interop, false);
    let mut public_header = HeaderDecls::scan(&header_lines(&public_expanded));
    public_header.adopt(
        HeaderDecls::scan(&lines_of(&public_expanded, &FOREIGN_HEADERS)),
        &model,
    );
    let naming = Naming::resolve(&model, &header);

    let layout_c = out.join("layout_probe.c");
    let constants_c = out.join("constants_probe.c");
    let (c, c_names, rust) = layout_probe(&model, &header, &naming, version);
    write(&layout_c, &c);
    write(&out.join("layout_probe.rs"), &rust);
    let (c, rust) = constants_probe(&model, &public_header, version, &c_names);
    write(&constants_c, &c);
    write(&out.join("constants_probe.rs"), &rust);
    vec![layout_c, constants_c]
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// A type or path as Rust text (`::core::ffi::c_int`, not `:: core :: ffi :: c_int`).
fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" ;", ";")
}

// ---------------------------------------------------------------------------------------------
// The bindings, read back

/// A `#[repr(C)]` struct or union of the bindings.
struct Record {
    union: bool,
    fields: Vec<Member>,
    /// Bit-fields, from bindgen's accessors: (setter, C name, type).
    bitfields: Vec<(String, String, syn::Type)>,
}

enum Member {
    /// A named field: Rust name, C name, type.
    Named(String, String, Box<syn::Type>),
    /// `__bindgen_anon_N`: an anonymous struct or union member, whose fields C reaches by name.
    Anon(String, String),
    /// `_bitfield_N`: storage of bit-fields (probed through the setters).
    BitfieldStorage,
    /// `_bitfield_align_N`, `_bindgen_align`, `__bindgen_padding_N`: no C member (what they
    /// stand for shows in the sizes and offsets compared).
    RustOnly,
}

/// A constant: its Rust path, the name C knows it by, its type, and `#[cfg]` attributes.
struct Const {
    rust: String,
    c: String,
    ty: syn::Type,
    cfg: String,
}

#[derive(Default)]
struct Model {
    records: BTreeMap<String, Record>,
    /// Structs with only `_unused: [u8; 0]`: incomplete types in C, used behind pointers.
    opaque: BTreeSet<String>,
    /// Newtype enums: name → (inner integer type, enumerators).
    enums: BTreeMap<String, (syn::Type, Vec<String>)>,
    /// `pub type A = B;` of bindings.rs.
    aliases: BTreeMap<String, syn::Type>,
    /// `pub use self::E as A;`: enum typedefs.
    enum_typedefs: BTreeMap<String, String>,
    /// `pub type` of names.rs (the `PFN_cuX` macros): name, target, `#[cfg]` attributes.
    name_types: Vec<(String, syn::Type, String)>,
    /// bindgen's macro constants.
    consts: Vec<Const>,
    /// names.rs constants: top-level enumerators and the macro constants bindgen cannot translate.
    name_consts: Vec<(Const, bool)>,
}

fn has_repr(attrs: &[syn::Attribute], what: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("repr") && tokens(a).contains(what))
}

fn cfg_attrs(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .map(tokens)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The C name of a Rust field or accessor: bindgen appends `_` to Rust keywords (`type_`).
fn c_name(rust: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
        "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
        "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
        "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "try",
        "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    match rust.strip_suffix('_') {
        Some(base) if KEYWORDS.contains(&base) => base.to_string(),
        _ => rust.to_string(),
    }
}

/// The single identifier a type names (`CUdevice`, `CUDA_MEMCPY2D_st`), if it is a plain path.
fn path_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.segments.last()?.ident.to_string()),
        _ => None,
    }
}

impl Model {
    fn parse(bindings: &str, names: &str) -> Model {
        let file = syn::parse_file(bindings)
            .unwrap_or_else(|e| panic!("the committed bindings.rs does not parse: {e}"));
        let mut m = Model::default();
        let mut accessors: Vec<(String, syn::ImplItemFn)> = Vec::new();
        for item in &file.items {
            match item {
                syn::Item::Struct(s) if s.generics.params.is_empty() => {
                    let name = s.ident.to_string();
                    if has_repr(&s.attrs, "transparent") {
                        let inner = match &s.fields {
                            syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                                f.unnamed[0].ty.clone()
                            }
                            _ => panic!("{name}: a transparent struct that is no enum newtype"),
                        };
                        m.enums
                            .entry(name)
                            .or_insert_with(|| (syn::parse_quote!(()), Vec::new()))
                            .0 = inner;
                        continue;
                    }
                    assert!(
                        has_repr(&s.attrs, "C"),
                        "{name}: a struct that is not #[repr(C)]"
                    );
                    let syn::Fields::Named(fields) = &s.fields else {
                        panic!("{name}: a #[repr(C)] struct without named fields")
                    };
                    if fields.named.len() == 1
                        && fields.named[0]
                            .ident
                            .as_ref()
                            .is_some_and(|i| i == "_unused")
                    {
                        m.opaque.insert(name);
                        continue;
                    }
                    let fields = fields
                        .named
                        .iter()
                        .map(|f| (f.ident.clone().unwrap(), f.ty.clone()));
                    m.records.insert(name, record(false, fields));
                }
                syn::Item::Union(u) if u.generics.params.is_empty() => {
                    let fields = u
                        .fields
                        .named
                        .iter()
                        .map(|f| (f.ident.clone().unwrap(), f.ty.clone()));
                    m.records.insert(u.ident.to_string(), record(true, fields));
                }
                syn::Item::Type(t) => {
                    m.aliases.insert(t.ident.to_string(), (*t.ty).clone());
                }
                syn::Item::Use(u) => {
                    if let syn::UseTree::Path(p) = &u.tree {
                        if let syn::UseTree::Rename(r) = &*p.tree {
                            m.enum_typedefs
                                .insert(r.rename.to_string(), r.ident.to_string());
                        }
                    }
                }
                syn::Item::Const(c) => {
                    let name = c.ident.to_string();
                    m.consts.push(Const {
                        rust: name.clone(),
                        c: name,
                        ty: (*c.ty).clone(),
                        cfg: cfg_attrs(&c.attrs),
                    });
                }
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    let ty = tokens(&i.self_ty);
                    for ii in &i.items {
                        match ii {
                            syn::ImplItem::Const(c) => {
                                m.enums
                                    .entry(ty.clone())
                                    .or_insert_with(|| (syn::parse_quote!(()), Vec::new()))
                                    .1
                                    .push(c.ident.to_string());
                            }
                            syn::ImplItem::Fn(f) => accessors.push((ty.clone(), f.clone())),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        // bindgen's bit-field setters: `pub fn set_x(&mut self, val: T)` writing `_bitfield_N`.
        for (ty, f) in accessors {
            let name = f.sig.ident.to_string();
            let Some(field) = name.strip_prefix("set_") else {
                continue;
            };
            let body = tokens(&f.block);
            if f.sig.receiver().is_none() || !body.contains("_bitfield_") || f.sig.inputs.len() != 2
            {
                continue;
            }
            let syn::FnArg::Typed(arg) = &f.sig.inputs[1] else {
                continue;
            };
            let Some(rec) = m.records.get_mut(&ty) else {
                panic!("bit-field setter {ty}::{name} on no record")
            };
            rec.bitfields
                .push((name.clone(), c_name(field), (*arg.ty).clone()));
        }
        for (name, (inner, _)) in &m.enums {
            assert!(
                !matches!(inner, syn::Type::Tuple(_)),
                "{name}: enumerators without a #[repr(transparent)] newtype"
            );
        }

        let file = syn::parse_file(names)
            .unwrap_or_else(|e| panic!("the committed names.rs does not parse: {e}"));
        for item in &file.items {
            match item {
                syn::Item::Type(t) => {
                    m.name_types
                        .push((t.ident.to_string(), (*t.ty).clone(), cfg_attrs(&t.attrs)))
                }
                syn::Item::Const(c) => {
                    let name = c.ident.to_string();
                    // `pub const X: T = T::X;` re-exports an enumerator at top level.
                    let enumerator = match &*c.expr {
                        syn::Expr::Path(p) => {
                            p.path.segments.last().is_some_and(|s| s.ident == name)
                        }
                        _ => false,
                    };
                    let konst = Const {
                        rust: name.clone(),
                        c: name,
                        ty: (*c.ty).clone(),
                        cfg: cfg_attrs(&c.attrs),
                    };
                    m.name_consts.push((konst, enumerator));
                }
                _ => {}
            }
        }
        m
    }

    /// Follows `pub type` and enum typedefs to what a type finally is.
    fn resolve(&self, ty: &syn::Type) -> syn::Type {
        let mut ty = ty.clone();
        for _ in 0..64 {
            let Some(name) = path_ident(&ty) else {
                return ty;
            };
            if let Some(t) = self.aliases.get(&name) {
                ty = t.clone();
            } else if let Some(e) = self.enum_typedefs.get(&name) {
                return syn::parse_str(e).unwrap();
            } else {
                return ty;
            }
        }
        panic!("alias cycle at {}", tokens(&ty))
    }

    /// An integer type (primitive, after aliases; not an enum).
    fn is_int(&self, ty: &syn::Type) -> bool {
        const INTS: &[&str] = &[
            "c_char",
            "c_schar",
            "c_uchar",
            "c_short",
            "c_ushort",
            "c_int",
            "c_uint",
            "c_long",
            "c_ulong",
            "c_longlong",
            "c_ulonglong",
            "i8",
            "i16",
            "i32",
            "i64",
            "i128",
            "isize",
            "u8",
            "u16",
            "u32",
            "u64",
            "u128",
            "usize",
        ];
        path_ident(&self.resolve(ty)).is_some_and(|n| INTS.contains(&n.as_str()))
    }

    /// The Rust expression of a type's arithmetic class, as the C probe's `CDSYS_CLASS` computes
    /// it: 1 signed integer, 2 unsigned integer or bool, 3 floating point, 0 anything else.
    fn class_expr(&self, ty: &syn::Type) -> String {
        let ty = self.resolve(ty);
        let Some(name) = path_ident(&ty) else {
            return "0".into();
        };
        if let Some((inner, _)) = self.enums.get(&name) {
            return self.class_expr(inner);
        }
        if self.is_int(&ty) {
            format!("if <{}>::MIN != 0 {{ 1 }} else {{ 2 }}", tokens(&ty))
        } else if matches!(name.as_str(), "f32" | "f64" | "c_float" | "c_double") {
            "3".into()
        } else if name == "bool" {
            "2".into()
        } else {
            "0".into()
        }
    }

    fn record_of(&self, ty: &syn::Type) -> Option<String> {
        path_ident(ty).filter(|n| self.records.contains_key(n))
    }
}

fn record(union: bool, fields: impl Iterator<Item = (syn::Ident, syn::Type)>) -> Record {
    let fields = fields
        .map(|(id, ty)| {
            let name = id.to_string();
            if name.starts_with("__bindgen_anon_") {
                let ty_name = path_ident(&ty)
                    .unwrap_or_else(|| panic!("anonymous member {name} of no named type"));
                Member::Anon(name, ty_name)
            } else if name.starts_with("_bitfield_align_")
                || name.starts_with("_bindgen_align")
                || name.starts_with("__bindgen_padding_")
            {
                // Rust-only: zero-sized alignment markers, padding bindgen spells out.
                Member::RustOnly
            } else if name.starts_with("_bitfield_") {
                Member::BitfieldStorage
            } else {
                let c = c_name(&name);
                Member::Named(name, c, Box::new(ty))
            }
        })
        .collect();
    Record {
        union,
        fields,
        bitfields: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The header, as the C compiler sees it

/// Runs the C preprocessor over `cuda.h` and `cudaTypedefs.h` with the defines of the bindings,
/// and returns what came from those two files.
fn preprocess(out: &Path, headers: &Path, interop: &Path, internal: bool) -> String {
    let src = out.join(if internal {
        "layout_probe_header.c"
    } else {
        "layout_probe_public_header.c"
    });
    let mut text = String::new();
    for d in INTERNAL_DEFINES
        .iter()
        .filter(|_| internal)
        .chain(&FOREIGN_DEFINES)
    {
        writeln!(text, "#define {d} 1").unwrap();
    }
    text.push_str(INCLUDES);
    write(&src, &text);
    let mut build = cc::Build::new();
    build
        .include(headers)
        .include(interop)
        .file(&src)
        .warnings(false)
        .cargo_metadata(false);
    String::from_utf8_lossy(&build.expand()).into_owned()
}

/// One struct, union or enum definition (with a body) in the header.
struct CDef {
    keyword: &'static str,
    tag: Option<String>,
    /// The name a `typedef` of the definition declares first.
    typedef: Option<String>,
    nested: bool,
}

struct HeaderDecls {
    defs: Vec<CDef>,
    /// Typedefs of function types (not of pointers to functions).
    function_typedefs: BTreeSet<String>,
    /// Every enumerator the header defines.
    enumerators: Vec<String>,
}

impl HeaderDecls {
    fn scan(text: &str) -> HeaderDecls {
        let t = c_tokens(text);
        let mut defs = Vec::new();
        let mut enumerators = Vec::new();
        // Matching braces.
        let mut close = vec![usize::MAX; t.len()];
        let mut stack = Vec::new();
        let mut depth = vec![0usize; t.len()];
        for (i, tok) in t.iter().enumerate() {
            depth[i] = stack.len();
            match tok.as_str() {
                "{" => stack.push(i),
                "}" => {
                    let open = stack.pop().expect("unbalanced braces in cuda.h");
                    close[open] = i;
                }
                _ => {}
            }
        }
        for i in 0..t.len() {
            let keyword = match t[i].as_str() {
                "struct" => "struct",
                "union" => "union",
                "enum" => "enum",
                _ => continue,
            };
            let mut j = i + 1;
            let mut tag = None;
            // `struct __attribute__((aligned(64))) CUtensorMap_st {`
            while j < t.len() && t[j] == "__attribute__" {
                j = skip_parens(&t, j + 1);
            }
            if j < t.len() && is_c_ident(&t[j]) {
                tag = Some(t[j].clone());
                j += 1;
            }
            if j >= t.len() || t[j] != "{" {
                continue;
            }
            let end = close[j];
            // A typedef when the statement began with `typedef`.
            let mut k = i;
            let mut is_typedef = false;
            while k > 0 {
                k -= 1;
                if depth[k] == depth[i] && matches!(t[k].as_str(), ";" | "{" | "}") {
                    break;
                }
                if t[k] == "typedef" && depth[k] == depth[i] {
                    is_typedef = true;
                }
            }
            let mut typedef = None;
            if is_typedef {
                let mut k = end + 1;
                while k < t.len() && t[k] != ";" {
                    if t[k] == "__attribute__" {
                        k = skip_parens(&t, k + 1);
                        continue;
                    }
                    if is_c_ident(&t[k]) {
                        typedef = Some(t[k].clone());
                        break;
                    }
                    k += 1;
                }
            }
            if keyword == "enum" {
                // `A = 1, B, C = A | B,`: the first token of each top-level entry.
                let mut expect = true;
                let mut paren = 0i32;
                for tok in &t[j + 1..end] {
                    match tok.as_str() {
                        "(" => paren += 1,
                        ")" => paren -= 1,
                        "," if paren == 0 => {
                            expect = true;
                            continue;
                        }
                        _ => {}
                    }
                    if expect && is_c_ident(tok) {
                        enumerators.push(tok.clone());
                    }
                    expect = false;
                }
            }
            defs.push(CDef {
                keyword,
                tag,
                typedef,
                nested: depth[i] > 0,
            });
        }
        // `typedef VdpStatus VdpGetProcAddress(...);`: a function type, which bindgen binds as
        // the pointer to it (`Option<unsafe extern "C" fn>`), the type C programs pass.
        let mut function_typedefs = BTreeSet::new();
        for i in 0..t.len() {
            if t[i] != "typedef" || depth[i] != 0 {
                continue;
            }
            let mut j = i + 1;
            while j < t.len() && !matches!(t[j].as_str(), ";" | "(" | "{") {
                j += 1;
            }
            if j < t.len() && t[j] == "(" && is_c_ident(&t[j - 1]) && j - 1 > i + 1 {
                let k = skip_parens(&t, j);
                if k < t.len() && t[k] == ";" {
                    function_typedefs.insert(t[j - 1].clone());
                }
            }
        }
        HeaderDecls {
            defs,
            enumerators,
            function_typedefs,
        }
    }

    /// Takes over the definitions of `foreign` that the bindings have (by tag or typedef name),
    /// with their enumerators.
    fn adopt(&mut self, foreign: HeaderDecls, m: &Model) {
        self.function_typedefs.extend(
            foreign
                .function_typedefs
                .iter()
                .filter(|n| m.aliases.contains_key(*n))
                .cloned(),
        );
        for d in foreign.defs {
            let names = [d.tag.as_deref(), d.typedef.as_deref()];
            let bound = names.iter().flatten().find(|n| {
                if d.keyword == "enum" {
                    m.enums.contains_key(**n)
                } else {
                    m.records.contains_key(**n)
                }
            });
            let Some(bound) = bound else { continue };
            if d.keyword == "enum" {
                let consts = &m.enums[*bound].1;
                self.enumerators.extend(
                    foreign
                        .enumerators
                        .iter()
                        .filter(|e| consts.contains(e))
                        .cloned(),
                );
            }
            self.defs.push(d);
        }
    }

    fn tag(&self, keyword: &str, name: &str) -> bool {
        self.defs
            .iter()
            .any(|d| d.keyword == keyword && d.tag.as_deref() == Some(name))
    }

    fn anonymous_typedef(&self, keyword: &str, name: &str) -> bool {
        self.defs
            .iter()
            .any(|d| d.keyword == keyword && d.tag.is_none() && d.typedef.as_deref() == Some(name))
    }

    fn count(&self, keyword: &str) -> usize {
        self.defs.iter().filter(|d| d.keyword == keyword).count()
    }
}

// ---------------------------------------------------------------------------------------------
// Naming every record in C

/// How C reaches a record.
#[derive(Clone)]
enum CAccess {
    /// A C type: `struct X`, `X`, or `__typeof__(((struct P *)0)->member)`.
    Named(String),
    /// An anonymous member: C has no name for its type, only for its fields, which the nearest
    /// named enclosing type (the host, C type `host`, Rust record `host_record`) reaches directly;
    /// Rust reaches the member from the host by `path` (`__bindgen_anon_1.`).
    Anon {
        host: String,
        host_record: String,
        parent: String,
        path: String,
    },
}

struct Naming {
    access: BTreeMap<String, CAccess>,
}

impl Naming {
    fn resolve(m: &Model, h: &HeaderDecls) -> Naming {
        let mut access = BTreeMap::new();
        for (name, rec) in &m.records {
            let kw = if rec.union { "union" } else { "struct" };
            if h.tag(kw, name) {
                access.insert(name.clone(), CAccess::Named(format!("{kw} {name}")));
            } else if h.anonymous_typedef(kw, name) {
                access.insert(name.clone(), CAccess::Named(name.clone()));
            }
        }
        // Nested records: through the member of a record already named.
        loop {
            let mut found = Vec::new();
            for (pname, prec) in &m.records {
                let Some(paccess) = access.get(pname) else {
                    continue;
                };
                for f in &prec.fields {
                    match f {
                        Member::Named(_, c, ty) => {
                            let (mut elem, mut index) = (&**ty, String::new());
                            while let syn::Type::Array(a) = elem {
                                elem = &a.elem;
                                index.push_str("[0]");
                            }
                            let Some(child) = m.record_of(elem) else {
                                continue;
                            };
                            if access.contains_key(&child) || found.iter().any(|(n, _)| n == &child)
                            {
                                continue;
                            }
                            let (host, member) = match paccess {
                                CAccess::Named(p) => (p.clone(), format!("{c}{index}")),
                                CAccess::Anon { host, .. } => (host.clone(), format!("{c}{index}")),
                            };
                            found.push((
                                child,
                                CAccess::Named(format!("__typeof__((({host} *)0)->{member})")),
                            ));
                        }
                        Member::Anon(rust, child) => {
                            if access.contains_key(child) || found.iter().any(|(n, _)| n == child) {
                                continue;
                            }
                            let (host, host_record, path) = match paccess {
                                CAccess::Named(p) => (p.clone(), pname.clone(), format!("{rust}.")),
                                CAccess::Anon {
                                    host,
                                    host_record,
                                    path,
                                    ..
                                } => (host.clone(), host_record.clone(), format!("{path}{rust}.")),
                            };
                            found.push((
                                child.clone(),
                                CAccess::Anon {
                                    host,
                                    host_record,
                                    parent: pname.clone(),
                                    path,
                                },
                            ));
                        }
                        Member::BitfieldStorage | Member::RustOnly => {}
                    }
                }
            }
            if found.is_empty() {
                break;
            }
            access.extend(found);
        }
        let missing: Vec<&String> = m
            .records
            .keys()
            .filter(|n| !access.contains_key(*n))
            .collect();
        assert!(
            missing.is_empty(),
            "the layout probe cannot name these records of the bindings in C (no tag, typedef or \
             member of a named record in the header): {missing:?}"
        );
        Naming { access }
    }
}

// ---------------------------------------------------------------------------------------------
// The layout probe

const C_PRELUDE: &str = r#"#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 1 signed integer, 2 unsigned integer or bool, 3 floating point, 0 anything else (pointers,
   records, arrays). An enum is its compatible integer type. */
#define CDSYS_CLASS(x) _Generic((x), \
    char: ((char)-1 < 0 ? 1 : 2), signed char: 1, short: 1, int: 1, long: 1, long long: 1, \
    unsigned char: 2, unsigned short: 2, unsigned int: 2, unsigned long: 2, \
    unsigned long long: 2, _Bool: 2, float: 3, double: 3, long double: 3, default: 0)
#define CDSYS_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CDSYS_ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))
"#;

/// One measured member of a record, on the C side as expressions and on the Rust side as the
/// path `offset_of!` takes.
struct FieldProbe {
    rust_path: String,
    c_path: String,
    offset: String,
    size: String,
    align: String,
    class: String,
    rust_ty: String,
    rust_class: String,
}

/// C expressions of a record's (or anonymous member's) own measures relative to its host.
struct Measures {
    /// Offset of the record's first byte in its host.
    base: String,
    size: String,
    align: String,
}

struct LayoutGen<'a> {
    m: &'a Model,
    naming: &'a Naming,
}

impl LayoutGen<'_> {
    fn host(&self, name: &str) -> String {
        match &self.naming.access[name] {
            CAccess::Named(c) => c.clone(),
            CAccess::Anon { host, .. } => host.clone(),
        }
    }

    /// For a named record: its sizeof/alignof. For an anonymous member: derived from its members
    /// as the C compiler lays them out in the host (a union is its largest member rounded to its
    /// strictest alignment; a struct ends after its last member, rounded likewise). None for an
    /// anonymous member holding bit-fields, which C cannot measure (`offsetof`/`sizeof` take no
    /// bit-field): its fields are still compared through the host, its bit-fields by their bytes.
    fn measures(&self, name: &str) -> Option<Measures> {
        let rec = &self.m.records[name];
        let host = match &self.naming.access[name] {
            CAccess::Named(c) => {
                return Some(Measures {
                    base: "0".into(),
                    size: format!("sizeof({c})"),
                    align: format!("_Alignof({c})"),
                })
            }
            CAccess::Anon { host, .. } => host,
        };
        let mut members = Vec::new();
        for f in &rec.fields {
            if matches!(f, Member::RustOnly) {
                continue;
            }
            members.push(match f {
                Member::Named(_, c, _) => (
                    format!("offsetof({host}, {c})"),
                    format!("sizeof((({host} *)0)->{c})"),
                    format!("_Alignof(__typeof__((({host} *)0)->{c}))"),
                ),
                Member::Anon(_, child) => {
                    let ms = self.measures(child)?;
                    (ms.base, ms.size, ms.align)
                }
                Member::BitfieldStorage => return None,
                Member::RustOnly => unreachable!(),
            });
        }
        assert!(!members.is_empty(), "{name}: an empty anonymous member");
        let fold = |v: Vec<String>| {
            v.into_iter()
                .reduce(|a, b| format!("CDSYS_MAX({a}, {b})"))
                .unwrap()
        };
        let align = fold(members.iter().map(|m| m.2.clone()).collect());
        let base = members[0].0.clone();
        let extent = if rec.union {
            fold(members.iter().map(|m| m.1.clone()).collect())
        } else {
            let last = members.last().unwrap();
            format!("({} - {} + {})", last.0, base, last.1)
        };
        Some(Measures {
            size: format!("CDSYS_ROUND_UP({extent}, {align})"),
            align,
            base,
        })
    }

    /// Every member C can name in `name`, anonymous members' fields included, with their Rust
    /// paths under `prefix`.
    fn fields(&self, name: &str, prefix: &str, base: &str, out: &mut Vec<FieldProbe>) {
        let host = self.host(name);
        for f in &self.m.records[name].fields {
            match f {
                Member::Named(rust, c, ty) => {
                    let member = format!("(({host} *)0)->{c}");
                    let rust_ty = tokens(ty);
                    out.push(FieldProbe {
                        rust_path: format!("{prefix}{rust}"),
                        c_path: c.clone(),
                        offset: format!("offsetof({host}, {c}) - {base}"),
                        size: format!("sizeof({member})"),
                        align: format!("_Alignof(__typeof__({member}))"),
                        class: format!("CDSYS_CLASS({member})"),
                        rust_class: self.m.class_expr(ty),
                        rust_ty,
                    });
                }
                Member::Anon(rust, child) => {
                    if let Some(ms) = self.measures(child) {
                        out.push(FieldProbe {
                            rust_path: format!("{prefix}{rust}"),
                            c_path: "(anonymous member)".into(),
                            offset: format!("{} - {base}", ms.base),
                            size: ms.size,
                            align: ms.align,
                            class: "0".into(),
                            rust_class: "0".into(),
                            rust_ty: child.clone(),
                        });
                    }
                    self.fields(child, &format!("{prefix}{rust}."), base, out);
                }
                Member::BitfieldStorage | Member::RustOnly => {}
            }
        }
    }
}

fn c_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn layout_probe(
    m: &Model,
    h: &HeaderDecls,
    naming: &Naming,
    version: &str,
) -> (String, String, String) {
    let g = LayoutGen { m, naming };
    let mut c = String::new();
    writeln!(
        c,
        "/* @generated by tests/support/layout.rs from cuda-driver-sys/src/generated/bindings.rs for CUDA {version} */"
    )
    .unwrap();
    for d in INTERNAL_DEFINES {
        writeln!(c, "#define {d} 1").unwrap();
    }
    c.push_str(C_PRELUDE);
    c.push_str(INCLUDES);
    c.push_str(
        "typedef struct { const char *path, *c_path; unsigned long long offset, size, align, class_; } cdsys_field;\n\
         typedef struct { const char *name, *c_type; unsigned long long kind, size, align, measured; const cdsys_field *fields; unsigned long long nfields; } cdsys_record;\n\
         typedef struct { const char *name, *c_type; unsigned long long kind, size, align, class_; } cdsys_typedef;\n\
         typedef struct { const char *record, *field; const unsigned char *bytes; unsigned long long len; } cdsys_bitfield;\n\n",
    );

    let mut rust = String::new();
    writeln!(
        rust,
        "// @generated by tests/support/layout.rs from cuda-driver-sys/src/generated/bindings.rs for CUDA {version}"
    )
    .unwrap();
    rust.push_str(
        "#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all)]\n\
         pub mod layout_probe {\n\
         use core::ffi::c_char;\n\
         use core::mem::{align_of, offset_of, size_of};\n\
         use cuda_driver_sys::*;\n\n",
    );
    writeln!(rust, "pub const VERSION: &str = {};", c_str(version)).unwrap();
    rust.push_str(
        "/// A measured member: its Rust path (`offset_of!`'s), offset, size, alignment and arithmetic class.\n\
         #[derive(Debug)]\n\
         pub struct Field { pub path: &'static str, pub ty: &'static str, pub offset: usize, pub size: usize, pub align: usize, pub class: u64 }\n\
         /// Kinds: 0 struct, 1 union, 2 anonymous struct member, 3 anonymous union member.\n\
         #[derive(Debug)]\n\
         pub struct Record { pub name: &'static str, pub kind: u64, pub size: usize, pub align: usize, pub fields: &'static [Field] }\n\
         /// Kinds: 0 typedef, 1 enum type, 2 typedef of names.rs (a C spelling macro).\n\
         #[derive(Debug)]\n\
         pub struct Typedef { pub name: &'static str, pub kind: u64, pub size: usize, pub align: usize, pub class: u64 }\n\
         #[repr(C)] pub struct CField { pub path: *const c_char, pub c_path: *const c_char, pub offset: u64, pub size: u64, pub align: u64, pub class: u64 }\n\
         #[repr(C)] pub struct CRecord { pub name: *const c_char, pub c_type: *const c_char, pub kind: u64, pub size: u64, pub align: u64, pub measured: u64, pub fields: *const CField, pub nfields: u64 }\n\
         #[repr(C)] pub struct CTypedef { pub name: *const c_char, pub c_type: *const c_char, pub kind: u64, pub size: u64, pub align: u64, pub class: u64 }\n\
         #[repr(C)] pub struct CBitfield { pub record: *const c_char, pub field: *const c_char, pub bytes: *const u8, pub len: u64 }\n\n",
    );

    // Records.
    let mut c_records = String::new();
    let mut r_records = String::new();
    let mut c_bitfields = String::new();
    let mut r_bitfields = String::new();
    let (mut nrec, mut nbit) = (0, 0);
    for (name, rec) in &m.records {
        let anon = matches!(naming.access[name], CAccess::Anon { .. });
        let kind = usize::from(rec.union) + if anon { 2 } else { 0 };
        let ms = g.measures(name);
        let base = ms.as_ref().map_or("0", |ms| ms.base.as_str());
        let mut fields = Vec::new();
        g.fields(name, "", base, &mut fields);
        let c_type = match &naming.access[name] {
            CAccess::Named(t) => t.clone(),
            CAccess::Anon { host, parent, .. } => {
                format!("anonymous member of {parent} (fields reached through {host})")
            }
        };
        // An anonymous member holding bit-fields has no C measures of its own: its entry stays
        // empty (`measured` 0) and its fields are compared in its host's entry.
        let (size, align, measured) = match &ms {
            Some(ms) => (ms.size.as_str(), ms.align.as_str(), 1),
            None => ("0", "0", 0),
        };
        if ms.is_none() {
            fields.clear();
        }
        writeln!(c, "static const cdsys_field cdsys_f{nrec}[] = {{").unwrap();
        writeln!(
            r_records,
            "    Record {{ name: {}, kind: {kind}, size: size_of::<{name}>(), align: align_of::<{name}>(), fields: &[",
            c_str(name)
        )
        .unwrap();
        for f in &fields {
            writeln!(
                c,
                "    {{ {}, {}, {}, {}, {}, {} }},",
                c_str(&f.rust_path),
                c_str(&f.c_path),
                f.offset,
                f.size,
                f.align,
                f.class
            )
            .unwrap();
            writeln!(
                r_records,
                "        Field {{ path: {}, ty: {}, offset: offset_of!({name}, {}), size: size_of::<{}>(), align: align_of::<{}>(), class: {} }},",
                c_str(&f.rust_path),
                c_str(&f.rust_ty),
                f.rust_path,
                f.rust_ty,
                f.rust_ty,
                f.rust_class
            )
            .unwrap();
        }
        if fields.is_empty() {
            c.push_str("    { 0, 0, 0, 0, 0, 0 }\n");
        }
        c.push_str("};\n");
        r_records.push_str("    ] },\n");
        writeln!(
            c_records,
            "    {{ {}, {}, {kind}, {size}, {align}, {measured}, cdsys_f{nrec}, {} }},",
            c_str(name),
            c_str(&c_type),
            fields.len()
        )
        .unwrap();

        // Bit-fields: every bit of one field set, the bytes of the nearest named host compared
        // (C: a designated initializer, which reaches into anonymous members by name; Rust:
        // bindgen's setter on a zeroed host, through `__bindgen_anon_N`).
        let (host, host_record, path) = match &naming.access[name] {
            CAccess::Named(c) => (c.clone(), name.clone(), String::new()),
            CAccess::Anon {
                host,
                host_record,
                path,
                ..
            } => (host.clone(), host_record.clone(), path.clone()),
        };
        for (setter, cfield, ty) in &rec.bitfields {
            let is_bool = path_ident(&m.resolve(ty)).is_some_and(|n| n == "bool");
            let (cval, rval) = if is_bool {
                ("1".to_string(), "true".to_string())
            } else {
                (
                    "-1".to_string(),
                    format!(
                        "unsafe {{ core::mem::transmute_copy::<[u8; 16], {}>(&[0xff; 16]) }}",
                        tokens(ty)
                    ),
                )
            };
            let key = format!("{path}{cfield}");
            writeln!(
                c,
                "static const {host} cdsys_b{nbit} = {{ .{cfield} = {cval} }};"
            )
            .unwrap();
            writeln!(
                c_bitfields,
                "    {{ {}, {}, (const unsigned char *)&cdsys_b{nbit}, sizeof({host}) }},",
                c_str(&host_record),
                c_str(&key)
            )
            .unwrap();
            writeln!(
                r_bitfields,
                "    ({}, {}, || {{ let mut v: {host_record} = unsafe {{ core::mem::zeroed() }}; #[allow(unused_unsafe)] unsafe {{ v.{path}{setter}({rval}) }}; \
                 unsafe {{ core::slice::from_raw_parts(&v as *const {host_record} as *const u8, size_of::<{host_record}>()) }}.to_vec() }}),",
                c_str(&host_record),
                c_str(&key)
            )
            .unwrap();
            nbit += 1;
        }
        nrec += 1;
    }
    writeln!(
        c,
        "\nconst cdsys_record cuda_driver_workspace_layout_records[{nrec}] = {{\n{c_records}}};"
    )
    .unwrap();
    writeln!(
        c,
        "const cdsys_bitfield cuda_driver_workspace_layout_bitfields[{}] = {{\n{c_bitfields}}};",
        nbit.max(1)
    )
    .unwrap();
    writeln!(
        c,
        "const unsigned long long cuda_driver_workspace_layout_nbitfields = {nbit};"
    )
    .unwrap();
    writeln!(rust, "pub static RECORDS: &[Record] = &[\n{r_records}];").unwrap();
    writeln!(
        rust,
        "/// (named record, bit-field's path in it, the record's bytes with every bit of that field set by\n\
         /// bindgen's setter).\n\
         pub static BITFIELDS: &[(&str, &str, fn() -> Vec<u8>)] = &[\n{r_bitfields}];"
    )
    .unwrap();

    // Typedefs (C: every typedef name bindings.rs has, every enum type), in the internal view.
    let mut c_types = String::new();
    let mut r_types = String::new();
    let mut ntypes = 0;
    let mut opaque_aliases = Vec::new();
    let mut add = |name: &str,
                   c_type: &str,
                   kind: u64,
                   class: String,
                   cfg: &str,
                   c: &mut String| {
        writeln!(
            c,
            "    {{ {}, {}, {kind}, sizeof({c_type}), _Alignof({c_type}), CDSYS_CLASS(*({c_type} *)0) }},",
            c_str(name),
            c_str(c_type)
        )
        .unwrap();
        writeln!(
            r_types,
            "    {cfg} Typedef {{ name: {}, kind: {kind}, size: size_of::<{name}>(), align: align_of::<{name}>(), class: {class} }},",
            c_str(name)
        )
        .unwrap();
    };
    for (name, ty) in &m.aliases {
        if let Some(target) = path_ident(&m.resolve(ty)) {
            if m.opaque.contains(&target) {
                opaque_aliases.push(name.clone());
                continue;
            }
        }
        // A function type's binding is the pointer to it.
        let c_type = if h.function_typedefs.contains(name) {
            format!("{name} *")
        } else {
            name.clone()
        };
        add(name, &c_type, 0, m.class_expr(ty), "", &mut c_types);
        ntypes += 1;
    }
    for (name, target) in &m.enum_typedefs {
        let ty: syn::Type = syn::parse_str(target).unwrap();
        add(name, name, 0, m.class_expr(&ty), "", &mut c_types);
        ntypes += 1;
    }
    for (name, (inner, _)) in &m.enums {
        let c_type = if h.tag("enum", name) {
            format!("enum {name}")
        } else {
            name.clone()
        };
        add(name, &c_type, 1, m.class_expr(inner), "", &mut c_types);
        ntypes += 1;
    }
    writeln!(
        c,
        "const cdsys_typedef cuda_driver_workspace_layout_typedefs[{ntypes}] = {{\n{c_types}}};"
    )
    .unwrap();

    // The `PFN_cuX` spellings of names.rs: in the C program's view (constants_probe.c).
    let mut c_name_types = String::new();
    let mut nname_types = 0;
    let mut seen = BTreeSet::new();
    for (name, target, cfg) in &m.name_types {
        if seen.insert(name.clone()) {
            writeln!(
                c_name_types,
                "    {{ {}, {}, 2, sizeof({name}), _Alignof({name}), CDSYS_CLASS(*({name} *)0) }},",
                c_str(name),
                c_str(name)
            )
            .unwrap();
            nname_types += 1;
        }
        add_rust_typedef(&mut r_types, name, &m.class_expr(target), cfg);
    }
    writeln!(rust, "pub static TYPEDEFS: &[Typedef] = &[\n{r_types}];").unwrap();

    // Opaque structs, and what the header defines.
    let list =
        |v: &mut dyn Iterator<Item = &String>| v.map(|s| c_str(s)).collect::<Vec<_>>().join(", ");
    writeln!(rust, "/// Structs the header only declares (incomplete in C, used behind pointers).\npub static OPAQUE: &[&str] = &[{}];", list(&mut m.opaque.iter())).unwrap();
    writeln!(
        rust,
        "/// Typedefs of those.\npub static OPAQUE_TYPEDEFS: &[&str] = &[{}];",
        list(&mut opaque_aliases.iter())
    )
    .unwrap();
    let defs = |kw: &str, nested: bool| {
        h.defs
            .iter()
            .filter(|d| d.keyword == kw && d.nested == nested)
            .count()
    };
    writeln!(
        rust,
        "/// Definitions with a body in cuda.h and cudaTypedefs.h, as the preprocessor leaves them:\n\
         /// (top-level structs, nested structs, top-level unions, nested unions, enums).\n\
         pub const HEADER_DEFINITIONS: (usize, usize, usize, usize, usize) = ({}, {}, {}, {}, {});",
        defs("struct", false),
        defs("struct", true),
        defs("union", false),
        defs("union", true),
        h.count("enum")
    )
    .unwrap();
    // Every tag the header defines, with the records that carry it (nested ones are prefixed).
    let mut tags = String::new();
    for d in &h.defs {
        if d.keyword == "enum" {
            continue;
        }
        let Some(tag) = d.tag.as_ref().or(d.typedef.as_ref()) else {
            continue;
        };
        writeln!(tags, "    ({}, {}),", c_str(d.keyword), c_str(tag)).unwrap();
    }
    writeln!(rust, "/// (keyword, tag or typedef name) of every named struct and union the header defines.\npub static HEADER_NAMED_RECORDS: &[(&str, &str)] = &[\n{tags}];").unwrap();
    rust.push_str(
        "extern \"C\" {\n\
         \x20   pub static cuda_driver_workspace_layout_records: [CRecord; RECORD_COUNT];\n\
         \x20   pub static cuda_driver_workspace_layout_typedefs: [CTypedef; TYPEDEF_COUNT];\n\
         \x20   pub static cuda_driver_workspace_layout_name_typedefs: [CTypedef; NAME_TYPEDEF_COUNT];\n\
         \x20   pub static cuda_driver_workspace_layout_bitfields: [CBitfield; BITFIELD_SLOTS];\n\
         \x20   pub static cuda_driver_workspace_layout_nbitfields: u64;\n\
         }\n",
    );
    writeln!(
        rust,
        "pub const RECORD_COUNT: usize = {nrec};\npub const TYPEDEF_COUNT: usize = {ntypes};\n\
         pub const NAME_TYPEDEF_COUNT: usize = {nname_types};\npub const BITFIELD_SLOTS: usize = {};\n}}",
        nbit.max(1)
    )
    .unwrap();

    // The names.rs typedefs go into the constants file, compiled in the C program's view.
    let c_names = format!(
        "const cdsys_typedef cuda_driver_workspace_layout_name_typedefs[{}] = {{\n{c_name_types}}};\n",
        nname_types.max(1)
    );
    (c, c_names, rust)
}

fn add_rust_typedef(r: &mut String, name: &str, class: &str, cfg: &str) {
    writeln!(
        r,
        "    {cfg} Typedef {{ name: {}, kind: 2, size: size_of::<{name}>(), align: align_of::<{name}>(), class: {class} }},",
        c_str(name)
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The constants probe

fn constants_probe(m: &Model, h: &HeaderDecls, version: &str, c_names: &str) -> (String, String) {
    let mut c = String::new();
    writeln!(
        c,
        "/* @generated by tests/support/layout.rs from cuda-driver-sys/src/generated/{{bindings,names}}.rs for CUDA {version} */"
    )
    .unwrap();
    c.push_str(C_PRELUDE);
    c.push_str(INCLUDES);
    c.push_str(
        "typedef struct { const char *name; unsigned long long bits; unsigned long long negative; } cdsys_constant;\n\
         typedef struct { const char *name, *c_type; unsigned long long kind, size, align, class_; } cdsys_typedef;\n",
    );
    c.push_str(c_names);

    let mut rust = String::new();
    writeln!(
        rust,
        "// @generated by tests/support/layout.rs from cuda-driver-sys/src/generated/{{bindings,names}}.rs for CUDA {version}"
    )
    .unwrap();
    rust.push_str(
        "#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all)]\n\
         pub mod constants_probe {\n\
         use cuda_driver_sys::*;\n\n",
    );
    writeln!(rust, "pub const VERSION: &str = {};", c_str(version)).unwrap();
    rust.push_str(
        "/// Kinds: 0 enumerator (`Enum::NAME`), 1 enumerator at top level (names.rs), 2 macro constant\n\
         /// bindgen translated, 3 macro constant of names.rs.\n\
         #[derive(Debug)]\n\
         pub struct Constant { pub rust: &'static str, pub c: &'static str, pub kind: u8, pub pointer: bool, pub value: i128 }\n\
         #[repr(C)] pub struct CConstant { pub name: *const core::ffi::c_char, pub bits: u64, pub negative: u64 }\n\
         extern \"C\" {\n\
         \x20   pub fn cuda_driver_workspace_constants_len() -> u64;\n\
         \x20   pub fn cuda_driver_workspace_constants(out: *mut CConstant);\n\
         }\n\
         pub fn constants() -> Vec<Constant> {\n    vec![\n",
    );

    let mut c_entries: BTreeMap<String, bool> = BTreeMap::new(); // C name → pointer
    let mut entry = |rust_path: &str,
                     c_name: &str,
                     kind: u8,
                     value: String,
                     pointer: bool,
                     cfg: &str,
                     r: &mut String| {
        writeln!(
            r,
            "        {cfg} Constant {{ rust: {}, c: {}, kind: {kind}, pointer: {pointer}, value: {value} }},",
            c_str(rust_path),
            c_str(c_name)
        )
        .unwrap();
        c_entries.insert(c_name.to_string(), pointer);
    };
    for (ename, (_, consts)) in &m.enums {
        for k in consts {
            entry(
                &format!("{ename}::{k}"),
                k,
                0,
                format!("{ename}::{k}.0 as i128"),
                false,
                "",
                &mut rust,
            );
        }
    }
    let value = |k: &Const| -> (String, bool) {
        let ty = m.resolve(&k.ty);
        match &ty {
            syn::Type::Ptr(_) => (format!("{} as usize as i128", k.rust), true),
            _ => match path_ident(&ty) {
                Some(n) if m.enums.contains_key(&n) => (format!("{}.0 as i128", k.rust), false),
                Some(_) if m.is_int(&ty) => (format!("{} as i128", k.rust), false),
                _ => panic!(
                    "constant {} has type {}: the constants probe handles integers, enums and pointers",
                    k.rust,
                    tokens(&k.ty)
                ),
            },
        }
    };
    for k in &m.consts {
        let (v, p) = value(k);
        entry(&k.rust, &k.c, 2, v, p, &k.cfg, &mut rust);
    }
    for (k, enumerator) in &m.name_consts {
        let (v, p) = value(k);
        entry(
            &k.rust,
            &k.c,
            if *enumerator { 1 } else { 3 },
            v,
            p,
            &k.cfg,
            &mut rust,
        );
    }
    rust.push_str("    ]\n}\n");
    let mut enumerators = String::new();
    for e in &h.enumerators {
        writeln!(enumerators, "    {},", c_str(e)).unwrap();
    }
    writeln!(
        rust,
        "/// Every enumerator cuda.h and cudaTypedefs.h define, as the preprocessor leaves them.\n\
         pub static HEADER_ENUMERATORS: &[&str] = &[\n{enumerators}];\n\
         /// Enum definitions in the header.\npub const HEADER_ENUMS: usize = {};\n\
         /// Newtype enums of the bindings.\npub const RUST_ENUMS: usize = {};\n}}",
        h.count("enum"),
        m.enums.len()
    )
    .unwrap();

    writeln!(
        c,
        "unsigned long long cuda_driver_workspace_constants_len(void) {{ return {}; }}",
        c_entries.len()
    )
    .unwrap();
    c.push_str("void cuda_driver_workspace_constants(cdsys_constant *out) {\n    const cdsys_constant t[] = {\n");
    for (name, pointer) in &c_entries {
        if *pointer {
            writeln!(
                c,
                "        {{ {}, (unsigned long long)(uintptr_t)({name}), 0 }},",
                c_str(name)
            )
            .unwrap();
        } else {
            writeln!(
                c,
                "        {{ {}, (unsigned long long)({name}), ({name}) < 0 }},",
                c_str(name)
            )
            .unwrap();
        }
    }
    c.push_str("    };\n    memcpy(out, t, sizeof t);\n}\n");
    (c, rust)
}
