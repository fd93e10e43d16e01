//! The variants a merged file's entries are indexed by (each header version, and where the file
//! has a Windows input each version again for Windows), and the `cfg` predicate of a set of them.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::rust_syntax::Variant;

/// The inputs of one merged file: indices `0..versions.len()` are the versions as generated for
/// x86-64 Linux (every target but Windows); with `windows`, indices `versions.len()..` are the
/// same versions as generated for `x86_64-pc-windows-gnu`.
pub(super) struct Variants {
    pub(super) versions: Vec<u32>,
    pub(super) windows: bool,
}

impl Variants {
    /// The version and target of index `i`.
    pub(super) fn variant(&self, i: usize) -> Variant {
        let n = self.versions.len();
        Variant {
            version: self.versions[i % n],
            windows: i >= n,
        }
    }

    /// The version indices of `set` for targets other than Windows and for Windows (the same
    /// set twice where the file has no Windows input).
    fn split(&self, set: &BTreeSet<usize>) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let n = self.versions.len();
        let other: BTreeSet<usize> = set.iter().copied().filter(|&i| i < n).collect();
        if !self.windows {
            return (other.clone(), other);
        }
        (
            other,
            set.iter().filter(|&&i| i >= n).map(|i| i - n).collect(),
        )
    }

    /// The header versions of `set` (of either target, each once).
    pub(super) fn versions_of(&self, set: &BTreeSet<usize>) -> Vec<u32> {
        let (other, windows) = self.split(set);
        let all: BTreeSet<usize> = other.union(&windows).copied().collect();
        all.into_iter().map(|i| self.versions[i]).collect()
    }

    /// What the versions line of an item present in `set` adds about the target: where it is on
    /// one target only ("Windows only"); `None` where both have it in the same versions.
    pub(super) fn target_note(&self, set: &BTreeSet<usize>) -> Option<&'static str> {
        let (other, windows) = self.split(set);
        match (other.is_empty(), windows.is_empty()) {
            _ if other == windows => None,
            (true, _) => Some("Windows only (`cfg(windows)`)"),
            (_, true) => Some("not on Windows"),
            _ => Some("in other versions on Windows (see its `cfg`)"),
        }
    }

    /// The `cfg` predicate of `set`, `None` for every variant: the versions' (`cuda_ge_<V>`), and
    /// `windows` or `not(windows)` where the two targets differ.
    pub(super) fn cfg_of(&self, set: &BTreeSet<usize>) -> Option<TokenStream> {
        let (other, windows) = self.split(set);
        if other == windows {
            return versions_cfg(&other, &self.versions);
        }
        let on = |target: TokenStream, s: &BTreeSet<usize>| {
            (!s.is_empty()).then(|| match versions_cfg(s, &self.versions) {
                Some(v) => quote!(all(#target, #v)),
                None => target,
            })
        };
        match (
            on(quote!(not(windows)), &other),
            on(quote!(windows), &windows),
        ) {
            (Some(a), Some(b)) => Some(quote!(any(#a, #b))),
            (a, b) => a.or(b),
        }
    }
}

/// The `cfg` predicate of a set of version indices, `None` for every version.
fn versions_cfg(set: &BTreeSet<usize>, versions: &[u32]) -> Option<TokenStream> {
    if set.len() == versions.len() {
        return None;
    }
    let ge = |i: usize| {
        let id = format_ident!("cuda_ge_{}", versions[i]);
        quote!(#id)
    };
    let mut runs = Vec::new();
    let mut iter = set.iter().copied().peekable();
    while let Some(a) = iter.next() {
        let mut b = a;
        while iter.peek() == Some(&(b + 1)) {
            b = iter.next().unwrap();
        }
        runs.push((a, b));
    }
    let preds: Vec<TokenStream> = runs
        .iter()
        .map(|&(a, b)| {
            let lower = (a > 0).then(|| ge(a));
            let upper = (b + 1 < versions.len()).then(|| {
                let n = ge(b + 1);
                quote!(not(#n))
            });
            match (lower, upper) {
                (Some(l), Some(u)) => quote!(all(#l, #u)),
                (Some(l), None) => l,
                (None, Some(u)) => u,
                (None, None) => unreachable!("a run over every version is the whole set"),
            }
        })
        .collect();
    Some(if preds.len() == 1 {
        preds[0].clone()
    } else {
        quote!(any(#(#preds),*))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_cfgs() {
        let variants = Variants {
            versions: vec![12000, 12090, 13000],
            windows: true,
        };
        let cfg = |set: &[usize]| {
            variants
                .cfg_of(&set.iter().copied().collect())
                .map(|t| t.to_string().replace(' ', ""))
        };
        assert_eq!(cfg(&[0, 1, 2, 3, 4, 5]), None);
        assert_eq!(cfg(&[1, 2, 4, 5]).as_deref(), Some("cuda_ge_12090"));
        assert_eq!(cfg(&[3, 4, 5]).as_deref(), Some("windows"));
        assert_eq!(cfg(&[0, 1, 2]).as_deref(), Some("not(windows)"));
        assert_eq!(
            cfg(&[3, 4]).as_deref(),
            Some("all(windows,not(cuda_ge_13000))")
        );
        assert_eq!(
            cfg(&[0, 1, 2, 5]).as_deref(),
            Some("any(not(windows),all(windows,cuda_ge_13000))")
        );
        assert_eq!(
            variants.target_note(&[3].into()),
            Some("Windows only (`cfg(windows)`)")
        );
        assert_eq!(variants.versions_of(&[0, 3, 5].into()), vec![12000, 13000]);
        let variant = crate::rust_syntax::Variant {
            version: 12090,
            windows: true,
        };
        for (pred, holds) in [
            ("all(windows, not(cuda_ge_13000))", true),
            ("not(windows)", false),
            ("any(not(windows), all(windows, cuda_ge_13000))", false),
        ] {
            let meta: syn::Meta = syn::parse_str(pred).unwrap();
            assert_eq!(
                crate::rust_syntax::variant_cfg_holds(&meta, variant),
                Ok(holds),
                "{pred}"
            );
        }
    }
}
