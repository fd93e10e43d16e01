//! What became of each of the old crate's items in this crate, version by version: the same,
//! another value, another name, another signature, another layout, behind a feature, or gone.

use std::collections::BTreeMap;

use crate::items::{Feature, Items};
use crate::layout::Layout;

/// The kinds of change, in the order the page shows them: the silent one first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The name compiles and means another number.
    Value,
    /// The name is gone; another name has the old value or signature.
    Renamed,
    /// The name is gone, and no name has the same value or signature.
    Removed,
    /// The function's parameters or result changed.
    Signature,
    /// The item is in a module behind a feature.
    Feature,
    /// The type's size, alignment or fields changed.
    Layout,
}

/// An item's state at one version, when it differs from the old crate's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub kind: Kind,
    /// The new value, name, signature or feature (empty for a removed item).
    pub new: String,
    /// What the old crate's dependent writes instead.
    pub instead: String,
    /// For a layout change: the old layout, which the table shows as the old value.
    pub was: Option<String>,
}

/// One change of one item: the first version of a run of versions in the same state.
pub struct Change {
    /// The name as a dependent writes it (`CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX`).
    pub item: String,
    /// The old value or signature (for a struct or union, its size and alignment; empty for
    /// other types).
    pub old: String,
    pub state: State,
    pub since: u32,
    /// For an enumerator whose value changed: its enum's C tag, for the generator's list.
    pub enum_tag: Option<String>,
}

/// Every change of the old crate's items over `versions` (oldest first, each with its items),
/// and the state of each item at each version (for the counts); `short` names the old crate in
/// advice (`0.3`).
pub fn changes(
    old: &Items,
    versions: &[(u32, Items)],
    short: &str,
) -> (Vec<Change>, BTreeMap<u32, Vec<Kind>>) {
    let mut out = Vec::new();
    let mut at: BTreeMap<u32, Vec<Kind>> = BTreeMap::new();
    let mut track = |item: String,
                     old_text: String,
                     tag: Option<String>,
                     state: &dyn Fn(&Items) -> Option<State>| {
        let mut previous: Option<State> = None;
        for (v, new) in versions {
            let s = state(new);
            if let Some(s) = &s {
                at.entry(*v).or_default().push(s.kind);
                if previous.as_ref() != Some(s) {
                    out.push(Change {
                        item: item.clone(),
                        old: old_text.clone(),
                        state: s.clone(),
                        since: *v,
                        enum_tag: tag.clone().filter(|_| s.kind == Kind::Value),
                    });
                }
            }
            previous = s;
        }
    };
    for ((tag, name), (value, _)) in &old.enumerators {
        let shown = old.typedef_names.get(tag).unwrap_or(tag);
        track(
            format!("{shown}::{name}"),
            value.to_string(),
            Some(tag.clone()),
            &|new| enumerator_state(tag, name, *value, new, short),
        );
    }
    for (name, (value, _)) in &old.consts {
        track(name.clone(), value.clone(), None, &|new| {
            const_state(name, value, new)
        });
    }
    for name in old.types.keys() {
        let layout = old.layouts.get(name);
        track(name.clone(), String::new(), None, &|new| {
            type_state(name, layout, new)
        });
    }
    for (name, (sig, _)) in &old.functions {
        track(name.clone(), sig.clone(), None, &|new| {
            function_state(name, sig, new)
        });
    }
    (out, at)
}

/// The name without its ABI suffixes (`cuCtxCreate_v2` and `cuCtxCreate_v4` are `cuCtxCreate`,
/// `..._STREAM_MEM_OPS_V1` is `..._STREAM_MEM_OPS`).
fn base(name: &str) -> &str {
    let mut n = name;
    while let Some(i) = n.rfind('_') {
        let tail = &n[i + 1..];
        let versioned = tail.len() > 1
            && (tail.starts_with('v') || tail.starts_with('V'))
            && tail[1..].bytes().all(|b| b.is_ascii_digit());
        if !versioned {
            break;
        }
        n = &n[..i];
    }
    n
}

/// Among `candidates` other than `name`, the one with the same base name, else the first.
fn pick<'a>(name: &str, candidates: impl Iterator<Item = &'a String>) -> Option<&'a String> {
    let all: Vec<&String> = candidates.filter(|c| c.as_str() != name).collect();
    all.iter()
        .find(|c| base(c) == base(name))
        .or(all.first())
        .copied()
}

fn present(feature: Feature) -> Option<State> {
    feature.map(|f| State {
        kind: Kind::Feature,
        new: format!("feature `{f}`"),
        instead: format!("the same name, with `features = [\"{f}\"]`"),
        was: None,
    })
}

fn enumerator_state(tag: &str, name: &str, value: i128, new: &Items, short: &str) -> Option<State> {
    let same_value = new
        .enumerators
        .iter()
        .filter(|((t, _), (v, _))| t == tag && *v == value)
        .map(|((_, n), _)| n);
    let holder = pick(name, same_value).cloned();
    match new.enumerators.get(&(tag.to_string(), name.to_string())) {
        Some((v, f)) if *v == value => present(*f),
        Some((v, _)) => Some(State {
            kind: Kind::Value,
            new: v.to_string(),
            instead: match holder {
                _ if is_bound(name) => {
                    format!("the name for this header's bound; `{value}` for {short}'s")
                }
                Some(h) => format!("`{h}` (has {value})"),
                None => format!("no name of this enum has {value}"),
            },
            was: None,
        }),
        None => Some(match holder.filter(|h| base(h) == base(name)) {
            Some(h) => State {
                kind: Kind::Renamed,
                new: h.clone(),
                instead: format!("`{h}`"),
                was: None,
            },
            None => removed(tag),
        }),
    }
}

/// Whether a name is a bound, a count or a mask of its enum (`CU_DEVICE_ATTRIBUTE_MAX`,
/// `CU_JIT_NUM_OPTIONS`, `CU_CTX_FLAGS_MASK`) or the header's version: its value follows the
/// header by design.
pub fn is_bound(name: &str) -> bool {
    name == "CUDA_VERSION"
        || ["_MAX", "_COUNT", "_MASK"]
            .iter()
            .any(|s| name.ends_with(s))
        || name.contains("_NUM_")
}

fn const_state(name: &str, value: &str, new: &Items) -> Option<State> {
    match new.consts.get(name) {
        Some((v, f)) if v == value => present(*f),
        Some((v, _)) => Some(State {
            kind: Kind::Value,
            new: v.clone(),
            instead: "the name (the value is the header's)".into(),
            was: None,
        }),
        None => {
            let same_value = new
                .consts
                .iter()
                .filter(|(n, (v, _))| v == value && base(n) == base(name));
            Some(match pick(name, same_value.map(|(n, _)| n)) {
                Some(n) => State {
                    kind: Kind::Renamed,
                    new: n.clone(),
                    instead: format!("`{n}`"),
                    was: None,
                },
                None => removed(name),
            })
        }
    }
}

fn type_state(name: &str, old: Option<&Layout>, new: &Items) -> Option<State> {
    match new.types.get(name) {
        Some(f) => match (old, new.layouts.get(name)) {
            (Some(a), Some(b)) if shape(a, a) != shape(b, a) => Some(layout_state(a, b, new)),
            _ => present(*f),
        },
        None => Some(removed(name)),
    }
}

/// What a layout change is measured on: size, alignment, each field's name, offset and size;
/// for a union, the members `old` has (a member more breaks neither a literal nor the layout).
fn shape<'a>(l: &'a Layout, old: &Layout) -> (usize, usize, Vec<(&'a str, usize, usize)>) {
    let fields = l
        .fields
        .iter()
        .filter(|f| !l.union || old.fields.iter().any(|o| o.name == f.name));
    let fields = fields.map(|f| (f.name.as_str(), f.offset, f.size));
    (l.size, l.align, fields.collect())
}

/// `56 bytes, align 8`.
fn describe(l: &Layout) -> String {
    format!("{} bytes, align {}", l.size, l.align)
}

/// The new layout (size and the fields that differ) and what to write: the fields a struct
/// literal must name, the path of a field that moved into an anonymous member.
fn layout_state(old: &Layout, new: &Layout, items: &Items) -> State {
    let names = |l: &Layout| -> Vec<String> { l.fields.iter().map(|f| f.name.clone()).collect() };
    let (old_names, new_names) = (names(old), names(new));
    // A union's new members are no edit to make.
    let added: Vec<&String> = new_names
        .iter()
        .filter(|n| !old_names.contains(n) && !new.union)
        .collect();
    let gone: Vec<&String> = old_names
        .iter()
        .filter(|n| !new_names.contains(n))
        .collect();
    let resized: Vec<String> = old
        .fields
        .iter()
        .filter_map(|a| {
            let b = new.fields.iter().find(|b| b.name == a.name)?;
            (a.size != b.size || a.offset != b.offset).then(|| {
                format!(
                    "`{}` {} bytes at {} (was {} at {})",
                    a.name, b.size, b.offset, a.size, a.offset
                )
            })
        })
        .collect();
    // A gone field found one level down, at its old size, in a new member's record.
    let moved: Vec<(String, String)> = gone
        .iter()
        .filter_map(|g| {
            let holder = new.fields.iter().find(|f| {
                added.contains(&&f.name)
                    && f.record.as_ref().is_some_and(|r| {
                        let size = old.fields.iter().find(|f| &f.name == *g).map(|f| f.size);
                        items.layouts.get(r).is_some_and(|l| {
                            l.fields
                                .iter()
                                .any(|x| &x.name == *g && Some(x.size) == size)
                        })
                    })
            })?;
            Some((g.to_string(), holder.name.clone()))
        })
        .collect();
    let list = |v: &[&String]| -> String {
        v.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = vec![describe(new)];
    let mut instead = Vec::new();
    for (field, holder) in &moved {
        parts.push(format!("`{field}` moved into `{holder}`"));
        instead.push(format!(
            "`x.{holder}.{field}` for `x.{field}` (E0609); in a struct literal, `{holder}` with \
             `{field}` inside (E0560)"
        ));
    }
    let moved_from: Vec<&String> = moved.iter().map(|(_, h)| h).collect();
    let added: Vec<&String> = added
        .into_iter()
        .filter(|a| !moved_from.contains(a))
        .collect();
    let gone: Vec<&String> = gone
        .into_iter()
        .filter(|g| !moved.iter().any(|(f, _)| f == *g))
        .collect();
    if !added.is_empty() {
        parts.push(format!("new fields {}", list(&added)));
        instead.push(format!(
            "a struct literal names {} too (E0063), or ends with `..Default::default()`",
            list(&added)
        ));
    }
    if !gone.is_empty() {
        parts.push(format!("fields gone: {}", list(&gone)));
        instead.push(format!(
            "the header's fields for {} (E0560, E0609)",
            list(&gone)
        ));
    }
    parts.extend(resized);
    if old.size != new.size {
        instead.push(format!(
            "`size_of::<T>()`, not {}, where it is allocated, copied or passed by size",
            old.size
        ));
    }
    State {
        kind: Kind::Layout,
        new: parts.join("; "),
        instead: instead.join("; "),
        was: Some(describe(old)),
    }
}

fn function_state(name: &str, sig: &str, new: &Items) -> Option<State> {
    match new.functions.get(name) {
        Some((s, f)) if s == sig => present(*f),
        Some((s, _)) => Some(State {
            kind: Kind::Signature,
            new: s.clone(),
            instead: "the new parameters (docs/MIGRATING.md, sections 3 and 6e)".into(),
            was: None,
        }),
        None => {
            let family: Vec<(&String, &String)> = new
                .functions
                .iter()
                .filter(|(n, _)| base(n) == base(name))
                .map(|(n, (s, _))| (n, s))
                .collect();
            let same = family.iter().filter(|(_, s)| *s == sig).map(|(n, _)| *n);
            if let Some(n) = pick(name, same) {
                return Some(State {
                    kind: Kind::Renamed,
                    new: n.clone(),
                    instead: format!("`{n}`"),
                    was: None,
                });
            }
            let mut state = removed(name);
            if let Some((n, s)) = family.iter().find(|(n, _)| n.as_str() == base(name)) {
                state.instead = format!("`{n}`, which takes `{s}`");
            }
            Some(state)
        }
    }
}

fn removed(name: &str) -> State {
    let instead = REMOVED_ADVICE
        .iter()
        .find(|(prefixes, _)| prefixes.iter().any(|p| name.starts_with(p)))
        .map_or("nothing: the header has no such item", |(_, advice)| advice);
    State {
        kind: Kind::Removed,
        new: String::new(),
        instead: instead.into(),
        was: None,
    }
}

/// What replaces the items the old crates took from headers other than the driver API's (their bindgen
/// wrappers included `cuComplex.h`, `vector_types.h` and `library_types.h`), by name prefix.
const REMOVED_ADVICE: [(&[&str], &str); 4] = [
    (
        &["float2", "double2", "cuComplex", "cuFloatComplex", "cuDoubleComplex"],
        "a `#[repr(C, align(..))]` struct of your own (docs/MIGRATING.md, section 6c)",
    ),
    (
        &["cudaDataType", "libraryPropertyType"],
        "the bindings of the library that takes it (cuBLAS, cuFFT, ...): `library_types.h` is no driver-API header",
    ),
    (&["__uint32_t"], "`u32`"),
    (&["__uint64_t"], "`u64`"),
];
