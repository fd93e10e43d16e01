//! The rustdoc of the generated types, constants and `PFN_*` typedefs, from the facts of
//! [`header_docs`](crate::header_docs) (never the headers' prose): the header, the C declaration
//! or definition, the `PFN_*` typedef's ABI, the reference page of the item's group. The
//! functions' docs are [`function_docs`](crate::function_docs)'s, the CUDA versions an item
//! exists in [`version_docs`](crate::version_docs)'s (added by the merge). Every item of one kind
//! reads the same: the emitters take their doc lines from here.

use std::collections::BTreeMap;

use quote::ToTokens;

use crate::header_docs::{typedef_version, version_name, Group, HeaderDocs};

/// A header and its typedef header (`cuda.h`, `cudaTypedefs.h`), read for their facts.
pub struct SetDocs {
    /// The header (`cuda.h`, `cudaGL.h`).
    pub header: HeaderDocs,
    /// Its typedef header (`cudaTypedefs.h`, `cudaGLTypedefs.h`).
    pub typedefs: HeaderDocs,
}

impl SetDocs {
    fn both(&self) -> [&HeaderDocs; 2] {
        [&self.header, &self.typedefs]
    }

    /// The group of a type, enumerator or constant, in the header or its typedef header.
    pub fn group_of(&self, name: &str) -> Option<&Group> {
        self.both().into_iter().find_map(|h| h.group_of(name))
    }

    /// The header that names `name` first (the header before its typedef header).
    fn file_of(&self, name: &str) -> Option<&str> {
        self.both()
            .into_iter()
            .find(|h| h.mentions(name))
            .map(|h| h.file.as_str())
    }

    /// The group of the function a C program calls as `name`.
    pub fn function_group(&self, name: &str) -> Option<&Group> {
        self.header.function_group(name)
    }
}

/// `#[doc = " line"]`, one per line.
pub fn doc_attrs(lines: &[String]) -> Vec<syn::Attribute> {
    lines
        .iter()
        .map(|l| {
            let text = if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            };
            syn::parse_quote!(#[doc = #text])
        })
        .collect()
}

/// The group's link as a list item, where the header gives one.
pub(crate) fn reference(group: Option<&Group>) -> Option<String> {
    group.map(|g| format!("- NVIDIA: {}", g.link()))
}

/// Where an item not of the set's headers comes from.
fn foreign(name: &str, docs: &SetDocs) -> Vec<String> {
    vec![format!(
        "`{name}`: not of `{}` or `{}`; a type of another API their items use, bound from that \
         API's header with its C layout.",
        docs.header.file, docs.typedefs.file
    )]
}

/// The doc lines of a `PFN_*` typedef (`PFN_cuMemAlloc_v3020`): its C text, header, ABI version
/// and the group of the function it types; `entry` is the path of the entry module from the
/// typedef's module (`super::entry`).
pub fn pfn_doc(name: &str, docs: &SetDocs, entry: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let base = name
        .strip_prefix("PFN_")
        .map(|b| b.split("_v").next().unwrap_or(b))
        .unwrap_or(name);
    match docs.typedefs.typedef(name).or(docs.header.typedef(name)) {
        Some(d) => lines.push(format!("`{}` (`{}`)", d.text, docs.typedefs.file)),
        None => lines.push(format!("`{name}` (`{}`)", docs.typedefs.file)),
    }
    lines.push(String::new());
    if let Some(v) = typedef_version(name) {
        let internal = if docs.typedefs.typedef_is_internal(name) {
            " (a legacy ABI the header declares only under `__CUDA_API_VERSION_INTERNAL`)"
        } else {
            ""
        };
        lines.push(format!(
            "- The type of `{base}` with the ABI of CUDA {}{internal}; entry point \
             [`entry::{1}`]({entry}::{1})",
            version_name(v),
            &name[4..]
        ));
    }
    lines.extend(reference(docs.function_group(base)));
    lines
}

/// The C name of a struct, union or enum tag as bindgen named it: `X__bindgen_ty_1` is an
/// anonymous member type of `X`.
fn tag_lines(kind: &str, name: &str, docs: &SetDocs) -> Vec<String> {
    if let Some((outer, _)) = name.split_once("__bindgen_ty_") {
        return vec![format!(
            "An anonymous {kind} inside C's `{outer}` (`{}`).",
            docs.file_of(outer).unwrap_or(&docs.header.file)
        )];
    }
    match docs.file_of(name) {
        Some(file) => {
            let mut lines = vec![format!("C's `{kind} {name}` (`{file}`)")];
            lines.push(String::new());
            lines.extend(reference(docs.group_of(name)));
            lines
        }
        None => foreign(name, docs),
    }
}

/// Adds the docs of every public item of bindgen's output `file` (without its functions).
pub fn document_bindings(file: &mut syn::File, docs: &SetDocs) {
    // `pub use self::cudaError_enum as CUresult;`: C's typedef of the enum.
    let mut typedef_of: BTreeMap<String, String> = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            if let syn::UseTree::Path(p) = &u.tree {
                if let syn::UseTree::Rename(r) = &*p.tree {
                    typedef_of.insert(r.ident.to_string(), r.rename.to_string());
                }
            }
        }
    }
    for item in &mut file.items {
        match item {
            syn::Item::Const(c) => {
                let name = c.ident.to_string();
                let lines = const_doc(&name, docs);
                prepend(&mut c.attrs, &lines);
            }
            syn::Item::Struct(s) => {
                let name = s.ident.to_string();
                let newtype = s.attrs.iter().any(|a| {
                    a.path().is_ident("repr")
                        && a.to_token_stream().to_string().contains("transparent")
                });
                let lines = if newtype {
                    enum_doc(&name, typedef_of.get(&name), docs)
                } else if s
                    .fields
                    .iter()
                    .any(|f| matches!(f.vis, syn::Visibility::Inherited))
                {
                    let mut l = tag_lines("struct", &name, docs);
                    l.insert(1, String::new());
                    l.insert(2, "Opaque: only ever handled through a pointer.".into());
                    l
                } else {
                    tag_lines("struct", &name, docs)
                };
                prepend(&mut s.attrs, &lines);
                document_fields(&mut s.fields);
            }
            syn::Item::Union(u) => {
                let name = u.ident.to_string();
                prepend(&mut u.attrs, &tag_lines("union", &name, docs));
                let mut fields = syn::Fields::Named(u.fields.clone());
                document_fields(&mut fields);
                if let syn::Fields::Named(f) = fields {
                    u.fields = f;
                }
            }
            syn::Item::Type(t) => {
                let name = t.ident.to_string();
                let lines = if name.starts_with("PFN_") {
                    pfn_doc(&name, docs, "super::entry")
                } else {
                    typedef_doc(&name, docs)
                };
                prepend(&mut t.attrs, &lines);
            }
            syn::Item::Use(u) => {
                if let syn::UseTree::Path(p) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*p.tree {
                        let lines = typedef_doc(&r.rename.to_string(), docs);
                        prepend(&mut u.attrs, &lines);
                    }
                }
            }
            syn::Item::Impl(i) if i.trait_.is_none() => {
                for ii in &mut i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        let lines = vec![format!("C's `{}`.", c.ident)];
                        prepend(&mut c.attrs, &lines);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Doc attributes before an item's others (`#[repr]`, `#[derive]`), as a doc comment reads.
pub fn prepend(attrs: &mut Vec<syn::Attribute>, lines: &[String]) {
    let mut new = doc_attrs(lines);
    new.append(attrs);
    *attrs = new;
}

/// The doc lines of a macro constant (`CU_IPC_HANDLE_SIZE`, `CU_STREAM_PER_THREAD`): its
/// `#define` as written.
pub fn const_doc(name: &str, docs: &SetDocs) -> Vec<String> {
    let found = docs
        .both()
        .into_iter()
        .find_map(|h| h.define(name).map(|d| (d.to_string(), h.file.clone())));
    written_doc(name, found, docs)
}

fn typedef_doc(name: &str, docs: &SetDocs) -> Vec<String> {
    let found = docs
        .both()
        .into_iter()
        .find_map(|h| h.typedef(name).map(|d| (d.text.clone(), h.file.clone())));
    written_doc(name, found, docs)
}

/// The doc lines of an item whose C text (and header) the headers give: that text, and the page of
/// its group; else those of an item from elsewhere.
fn written_doc(name: &str, found: Option<(String, String)>, docs: &SetDocs) -> Vec<String> {
    let Some((text, file)) = found else {
        return foreign(name, docs);
    };
    let mut lines = vec![format!("`{text}` (`{file}`)")];
    if let Some(r) = reference(docs.group_of(name)) {
        lines.push(String::new());
        lines.push(r);
    }
    lines
}

/// An enum as bindgen writes it here: a `#[repr(transparent)]` newtype over the C integer.
fn enum_doc(tag: &str, typedef: Option<&String>, docs: &SetDocs) -> Vec<String> {
    let file = docs.file_of(tag).unwrap_or(&docs.header.file);
    let c_name = match typedef {
        Some(t) => format!("C's `enum {tag}` (typedef `{t}`, `{file}`)"),
        None => format!("C's `enum {tag}` (`{file}`)"),
    };
    let mut lines = vec![
        format!("{c_name}, as a newtype over its integer type."),
        String::new(),
        "Any value is valid, also one the header does not name (from a newer driver): its \
         enumerators are associated constants, and top-level constants too."
            .to_string(),
    ];
    if let Some(r) = reference(docs.group_of(tag)) {
        lines.push(String::new());
        lines.push(r);
    }
    lines
}

/// Each named public field: the C member it is.
fn document_fields(fields: &mut syn::Fields) {
    for f in fields.iter_mut() {
        let (Some(id), syn::Visibility::Public(_)) = (&f.ident, &f.vis) else {
            continue;
        };
        let name = id.to_string();
        let line = if name.starts_with("__bindgen_anon_") {
            "An anonymous member (a nested struct or union).".to_string()
        } else {
            // bindgen appends `_` to a Rust keyword (`fn` → `fn_`).
            let c = name
                .strip_suffix('_')
                .filter(|c| syn::parse_str::<syn::Ident>(c).is_err())
                .unwrap_or(&name);
            format!("C's member `{c}`.")
        };
        prepend(&mut f.attrs, &[line]);
    }
}

/// Markdown code span for C text (backticks inside would end it; C has none).
pub(crate) fn code(s: &str) -> String {
    format!("`{s}`")
}

/// The doc lines of an unversioned `PFN_*` macro (`PFN_cuMemAlloc`), as the typedef header
/// defines it, and the typedef it names in each stream mode.
pub fn pfn_macro_doc(name: &str, normal: &str, per_thread: &str, docs: &SetDocs) -> Vec<String> {
    let define = docs
        .typedefs
        .define(name)
        .map_or_else(|| format!("`{name}`"), code);
    let names = if normal == per_thread {
        format!("[`{normal}`]")
    } else {
        format!("[`{normal}`], under `per-thread-default-stream` [`{per_thread}`]")
    };
    vec![format!("{define} (`{}`): {names}.", docs.typedefs.file)]
}

/// The doc line of an enumerator at top level (`CUDA_SUCCESS`).
pub fn enumerator_doc(name: &str, ty: &str) -> Vec<String> {
    vec![format!("C's `{name}`: [`{ty}::{name}`].")]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned_set(v: &str, headers: [&str; 2]) -> SetDocs {
        let read = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/ci-deps/headers")
                .join(v)
                .join(name);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}: run `eval \"$(ci/fetch-deps.sh)\"`",
                    path.display()
                )
            });
            HeaderDocs::parse(name, &text)
        };
        SetDocs {
            header: read(headers[0]),
            typedefs: read(headers[1]),
        }
    }

    fn docs_of(item: &syn::Item) -> String {
        let attrs = match item {
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Type(t) => &t.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return String::new(),
        };
        doc_text(attrs)
    }

    fn doc_text(attrs: &[syn::Attribute]) -> String {
        attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value().trim_start().to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// bindgen's items as cuda.h 13.0 gives them, documented.
    #[test]
    fn bindings_of_cuda_h() {
        let docs = pinned_set("13000", ["cuda.h", "cudaTypedefs.h"]);
        let mut file: syn::File = syn::parse_quote! {
            pub const CU_IPC_HANDLE_SIZE: u32 = 64;
            #[repr(transparent)]
            #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
            pub struct cudaError_enum(pub ::core::ffi::c_uint);
            pub use self::cudaError_enum as CUresult;
            impl cudaError_enum {
                pub const CUDA_SUCCESS: cudaError_enum = cudaError_enum(0);
            }
            #[repr(C)]
            pub struct CUctx_st { _unused: [u8; 0] }
            pub type CUcontext = *mut CUctx_st;
            #[repr(C)]
            pub struct CUDA_HOST_NODE_PARAMS_st { pub fn_: CUhostFn, pub userData: *mut c_void }
            pub type PFN_cuMemAlloc_v3020 = Option<unsafe extern "C" fn(dptr: *mut CUdeviceptr_v2, bytesize: usize) -> CUresult>;
            pub type PFN_cuMemAlloc_v2000 = Option<unsafe extern "C" fn(dptr: *mut CUdeviceptr_v1, bytesize: c_uint) -> CUresult>;
        };
        document_bindings(&mut file, &docs);
        let d: Vec<String> = file.items.iter().map(docs_of).collect();
        for text in &d {
            println!("{text}\n--");
        }
        let types = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html";
        assert!(d[0].starts_with("`#define CU_IPC_HANDLE_SIZE 64` (`cuda.h`)"));
        assert!(d[0].contains(types));
        assert!(d[1].starts_with("C's `enum cudaError_enum` (typedef `CUresult`, `cuda.h`)"));
        assert!(d[1].contains("Any value is valid"));
        assert!(d[2].starts_with("`typedef enum cudaError_enum { ... } CUresult;` (`cuda.h`)"));
        let syn::Item::Impl(i) = &file.items[3] else {
            unreachable!()
        };
        let syn::ImplItem::Const(c) = &i.items[0] else {
            unreachable!()
        };
        assert_eq!(doc_text(&c.attrs), "C's `CUDA_SUCCESS`.");
        assert!(d[4].contains("Opaque"), "{}", d[4]);
        assert!(d[5].starts_with("`typedef struct CUctx_st *CUcontext;` (`cuda.h`)"));
        let syn::Item::Struct(s) = &file.items[6] else {
            unreachable!()
        };
        let field = doc_text(&s.fields.iter().next().unwrap().attrs);
        assert_eq!(field, "C's member `fn`.");
        assert!(d[7].starts_with(
            "`typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);` (`cudaTypedefs.h`)"
        ));
        assert!(d[7].contains("the ABI of CUDA 3.2"), "{}", d[7]);
        assert!(d[7].contains("group__CUDA__MEM.html"), "{}", d[7]);
        assert!(d[8].contains("__CUDA_API_VERSION_INTERNAL"), "{}", d[8]);
    }
}
