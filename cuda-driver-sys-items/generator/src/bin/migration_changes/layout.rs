//! The layout of each struct and union of a bindings file on x86-64 Linux (LP64), worked out from
//! its fields as `#[repr(C)]` places them: size, alignment, and each field's name, offset and
//! size. The old crates' bindings carry bindgen's layout tests (`fn bindgen_test_layout_X`, the
//! sizes clang gave); [`Layouts::check_against_tests`] holds the arithmetic to them.

use std::collections::BTreeMap;

use quote::ToTokens;

/// One field: its name, offset and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub offset: usize,
    pub size: usize,
    /// The record its type names, if any (to find a field that moved into an anonymous member).
    pub record: Option<String>,
}

/// The layout of one record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub union: bool,
    pub size: usize,
    pub align: usize,
    pub fields: Vec<Field>,
}

/// A record as written: union or struct, its `align(N)`, its fields' names and types (a
/// `repr(transparent)` newtype has its one field's layout, as a `repr(C)` struct of it would).
struct Record {
    union: bool,
    align: Option<usize>,
    fields: Vec<(String, syn::Type)>,
}

/// The types of one bindings file (or of one header version's generated files).
#[derive(Default)]
pub struct Layouts {
    records: BTreeMap<String, Record>,
    /// `type X = Y;` and `pub use self::Y as X;`.
    aliases: BTreeMap<String, syn::Type>,
    /// Enums (bindgen's Rust enums) and their integer size.
    enums: BTreeMap<String, usize>,
    /// bindgen's layout tests: the record, its size and alignment.
    tests: Vec<(String, usize, usize)>,
}

impl Layouts {
    /// Adds the types and layout tests of `file`.
    pub fn add_file(&mut self, file: &syn::File) {
        for item in &file.items {
            match item {
                syn::Item::Struct(s) => {
                    let fields = match &s.fields {
                        syn::Fields::Named(n) => n
                            .named
                            .iter()
                            .map(|f| (ident(f.ident.as_ref()), f.ty.clone()))
                            .collect(),
                        syn::Fields::Unnamed(u) => u
                            .unnamed
                            .iter()
                            .enumerate()
                            .map(|(i, f)| (i.to_string(), f.ty.clone()))
                            .collect(),
                        syn::Fields::Unit => Vec::new(),
                    };
                    self.add_record(&s.ident, &s.attrs, false, fields);
                }
                syn::Item::Union(u) => {
                    let fields = u
                        .fields
                        .named
                        .iter()
                        .map(|f| (ident(f.ident.as_ref()), f.ty.clone()))
                        .collect();
                    self.add_record(&u.ident, &u.attrs, true, fields);
                }
                syn::Item::Enum(e) => {
                    let size = reprs(&e.attrs)
                        .iter()
                        .find_map(|r| primitive(r))
                        .map_or(4, |(size, _)| size);
                    self.enums.insert(e.ident.to_string(), size);
                }
                syn::Item::Type(t) => {
                    self.aliases.insert(t.ident.to_string(), (*t.ty).clone());
                }
                syn::Item::Use(u) => {
                    let mut tree = &u.tree;
                    while let syn::UseTree::Path(p) = tree {
                        tree = &p.tree;
                    }
                    if let syn::UseTree::Rename(r) = tree {
                        let ident = &r.ident;
                        self.aliases
                            .insert(r.rename.to_string(), syn::parse_quote!(#ident));
                    }
                }
                syn::Item::Fn(f) => {
                    if let Some(test) = layout_test(f) {
                        self.tests.push(test);
                    }
                }
                _ => {}
            }
        }
    }

    fn add_record(
        &mut self,
        name: &syn::Ident,
        attrs: &[syn::Attribute],
        union: bool,
        fields: Vec<(String, syn::Type)>,
    ) {
        let reprs = reprs(attrs);
        let align = reprs.iter().find_map(|r| {
            r.strip_prefix("align(")?
                .strip_suffix(')')?
                .trim()
                .parse()
                .ok()
        });
        let record = Record {
            union,
            align,
            fields,
        };
        self.records.insert(name.to_string(), record);
    }

    /// The record a type name stands for, through its aliases; `None` for anything else.
    pub fn record_of(&self, name: &str) -> Option<&str> {
        let mut n = name.to_string();
        for _ in 0..16 {
            if let Some((key, _)) = self.records.get_key_value(&n) {
                return Some(key);
            }
            n = type_name(self.aliases.get(&n)?)?;
        }
        None
    }

    /// The layout of the record `name` stands for.
    pub fn layout(&self, name: &str) -> Result<Option<Layout>, String> {
        let Some(record) = self.record_of(name) else {
            return Ok(None);
        };
        let r = &self.records[record];
        let mut fields = Vec::new();
        let (mut size, mut align) = (0usize, 1usize);
        for (field, ty) in &r.fields {
            let (fsize, falign) = self
                .size_align(ty, 0)
                .map_err(|e| format!("{record}::{field}: {e}"))?;
            let offset = if r.union {
                0
            } else {
                size.next_multiple_of(falign)
            };
            size = if r.union {
                size.max(fsize)
            } else {
                offset + fsize
            };
            align = align.max(falign);
            // Old bindgen's padding member of a union, which no C code names.
            if field == "_bindgen_union_align" {
                continue;
            }
            let target = type_name(ty).and_then(|t| self.record_of(&t).map(str::to_string));
            fields.push(Field {
                name: field.clone(),
                offset,
                size: fsize,
                record: target,
            });
        }
        if let Some(a) = r.align {
            align = align.max(a);
        }
        Ok(Some(Layout {
            union: r.union,
            size: size.next_multiple_of(align),
            align,
            fields,
        }))
    }

    /// The size and alignment of a field's type.
    fn size_align(&self, ty: &syn::Type, depth: usize) -> Result<(usize, usize), String> {
        if depth > 32 {
            return Err("types nest too deep".into());
        }
        match ty {
            syn::Type::Ptr(_) | syn::Type::Reference(_) | syn::Type::BareFn(_) => Ok((8, 8)),
            syn::Type::Array(a) => {
                let (size, align) = self.size_align(&a.elem, depth + 1)?;
                let n = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<usize>().map_err(|e| e.to_string())?,
                    other => {
                        return Err(format!(
                            "array length `{}` is no literal",
                            other.to_token_stream()
                        ))
                    }
                };
                Ok((size * n, align))
            }
            syn::Type::Paren(p) => self.size_align(&p.elem, depth + 1),
            syn::Type::Path(p) => {
                let last = p.path.segments.last().ok_or("an empty type path")?;
                let name = last.ident.to_string();
                match name.as_str() {
                    // `Option<extern fn>`: a nullable function pointer.
                    "Option" => Ok((8, 8)),
                    "PhantomData" | "__BindgenUnionField" | "__IncompleteArrayField" => Ok((0, 1)),
                    _ => {
                        if let Some(sa) = primitive(&name) {
                            return Ok(sa);
                        }
                        if let Some(size) = self.enums.get(&name) {
                            return Ok((*size, *size));
                        }
                        if self.records.contains_key(&name) {
                            let l = self.layout(&name)?.ok_or("no record")?;
                            return Ok((l.size, l.align));
                        }
                        let target = self
                            .aliases
                            .get(&name)
                            .ok_or_else(|| format!("unknown type `{name}`"))?;
                        self.size_align(target, depth + 1)
                    }
                }
            }
            other => Err(format!("type `{}` not understood", other.to_token_stream())),
        }
    }

    /// Fails unless every layout test of the file gives the size and alignment computed here.
    pub fn check_against_tests(&self) -> Result<usize, String> {
        for (name, size, align) in &self.tests {
            let l = self
                .layout(name)?
                .ok_or_else(|| format!("a layout test names `{name}`, which is no record"))?;
            if (l.size, l.align) != (*size, *align) {
                return Err(format!(
                    "{name}: bindgen's test says {size} bytes, align {align}; the fields give {} \
                     bytes, align {}",
                    l.size, l.align
                ));
            }
        }
        Ok(self.tests.len())
    }
}

fn ident(i: Option<&syn::Ident>) -> String {
    i.map(ToString::to_string).unwrap_or_default()
}

/// The arguments of an item's `#[repr(...)]` attributes (`C`, `align(8)`, `u32`).
fn reprs(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("repr"))
        .filter_map(|a| a.meta.require_list().ok())
        .flat_map(|l| {
            l.tokens
                .to_string()
                .split(',')
                .map(|s| s.replace(' ', ""))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The last segment of a path type (`CUfunction` of `crate::CUfunction`).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Size and alignment of C's and Rust's primitive types on x86-64 Linux.
fn primitive(name: &str) -> Option<(usize, usize)> {
    Some(match name {
        "c_char" | "c_schar" | "c_uchar" | "i8" | "u8" | "bool" => (1, 1),
        "c_short" | "c_ushort" | "i16" | "u16" => (2, 2),
        "c_int" | "c_uint" | "i32" | "u32" | "f32" | "c_float" => (4, 4),
        "c_long" | "c_ulong" | "c_longlong" | "c_ulonglong" | "i64" | "u64" | "f64"
        | "c_double" | "usize" | "isize" | "c_void" => (8, 8),
        "i128" | "u128" => (16, 16),
        _ => return None,
    })
}

/// bindgen's `fn bindgen_test_layout_X() { assert_eq!(size_of::<X>(), 56usize, ..);
/// assert_eq!(align_of::<X>(), 8usize, ..); .. }`: X, its size and alignment.
fn layout_test(f: &syn::ItemFn) -> Option<(String, usize, usize)> {
    let name = f
        .sig
        .ident
        .to_string()
        .strip_prefix("bindgen_test_layout_")?
        .to_string();
    let (mut size, mut align) = (None, None);
    for stmt in &f.block.stmts {
        let syn::Stmt::Macro(m) = stmt else { continue };
        let text = m.mac.tokens.to_string().replace(' ', "");
        let value = |what: &str| -> Option<usize> {
            let rest = text.split_once(&format!("{what}::<{name}>(),"))?.1;
            rest.split_once("usize")?.0.parse().ok()
        };
        size = size.or_else(|| value("size_of"));
        align = align.or_else(|| value("align_of"));
    }
    Some((name, size?, align?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layouts(text: &str) -> Layouts {
        let mut l = Layouts::default();
        l.add_file(&syn::parse_file(text).unwrap());
        l
    }

    #[test]
    fn fields_are_placed_as_repr_c_places_them() {
        let l = layouts(
            "#[repr(C)] pub struct S { pub a: u8, pub b: *mut c_void, pub c: [c_uint; 3usize] }
             pub type T = S;
             #[repr(C)] pub union U { pub x: u8, pub y: T }
             #[repr(C, align(16))] pub struct A { pub x: f64 }",
        );
        let s = l.layout("T").unwrap().unwrap();
        assert_eq!((s.size, s.align), (32, 8));
        let offsets: Vec<usize> = s.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 8, 16]);
        let u = l.layout("U").unwrap().unwrap();
        assert_eq!((u.size, u.align), (32, 8));
        assert_eq!(u.fields[1].record.as_deref(), Some("S"));
        assert_eq!(l.layout("A").unwrap().unwrap().size, 16);
        assert!(l.layout("u8").unwrap().is_none());
    }

    #[test]
    fn a_layout_test_that_disagrees_is_an_error() {
        let test = |size: usize| {
            format!(
                "#[repr(C)] pub struct S {{ pub a: u32, pub b: u64 }}
                 #[test] fn bindgen_test_layout_S() {{
                     assert_eq!(::std::mem::size_of::<S>(), {size}usize, concat!(\"Size of: \"));
                     assert_eq!(::std::mem::align_of::<S>(), 8usize, concat!(\"Alignment\"));
                 }}"
            )
        };
        assert_eq!(layouts(&test(16)).check_against_tests(), Ok(1));
        let err = layouts(&test(12)).check_against_tests().unwrap_err();
        assert!(err.contains("says 12 bytes"), "{err}");
    }
}
