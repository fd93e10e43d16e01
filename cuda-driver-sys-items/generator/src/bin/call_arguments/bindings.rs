//! The driver API of the committed merged bindings at one header version
//! (`cuda-driver-sys-items/src/generated/bindings.rs` and `functions.rs`, projected onto it): each
//! function's parameters, and the types they name, as bindgen wrote them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cuda_driver_sys_generator::rust_syntax::project_version;
use quote::ToTokens;

/// A struct or union with named fields.
pub struct Record {
    /// Whether it is a union.
    pub union: bool,
    /// Its fields in order: the C member's name (bindgen's `type_` is C's `type`; an anonymous
    /// member is bindgen's `__bindgen_anon_<n>`) and its type.
    pub fields: Vec<(String, syn::Type)>,
}

/// What one header version's bindings declare.
#[derive(Default)]
pub struct Bindings {
    /// `pub type X = Y;` and `pub use self::Y as X;`: X to Y.
    aliases: BTreeMap<String, syn::Type>,
    /// Structs and unions with fields.
    records: BTreeMap<String, Record>,
    /// The `#[repr(transparent)]` newtypes of C's enums, to the integer type they wrap.
    newtypes: BTreeMap<String, syn::Type>,
    /// The opaque structs (`_unused: [u8; 0]`), only ever handled through a pointer.
    opaque: BTreeSet<String>,
    /// The enumerators (the associated constants of the newtypes).
    enumerators: BTreeSet<String>,
    /// Each driver entry (its symbol) to its parameters: name and type.
    pub functions: BTreeMap<String, Vec<(String, syn::Type)>>,
}

/// A named type, as far as its name says.
pub enum Named<'b> {
    /// An alias of another type.
    Alias(&'b syn::Type),
    /// A struct or union.
    Record(&'b Record),
    /// An enum's newtype, wrapping this integer type.
    Newtype(&'b syn::Type),
    /// An opaque struct.
    Opaque,
}

impl Bindings {
    /// The bindings of `version` (a `CUDA_VERSION`) from the merged files in `generated`: the
    /// interop headers' functions (their types where `cuda.h`'s do not name them) and
    /// `cuda.h`'s.
    pub fn read(generated: &Path, version: u32) -> Result<Bindings, String> {
        let mut bindings = Bindings::default();
        let modules = ["profiler_", "gl_", "egl_", "vdpau_", ""];
        let files = modules
            .iter()
            .flat_map(|m| [format!("{m}bindings.rs"), format!("{m}functions.rs")]);
        for name in files {
            let path = generated.join(name);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut file = syn::parse_file(&text)
                .map_err(|e| format!("{} does not parse: {e}", path.display()))?;
            project_version(&mut file, version)?;
            for item in &file.items {
                bindings.add(item);
            }
        }
        Ok(bindings)
    }

    fn add(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Type(t) => {
                self.aliases.insert(t.ident.to_string(), (*t.ty).clone());
            }
            syn::Item::Use(u) => {
                if let Some((from, to)) = use_alias(&u.tree) {
                    self.aliases
                        .insert(to, syn::parse_str(&from).expect("an identifier"));
                }
            }
            syn::Item::Struct(s) => {
                let name = s.ident.to_string();
                match &s.fields {
                    syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                        self.newtypes.insert(name, u.unnamed[0].ty.clone());
                    }
                    syn::Fields::Named(n) if is_opaque(n) => {
                        self.opaque.insert(name);
                    }
                    syn::Fields::Named(n) => {
                        let fields = n.named.iter().map(field).collect();
                        self.records.insert(
                            name,
                            Record {
                                union: false,
                                fields,
                            },
                        );
                    }
                    _ => {}
                }
            }
            syn::Item::Union(u) => {
                let fields = u.fields.named.iter().map(field).collect();
                let record = Record {
                    union: true,
                    fields,
                };
                self.records.insert(u.ident.to_string(), record);
            }
            syn::Item::Impl(i) if i.trait_.is_none() => {
                for ii in &i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        self.enumerators.insert(c.ident.to_string());
                    }
                }
            }
            syn::Item::ForeignMod(m) => {
                for f in &m.items {
                    let syn::ForeignItem::Fn(f) = f else { continue };
                    let params = f.sig.inputs.iter().filter_map(|a| match a {
                        syn::FnArg::Typed(p) => {
                            let name = p.pat.to_token_stream().to_string();
                            Some((c_name(&name), (*p.ty).clone()))
                        }
                        syn::FnArg::Receiver(_) => None,
                    });
                    self.functions
                        .insert(f.sig.ident.to_string(), params.collect());
                }
            }
            _ => {}
        }
    }

    /// What the type named `name` is, if the bindings declare it.
    pub fn named(&self, name: &str) -> Option<Named<'_>> {
        if let Some(t) = self.aliases.get(name) {
            Some(Named::Alias(t))
        } else if let Some(r) = self.records.get(name) {
            Some(Named::Record(r))
        } else if let Some(t) = self.newtypes.get(name) {
            Some(Named::Newtype(t))
        } else if self.opaque.contains(name) {
            Some(Named::Opaque)
        } else {
            None
        }
    }

    /// Whether the enumerator `name` is declared.
    pub fn has_enumerator(&self, name: &str) -> bool {
        self.enumerators.contains(name)
    }
}

/// A field's C name and type.
fn field(f: &syn::Field) -> (String, syn::Type) {
    let name = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
    (c_name(&name), f.ty.clone())
}

/// The C name of a Rust identifier: bindgen appends `_` to a C name that is a Rust keyword.
fn c_name(rust: &str) -> String {
    const KEYWORDS: &[&str] = &["type_", "fn_", "mod_", "ref_", "match_", "in_", "impl_"];
    match KEYWORDS.contains(&rust) {
        true => rust.trim_end_matches('_').to_string(),
        false => rust.to_string(),
    }
}

/// Whether a struct's fields are bindgen's `_unused: [u8; 0]` of an opaque type.
fn is_opaque(fields: &syn::FieldsNamed) -> bool {
    fields.named.len() == 1
        && fields.named[0]
            .ident
            .as_ref()
            .is_some_and(|i| i == "_unused")
}

/// `pub use self::Y as X;`: (Y, X).
fn use_alias(tree: &syn::UseTree) -> Option<(String, String)> {
    match tree {
        syn::UseTree::Path(p) if p.ident == "self" => use_alias(&p.tree),
        syn::UseTree::Rename(r) => Some((r.ident.to_string(), r.rename.to_string())),
        _ => None,
    }
}
