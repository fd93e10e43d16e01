//! Which header each item of the bindings comes from, for the counts per header that the layout
//! and constants tests print: the names each header's projected bindings and names declare (the
//! tests' build script writes `projected_<prefix>bindings.rs` and `names.rs` of the selected
//! version for `cuda.h` and, with the `interop` feature, for each interop module; it names them in
//! `CUDA_PROJECTED_HEADERS`).

use std::collections::BTreeSet;

/// One header and the names of the items its files declare.
pub struct Header {
    pub name: &'static str,
    items: BTreeSet<String>,
}

/// The headers whose projected files this build has, `cuda.h` first.
pub fn headers() -> Vec<Header> {
    let dir = env!("CUDA_PROJECTED_DIR");
    // `prefix:header,...`, from the build script's list (tests/support/c_header.rs).
    env!("CUDA_PROJECTED_HEADERS")
        .split(',')
        .filter_map(|set| set.split_once(':'))
        .filter_map(|(prefix, name)| {
            let texts: Vec<String> = ["bindings.rs", "names.rs"]
                .iter()
                .filter_map(|f| {
                    std::fs::read_to_string(format!("{dir}/projected_{prefix}{f}")).ok()
                })
                .collect();
            (!texts.is_empty()).then(|| Header {
                name,
                items: texts.iter().flat_map(|t| declared(t)).collect(),
            })
        })
        .collect()
}

/// The names a file declares: `pub struct`, `pub union`, `pub type`, `pub const` (associated
/// constants too) and the aliases of `pub use X as Y;` (an enum's C name), at the start of a line.
fn declared(text: &str) -> impl Iterator<Item = String> + '_ {
    let ident = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    text.lines().filter_map(move |line| {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("pub use ") {
            return rest.split_once(" as ").map(|(_, alias)| ident(alias));
        }
        ["pub struct ", "pub union ", "pub type ", "pub const "]
            .iter()
            .find_map(|kw| line.strip_prefix(kw))
            .map(ident)
    })
}

/// The header that declares `name` (`"?"` where none does).
pub fn header_of<'a>(headers: &'a [Header], name: &str) -> &'a str {
    headers
        .iter()
        .find(|h| h.items.contains(name))
        .map_or("?", |h| h.name)
}

/// `counts` (header, what, count), as one line: `cuda.h: 64 structs, 13 unions; cudaGL.h: ...`,
/// every header listed, with what it has.
pub fn per_header_line(headers: &[Header], counts: &[(&str, &str, usize)]) -> String {
    headers
        .iter()
        .map(|h| {
            let parts: Vec<String> = counts
                .iter()
                .filter(|(header, _, n)| *header == h.name && *n > 0)
                .map(|(_, what, n)| format!("{n} {what}"))
                .collect();
            format!(
                "{}: {}",
                h.name,
                if parts.is_empty() {
                    "nothing".to_string()
                } else {
                    parts.join(", ")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
