//! The data of the layout and constant probes of the ABI tests (`tests/layout.rs`,
//! `tests/constants.rs`), read from the committed bindings of the selected CUDA version
//! (`cuda-driver-sys/src/generated/bindings.rs` and `names.rs`, the items whose `cuda_ge_<V>` cfgs
//! hold for that version), never from a hand-kept list.
//!
//! Each table is written once, one macro call per entry (`R(..)` a record, `F(..)` a field, `B(..)`
//! a bit-field, `T(..)` a typedef, `K(..)`/`P(..)` an integer/pointer constant), with the C
//! expressions and the Rust items of the entry side by side. Two generic consumers expand it:
//! - the C probes `tests/support/c/{layout,constants}_probe.c`, compiled by the build script with
//!   the C compiler against the same headers the bindings came from, `#include` the tables
//!   (`sizeof`, `_Alignof`, `offsetof`, the arithmetic class, the bytes a bit-field assignment
//!   writes, the value of every enumerator and macro constant);
//! - `tests/layout.rs` and `tests/constants.rs` expand the same text with `macro_rules!`
//!   (`size_of`, `align_of`, `offset_of!`, bindgen's bit-field setters, the constants).
//!
//! The layout unit is compiled as the bindings were generated (`__CUDA_API_VERSION_INTERNAL`, so
//! the legacy `_v1` types exist); the constants unit and the C spellings of `names.rs` as a C
//! program sees the header. The header is read through the preprocessor too, to count the structs,
//! unions, enums and enumerators it defines: the tests check that the bindings have every one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::c_header::{
    header_lines, includes, lines_of, project, rust_text, sets, stream_modes, Compiler, Decls,
    FOREIGN_HEADERS,
};

/// The defines the bindings were generated with (see the generator).
const INTERNAL_DEFINES: [&str; 2] = [
    "__CUDA_API_VERSION_INTERNAL",
    "__CUDA_API_VERSION_INTERNAL_ODR",
];

/// Writes the tables (`*.inc` for the C probes, `layout_probe.rs` and `constants_probe.rs` for the
/// tests) and the projected bindings of `version` into `out`.
pub fn generate(root: &Path, out: &Path, version: &str, cc: &Compiler, per_thread: bool) {
    let dir = root.join("cuda-driver-sys/src/generated");
    let selected: u32 = version.parse().expect("a numeric CUDA version");
    // cuda.h's files and those of the interop modules (gl_bindings.rs, ...), as one model: the
    // modules are re-exported at the crate root, as their headers are included in one C program.
    let read = |name: &str| -> String {
        let mut all = String::new();
        for (prefix, _) in sets() {
            let path = dir.join(format!("{prefix}{name}"));
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "the layout and constant probes are made from the committed bindings, and {} \
                     cannot be read ({e}): restore it (`git checkout -- cuda-driver-sys/src/generated`) \
                     or regenerate it with `ci/regenerate.sh`.",
                    path.display()
                )
            });
            // Also for the tests that read the bindings as text.
            let projected = project(&text, selected);
            write(&out.join(format!("projected_{prefix}{name}")), &projected);
            all.push_str(&projected);
        }
        all
    };
    let m = Model::parse(&read("bindings.rs"), &read("names.rs"), per_thread);
    // What the bindings bind from the other APIs' headers (`VdpStatus` of vdpau.h) counts as
    // defined by the header too. The constants probe compiles as a C program, which does not see
    // what is declared only under __CUDA_API_VERSION_INTERNAL (12.1-12.4's `_MAX`s).
    let scan = |defines: &[&str]| {
        let expanded = cc
            .preprocess("c", defines)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut h = Decls::scan(&header_lines(&expanded));
        adopt(
            &mut h,
            Decls::scan(&lines_of(&expanded, &FOREIGN_HEADERS)),
            &m,
        );
        h
    };
    let header = scan(&INTERNAL_DEFINES);
    let public = scan(&[]);
    let naming = Naming::resolve(&m, &header);
    write(&out.join("cdsys_includes.h"), &includes());
    let version = format!("pub const VERSION: &str = {};\n", c_str(version));
    let tables = [
        ("layout_probe.rs", layout_tables(&m, &header, &naming, out)),
        ("constants_probe.rs", constants_table(&m, &public, out)),
    ];
    for (file, rust) in tables {
        // The tests include it, with `layout_tables!`/`constants_table!` defined.
        let text = format!(
            "#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all)]\n\
             mod probe {{\nuse super::*;\nuse cuda_driver_sys::*;\n{version}{rust}}}\nuse probe::*;\n"
        );
        write(&out.join(file), &text);
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// A string literal, the same in C and in Rust.
fn c_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
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

/// A constant of this stream mode: its name (C's too), its type, whether it is a top-level
/// enumerator (names.rs) and the kind the constants test counts it as.
struct Const {
    name: String,
    ty: syn::Type,
    kind: u8,
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
    /// `pub type` of names.rs (the `PFN_cuX` macros) in this stream mode: name, target.
    name_types: Vec<(String, syn::Type)>,
    /// bindgen's macro constants (kind 2), names.rs's top-level enumerators (1) and macro
    /// constants bindgen cannot translate (3).
    consts: Vec<Const>,
}

fn has_repr(attrs: &[syn::Attribute], what: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("repr") && rust_text(a).contains(what))
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
    fn parse(bindings: &str, names: &str, per_thread: bool) -> Model {
        let parse = |text: &str, what: &str| {
            syn::parse_file(text)
                .unwrap_or_else(|e| panic!("the committed {what} does not parse: {e}"))
        };
        let mut m = Model::default();
        let mut accessors: Vec<(String, syn::ImplItemFn)> = Vec::new();
        let active = |attrs: &[syn::Attribute]| stream_modes(attrs)[usize::from(per_thread)];
        for item in parse(bindings, "bindings.rs").items {
            match item {
                syn::Item::Struct(s) if s.generics.params.is_empty() => {
                    let name = s.ident.to_string();
                    if has_repr(&s.attrs, "transparent") {
                        let syn::Fields::Unnamed(f) = &s.fields else {
                            panic!("{name}: a transparent struct that is no enum newtype")
                        };
                        m.enum_entry(name).0 = f.unnamed[0].ty.clone();
                        continue;
                    }
                    assert!(
                        has_repr(&s.attrs, "C"),
                        "{name}: a struct that is not #[repr(C)]"
                    );
                    let syn::Fields::Named(fields) = s.fields else {
                        panic!("{name}: a #[repr(C)] struct without named fields")
                    };
                    if fields.named.len() == 1
                        && fields.named[0]
                            .ident
                            .as_ref()
                            .is_some_and(|i| i == "_unused")
                    {
                        m.opaque.insert(name);
                    } else {
                        m.records.insert(name, record(false, fields.named));
                    }
                }
                syn::Item::Union(u) if u.generics.params.is_empty() => {
                    m.records
                        .insert(u.ident.to_string(), record(true, u.fields.named));
                }
                syn::Item::Type(t) => {
                    m.aliases.insert(t.ident.to_string(), *t.ty);
                }
                syn::Item::Use(u) => {
                    if let syn::UseTree::Path(p) = &u.tree {
                        if let syn::UseTree::Rename(r) = &*p.tree {
                            m.enum_typedefs
                                .insert(r.rename.to_string(), r.ident.to_string());
                        }
                    }
                }
                syn::Item::Const(c) if active(&c.attrs) => {
                    m.consts.push(Const {
                        name: c.ident.to_string(),
                        ty: *c.ty,
                        kind: 2,
                    });
                }
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    let ty = rust_text(&i.self_ty);
                    for ii in i.items {
                        match ii {
                            syn::ImplItem::Const(c) => {
                                m.enum_entry(ty.clone()).1.push(c.ident.to_string())
                            }
                            syn::ImplItem::Fn(f) => accessors.push((ty.clone(), f)),
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
            let (Some(field), Some(syn::FnArg::Typed(arg))) =
                (name.strip_prefix("set_"), f.sig.inputs.get(1))
            else {
                continue;
            };
            if f.sig.receiver().is_none()
                || !rust_text(&f.block).contains("_bitfield_")
                || f.sig.inputs.len() != 2
            {
                continue;
            }
            let rec = m
                .records
                .get_mut(&ty)
                .unwrap_or_else(|| panic!("bit-field setter {ty}::{name} on no record"));
            rec.bitfields
                .push((name.clone(), c_name(field), (*arg.ty).clone()));
        }
        for (name, (inner, _)) in &m.enums {
            assert!(
                !matches!(inner, syn::Type::Tuple(_)),
                "{name}: enumerators without a #[repr(transparent)] newtype"
            );
        }
        for item in parse(names, "names.rs").items {
            match item {
                syn::Item::Type(t) if active(&t.attrs) => {
                    m.name_types.push((t.ident.to_string(), *t.ty))
                }
                syn::Item::Const(c) if active(&c.attrs) => {
                    let name = c.ident.to_string();
                    // `pub const X: T = T::X;` re-exports an enumerator at top level.
                    let enumerator = matches!(&*c.expr, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name));
                    m.consts.push(Const {
                        name,
                        ty: *c.ty,
                        kind: if enumerator { 1 } else { 3 },
                    });
                }
                _ => {}
            }
        }
        m
    }

    fn enum_entry(&mut self, name: String) -> &mut (syn::Type, Vec<String>) {
        self.enums
            .entry(name)
            .or_insert_with(|| (syn::parse_quote!(()), Vec::new()))
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
        panic!("alias cycle at {}", rust_text(&ty))
    }

    /// An integer type (primitive, after aliases; not an enum).
    fn is_int(&self, ty: &syn::Type) -> bool {
        path_ident(&self.resolve(ty)).is_some_and(|n| {
            let n = n.strip_prefix("c_").unwrap_or(&n);
            [
                "char",
                "schar",
                "uchar",
                "short",
                "ushort",
                "int",
                "uint",
                "long",
                "ulong",
                "longlong",
                "ulonglong",
            ]
            .contains(&n)
                || (n.len() > 1
                    && matches!(&n[..1], "i" | "u")
                    && ["8", "16", "32", "64", "128", "size"].contains(&&n[1..]))
        })
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
        match name.as_str() {
            _ if self.is_int(&ty) => {
                format!("if <{}>::MIN != 0 {{ 1 }} else {{ 2 }}", rust_text(&ty))
            }
            "f32" | "f64" | "c_float" | "c_double" => "3".into(),
            "bool" => "2".into(),
            _ => "0".into(),
        }
    }

    fn record_of(&self, ty: &syn::Type) -> Option<String> {
        path_ident(ty).filter(|n| self.records.contains_key(n))
    }
}

fn record(union: bool, fields: impl IntoIterator<Item = syn::Field>) -> Record {
    let fields = fields
        .into_iter()
        .map(|f| {
            let name = f.ident.unwrap().to_string();
            if name.starts_with("__bindgen_anon_") {
                let ty = path_ident(&f.ty)
                    .unwrap_or_else(|| panic!("anonymous member {name} of no named type"));
                Member::Anon(name, ty)
            } else if ["_bitfield_align_", "_bindgen_align", "__bindgen_padding_"]
                .iter()
                .any(|p| name.starts_with(p))
            {
                // Rust-only: zero-sized alignment markers, padding bindgen spells out.
                Member::RustOnly
            } else if name.starts_with("_bitfield_") {
                Member::BitfieldStorage
            } else {
                let c = c_name(&name);
                Member::Named(name, c, Box::new(f.ty))
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

/// Takes over the definitions of `foreign` that the bindings have (by tag or typedef name),
/// with their enumerators and the function typedefs the bindings bind.
fn adopt(h: &mut Decls, foreign: Decls, m: &Model) {
    h.function_typedefs.extend(
        foreign
            .function_typedefs
            .into_iter()
            .filter(|n| m.aliases.contains_key(n)),
    );
    for d in foreign.defs {
        let bound = [d.tag.as_deref(), d.typedef.as_deref()]
            .into_iter()
            .flatten()
            .find(|n| {
                if d.keyword == "enum" {
                    m.enums.contains_key(*n)
                } else {
                    m.records.contains_key(*n)
                }
            });
        let Some(bound) = bound else { continue };
        if d.keyword == "enum" {
            let consts = &m.enums[bound].1;
            h.enumerators.extend(
                foreign
                    .enumerators
                    .iter()
                    .filter(|e| consts.contains(e))
                    .cloned(),
            );
        }
        h.defs.push(d);
    }
}

/// Whether the header defines `keyword name` (`tagged`), or an untagged one typedef'd `name`.
fn defines(h: &Decls, keyword: &str, name: &str, tagged: bool) -> bool {
    h.defs.iter().any(|d| {
        d.keyword == keyword
            && if tagged {
                d.tag.as_deref() == Some(name)
            } else {
                d.tag.is_none() && d.typedef.as_deref() == Some(name)
            }
    })
}

// ---------------------------------------------------------------------------------------------
// Naming every record in C

/// How C reaches a record.
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

impl CAccess {
    /// The named C type that holds the fields of the record `name` reached so (itself, or the
    /// host of an anonymous member), its Rust record, and the Rust path from that record to
    /// `name` (`__bindgen_anon_1.`).
    fn host<'a>(&'a self, name: &'a str) -> (&'a str, &'a str, &'a str) {
        match self {
            CAccess::Named(c) => (c, name, ""),
            CAccess::Anon {
                host,
                host_record,
                path,
                ..
            } => (host, host_record, path),
        }
    }
}

struct Naming {
    access: BTreeMap<String, CAccess>,
}

impl Naming {
    fn resolve(m: &Model, h: &Decls) -> Naming {
        let mut access = BTreeMap::new();
        for (name, rec) in &m.records {
            let kw = if rec.union { "union" } else { "struct" };
            if defines(h, kw, name, true) {
                access.insert(name.clone(), CAccess::Named(format!("{kw} {name}")));
            } else if defines(h, kw, name, false) {
                access.insert(name.clone(), CAccess::Named(name.clone()));
            }
        }
        // Nested records: through the member of a record already named.
        loop {
            let mut found: Vec<(String, CAccess)> = Vec::new();
            for (pname, prec) in &m.records {
                let Some(paccess) = access.get(pname) else {
                    continue;
                };
                let (host, host_record, path) = paccess.host(pname);
                for f in &prec.fields {
                    let (child, child_access) = match f {
                        Member::Named(_, c, ty) => {
                            let (mut elem, mut index) = (&**ty, String::new());
                            while let syn::Type::Array(a) = elem {
                                elem = &a.elem;
                                index.push_str("[0]");
                            }
                            let Some(child) = m.record_of(elem) else {
                                continue;
                            };
                            (
                                child,
                                CAccess::Named(format!("__typeof__((({host} *)0)->{c}{index})")),
                            )
                        }
                        Member::Anon(rust, child) => (
                            child.clone(),
                            CAccess::Anon {
                                host: host.to_string(),
                                host_record: host_record.to_string(),
                                parent: pname.clone(),
                                path: format!("{path}{rust}."),
                            },
                        ),
                        Member::BitfieldStorage | Member::RustOnly => continue,
                    };
                    if !access.contains_key(&child) && !found.iter().any(|(n, _)| *n == child) {
                        found.push((child, child_access));
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

    /// See [`CAccess::host`].
    fn host<'a>(&'a self, name: &'a str) -> (&'a str, &'a str, &'a str) {
        self.access[name].host(name)
    }
}

// ---------------------------------------------------------------------------------------------
// The layout tables

/// C expressions of a record's (or anonymous member's) own measures relative to its host.
struct Measures {
    /// Offset of the record's first byte in its host.
    base: String,
    size: String,
    align: String,
}

struct Layout<'a> {
    m: &'a Model,
    naming: &'a Naming,
}

impl Layout<'_> {
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
            members.push(match f {
                Member::Named(_, c, _) => Measures {
                    base: format!("offsetof({host}, {c})"),
                    size: format!("sizeof((({host} *)0)->{c})"),
                    align: format!("_Alignof(__typeof__((({host} *)0)->{c}))"),
                },
                Member::Anon(_, child) => self.measures(child)?,
                Member::BitfieldStorage => return None,
                Member::RustOnly => continue,
            });
        }
        assert!(!members.is_empty(), "{name}: an empty anonymous member");
        let fold = |v: &mut dyn Iterator<Item = &String>| {
            v.cloned()
                .reduce(|a, b| format!("CDSYS_MAX({a}, {b})"))
                .unwrap()
        };
        let align = fold(&mut members.iter().map(|m| &m.align));
        let base = members[0].base.clone();
        let extent = if rec.union {
            fold(&mut members.iter().map(|m| &m.size))
        } else {
            let last = members.last().unwrap();
            format!("({} - {} + {})", last.base, base, last.size)
        };
        Some(Measures {
            size: format!("CDSYS_ROUND_UP({extent}, {align})"),
            align,
            base,
        })
    }

    /// `F(..)` for every member C can name in `record`, anonymous members' fields included, with
    /// their Rust paths under `prefix`, in the entry of `top`.
    fn fields(&self, top: &str, record: &str, prefix: &str, base: &str, out: &mut String) {
        let (host, _, _) = self.naming.host(record);
        let entry = |out: &mut String,
                     path: &str,
                     c_path: &str,
                     ty: &str,
                     class: &str,
                     c: [String; 4]| {
            let [offset, size, align, c_class] = c;
            let (top_s, path_s, c_path, ty_s) = (c_str(top), c_str(path), c_str(c_path), c_str(ty));
            let _ = writeln!(
                out,
                "F({top_s}, {path_s}, {c_path}, {top}, ({path}), ({ty}), {ty_s}, ({class}), ({offset}), ({size}), ({align}), ({c_class}))"
            );
        };
        for f in &self.m.records[record].fields {
            match f {
                Member::Named(rust, c, ty) => {
                    let member = format!("(({host} *)0)->{c}");
                    let c_exprs = [
                        format!("offsetof({host}, {c}) - {base}"),
                        format!("sizeof({member})"),
                        format!("_Alignof(__typeof__({member}))"),
                        format!("CDSYS_CLASS({member})"),
                    ];
                    entry(
                        out,
                        &format!("{prefix}{rust}"),
                        c,
                        &rust_text(ty),
                        &self.m.class_expr(ty),
                        c_exprs,
                    );
                }
                Member::Anon(rust, child) => {
                    if let Some(ms) = self.measures(child) {
                        let c_exprs = [
                            format!("{} - {base}", ms.base),
                            ms.size,
                            ms.align,
                            "0".into(),
                        ];
                        entry(
                            out,
                            &format!("{prefix}{rust}"),
                            "(anonymous member)",
                            child,
                            "0",
                            c_exprs,
                        );
                    }
                    self.fields(top, child, &format!("{prefix}{rust}."), base, out);
                }
                Member::BitfieldStorage | Member::RustOnly => {}
            }
        }
    }
}

/// The layout tables (`layout_{records,fields,bitfields,typedefs}.inc` for the layout unit,
/// `layout_name_typedefs.inc` for the constants unit, which sees the header as a C program does),
/// and the Rust file of the test: the same tables in `layout_tables!`, and what the header defines.
fn layout_tables(m: &Model, h: &Decls, naming: &Naming, out: &Path) -> String {
    let g = Layout { m, naming };
    let (mut records, mut fields, mut bitfields) = (String::new(), String::new(), String::new());
    for (name, rec) in &m.records {
        let anon = matches!(naming.access[name], CAccess::Anon { .. });
        let kind = usize::from(rec.union) + if anon { 2 } else { 0 };
        let ms = g.measures(name);
        let c_type = match &naming.access[name] {
            CAccess::Named(t) => t.clone(),
            CAccess::Anon { host, parent, .. } => {
                format!("anonymous member of {parent} (fields reached through {host})")
            }
        };
        // An anonymous member holding bit-fields has no C measures of its own: its entry stays
        // empty (`measured` 0) and its fields are compared in its host's entry.
        let (size, align, measured) = ms
            .as_ref()
            .map_or(("0", "0", 0), |ms| (ms.size.as_str(), ms.align.as_str(), 1));
        let _ = writeln!(
            records,
            "R({}, {}, {kind}, {measured}, {name}, ({size}), ({align}))",
            c_str(name),
            c_str(&c_type)
        );
        if let Some(ms) = &ms {
            g.fields(name, name, "", &ms.base, &mut fields);
        }
        // Bit-fields: every bit of one field set, the bytes of the nearest named host compared
        // (C: a designated initializer, which reaches into anonymous members by name; Rust:
        // bindgen's setter on a zeroed host, through `__bindgen_anon_N`).
        let (host, host_record, path) = naming.host(name);
        for (setter, cfield, ty) in &rec.bitfields {
            let (c_value, value) = if path_ident(&m.resolve(ty)).is_some_and(|n| n == "bool") {
                ("1".to_string(), "true".to_string())
            } else {
                (
                    "-1".to_string(),
                    format!(
                        "unsafe {{ core::mem::transmute_copy::<[u8; 16], {}>(&[0xff; 16]) }}",
                        rust_text(ty)
                    ),
                )
            };
            let _ = writeln!(
                bitfields,
                "B({}, {}, {host_record}, ({path}), {setter}, ({value}), ({host}), {cfield}, ({c_value}))",
                c_str(host_record),
                c_str(&format!("{path}{cfield}"))
            );
        }
    }

    // Typedefs (every typedef name bindings.rs has, every enum type) in the internal view; the
    // `PFN_cuX` spellings of names.rs in the C program's view.
    let mut typedefs = String::new();
    let typedef = |out: &mut String, name: &str, c_type: &str, kind: u8, ty: &syn::Type| {
        let class = m.class_expr(ty);
        let _ = writeln!(
            out,
            "T({}, {}, {kind}, {name}, ({class}), ({c_type}))",
            c_str(name),
            c_str(c_type)
        );
    };
    let mut opaque_aliases = Vec::new();
    for (name, ty) in &m.aliases {
        if path_ident(&m.resolve(ty)).is_some_and(|t| m.opaque.contains(&t)) {
            opaque_aliases.push(name.as_str());
            continue;
        }
        // A function type's binding is the pointer to it.
        let c_type = if h.function_typedefs.contains(name) {
            format!("{name} *")
        } else {
            name.clone()
        };
        typedef(&mut typedefs, name, &c_type, 0, ty);
    }
    for (name, target) in &m.enum_typedefs {
        typedef(
            &mut typedefs,
            name,
            name,
            0,
            &syn::parse_str(target).unwrap(),
        );
    }
    for (name, (inner, _)) in &m.enums {
        let c_type = if defines(h, "enum", name, true) {
            format!("enum {name}")
        } else {
            name.clone()
        };
        typedef(&mut typedefs, name, &c_type, 1, inner);
    }
    let mut name_typedefs = String::new();
    for (name, target) in &m.name_types {
        typedef(&mut name_typedefs, name, name, 2, target);
    }
    for (file, text) in [
        ("records", &records),
        ("fields", &fields),
        ("bitfields", &bitfields),
        ("typedefs", &typedefs),
    ] {
        write(&out.join(format!("layout_{file}.inc")), text);
    }
    write(&out.join("layout_name_typedefs.inc"), &name_typedefs);

    let list = |v: &mut dyn Iterator<Item = &str>| v.map(c_str).collect::<Vec<_>>().join(", ");
    let defs = |kw: &str, nested: bool| {
        h.defs
            .iter()
            .filter(|d| d.keyword == kw && d.nested == nested)
            .count()
    };
    let tags = h
        .defs
        .iter()
        .filter(|d| d.keyword != "enum")
        .filter_map(|d| {
            d.tag
                .as_ref()
                .or(d.typedef.as_ref())
                .map(|tag| format!("({}, {})", c_str(d.keyword), c_str(tag)))
        });
    format!(
        "layout_tables! {{\nrecords [\n{records}]\nfields [\n{fields}]\nbitfields [\n{bitfields}]\ntypedefs [\n{typedefs}{name_typedefs}]\n}}\n\
         /// Structs the header only declares (incomplete in C, used behind pointers).\n\
         pub static OPAQUE: &[&str] = &[{}];\n\
         /// Typedefs of those.\npub static OPAQUE_TYPEDEFS: &[&str] = &[{}];\n\
         /// Definitions with a body in the headers, as the preprocessor leaves them: (top-level\n\
         /// structs, nested structs, top-level unions, nested unions, enums).\n\
         pub const HEADER_DEFINITIONS: (usize, usize, usize, usize, usize) = ({}, {}, {}, {}, {});\n\
         /// (keyword, tag or typedef name) of every named struct and union the header defines.\n\
         pub static HEADER_NAMED_RECORDS: &[(&str, &str)] = &[{}];\n",
        list(&mut m.opaque.iter().map(String::as_str)),
        list(&mut opaque_aliases.into_iter()),
        defs("struct", false),
        defs("struct", true),
        defs("union", false),
        defs("union", true),
        h.count("enum"),
        tags.collect::<Vec<_>>().join(", ")
    )
}

/// The constants table (`constants.inc` for the constants unit) and the Rust file of the test:
/// the same table in `constants_table!`, and the enumerators and enums the header defines.
fn constants_table(m: &Model, h: &Decls, out: &Path) -> String {
    let mut table = String::new();
    let mut entry = |rust: &str, c: &str, kind: u8, value: String, pointer: bool| {
        let k = if pointer { "P" } else { "K" };
        let _ = writeln!(
            table,
            "{k}({}, {}, {kind}, ({value}), ({c}))",
            c_str(rust),
            c_str(c)
        );
    };
    for (ename, (_, consts)) in &m.enums {
        for k in consts {
            entry(
                &format!("{ename}::{k}"),
                k,
                0,
                format!("{ename}::{k}.0 as i128"),
                false,
            );
        }
    }
    for k in &m.consts {
        let ty = m.resolve(&k.ty);
        let name = &k.name;
        let (value, pointer) = match path_ident(&ty) {
            _ if matches!(ty, syn::Type::Ptr(_)) => (format!("{name} as usize as i128"), true),
            Some(n) if m.enums.contains_key(&n) => (format!("{name}.0 as i128"), false),
            Some(_) if m.is_int(&ty) => (format!("{name} as i128"), false),
            _ => panic!(
                "constant {name} has type {}: the constants probe handles integers, enums and pointers",
                rust_text(&k.ty)
            ),
        };
        entry(name, name, k.kind, value, pointer);
    }
    write(&out.join("constants.inc"), &table);
    let enumerators = list_lines(&h.enumerators);
    format!(
        "constants_table! {{\n{table}}}\n\
         /// Every enumerator the headers define, as the preprocessor leaves them.\n\
         pub static HEADER_ENUMERATORS: &[&str] = &[\n{enumerators}];\n\
         /// Enum definitions in the header.\npub const HEADER_ENUMS: usize = {};\n\
         /// Newtype enums of the bindings.\npub const RUST_ENUMS: usize = {};\n",
        h.count("enum"),
        m.enums.len()
    )
}

fn list_lines(v: &[String]) -> String {
    v.iter().map(|s| format!("    {},\n", c_str(s))).collect()
}
