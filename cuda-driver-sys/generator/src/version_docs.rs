//! The line of a generated item's rustdoc that says which CUDA header versions it exists in
//! ("Since CUDA 12.4"), added by the [merge](crate::merge), which knows the versions.

use crate::header_docs::version_name;
use crate::item_docs::doc_attrs;

/// The doc line of the header versions an item exists in (`present`, a subset of `all`, both
/// sorted): "Since CUDA 12.4", "In CUDA 11.7 to 12.9; removed in 13.0". `name_present` are those
/// of every item of the same name: where they differ (`cuCtxCreate` binds `cuCtxCreate_v4` from
/// 13.0 on), the line says both.
pub fn versions_doc(present: &[u32], name_present: &[u32], all: &[u32]) -> String {
    let this = versions_phrase(present, all);
    if present == name_present {
        return format!("- {}", capitalise(&this));
    }
    format!(
        "- As written here: {this}; the name: {}",
        versions_phrase(name_present, all)
    )
}

/// Appends the versions line ([`versions_doc`]) to a documented item's attributes, after its
/// last line of text before any `# ` section (as a list item after a list), followed by
/// `target_note` ("Windows only") where there is one; an item without docs (not public) is left
/// as it is.
pub fn append_versions(
    attrs: &mut Vec<syn::Attribute>,
    present: &[u32],
    name_present: &[u32],
    all: &[u32],
    target_note: Option<&str>,
) {
    let texts: Vec<(usize, String)> = attrs
        .iter()
        .enumerate()
        .filter_map(|(k, a)| doc_value(a).map(|t| (k, t)))
        .collect();
    let section = texts
        .iter()
        .position(|(_, t)| t.trim_start().starts_with("# "))
        .unwrap_or(texts.len());
    let Some((at, last)) = texts[..section]
        .iter()
        .rev()
        .find(|(_, t)| !t.trim().is_empty())
    else {
        return;
    };
    let mut line = versions_doc(present, name_present, all);
    if let Some(note) = target_note {
        line = format!("{line}; {note}");
    }
    let mut lines = vec![line];
    if !last.trim_start().starts_with("- ") {
        lines.insert(0, String::new());
    }
    for (k, a) in doc_attrs(&lines).into_iter().enumerate() {
        attrs.insert(at + 1 + k, a);
    }
}

/// The text of a `#[doc = "..."]` attribute.
fn doc_value(a: &syn::Attribute) -> Option<String> {
    match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `present`'s runs of consecutive versions of `all`, in words.
fn versions_phrase(present: &[u32], all: &[u32]) -> String {
    let (first, last) = (all[0], all[all.len() - 1]);
    let index = |v: u32| all.iter().position(|&a| a == v);
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &v in present {
        match runs.last_mut() {
            Some((_, b)) if index(*b).map(|i| i + 1) == index(v) => *b = v,
            _ => runs.push((v, v)),
        }
    }
    let next = |b: u32| all[index(b).unwrap() + 1];
    runs.iter()
        .map(|&(a, b)| match (a == first, b == last) {
            _ if a == b && a != last => format!("only in CUDA {}", version_name(a)),
            (true, true) => "in every supported header".to_string(),
            (true, false) => format!(
                "in CUDA {} to {}; removed in {}",
                version_name(a),
                version_name(b),
                version_name(next(b))
            ),
            (false, true) => format!("since CUDA {}", version_name(a)),
            (false, false) => format!(
                "since CUDA {}; removed in {}",
                version_name(a),
                version_name(next(b))
            ),
        })
        .collect::<Vec<_>>()
        .join("; again ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        let all = [11070, 11080, 12000, 12090, 13000, 13050];
        assert_eq!(
            versions_doc(&all, &all, &all),
            "- In every supported header"
        );
        assert_eq!(
            versions_doc(&all[2..], &all[2..], &all),
            "- Since CUDA 12.0"
        );
        assert_eq!(
            versions_doc(&all[..4], &all[..4], &all),
            "- In CUDA 11.7 to 12.9; removed in 13.0"
        );
        assert_eq!(
            versions_doc(&all[2..4], &all[2..4], &all),
            "- Since CUDA 12.0; removed in 13.0"
        );
        assert_eq!(
            versions_doc(&[11080, 13000], &[11080, 13000], &all),
            "- Only in CUDA 11.8; again only in CUDA 13.0"
        );
        assert_eq!(
            versions_doc(&all[4..], &all, &all),
            "- As written here: since CUDA 13.0; the name: in every supported header"
        );
    }
}
