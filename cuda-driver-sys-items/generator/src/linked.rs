//! Emits `linked.rs`: for the tests, every C spelling with its linked symbol and entry point.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::c_spellings::CSpellings;

pub(crate) fn generate(
    spellings: &CSpellings,
    c_spelling: &BTreeMap<String, (String, String)>,
) -> String {
    let mut s = String::from(
        "// For tests: every C spelling as `(name, linked symbol, function, entry point)`, the entry\n\
         // point of the typedef whose signature the function has (None: cudaTypedefs.h has none).\n\
         // The including test defines `linked_functions!`, which may or may not take addresses.\n\
         linked_functions! {\n",
    );
    for (c_name, (n_sym, p_sym)) in &spellings.functions {
        let entry = |t: Option<&String>| match t {
            Some(t) => format!("Some(entry::{}.info())", &t[4..]),
            None => "None".into(),
        };
        let (en, ep) = match c_spelling.get(c_name) {
            Some((n, p)) => (entry(Some(n)), entry(Some(p))),
            None => (entry(None), entry(None)),
        };
        if n_sym == p_sym {
            writeln!(s, "    (c\"{c_name}\", c\"{n_sym}\", {c_name}, {en}),").unwrap();
        } else {
            writeln!(s, "    #[cfg(not(feature = \"per-thread-default-stream\"))]\n    (c\"{c_name}\", c\"{n_sym}\", {c_name}, {en}),").unwrap();
            writeln!(s, "    #[cfg(feature = \"per-thread-default-stream\")]\n    (c\"{c_name}\", c\"{p_sym}\", {c_name}, {ep}),").unwrap();
        }
    }
    s.push_str("}\n");
    s
}
