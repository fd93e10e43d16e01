//! The line of a generated item's rustdoc that says which CUDA header versions it exists in
//! ("Since CUDA 12.4"), added by the [merge](crate::merge), which knows the versions.

use crate::header_docs::version_name;
use crate::item_docs::{declared_value, doc_attrs};

/// The doc line of the header versions an item exists in (`present`, a subset of `all`, both
/// sorted): "Since CUDA 12.4", "In CUDA 11.7 to 12.9; removed in 13.0". `name_present` are those
/// of every item of the same name: where they differ (`cuCtxCreate` binds `cuCtxCreate_v4` from
/// 13.0 on), the line says both. `values` are the values the items of the name declare, with
/// the versions of each: where they differ (`CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS`
/// is 93 in 11.x, 122 from 12.0 on), the line says each version's value.
pub fn versions_doc(
    present: &[u32],
    name_present: &[u32],
    all: &[u32],
    values: &[(Vec<u32>, String)],
) -> String {
    let mut by_value: Vec<(&str, Vec<u32>)> = Vec::new();
    for (versions, value) in values {
        match by_value.iter_mut().find(|(v, _)| v == value) {
            Some((_, vs)) => vs.extend(versions),
            None => by_value.push((value, versions.clone())),
        }
    }
    if by_value.len() > 1 {
        for (_, vs) in &mut by_value {
            vs.sort_unstable();
            vs.dedup();
        }
        by_value.sort_by_key(|(_, vs)| vs[0]);
        let each: Vec<String> = by_value
            .iter()
            .map(|(value, vs)| format!("`{value}` {}", versions_phrase(vs, all, false)))
            .collect();
        return format!("- Values: {}", each.join("; "));
    }
    let this = versions_phrase(present, all, true);
    if present == name_present {
        return format!("- {}", capitalise(&this));
    }
    format!(
        "- As written here: {this}; the name: {}",
        versions_phrase(name_present, all, true)
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
    values: &[(Vec<u32>, String)],
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
    let mut line = versions_doc(present, name_present, all, values);
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

/// The value the first doc line of `attrs` declares ([`declared_value`]).
pub fn first_declared_value(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find_map(doc_value)
        .and_then(|line| declared_value(&line).map(String::from))
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

/// `present`'s runs of consecutive versions of `all`, in words; with `removals`, each run that
/// ends before the last version says where the item was removed (not where a value changed).
fn versions_phrase(present: &[u32], all: &[u32], removals: bool) -> String {
    let (first, last) = (all[0], all[all.len() - 1]);
    let index = |v: u32| all.iter().position(|&a| a == v);
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &v in present {
        match runs.last_mut() {
            Some((_, b)) if index(*b).map(|i| i + 1) == index(v) => *b = v,
            _ => runs.push((v, v)),
        }
    }
    let next = |b: u32| version_name(all[index(b).unwrap() + 1]);
    runs.iter()
        .map(|&(a, b)| match (a == first, b == last) {
            _ if a == b && a != last => format!("only in CUDA {}", version_name(a)),
            (true, true) => "in every supported header".to_string(),
            (false, true) => format!("since CUDA {}", version_name(a)),
            _ if !removals => format!("in CUDA {} to {}", version_name(a), version_name(b)),
            (true, false) => format!(
                "in CUDA {} to {}; removed in {}",
                version_name(a),
                version_name(b),
                next(b)
            ),
            (false, false) => format!("since CUDA {}; removed in {}", version_name(a), next(b)),
        })
        .collect::<Vec<_>>()
        .join(if removals { "; again " } else { " and " })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        let all = [11070, 11080, 12000, 12090, 13000, 13050];
        assert_eq!(
            versions_doc(&all, &all, &all, &[]),
            "- In every supported header"
        );
        assert_eq!(
            versions_doc(&all[2..], &all[2..], &all, &[]),
            "- Since CUDA 12.0"
        );
        assert_eq!(
            versions_doc(&all[..4], &all[..4], &all, &[]),
            "- In CUDA 11.7 to 12.9; removed in 13.0"
        );
        assert_eq!(
            versions_doc(&all[2..4], &all[2..4], &all, &[]),
            "- Since CUDA 12.0; removed in 13.0"
        );
        assert_eq!(
            versions_doc(&[11080, 13000], &[11080, 13000], &all, &[]),
            "- Only in CUDA 11.8; again only in CUDA 13.0"
        );
        assert_eq!(
            versions_doc(&all[4..], &all, &all, &[]),
            "- As written here: since CUDA 13.0; the name: in every supported header"
        );
        // A value that changed: each version's, whatever the entries' split.
        let values = [
            (all[..2].to_vec(), "93".to_string()),
            (all[2..4].to_vec(), "122".to_string()),
            (all[4..].to_vec(), "122".to_string()),
        ];
        assert_eq!(
            versions_doc(&all[2..], &all, &all, &values),
            "- Values: `93` in CUDA 11.7 to 11.8; `122` since CUDA 12.0"
        );
        let values = [
            (vec![11080], "1".to_string()),
            (all[2..4].to_vec(), "2".to_string()),
            (vec![13000], "1".to_string()),
        ];
        assert_eq!(
            versions_doc(&[11080, 13000], &all[1..5], &all, &values),
            "- Values: `1` only in CUDA 11.8 and only in CUDA 13.0; `2` in CUDA 12.0 to 12.9"
        );
        // One value in every entry: the versions as for any item.
        let values = [
            (all[..2].to_vec(), "5".to_string()),
            (all[2..].to_vec(), "5".to_string()),
        ];
        assert_eq!(
            versions_doc(&all[2..], &all, &all, &values),
            "- As written here: since CUDA 12.0; the name: in every supported header"
        );
    }

    #[test]
    fn declared_values() {
        let line = |attrs: &str| {
            let item: syn::ItemConst =
                syn::parse_str(&format!("{attrs}\nconst X: u32 = 0;")).unwrap();
            first_declared_value(&item.attrs)
        };
        assert_eq!(
            line("/// `CUDA_ERROR_INVALID_VALUE = 1`").as_deref(),
            Some("1")
        );
        assert_eq!(
            line("/// `CU_DEVICE_CPU = -1`: [`CUdevice::CU_DEVICE_CPU`].").as_deref(),
            Some("-1")
        );
        assert_eq!(
            line("/// `#define CU_DEVICE_CPU ((CUdevice)-1)`\n///\n/// - Header: `cuda.h`")
                .as_deref(),
            Some("((CUdevice)-1)")
        );
        assert_eq!(line("/// `typedef struct CUctx_st *CUcontext;`"), None);
        assert_eq!(
            line("/// `CUresult CUDAAPI cuInit(unsigned int Flags);`"),
            None
        );
        assert_eq!(line("#[cfg(x)]"), None);
    }
}
