//! The rustdoc of the generated types, constants and `PFN_*` typedefs, from the facts of
//! [`header_docs`](crate::header_docs) (never the headers' prose): the header, the C declaration
//! or definition, the `PFN_*` typedef's ABI, the reference page of the item's group. The
//! functions' docs are [`function_docs`](crate::function_docs)'s, the CUDA versions an item
//! exists in [`version_docs`](crate::version_docs)'s (added by the merge). Every item of one kind
//! reads the same: the emitters take their doc lines from here.

use std::collections::{BTreeMap, BTreeSet};

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

/// An item's docs in the one order every generated kind follows: its C declaration (or, where
/// the headers write none, a sentence saying what it is); a note; then one bullet each for the
/// header (and the C name where the Rust name is not it), the C spelling, the typedef, the entry
/// point, what a `dynamic-loading` function calls, and NVIDIA's reference page. The merge adds the
/// CUDA versions as the last bullet ([`crate::version_docs`]).
#[derive(Default)]
pub(crate) struct ItemDoc<'a> {
    /// The first paragraph: the C text in a code span ([`code`]), or a sentence.
    pub declaration: String,
    /// A paragraph after the declaration ("Opaque: ...").
    pub note: Option<String>,
    /// The header (`` `cuda.h` ``), and the C name where it differs.
    pub header: Option<String>,
    /// The C spellings that bind a function.
    pub c_spelling: Option<String>,
    /// The `PFN_*` typedef of a function, or what a `PFN_*` typedef types.
    pub typedef: Option<String>,
    /// The typed entry point.
    pub entry_point: Option<String>,
    /// What a `dynamic-loading` function calls.
    pub calls: Option<String>,
    /// The Doxygen group, whose page NVIDIA publishes.
    pub group: Option<&'a Group>,
}

impl ItemDoc<'_> {
    /// The doc lines, in the fixed order.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.declaration.clone()];
        if let Some(note) = &self.note {
            lines.extend([String::new(), note.clone()]);
        }
        let bullets: Vec<String> = [
            self.header.as_ref().map(|h| format!("- Header: {h}")),
            self.c_spelling
                .as_ref()
                .map(|s| format!("- C spelling: {s}")),
            self.typedef.as_ref().map(|t| format!("- Typedef: {t}")),
            self.entry_point
                .as_ref()
                .map(|e| format!("- Entry point: {e}")),
            self.calls.as_ref().map(|c| format!("- Calls {c}")),
            self.group.map(|g| format!("- NVIDIA: {}", g.link())),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !bullets.is_empty() {
            lines.push(String::new());
            lines.extend(bullets);
        }
        lines
    }
}

/// The header bullet's text of an item whose C name is its Rust name: `` `cuda.h` ``.
pub(crate) fn header_fact(file: &str) -> String {
    code(file)
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
    let base = name
        .strip_prefix("PFN_")
        .map(|b| b.split("_v").next().unwrap_or(b))
        .unwrap_or(name);
    let declaration = match docs.typedefs.typedef(name).or(docs.header.typedef(name)) {
        Some(d) => code(&d.text),
        None => code(name),
    };
    let mut doc = ItemDoc {
        declaration,
        header: Some(header_fact(&docs.typedefs.file)),
        group: docs.function_group(base),
        ..ItemDoc::default()
    };
    if let Some(v) = typedef_version(name) {
        let internal = if docs.typedefs.typedef_is_internal(name) {
            " (a legacy ABI the header declares only under `__CUDA_API_VERSION_INTERNAL`)"
        } else {
            ""
        };
        doc.typedef = Some(format!(
            "the type of `{base}` with the ABI of CUDA {}{internal}",
            version_name(v)
        ));
        doc.entry_point = Some(format!("[`entry::{0}`]({entry}::{0})", &name[4..]));
    }
    doc.lines()
}

/// The doc lines of a struct or union (`kind`) as bindgen named it, with `note` after its C
/// text: `X__bindgen_ty_1` is an anonymous member type of `X`.
fn tag_doc(kind: &str, name: &str, note: Option<&str>, docs: &SetDocs) -> Vec<String> {
    if let Some((outer, _)) = name.split_once("__bindgen_ty_") {
        return vec![format!(
            "An anonymous {kind} inside C's `{outer}` (`{}`).",
            docs.file_of(outer).unwrap_or(&docs.header.file)
        )];
    }
    let Some(file) = docs.file_of(name) else {
        return foreign(name, docs);
    };
    // An opaque type's whole C declaration is `struct X;`; a complete one's body is elided.
    let declaration = match note {
        Some(_) => format!("{kind} {name};"),
        None => format!("{kind} {name} {{ ... }};"),
    };
    ItemDoc {
        declaration: code(&declaration),
        note: note.map(String::from),
        header: Some(header_fact(file)),
        group: docs.group_of(name),
        ..ItemDoc::default()
    }
    .lines()
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
    let mut newtypes = BTreeSet::new();
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
                    newtypes.insert(name.clone());
                    enum_doc(&name, typedef_of.get(&name), docs)
                } else if s
                    .fields
                    .iter()
                    .any(|f| matches!(f.vis, syn::Visibility::Inherited))
                {
                    tag_doc(
                        "struct",
                        &name,
                        Some("Opaque: only ever handled through a pointer."),
                        docs,
                    )
                } else {
                    tag_doc("struct", &name, None, docs)
                };
                prepend(&mut s.attrs, &lines);
                document_fields(&mut s.fields);
            }
            syn::Item::Union(u) => {
                let name = u.ident.to_string();
                prepend(&mut u.attrs, &tag_doc("union", &name, None, docs));
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
                    typedef_doc(&name, docs.group_of(&name), docs)
                };
                prepend(&mut t.attrs, &lines);
            }
            // A re-export shows its docs above those of what it names. The enum's typedef
            // (`CUresult`) has none: the enum's docs say it. A typedef of that typedef
            // (`CUkernelNodeAttrID`) says its own C text and header, then a blank line, so that
            // the enum's docs (with the group's page) follow as a paragraph of their own.
            syn::Item::Use(u) => {
                if let syn::UseTree::Path(p) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*p.tree {
                        if !newtypes.contains(&r.ident.to_string()) {
                            let mut lines = typedef_doc(&r.rename.to_string(), None, docs);
                            lines.push(String::new());
                            prepend(&mut u.attrs, &lines);
                        }
                    }
                }
            }
            syn::Item::Impl(i) if i.trait_.is_none() => {
                for ii in &mut i.items {
                    if let syn::ImplItem::Const(c) = ii {
                        let name = c.ident.to_string();
                        let lines = match enumerator_value(&c.expr) {
                            Some(value) => vec![enumerator_declaration(&name, &value)],
                            None => vec![format!("C's `{name}`.")],
                        };
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
/// `#define` as written, which shows its value.
pub fn const_doc(name: &str, docs: &SetDocs) -> Vec<String> {
    let found = docs
        .both()
        .into_iter()
        .find_map(|h| h.define(name).map(|d| (d.to_string(), h.file.clone())));
    written_doc(name, found, docs.group_of(name), docs)
}

/// The doc lines of a typedef, with the page of `group`.
fn typedef_doc(name: &str, group: Option<&Group>, docs: &SetDocs) -> Vec<String> {
    let found = docs
        .both()
        .into_iter()
        .find_map(|h| h.typedef(name).map(|d| (d.text.clone(), h.file.clone())));
    written_doc(name, found, group, docs)
}

/// The doc lines of an item whose C text (and header) the headers give: that text, the header
/// and the page of `group`; else those of an item from elsewhere.
fn written_doc(
    name: &str,
    found: Option<(String, String)>,
    group: Option<&Group>,
    docs: &SetDocs,
) -> Vec<String> {
    let Some((text, file)) = found else {
        return foreign(name, docs);
    };
    ItemDoc {
        declaration: code(&text),
        header: Some(header_fact(&file)),
        group,
        ..ItemDoc::default()
    }
    .lines()
}

/// An enum as bindgen writes it here: a `#[repr(transparent)]` newtype over the C integer. Its
/// docs are also those of its typedef (`CUresult`), whose re-export adds none.
fn enum_doc(tag: &str, typedef: Option<&String>, docs: &SetDocs) -> Vec<String> {
    let file = docs.file_of(tag).unwrap_or(&docs.header.file);
    let declaration = typedef
        .and_then(|t| docs.both().into_iter().find_map(|h| h.typedef(t)))
        .map_or_else(|| format!("enum {tag} {{ ... }};"), |d| d.text.clone());
    let c_name = match typedef {
        Some(t) => format!("`enum {tag}`, typedef `{t}`"),
        None => format!("`enum {tag}`"),
    };
    ItemDoc {
        declaration: code(&declaration),
        note: Some(
            "A newtype over the C integer: any value is valid, also one the header does not \
             name (from a newer driver). Its enumerators are associated constants, and top-level \
             constants too."
                .into(),
        ),
        header: Some(format!("`{file}`; C name {c_name}")),
        group: docs.group_of(tag),
        ..ItemDoc::default()
    }
    .lines()
}

/// The value of an enumerator as bindgen writes it (`cudaError_enum(1)`): `1`.
pub(crate) fn enumerator_value(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Call(call) if call.args.len() == 1 => {
            Some(call.args[0].to_token_stream().to_string().replace(' ', ""))
        }
        _ => None,
    }
}

/// An enumerator's C declaration, which its docs begin with: `` `CUDA_ERROR_INVALID_VALUE = 1` ``.
/// [`declared_value`] reads the value back.
pub(crate) fn enumerator_declaration(name: &str, value: &str) -> String {
    code(&format!("{name} = {value}"))
}

/// The value a doc line begins by declaring: an enumerator's ([`enumerator_declaration`]:
/// `` `CUDA_ERROR_INVALID_VALUE = 1` ``), or a macro constant's `#define` as written
/// (`` `#define CU_IPC_HANDLE_SIZE 64` ``). The merge lists each version's value from it where
/// they differ.
pub(crate) fn declared_value(line: &str) -> Option<&str> {
    let text = line.trim_start().strip_prefix('`')?;
    let text = &text[..text.find('`')?];
    if let Some(define) = text.strip_prefix("#define ") {
        return define.split_once(' ').map(|(_, value)| value);
    }
    let (name, value) = text.split_once(" = ")?;
    syn::parse_str::<syn::Ident>(name).ok().map(|_| value)
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
    ItemDoc {
        declaration: define,
        header: Some(header_fact(&docs.typedefs.file)),
        typedef: Some(names),
        ..ItemDoc::default()
    }
    .lines()
}

/// The doc line of an enumerator at top level (`CUDA_SUCCESS`): its C declaration, and the
/// associated constant it is.
pub fn enumerator_doc(name: &str, value: &str, ty: &str) -> Vec<String> {
    vec![format!(
        "{}: [`{ty}::{name}`].",
        enumerator_declaration(name, value)
    )]
}

#[cfg(test)]
mod tests;
