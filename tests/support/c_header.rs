//! Reading `cuda.h` and `cudaTypedefs.h` as the C preprocessor leaves them: shared by the layout
//! probe (`layout.rs`) and the prototype probe (`prototypes.rs`), in the build script and in the
//! prototype test (which includes this file by path).

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
