//! The layout of every struct, union, field and typedef of the bindings, against the C compiler.
//!
//! `tests/support/layout.rs` writes, from the committed bindings of the selected version, one table
//! entry per record, field and typedef (no header has a bit-field; a record with one stops the
//! build). The C probe (`tests/support/c/layout_probe.c`, compiled against the same `cuda.h`)
//! expands it into sizeof, _Alignof, offsetof and the arithmetic class of each member; this test
//! expands it into the Rust twins (size_of, align_of, offset_of!), compares them entry by entry
//! and reports every difference.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr};
use std::mem::{align_of, offset_of, size_of};

#[path = "common/headers.rs"]
mod headers;

/// A measured member: its record, Rust path (`offset_of!`'s), offset, size, alignment and
/// arithmetic class.
struct Field {
    record: &'static str,
    path: &'static str,
    ty: &'static str,
    offset: usize,
    size: usize,
    align: usize,
    class: u64,
}

/// Kinds: 0 struct, 1 union, 2 anonymous struct member, 3 anonymous union member.
struct Record {
    name: &'static str,
    kind: u64,
    size: usize,
    align: usize,
}

/// Kinds: 0 typedef, 1 enum type, 2 typedef of names.rs (a C spelling macro).
struct Typedef {
    name: &'static str,
    kind: u64,
    size: usize,
    align: usize,
    class: u64,
}

/// A type's arithmetic class, as the C probe's `CDSYS_CLASS` gives it: 1 signed integer, 2
/// unsigned integer or bool, 3 floating point, 0 anything else (pointers, arrays, records; the
/// generated tables give each enum its integer type's).
trait Class {
    const CLASS: u64 = 0;
}
macro_rules! class {
    ($class:literal: $($t:ty),*) => { $(impl Class for $t { const CLASS: u64 = $class; })* };
}
class!(1: i8, i16, i32, i64, isize);
class!(2: u8, u16, u32, u64, usize, bool);
class!(3: f32, f64);
impl<T: ?Sized> Class for *const T {}
impl<T: ?Sized> Class for *mut T {}
impl<T, const N: usize> Class for [T; N] {}
impl<T> Class for Option<T> {}

/// The Rust half of the probe's tables (see tests/support/layout.rs; the C half expands the same
/// entries in tests/support/c/layout_probe.c): the arguments in parentheses after the Rust ones
/// are C's.
macro_rules! layout_tables {
    (
        records [$(R($name:literal, $c_type:literal, $kind:literal, $rty:ident, $($rc:tt),*))*]
        fields [$(F($record:literal, $path:literal, $c_path:literal, $host:ident, ($($p:tt)*), ($fty:ty),
            $ty_name:literal, $($fc:tt),*))*]
        typedefs [$(T($tname:literal, $t_c:literal, $tkind:literal, $tty:ty, $tc:tt))*]
    ) => {
        pub(crate) static RECORDS: &[Record] = &[$(Record {
            name: $name, kind: $kind, size: size_of::<$rty>(), align: align_of::<$rty>(),
        }),*];
        pub(crate) static FIELDS: &[Field] = &[$(Field {
            record: $record, path: $path, ty: $ty_name, offset: offset_of!($host, $($p)*),
            size: size_of::<$fty>(), align: align_of::<$fty>(), class: <$fty as Class>::CLASS,
        }),*];
        pub(crate) static TYPEDEFS: &[Typedef] = &[$(Typedef {
            name: $tname, kind: $tkind, size: size_of::<$tty>(), align: align_of::<$tty>(), class: <$tty as Class>::CLASS,
        }),*];
    };
}

// `mod probe`: the tables of the selected version, expanded by the macro above.
include!(concat!(env!("OUT_DIR"), "/layout_probe.rs"));

#[repr(C)]
struct CField {
    record: *const c_char,
    path: *const c_char,
    c_path: *const c_char,
    offset: u64,
    size: u64,
    align: u64,
    class: u64,
}
#[repr(C)]
struct CRecord {
    name: *const c_char,
    c_type: *const c_char,
    kind: u64,
    size: u64,
    align: u64,
}
#[repr(C)]
struct CTypedef {
    name: *const c_char,
    c_type: *const c_char,
    kind: u64,
    size: u64,
    align: u64,
    class: u64,
}
/// A table of the C probe: its entries and their number.
#[repr(C)]
struct CTable {
    entries: *const c_void,
    len: u64,
}
extern "C" {
    static cuda_driver_workspace_layout_records: CTable;
    static cuda_driver_workspace_layout_fields: CTable;
    static cuda_driver_workspace_layout_typedefs: CTable;
    static cuda_driver_workspace_layout_name_typedefs: CTable;
}

/// The entries of a table of the C probe.
fn c_table<T>(t: &'static CTable) -> &'static [T] {
    // SAFETY: the C probe's tables hold `len` entries of the matching struct.
    unsafe { std::slice::from_raw_parts(t.entries as *const T, t.len as usize) }
}

fn s(p: *const c_char) -> &'static str {
    // SAFETY: the C probe's strings are NUL-terminated literals.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

const CLASSES: [&str; 4] = [
    "other",
    "signed integer",
    "unsigned integer",
    "floating point",
];

fn class(c: u64) -> &'static str {
    CLASSES.get(c as usize).copied().unwrap_or("?")
}

#[derive(Default)]
struct Counts {
    structs: usize,
    unions: usize,
    anonymous: usize,
    fields: usize,
    typedefs: usize,
    enums: usize,
    spellings: usize,
}

#[test]
fn layout_matches_the_c_compiler() {
    let version = env!("CUDA_HEADER_VERSION");
    assert_eq!(
        VERSION, version,
        "the probe was generated for another header version"
    );
    let mut bad: Vec<String> = Vec::new();
    let mut n = Counts::default();

    // Structs and unions.
    // SAFETY: tables of the C probe.
    let c_by_name: BTreeMap<&str, &CRecord> =
        unsafe { c_table::<CRecord>(&cuda_driver_workspace_layout_records) }
            .iter()
            .map(|r| (s(r.name), r))
            .collect();
    assert_eq!(
        c_by_name.len(),
        RECORDS.len(),
        "the C and Rust halves of the probe list different records"
    );
    let mut c_fields: BTreeMap<&str, BTreeMap<&str, &CField>> = BTreeMap::new();
    for f in unsafe { c_table::<CField>(&cuda_driver_workspace_layout_fields) } {
        c_fields
            .entry(s(f.record))
            .or_default()
            .insert(s(f.path), f);
    }
    let mut rust_fields: BTreeMap<&str, Vec<&Field>> = BTreeMap::new();
    for f in FIELDS {
        rust_fields.entry(f.record).or_default().push(f);
    }
    for r in RECORDS {
        let Some(c) = c_by_name.get(r.name) else {
            bad.push(format!("{}: no C entry", r.name));
            continue;
        };
        let what = match r.kind {
            0 => "struct",
            1 => "union",
            2 => "anonymous struct member",
            _ => "anonymous union member",
        };
        match r.kind {
            0 => n.structs += 1,
            1 => n.unions += 1,
            _ => n.anonymous += 1,
        }
        let c_type = s(c.c_type);
        if (c.kind, c.size, c.align) != (r.kind, r.size as u64, r.align as u64) {
            bad.push(format!(
                "{what} {} (C: {c_type}): C size {} align {}, Rust size {} align {}",
                r.name, c.size, c.align, r.size, r.align
            ));
        }
        let no_fields = BTreeMap::new();
        let c_fields = c_fields.get(r.name).unwrap_or(&no_fields);
        let r_fields = rust_fields.remove(r.name).unwrap_or_default();
        if c_fields.len() != r_fields.len() {
            bad.push(format!(
                "{what} {}: C measured {} members, Rust {}",
                r.name,
                c_fields.len(),
                r_fields.len()
            ));
        }
        for f in r_fields {
            n.fields += 1;
            let Some(cf) = c_fields.get(f.path) else {
                bad.push(format!("{}.{}: no C entry", r.name, f.path));
                continue;
            };
            let c = (cf.offset, cf.size, cf.align, cf.class);
            let rust = (f.offset as u64, f.size as u64, f.align as u64, f.class);
            if c != rust {
                bad.push(format!(
                    "{what} {}, field {} (C `{}` in {c_type}; Rust type {}): C offset {} size {} align {} {}, \
                     Rust offset {} size {} align {} {}",
                    r.name,
                    f.path,
                    s(cf.c_path),
                    f.ty,
                    c.0,
                    c.1,
                    c.2,
                    class(c.3),
                    rust.0,
                    rust.1,
                    rust.2,
                    class(rust.3)
                ));
            }
        }
    }

    // Typedefs and enum types, and the C spellings of names.rs.
    // SAFETY: tables of the C probe.
    let c_types = unsafe {
        c_table::<CTypedef>(&cuda_driver_workspace_layout_typedefs)
            .iter()
            .chain(c_table::<CTypedef>(
                &cuda_driver_workspace_layout_name_typedefs,
            ))
    };
    let c_types: BTreeMap<&str, &CTypedef> = c_types.map(|t| (s(t.name), t)).collect();
    for t in TYPEDEFS {
        match t.kind {
            1 => n.enums += 1,
            2 => n.spellings += 1,
            _ => n.typedefs += 1,
        }
        let Some(c) = c_types.get(t.name) else {
            bad.push(format!("typedef {}: no C entry", t.name));
            continue;
        };
        if (c.size, c.align, c.class) != (t.size as u64, t.align as u64, t.class) {
            bad.push(format!(
                "{} {} (C `{}`): C size {} align {} {}, Rust size {} align {} {}",
                if t.kind == 1 { "enum" } else { "typedef" },
                t.name,
                s(c.c_type),
                c.size,
                c.align,
                class(c.class),
                t.size,
                t.align,
                class(t.class)
            ));
        }
    }

    // Every struct and union the header defines is a record of the bindings.
    let (top_structs, nested_structs, top_unions, nested_unions, header_enums) = HEADER_DEFINITIONS;
    let header_records = top_structs + nested_structs + top_unions + nested_unions;
    if header_records != RECORDS.len() {
        bad.push(format!(
            "the header defines {header_records} structs and unions, the bindings have {} records",
            RECORDS.len()
        ));
    }
    for (kw, tag) in HEADER_NAMED_RECORDS {
        let suffix = format!("_{tag}");
        if !RECORDS
            .iter()
            .any(|r| r.name == *tag || r.name.ends_with(&suffix))
        {
            bad.push(format!(
                "{kw} {tag} of the header has no record in the bindings"
            ));
        }
    }

    println!(
        "CUDA {version} layout: compared {} structs, {} unions, {} anonymous members \
         (measured through their fields), {} fields, no bit-fields (a record with one stops the build), {} typedefs, {} enum types, \
         {} C-spelling typedefs; {} opaque structs and {} typedefs of them are incomplete in C \
         (pointers only).",
        n.structs,
        n.unions,
        n.anonymous,
        n.fields,
        n.typedefs,
        n.enums,
        n.spellings,
        OPAQUE.len(),
        OPAQUE_TYPEDEFS.len()
    );
    println!(
        "CUDA {version} header: {top_structs} structs + {nested_structs} nested, {top_unions} unions \
         + {nested_unions} nested, {header_enums} enums defined."
    );
    // The same comparisons, counted per header (cuda.h, and each interop header's module).
    let hs = headers::headers();
    let mut per: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for r in RECORDS.iter().filter(|r| r.kind <= 1) {
        let what = if r.kind == 0 { "structs" } else { "unions" };
        *per.entry((headers::header_of(&hs, r.name), what))
            .or_default() += 1;
    }
    for t in TYPEDEFS {
        let what = match t.kind {
            1 => "enum types",
            2 => "C-spelling typedefs",
            _ => "typedefs",
        };
        *per.entry((headers::header_of(&hs, t.name), what))
            .or_default() += 1;
    }
    if let Some(((_, what), n)) = per.iter().find(|((h, _), _)| *h == "?") {
        let names: Vec<&str> = (RECORDS.iter().map(|r| r.name))
            .chain(TYPEDEFS.iter().map(|t| t.name))
            .filter(|name| headers::header_of(&hs, name) == "?")
            .take(20)
            .collect();
        bad.push(format!(
            "{n} {what} (and maybe more) declared by no header's bindings: {names:?}"
        ));
    }
    let counts: Vec<(&str, &str, usize)> = per.iter().map(|((h, w), n)| (*h, *w, *n)).collect();
    println!(
        "CUDA {version} layout per header: {}",
        headers::per_header_line(&hs, &counts)
    );
    assert!(
        n.structs > 0 && n.fields > 0 && n.typedefs > 0,
        "nothing was compared"
    );
    assert!(
        bad.is_empty(),
        "{} layout mismatches between the bindings and the C compiler (CUDA {version}):\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}
