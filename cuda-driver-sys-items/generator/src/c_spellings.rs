//! Works out the C spellings of a header's functions: every name a C program can call (the
//! declared functions, and the names `cuda.h`'s renaming macros turn into others: `cuCtxCreate` is
//! `cuCtxCreate_v2`), with the symbol each reaches in either stream mode, and the header's
//! `PFN_cuX` macros. The emitters of `function_names.rs`, `names.rs`, `entry.rs`, `dynamic.rs`,
//! `table.rs` and `linked.rs` and the functions' docs all read it.

use std::collections::{BTreeMap, BTreeSet};

use crate::parsed::Parsed;

/// The C spellings of one header set's functions and its `PFN_cuX` macros.
pub(crate) struct CSpellings {
    /// C spelling → (symbol in the normal mode, symbol in the per-thread mode). A symbol may be
    /// a hand-written inline (`cuGetProcAddress_v2_ptsz`).
    pub(crate) functions: BTreeMap<String, (String, String)>,
    /// `PFN_cuX` macro → (typedef in the normal mode, in the per-thread mode), where the header
    /// has such macros.
    pub(crate) pfn_macros: BTreeMap<String, (String, String)>,
    /// PFN macros of the header that name no type.
    pub(crate) broken: Vec<String>,
}

impl CSpellings {
    /// Whether the macro `m` is one this analysis accounts for: a `PFN_*` macro (bound or
    /// broken) or a C spelling, so no constant of `names.rs`.
    pub(crate) fn claims(&self, m: &str) -> bool {
        m.starts_with("PFN_") || self.functions.contains_key(m)
    }
}

/// `cuda.h`'s static inline functions, written by hand in `cuda-driver-sys`: the per-thread
/// `cuGetProcAddress` of CUDA 12+ (`_v2_ptsz`) and of CUDA 11 (`_ptsz`).
pub(crate) const HAND_WRITTEN_INLINES: &[&str] =
    &["cuGetProcAddress_v2_ptsz", "cuGetProcAddress_ptsz"];

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The C spellings of the functions `normal` and `per_thread` declare (the set parsed in each
/// stream mode) and the `PFN_cuX` macros naming typedefs of `b`, from the object-like `macros`
/// and their expansions in each mode (`exp_n`, `exp_p`).
pub(crate) fn analyse(
    b: &Parsed,
    macros: &BTreeSet<String>,
    exp_n: &BTreeMap<String, String>,
    exp_p: &BTreeMap<String, String>,
    normal: &Parsed,
    per_thread: &Parsed,
) -> Result<CSpellings, String> {
    let mut functions = BTreeMap::new();
    let mut pfn_macros = BTreeMap::new();
    let mut broken = Vec::new();
    let declared =
        |f: &str, p: &Parsed| p.functions.contains_key(f) || HAND_WRITTEN_INLINES.contains(&f);

    // Every function a C program can call by name, with the symbol the call reaches.
    for f in normal.functions.keys() {
        functions.insert(f.clone(), (f.clone(), f.clone()));
    }
    for m in macros {
        let (n, p) = (&exp_n[m], &exp_p[m]);
        let n_fn = is_ident(n) && declared(n, normal);
        let p_fn = is_ident(p) && declared(p, per_thread);
        if m.starts_with("PFN_") {
            // Header typos make some macros unusable in C as well (12.x:
            // `PFN_cuGraphBatchMemOpNodeSetParams _v11070`, `PFN_cuStreamGetId_v12000_v12000`):
            // such a macro is recorded and not bound.
            let typedef = |e: &str| is_ident(e) && b.pfns.contains_key(e);
            if typedef(n) && typedef(p) {
                pfn_macros.insert(m.clone(), (n.clone(), p.clone()));
            } else if !typedef(n) {
                broken.push(format!("`{m}` expands to `{n}`"));
            } else {
                broken.push(format!("`{m}` expands to `{p}` in the per-thread mode"));
            }
            continue;
        }
        if !(n_fn || p_fn) {
            continue;
        }
        // A name that is a function in one mode only keeps its own symbol in the other.
        let n_sym = if n_fn { n.clone() } else { m.clone() };
        let p_sym = if p_fn { p.clone() } else { m.clone() };
        if !declared(&n_sym, normal) && !declared(&p_sym, per_thread) {
            return Err(format!("macro {m} names no declared function ({n} / {p})"));
        }
        functions.insert(m.clone(), (n_sym, p_sym));
    }
    // The per-thread mode's own names (cuMemcpy_ptds, ...) are callable by those names too.
    for f in per_thread.functions.keys() {
        functions.entry(f.clone()).or_insert((f.clone(), f.clone()));
    }
    Ok(CSpellings {
        functions,
        pfn_macros,
        broken,
    })
}
