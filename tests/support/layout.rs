//! The data of the layout and constant probes (`tests/layout.rs`, `tests/constants.rs`), read from
//! the committed bindings of the selected version, never from a hand-kept list: one macro call per
//! table entry (`R` a record, `F` a field, `T` a typedef, `K`/`P` an integer or pointer
//! constant) holding the C expressions and the Rust items side by side. The generic C
//! probes (`c/layout_probe.c`, `c/constants_probe.c`) include the tables; the tests expand the same
//! entries with `macro_rules!`. The layout unit is compiled as the bindings were generated
//! (`__CUDA_API_VERSION_INTERNAL`, for the legacy `_v1` types), the constants unit as a C program
//! sees the header. The header, read through the preprocessor and a C parser, gives what it
//! defines (structs, unions, enums, enumerators): the tests check that the bindings have every one.
//! No probe compares bit-fields (none in any header): a record with one stops the build (model.rs).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::c_header::{includes, CDef, Compiler, Decls, INTERNAL_DEFINES};
use crate::model::{path_ident, rust_text, Inputs, Member, Model};

/// Writes the tables (`*.inc` for the C probes, `layout_probe.rs` and `constants_probe.rs` for the
/// tests) and the generated files projected onto `version` (`projected_*.rs`) into `out`.
/// The stream mode is the package's (`per-thread-default-stream`).
pub fn generate(root: &Path, out: &Path, version: &str, cc: &Compiler) -> Result<(), String> {
    let selected: u32 = version.parse().expect("a numeric CUDA version");
    let per_thread = std::env::var_os("CARGO_FEATURE_PER_THREAD_DEFAULT_STREAM").is_some();
    // Each part of the inputs (a file of cuda-driver-sys-items/src/generated, cuda.h's and those of the
    // interop modules, as one model: the modules are re-exported at the crate root, as their
    // headers are included in one C program; or src/inline.rs), projected onto this version, and
    // written for the prototype probe and the tests that read the bindings as text.
    let inputs = Inputs::load(version, |name| {
        let rel = match name {
            "inline.rs" => name.to_string(),
            _ => format!("generated/{name}"),
        };
        let path = root.join("cuda-driver-sys-items/src").join(&rel);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "the probes are made from the committed bindings, and {} cannot be read ({e}): \
                 restore it (`git checkout -- cuda-driver-sys-items/src/{rel}`) or regenerate it with \
                 `cargo xtask regenerate`.",
                path.display()
            )
        })?;
        let mut file = syn::parse_file(&text)
            .map_err(|e| format!("{} does not parse: {e}", path.display()))?;
        crate::rust_syntax::project_version(&mut file, selected)
            .map_err(|e| format!("{} cannot be projected: {e}", path.display()))?;
        let projected = prettyplease::unparse(&file);
        write(&out.join(format!("projected_{name}")), &projected);
        Ok(projected)
    })?;
    let m = Model::read(&inputs)?;
    let mode = usize::from(per_thread);
    // What the bindings bind from the other APIs' headers (`VdpStatus` of vdpau.h) counts as
    // defined by the header too. The constants probe compiles as a C program, which does not see
    // what is declared only under __CUDA_API_VERSION_INTERNAL (12.1-12.4's `_MAX`s).
    let scan = |defines: &[&str]| -> Result<Decls, String> {
        let [mut h, foreign] = Decls::scan(&cc.preprocess(defines)?)?;
        adopt(&mut h, foreign, &m);
        Ok(h)
    };
    let header = scan(&INTERNAL_DEFINES.split(' ').collect::<Vec<_>>())?;
    let public = scan(&[])?;
    write(&out.join("cdsys_includes.h"), &includes());
    let version = format!("pub const VERSION: &str = {};\n", c_str(version));
    let layout = layout_tables(&m, &header, out, mode)?;
    let constants = constants_table(&m, &public, out, mode);
    for (file, rust) in [
        ("layout_probe.rs", layout),
        ("constants_probe.rs", constants),
    ] {
        // The tests include it, with `layout_tables!`/`constants_table!` defined.
        let text = format!(
            "#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all)]\n\
             mod probe {{\nuse super::*;\nuse cuda_driver_sys::*;\n{version}{rust}}}\nuse probe::*;\n"
        );
        write(&out.join(file), &text);
    }
    Ok(())
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// A string literal, the same in C and in Rust.
fn c_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

// ---------------------------------------------------------------------------------------------
// The header, as the C compiler sees it

/// Takes over the definitions of `foreign` that the bindings have (by tag or typedef name),
/// with their enumerators and the function typedefs the bindings bind.
fn adopt(h: &mut Decls, foreign: Decls, m: &Model) {
    let bound_typedefs = foreign.function_typedefs.into_iter();
    (h.function_typedefs).extend(bound_typedefs.filter(|n| m.aliases.contains_key(n)));
    for d in foreign.defs {
        let mut names = [&d.tag, &d.typedef].into_iter().flatten();
        if d.keyword == "enum" {
            let Some((_, consts)) = names.find_map(|n| m.enums.get(n)) else {
                continue;
            };
            let enumerators = foreign.enumerators.iter().filter(|e| consts.contains(e));
            h.enumerators.extend(enumerators.cloned());
        } else if !names.any(|n| m.records.contains_key(n)) {
            continue;
        }
        drop(names);
        h.defs.push(d);
    }
}

/// Whether the header defines `keyword name` (`tagged`), or an untagged one typedef'd `name`.
fn defines(h: &Decls, keyword: &str, name: &str, tagged: bool) -> bool {
    let named = |d: &CDef| match tagged {
        true => d.tag.as_deref() == Some(name),
        false => d.tag.is_none() && d.typedef.as_deref() == Some(name),
    };
    h.defs.iter().any(|d| d.keyword == keyword && named(d))
}

// ---------------------------------------------------------------------------------------------
// Naming every record in C

/// How C reaches a record: `host`, the named C type that holds its fields (`struct X`, `X`, or
/// `__typeof__(((struct P *)0)->member)`): the record's own, or for an anonymous member (whose
/// type C has no name for; `parent` holds it) that of the nearest named enclosing record.
struct CAccess {
    host: String,
    parent: Option<String>,
}

/// How C reaches each record of the bindings.
type Naming = BTreeMap<String, CAccess>;

fn naming(m: &Model, h: &Decls) -> Result<Naming, String> {
    let mut access = Naming::new();
    for (name, rec) in &m.records {
        let kw = if rec.union { "union" } else { "struct" };
        let host = match (defines(h, kw, name, true), defines(h, kw, name, false)) {
            (true, _) => format!("{kw} {name}"),
            (_, true) => name.clone(),
            _ => continue,
        };
        access.insert(name.clone(), CAccess { host, parent: None });
    }
    // Nested records: through the member of a record already named, nearest first.
    let mut todo: std::collections::VecDeque<String> = access.keys().cloned().collect();
    while let Some(parent) = todo.pop_front() {
        let host = access[&parent].host.clone();
        for f in &m.records[&parent].fields {
            let (child, reach) = match f {
                Member::Named(c, _, ty) => {
                    let (mut elem, mut index) = (&**ty, String::new());
                    while let syn::Type::Array(a) = elem {
                        elem = &a.elem;
                        index.push_str("[0]");
                    }
                    let Some(child) = path_ident(elem).filter(|n| m.records.contains_key(n)) else {
                        continue;
                    };
                    let host = format!("__typeof__((({host} *)0)->{c}{index})");
                    (child, CAccess { host, parent: None })
                }
                Member::Anon(_, child) => {
                    let (host, parent) = (host.clone(), Some(parent.clone()));
                    (child.clone(), CAccess { host, parent })
                }
                Member::RustOnly => continue,
            };
            if let std::collections::btree_map::Entry::Vacant(e) = access.entry(child.clone()) {
                e.insert(reach);
                todo.push_back(child);
            }
        }
    }
    match m.records.keys().find(|n| !access.contains_key(*n)) {
        None => Ok(access),
        Some(r) => Err(format!(
            "the layout probe cannot name the record {r} of the bindings in C (no tag, typedef \
             or member of a named record in the header)"
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// The layout tables

/// C expressions of a record's (or anonymous member's) own measures relative to its host: the
/// offset of its first byte in the host, its size and alignment.
struct Measures {
    base: String,
    size: String,
    align: String,
}

/// The layout tables being written: the model, how C names each record, and the entries.
struct Layout<'a> {
    m: &'a Model,
    naming: Naming,
    fields: String,
}

impl Layout<'_> {
    /// For a named record: its sizeof/alignof. For an anonymous member: derived from its members
    /// as the C compiler lays them out in the host (a union is its largest member rounded to its
    /// strictest alignment; a struct ends after its last member, rounded likewise).
    fn measures(&self, name: &str) -> Measures {
        let rec = &self.m.records[name];
        let CAccess { host, parent, .. } = &self.naming[name];
        if parent.is_none() {
            let (size, align) = (format!("sizeof({host})"), format!("_Alignof({host})"));
            let base = "0".into();
            return Measures { base, size, align };
        }
        let mut members = Vec::new();
        for f in &rec.fields {
            members.push(match f {
                Member::Named(c, _, _) => Measures {
                    base: format!("offsetof({host}, {c})"),
                    size: format!("sizeof((({host} *)0)->{c})"),
                    align: format!("_Alignof(__typeof__((({host} *)0)->{c}))"),
                },
                Member::Anon(_, child) => self.measures(child),
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
        let size = format!("CDSYS_ROUND_UP({extent}, {align})");
        Measures { size, align, base }
    }

    /// `F(..)` for every member C can name in `record`, anonymous members' fields included, with
    /// their Rust paths under `prefix`, in the entry of `top`: the C measures `[offset, size,
    /// align, class]` beside the Rust items.
    fn fields(&mut self, top: &str, record: &str, prefix: &str, base: &str) {
        let (m, c_host) = (self.m, self.naming[record].host.clone());
        for f in &m.records[record].fields {
            let (rust, c_path, ty, [offset, size, align, c_class]) = match f {
                Member::Named(c, rust, ty) => {
                    let member = format!("(({c_host} *)0)->{c}");
                    let c_exprs = [
                        format!("offsetof({c_host}, {c}) - {base}"),
                        format!("sizeof({member})"),
                        format!("_Alignof(__typeof__({member}))"),
                        format!("CDSYS_CLASS({member})"),
                    ];
                    (rust, c.as_str(), rust_text(ty), c_exprs)
                }
                Member::Anon(rust, child) => {
                    let ms = self.measures(child);
                    let offset = format!("{} - {base}", ms.base);
                    let c_exprs = [offset, ms.size, ms.align, "0".into()];
                    (rust, "(anonymous member)", child.clone(), c_exprs)
                }
                Member::RustOnly => continue,
            };
            let path = format!("{prefix}{rust}");
            let (top_s, path_s, c_path, ty_s) =
                (c_str(top), c_str(&path), c_str(c_path), c_str(&ty));
            let _ = writeln!(
                self.fields,
                "F({top_s}, {path_s}, {c_path}, {top}, ({path}), ({ty}), {ty_s}, ({offset}), ({size}), ({align}), ({c_class}))"
            );
            if let Member::Anon(_, child) = f {
                self.fields(top, child, &format!("{path}."), base);
            }
        }
    }
}

/// The layout tables (`layout_{records,fields,typedefs}.inc` for the layout unit,
/// `layout_name_typedefs.inc` for the constants unit, which sees the header as a C program does),
/// and the Rust file of the test: the same tables in `layout_tables!`, and what the header defines.
fn layout_tables(m: &Model, h: &Decls, out: &Path, mode: usize) -> Result<String, String> {
    let (naming, fields) = (naming(m, h)?, String::new());
    let mut g = Layout { m, naming, fields };
    let mut records = String::new();
    for (name, rec) in &m.records {
        let ms = g.measures(name);
        g.fields(name, name, "", &ms.base);
        let CAccess { host, parent, .. } = &g.naming[name];
        let kind = usize::from(rec.union) + if parent.is_some() { 2 } else { 0 };
        let c_type = match parent {
            None => host.clone(),
            Some(parent) => format!("anonymous member of {parent} (fields reached through {host})"),
        };
        let (name_s, c_type, Measures { size, align, .. }) = (c_str(name), c_str(&c_type), ms);
        let _ = writeln!(
            records,
            "R({name_s}, {c_type}, {kind}, {name}, ({size}), ({align}))"
        );
    }

    // Typedefs (every typedef name bindings.rs has, every enum type) in the internal view; the
    // `PFN_cuX` spellings of names.rs in the C program's view.
    let typedef = |out: &mut String, name: &str, c_type: &str, kind: u8| {
        let (name_s, c_type_s) = (c_str(name), c_str(c_type));
        let _ = writeln!(out, "T({name_s}, {c_type_s}, {kind}, {name}, ({c_type}))");
    };
    let (mut typedefs, mut name_typedefs) = (String::new(), String::new());
    let mut opaque_aliases = Vec::new();
    for (name, ty) in &m.aliases {
        if path_ident(&m.resolve(ty)).is_some_and(|t| m.opaque.contains(&t)) {
            opaque_aliases.push(name.as_str());
        } else if h.function_typedefs.contains(name) {
            // A function type's binding is the pointer to it.
            typedef(&mut typedefs, name, &format!("{name} *"), 0);
        } else {
            typedef(&mut typedefs, name, name, 0);
        }
    }
    for name in m.enum_typedefs.keys() {
        typedef(&mut typedefs, name, name, 0);
    }
    // The Rust side's arithmetic class of a type (`Class` of tests/layout.rs): an enum's is its
    // integer type's, a record's is none.
    let mut classes: String = (m.records.keys())
        .map(|r| format!("impl Class for {r} {{}}\n"))
        .collect();
    for (name, (inner, _)) in &m.enums {
        let tagged = defines(h, "enum", name, true);
        let tag = if tagged { "enum " } else { "" };
        typedef(&mut typedefs, name, &format!("{tag}{name}"), 1);
        let inner = rust_text(inner);
        let _ = writeln!(
            classes,
            "impl Class for {name} {{ const CLASS: u64 = <{inner} as Class>::CLASS; }}"
        );
    }
    for (name, ..) in m.name_types.iter().filter(|t| t.2[mode]) {
        typedef(&mut name_typedefs, name, name, 2);
    }
    let fields = &g.fields;
    let texts = [&records, fields, &typedefs, &name_typedefs];
    for (file, text) in ["records", "fields", "typedefs", "name_typedefs"]
        .iter()
        .zip(texts)
    {
        write(&out.join(format!("layout_{file}.inc")), text);
    }

    let list = |v: &mut dyn Iterator<Item = &str>| v.map(c_str).collect::<Vec<_>>().join(", ");
    let defs = |kw: &str, nested: bool| {
        let defined = |d: &&CDef| d.keyword == kw && d.nested == nested;
        h.defs.iter().filter(defined).count()
    };
    let records_defined = h.defs.iter().filter(|d| d.keyword != "enum");
    let tags = records_defined.filter_map(|d| {
        let tag = d.tag.as_ref().or(d.typedef.as_ref())?;
        Some(format!("({}, {})", c_str(d.keyword), c_str(tag)))
    });
    Ok(format!(
        "{classes}layout_tables! {{\nrecords [\n{records}]\nfields [\n{fields}]\ntypedefs [\n{typedefs}{name_typedefs}]\n}}\n\
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
    ))
}

/// The constants table (`constants.inc` for the constants unit) and the Rust file of the test:
/// the same table in `constants_table!`, and the enumerators and enums the header defines.
fn constants_table(m: &Model, h: &Decls, out: &Path, mode: usize) -> String {
    let mut table = String::new();
    let mut entry = |rust: &str, c: &str, kind: u8, value: String, pointer: bool| {
        let k = if pointer { "P" } else { "K" };
        let (rust_s, c_s) = (c_str(rust), c_str(c));
        let _ = writeln!(table, "{k}({rust_s}, {c_s}, {kind}, ({value}), ({c}))");
    };
    for (ename, (_, consts)) in &m.enums {
        for k in consts {
            let value = format!("{ename}::{k}.0 as i128");
            entry(&format!("{ename}::{k}"), k, 0, value, false);
        }
    }
    for (name, ty, _, kind) in m.consts.iter().filter(|c| c.2[mode]) {
        let ty = m.resolve(ty);
        let (value, pointer) = match path_ident(&ty) {
            _ if matches!(ty, syn::Type::Ptr(_)) => (format!("{name} as usize as i128"), true),
            Some(n) if m.enums.contains_key(&n) => (format!("{name}.0 as i128"), false),
            // An integer (anything else does not compile as `as i128`).
            _ => (format!("{name} as i128"), false),
        };
        entry(name, name, *kind, value, pointer);
    }
    write(&out.join("constants.inc"), &table);
    let enumerators: String = (h.enumerators.iter())
        .map(|s| format!("    {},\n", c_str(s)))
        .collect();
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
