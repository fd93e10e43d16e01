//! Reading `cuda.h` and `cudaTypedefs.h` as the C preprocessor leaves them: shared by the layout
//! probe (`layout.rs`) and the prototype probe (`prototypes.rs`), in the build script and in the
//! prototype test (which includes this file by path).

use quote::ToTokens;

/// The lines of `cuda.h` and `cudaTypedefs.h` in a preprocessor's output (`-E`), by its line
/// markers: what the headers declare, without the system headers they include.
pub fn header_lines(expanded: &str) -> String {
    let mut keep = false;
    let mut own = String::new();
    for line in expanded.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(file) = rest.split('"').nth(1) {
                let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
                keep = base == "cuda.h" || base == "cudaTypedefs.h";
                continue;
            }
        }
        if line.starts_with('#') {
            continue;
        }
        if keep {
            own.push_str(line);
            own.push('\n');
        }
    }
    own
}

/// Preprocessed C split into tokens: identifiers and numbers, string and character literals,
/// and every other character on its own.
pub fn c_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(text[s..i].to_string());
        } else if c == b'"' || c == b'\'' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(text[s..i.min(b.len())].to_string());
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

/// A token that is an identifier (or keyword).
pub fn is_c_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The index after the parenthesized group that opens at or after `j` (`__attribute__((..))`).
pub fn skip_parens<S: AsRef<str>>(t: &[S], mut j: usize) -> usize {
    let mut depth = 0;
    while j < t.len() {
        match t[j].as_ref() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// The committed generated files hold every header version, each item under the cfg of the
/// versions it exists in. The items of a merged generated file that version `selected` compiles, without their
/// `cuda_ge_<V>` cfgs (other cfgs, such as the stream mode's, stay): top-level items, and the
/// items of `impl` and `extern` blocks.
pub fn project(text: &str, selected: u32) -> String {
    let mut file = syn::parse_file(text)
        .unwrap_or_else(|e| panic!("a committed generated file does not parse: {e}"));
    file.items.retain_mut(|item| {
        let keep = match item {
            syn::Item::Impl(i) => {
                i.items.retain_mut(|ii| match ii {
                    syn::ImplItem::Const(x) => keep_for(&mut x.attrs, selected),
                    syn::ImplItem::Fn(x) => keep_for(&mut x.attrs, selected),
                    syn::ImplItem::Type(x) => keep_for(&mut x.attrs, selected),
                    _ => true,
                });
                keep_for(&mut i.attrs, selected)
            }
            syn::Item::ForeignMod(m) => {
                m.items.retain_mut(|fi| match fi {
                    syn::ForeignItem::Fn(x) => keep_for(&mut x.attrs, selected),
                    syn::ForeignItem::Static(x) => keep_for(&mut x.attrs, selected),
                    _ => true,
                });
                keep_for(&mut m.attrs, selected)
            }
            syn::Item::Const(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Struct(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Union(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Type(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Use(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Enum(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Fn(x) => keep_for(&mut x.attrs, selected),
            syn::Item::Static(x) => keep_for(&mut x.attrs, selected),
            other => panic!(
                "a generated item the probes cannot project: {}",
                other.to_token_stream()
            ),
        };
        keep
    });
    prettyplease::unparse(&file)
}

/// Whether the `cuda_ge_<V>` cfgs of `attrs` hold for `selected`; removes them.
fn keep_for(attrs: &mut Vec<syn::Attribute>, selected: u32) -> bool {
    let mut keep = true;
    attrs.retain(|a| {
        if !a.path().is_ident("cfg") || !a.to_token_stream().to_string().contains("cuda_ge_") {
            return true;
        }
        let meta: syn::Meta = a.parse_args().expect("a cfg predicate");
        keep &= eval_cfg(&meta, selected);
        false
    });
    keep
}

/// A cfg predicate of `cuda_ge_<V>`, `all`, `any` and `not`.
fn eval_cfg(meta: &syn::Meta, selected: u32) -> bool {
    match meta {
        syn::Meta::Path(p) => {
            let name = p.to_token_stream().to_string();
            let v: u32 = name
                .strip_prefix("cuda_ge_")
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("a version cfg mixed with {name}"));
            v <= selected
        }
        syn::Meta::List(l) => {
            let args = l
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .expect("cfg arguments");
            let mut values = args.iter().map(|m| eval_cfg(m, selected));
            match l.path.to_token_stream().to_string().as_str() {
                "all" => values.all(|b| b),
                "any" => values.any(|b| b),
                "not" => !values.next().expect("not(..) has an argument"),
                other => panic!("cfg predicate {other} in a version cfg"),
            }
        }
        syn::Meta::NameValue(_) => panic!("a name = value predicate in a version cfg"),
    }
}
