//! The projected bindings of the selected version (the build script's `projected_*.rs`), read once
//! with `syn` into one model: its records, enums, typedefs and constants for the layout and
//! constant probes (`layout.rs`, in the build script), its functions, typedefs and C spellings for
//! the prototype probe (`prototypes.rs`, in `tests/prototypes.rs`, which includes this file by
//! path). Each probe uses its part.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use quote::ToTokens;

use crate::c_header::sets;

/// The bindings a probe is generated from: the text of each file the probe reads (`functions`,
/// `bindings`, `function_names`, `names`: those of `cuda.h` and, with the `interop` feature, of
/// each interop module, as one; `inline`: `src/inline.rs`), as the build script projected them
/// onto the selected version (`projected_*.rs` in its `OUT_DIR`).
#[derive(Clone)]
pub struct Inputs {
    /// The header version, `12000`.
    pub version: String,
    /// File (`functions`, ...) → text.
    pub text: BTreeMap<&'static str, String>,
}

/// The files of [`Inputs`].
pub const FILES: [&str; 5] = ["functions", "bindings", "function_names", "names", "inline"];

impl Inputs {
    /// Reads the projected bindings of `version` from `dir`.
    pub fn read(dir: &Path, version: &str) -> Result<Inputs, String> {
        Inputs::load(version, |name| {
            let path = dir.join(format!("projected_{name}"));
            let path_s = path.display();
            (std::fs::read_to_string(&path))
                .map_err(|e| format!("{path_s}: {e} (the tests' build script writes it)"))
        })
    }

    /// The inputs of `version`: each of [`FILES`] as the texts `part` gives for its parts (by
    /// name: `bindings.rs`, `gl_bindings.rs`, ... of the covered headers; `inline.rs`), joined.
    pub fn load(
        version: &str,
        mut part: impl FnMut(&str) -> Result<String, String>,
    ) -> Result<Inputs, String> {
        let modules: Vec<String> = sets().map(|(p, _)| p).collect();
        let mut text = BTreeMap::new();
        for file in FILES {
            let n = if file == "inline" { 1 } else { modules.len() };
            let parts = modules[..n].iter().map(|p| part(&format!("{p}{file}.rs")));
            text.insert(file, parts.collect::<Result<String, _>>()?);
        }
        let version = version.into();
        Ok(Inputs { version, text })
    }

    fn parse(&self, file: &str) -> Result<Vec<syn::Item>, String> {
        let v = &self.version;
        syn::parse_file(&self.text[file])
            .map(|f| f.items)
            .map_err(|e| format!("v{v}/{file}.rs does not parse as Rust: {e}"))
    }
}

/// A function or function-pointer type of the bindings: its name and its `fn` type, which keeps
/// the parameters' names for the messages.
pub type Sig = (String, syn::TypeBareFn);

fn sig(s: &syn::Signature) -> Sig {
    let (inputs, variadic, output) = (&s.inputs, &s.variadic, &s.output);
    let ty = syn::parse_quote!(fn(#inputs #variadic) #output);
    (s.ident.to_string(), ty)
}

/// A `#[repr(C)]` struct or union of the bindings.
pub struct Record {
    pub union: bool,
    pub fields: Vec<Member>,
}

pub enum Member {
    /// A named field: C name, Rust name, type.
    Named(String, String, Box<syn::Type>),
    /// `__bindgen_anon_N`: an anonymous struct or union member, whose fields C reaches by name.
    Anon(String, String),
    /// `_bindgen_align`, `__bindgen_padding_N`: no C member (what they stand for shows in the
    /// sizes and offsets compared).
    RustOnly,
}

/// The bindings' items; a stream-mode-dependent one with its modes ([legacy, per-thread], from
/// its `#[cfg]`).
#[derive(Default)]
pub struct Model {
    pub records: BTreeMap<String, Record>,
    /// Structs with only `_unused: [u8; 0]`: incomplete types in C, used behind pointers.
    pub opaque: BTreeSet<String>,
    /// Newtype enums: name → (inner integer type, enumerators).
    pub enums: BTreeMap<String, (syn::Type, Vec<String>)>,
    /// `pub type A = B;` of bindings.rs, the `PFN_*` typedefs among them.
    pub aliases: BTreeMap<String, syn::Type>,
    /// `pub use self::E as A;` of bindings.rs: enum typedefs.
    pub enum_typedefs: BTreeMap<String, String>,
    /// The extern functions of functions.rs (both stream modes' symbols).
    pub functions: Vec<Sig>,
    /// The `extern "C"` functions of inline.rs (the header's `static inline` ones).
    pub inline: Vec<Sig>,
    /// C spellings of functions.rs's symbols (`pub use self::functions::cuMemAlloc_v2 as cuMemAlloc;`
    /// of function_names.rs): the name a C program writes, the item bound, the modes.
    pub spellings: Vec<(String, String, [bool; 2])>,
    /// The same of typedefs: names.rs's `pub type PFN_cuX = PFN_cuX_v3020;`.
    pub name_types: Vec<(String, String, [bool; 2])>,
    /// The constants (C's names too): name, type, modes and the kind the constants test counts:
    /// 1 names.rs's top-level enumerators, 2 bindgen's macro constants, 3 macro constants bindgen
    /// cannot translate (names.rs).
    pub consts: Vec<(String, syn::Type, [bool; 2], u8)>,
}

/// The C name of a Rust field: bindgen appends `_` to Rust keywords (`type_`), which syn does
/// not take as identifiers.
fn c_name(rust: &str) -> String {
    let keyword = |base: &&str| syn::parse_str::<syn::Ident>(base).is_err();
    let base = rust.strip_suffix('_').filter(keyword);
    base.unwrap_or(rust).into()
}

/// The single identifier a type names (`CUdevice`, `CUDA_MEMCPY2D_st`), if it is a plain path.
pub fn path_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.segments.last()?.ident.to_string()),
        _ => None,
    }
}

impl Model {
    pub fn read(inputs: &Inputs) -> Result<Model, String> {
        let mut m = Model::default();
        for file in FILES {
            for item in inputs.parse(file)? {
                m.item(file, item)?;
            }
        }
        let why = "enumerators without a #[repr(transparent)] newtype";
        let tuple = |t: &syn::Type| matches!(t, syn::Type::Tuple(_));
        match m.enums.iter().find(|(_, (inner, _))| tuple(inner)) {
            Some((name, _)) => Err(format!("{name}: {why}")),
            None => Ok(m),
        }
    }

    /// One item of `file` (see [`FILES`]).
    fn item(&mut self, file: &str, item: syn::Item) -> Result<(), String> {
        let repr = |attrs: &[syn::Attribute], what: &str| {
            (attrs.iter()).any(|a| a.path().is_ident("repr") && rust_text(a).contains(what))
        };
        match (file, item) {
            ("functions", syn::Item::ForeignMod(fm)) => {
                for f in fm.items {
                    if let syn::ForeignItem::Fn(f) = f {
                        self.functions.push(sig(&f.sig));
                    }
                }
            }
            ("inline", syn::Item::Fn(f)) if f.sig.abi.is_some() => self.inline.push(sig(&f.sig)),
            ("bindings", syn::Item::Struct(s)) if s.generics.params.is_empty() => {
                let name = s.ident.to_string();
                if repr(&s.attrs, "transparent") {
                    let syn::Fields::Unnamed(f) = &s.fields else {
                        let why = "a transparent struct that is no enum newtype";
                        return Err(format!("{name}: {why}"));
                    };
                    self.enum_entry(name).0 = f.unnamed[0].ty.clone();
                    return Ok(());
                }
                let syn::Fields::Named(fields) = s.fields else {
                    return Err(format!("{name}: a #[repr(C)] struct without named fields"));
                };
                if !repr(&s.attrs, "C") {
                    return Err(format!("{name}: a struct that is not #[repr(C)]"));
                }
                let first = fields.named[0].ident.as_ref();
                if fields.named.len() == 1 && first.is_some_and(|i| i == "_unused") {
                    self.opaque.insert(name);
                } else {
                    self.record(name, false, fields.named)?;
                }
            }
            ("bindings", syn::Item::Union(u)) if u.generics.params.is_empty() => {
                self.record(u.ident.to_string(), true, u.fields.named)?;
            }
            ("bindings", syn::Item::Type(t)) => {
                self.aliases.insert(t.ident.to_string(), *t.ty);
            }
            ("names", syn::Item::Type(t)) => {
                let (name, target) = (t.ident.to_string(), rust_text(&t.ty));
                if path_ident(&t.ty).as_ref() != Some(&target) {
                    let why = "not a PFN typedef name";
                    return Err(format!("names.rs: {name} = {target}: {why}"));
                }
                self.name_types.push((name, target, stream_modes(&t.attrs)));
            }
            ("bindings", syn::Item::Use(u)) => self.enum_typedefs.extend(rename(&u.tree)),
            ("function_names", syn::Item::Use(u)) => {
                let modes = stream_modes(&u.attrs);
                (self.spellings).extend(rename(&u.tree).map(|(c, target)| (c, target, modes)));
            }
            (_, syn::Item::Const(c)) => {
                let name = c.ident.to_string();
                let last = |p: &syn::Path| p.segments.last().is_some_and(|s| s.ident == name);
                let kind = match (file, &*c.expr) {
                    ("bindings", _) => 2,
                    // names.rs's `pub const X: T = T::X;` re-exports an enumerator at top level.
                    (_, syn::Expr::Path(p)) if last(&p.path) => 1,
                    _ => 3,
                };
                (self.consts).push((name, *c.ty, stream_modes(&c.attrs), kind));
            }
            ("bindings", syn::Item::Impl(i)) if i.trait_.is_none() => {
                let ty = rust_text(&i.self_ty);
                for ii in i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        self.enum_entry(ty.clone()).1.push(c.ident.to_string())
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn enum_entry(&mut self, name: String) -> &mut (syn::Type, Vec<String>) {
        (self.enums.entry(name)).or_insert_with(|| (syn::parse_quote!(()), Vec::new()))
    }

    /// Follows `pub type` and enum typedefs to what a type finally is.
    pub fn resolve(&self, ty: &syn::Type) -> syn::Type {
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

    /// Adds the record named `record`, its `fields` the members. No header of the supported
    /// versions has a bit-field, and the probes compare none: bindgen's `_bitfield_N` storage
    /// stops the build, naming the record, until they learn to (C sees no storage unit; the old
    /// way was bindgen's setters against C's designated initializers, the bytes of the named host
    /// compared).
    fn record(
        &mut self,
        record: String,
        union: bool,
        fields: impl IntoIterator<Item = syn::Field>,
    ) -> Result<(), String> {
        let member = |f: syn::Field| {
            let name = f.ident.unwrap().to_string();
            let rust_only = ["_bindgen_align", "__bindgen_padding_"];
            Ok(if name.starts_with("_bitfield_") {
                return Err(format!(
                    "{record} has a bit-field ({name}), which the layout probe cannot compare: no \
                     header had one when it was written. Teach the probes bit-fields \
                     (tests/support/model.rs, layout.rs, c/layout_probe.c, tests/layout.rs) before \
                     accepting this header."
                ));
            } else if name.starts_with("__bindgen_anon_") {
                let ty = path_ident(&f.ty)
                    .ok_or_else(|| format!("{record}: anonymous member {name} of no named type"))?;
                Member::Anon(name, ty)
            } else if rust_only.iter().any(|p| name.starts_with(p)) {
                // Zero-sized alignment markers, padding bindgen spells out.
                Member::RustOnly
            } else {
                Member::Named(c_name(&name), name, Box::new(f.ty))
            })
        };
        let fields = fields.into_iter().map(member).collect::<Result<_, _>>()?;
        self.records.insert(record, Record { union, fields });
        Ok(())
    }
}

/// A Rust text of a type or path (`::core::ffi::c_int`, not `:: core :: ffi :: c_int`).
pub fn rust_text(t: &impl ToTokens) -> String {
    let s = t.to_token_stream().to_string();
    let s = s
        .replace(":: ", "::")
        .replace(" ::", "::")
        .replace(" ,", ",");
    let s = s.replace("* mut", "*mut").replace("* const", "*const");
    s.replace("mut::", "mut ::").replace("const::", "const ::")
}

/// The stream modes an item of the bindings is compiled in, from its `#[cfg]`: [legacy,
/// per-thread].
pub fn stream_modes(attrs: &[syn::Attribute]) -> [bool; 2] {
    let mut m = [true, true];
    for a in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        let t = a.to_token_stream().to_string().replace(' ', "");
        if t.contains("not(feature=\"per-thread-default-stream\")") {
            m[1] = false;
        } else if t.contains("feature=\"per-thread-default-stream\"") {
            m[0] = false;
        }
    }
    m
}

/// The name and target of `pub use path::X as Y;`.
pub fn rename(tree: &syn::UseTree) -> Option<(String, String)> {
    match tree {
        syn::UseTree::Path(p) => rename(&p.tree),
        syn::UseTree::Rename(r) => Some((r.rename.to_string(), r.ident.to_string())),
        _ => None,
    }
}
