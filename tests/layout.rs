//! The layout of every struct, union, field and typedef of the bindings, against the C compiler.
//!
//! `tests/support/layout.rs` generates, from the committed bindings of the selected version, a C
//! probe compiled against the same `cuda.h` (sizeof, _Alignof, offsetof, the arithmetic class of
//! each member, the bytes each bit-field assignment writes) and the Rust twin of every entry
//! (size_of, align_of, offset_of!, bindgen's setters). This test compares them entry by entry and
//! reports every difference.

use std::collections::BTreeMap;
use std::ffi::CStr;

include!(concat!(env!("OUT_DIR"), "/layout_probe.rs"));

#[path = "common/headers.rs"]
mod headers;

use layout_probe::*;

fn s(p: *const core::ffi::c_char) -> &'static str {
    // SAFETY: the C probe's strings are NUL-terminated literals.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
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
    unmeasured: usize,
    fields: usize,
    bitfields: usize,
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
    // SAFETY: arrays defined by the C probe with these lengths.
    let c_records = unsafe { &cuda_driver_workspace_layout_records };
    let c_by_name: BTreeMap<&str, &CRecord> = c_records.iter().map(|r| (s(r.name), r)).collect();
    assert_eq!(
        c_by_name.len(),
        RECORDS.len(),
        "the C and Rust halves of the probe list different records"
    );
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
        if c.measured == 0 {
            // An anonymous member holding bit-fields: C cannot measure it; its fields are
            // compared in the entry of its host, its bit-fields by their bytes.
            n.unmeasured += 1;
            continue;
        }
        if (c.kind, c.size, c.align) != (r.kind, r.size as u64, r.align as u64) {
            bad.push(format!(
                "{what} {} (C: {c_type}): C size {} align {}, Rust size {} align {}",
                r.name, c.size, c.align, r.size, r.align
            ));
        }
        // SAFETY: `fields` points to `nfields` entries.
        let c_fields = unsafe { std::slice::from_raw_parts(c.fields, c.nfields as usize) };
        let c_fields: BTreeMap<&str, &CField> = c_fields.iter().map(|f| (s(f.path), f)).collect();
        if c_fields.len() != r.fields.len() {
            bad.push(format!(
                "{what} {}: C measured {} members, Rust {}",
                r.name,
                c_fields.len(),
                r.fields.len()
            ));
        }
        for f in r.fields {
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

    // Bit-fields.
    // SAFETY: as above; the first `nbitfields` slots are filled.
    let nbit = unsafe { cuda_driver_workspace_layout_nbitfields } as usize;
    let c_bits = unsafe { &cuda_driver_workspace_layout_bitfields[..nbit] };
    let c_bits: BTreeMap<(&str, &str), &[u8]> = c_bits
        .iter()
        .map(|b| {
            // SAFETY: `bytes` points into the C probe's object, `len` bytes long.
            let bytes = unsafe { std::slice::from_raw_parts(b.bytes, b.len as usize) };
            ((s(b.record), s(b.field)), bytes)
        })
        .collect();
    assert_eq!(
        c_bits.len(),
        BITFIELDS.len(),
        "bit-field probes differ in number"
    );
    for (record, field, probe) in BITFIELDS {
        n.bitfields += 1;
        // bindgen's accessors assert that the field fits its storage unit.
        let bytes = match std::panic::catch_unwind(probe) {
            Ok(bytes) => bytes,
            Err(e) => {
                let why = e
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| e.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                bad.push(format!(
                    "bit-field {record}.{field}: bindgen's setter panics: {why}"
                ));
                continue;
            }
        };
        match c_bits.get(&(*record, *field)) {
            Some(c) if *c == bytes.as_slice() => {}
            Some(c) => bad.push(format!(
                "bit-field {record}.{field}: every bit set writes C bytes {}, Rust bytes {}",
                hex(c),
                hex(&bytes)
            )),
            None => bad.push(format!("bit-field {record}.{field}: no C entry")),
        }
    }

    // Typedefs and enum types, and the C spellings of names.rs.
    // SAFETY: arrays defined by the C probe with these lengths.
    let c_types = unsafe {
        cuda_driver_workspace_layout_typedefs
            .iter()
            .chain(&cuda_driver_workspace_layout_name_typedefs[..NAME_TYPEDEF_COUNT])
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
         (measured through their fields; {} with bit-fields, measured only through their host), {} fields, {} bit-fields, {} typedefs, {} enum types, \
         {} C-spelling typedefs; {} opaque structs and {} typedefs of them are incomplete in C \
         (pointers only).",
        n.structs,
        n.unions,
        n.anonymous,
        n.unmeasured,
        n.fields,
        n.bitfields,
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
