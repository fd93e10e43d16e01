//! The report's text of an expression, made at compile time from what `stringify!` gives.

/// How deep the delimiters (`(`, `[`, `{`) are followed; deeper, trailing commas are kept.
const DEPTH: usize = 32;

/// `text` as the report shows it. `stringify!` breaks long expressions over several lines, and
/// keeps the trailing comma rustfmt writes in a call laid out one argument a line; C's `#op` has
/// neither. So, outside string and character literals, every line break becomes a space, and a
/// comma followed by nothing but whitespace and a closing `)`, `]` or `}` is dropped (with that
/// whitespace, but before `}`), except the comma of a one-element tuple (`(x,)`, a `(` not after
/// a callee).
///
/// The text is the first `.1` bytes of `.0`; `N` must be at least `text.len()`.
pub const fn one_line<const N: usize>(text: &str) -> ([u8; N], usize) {
    let b = text.as_bytes();
    let len = b.len();
    let mut out = [0u8; N];
    let mut n = 0;
    // Per open delimiter: a `(` right after a callee (so not a tuple), a comma seen inside.
    let mut after_callee = [false; DEPTH];
    let mut comma = [false; DEPTH];
    let mut depth = 0;
    let mut too_deep = 0;
    let mut i = 0;
    while i < len {
        let c = b[i];
        let literal_end = if c == b'"' {
            string_end(b, i)
        } else if c == b'\'' {
            char_end(b, i)
        } else {
            i
        };
        if literal_end > i {
            while i < literal_end {
                out[n] = b[i];
                n += 1;
                i += 1;
            }
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => {
                if depth < DEPTH {
                    after_callee[depth] = c == b'(' && follows_callee(&out, n);
                    comma[depth] = false;
                    depth += 1;
                } else {
                    too_deep += 1;
                }
            }
            b')' | b']' | b'}' => {
                if too_deep > 0 {
                    too_deep -= 1;
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            b',' => {
                let mut j = i + 1;
                while j < len && (b[j] == b' ' || b[j] == b'\n') {
                    j += 1;
                }
                let closes = j < len && (b[j] == b')' || b[j] == b']' || b[j] == b'}');
                let known = depth > 0 && too_deep == 0;
                let tuple_of_one = closes
                    && known
                    && b[j] == b')'
                    && !after_callee[depth - 1]
                    && !comma[depth - 1];
                if closes && known && !tuple_of_one {
                    // `f(a, b)`, `[a, b]`, but `S { a, b }`: the space before a brace stays.
                    i = if b[j] == b'}' { i + 1 } else { j };
                    continue;
                }
                if known {
                    comma[depth - 1] = true;
                }
            }
            _ => {}
        }
        out[n] = if c == b'\n' { b' ' } else { c };
        n += 1;
        i += 1;
    }
    (out, n)
}

/// `out[..n]` ends (spaces aside) with what can precede a call's `(`: a name, `)`, `]`, `>`.
const fn follows_callee(out: &[u8], n: usize) -> bool {
    let mut k = n;
    while k > 0 && out[k - 1] == b' ' {
        k -= 1;
    }
    if k == 0 {
        return false;
    }
    let p = out[k - 1];
    is_ident_byte(p) || p == b')' || p == b']' || p == b'>'
}

const fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The end (exclusive) of the string literal whose opening `"` is at `i`: raw (`r"..."`,
/// `br#"..."#`, `cr"..."`, the `r` and hashes being before `i`) or with escapes.
const fn string_end(b: &[u8], i: usize) -> usize {
    let len = b.len();
    // Raw: `r` + hashes right before the quote, the `r` starting a token (or after `b`/`c`).
    let mut k = i;
    let mut hashes = 0;
    while k > 0 && b[k - 1] == b'#' {
        k -= 1;
        hashes += 1;
    }
    let raw = k > 0
        && b[k - 1] == b'r'
        && (k == 1
            || !is_ident_byte(b[k - 2])
            || ((b[k - 2] == b'b' || b[k - 2] == b'c') && (k == 2 || !is_ident_byte(b[k - 3]))));
    let mut j = i + 1;
    if raw {
        while j < len {
            if b[j] == b'"' {
                let mut h = 0;
                while h < hashes && j + 1 + h < len && b[j + 1 + h] == b'#' {
                    h += 1;
                }
                if h == hashes {
                    return j + 1 + hashes;
                }
            }
            j += 1;
        }
        return len;
    }
    while j < len {
        if b[j] == b'\\' {
            j += 2;
        } else if b[j] == b'"' {
            return j + 1;
        } else {
            j += 1;
        }
    }
    len
}

/// The end (exclusive) of the character literal whose `'` is at `i`, or `i` when it is a
/// lifetime or label (`'a`).
const fn char_end(b: &[u8], i: usize) -> usize {
    let len = b.len();
    if i + 1 >= len {
        return i;
    }
    if b[i + 1] == b'\\' {
        // '\n', '\'', '\u{1F600}': the next unescaped quote.
        let mut j = i + 3;
        while j < len {
            if b[j] == b'\'' {
                return j + 1;
            }
            j += 1;
        }
        return len;
    }
    // One character, of 1 to 4 UTF-8 bytes, then the quote.
    let c = b[i + 1];
    let width = if c < 0x80 {
        1
    } else if c >= 0xF0 {
        4
    } else if c >= 0xE0 {
        3
    } else {
        2
    };
    if i + 1 + width < len && b[i + 1 + width] == b'\'' {
        i + 2 + width
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    fn one(text: &str) -> String {
        let (bytes, n) = super::one_line::<512>(text);
        String::from_utf8(bytes[..n].to_vec()).unwrap()
    }

    #[test]
    fn joins_lines_and_drops_trailing_commas() {
        assert_eq!(one("cuInit(0)"), "cuInit(0)");
        assert_eq!(
            one("cuLaunchKernel(f, 1, 1,\nstream, args.as_mut_ptr(), std::ptr::null_mut(),)"),
            "cuLaunchKernel(f, 1, 1, stream, args.as_mut_ptr(), std::ptr::null_mut())"
        );
        assert_eq!(one("f(a, g(b, c,), [d, e,],)"), "f(a, g(b, c), [d, e])");
        assert_eq!(one("f(a,\n)"), "f(a)");
        assert_eq!(one("S { a: 1, b: 2, }"), "S { a: 1, b: 2 }");
        assert_eq!(one("f::<A, B,>(x,)"), "f::<A, B,>(x)");
        assert_eq!(one("v[0](x,)"), "v[0](x)");
        assert_eq!(one("(f)(x,)"), "(f)(x)");
        // Kept: one-element tuples, and commas not before a closer.
        assert_eq!(one("f((x,), (y, z,))"), "f((x,), (y, z))");
        assert_eq!(one("(x,)"), "(x,)");
        assert_eq!(one("f(|a, b| a + b, c)"), "f(|a, b| a + b, c)");
    }

    #[test]
    fn leaves_literals_alone() {
        assert_eq!(one(r#"f(",)", ')', ',',)"#), r#"f(",)", ')', ',')"#);
        assert_eq!(one(r#"f("a\",)", x,)"#), r#"f("a\",)", x)"#);
        assert_eq!(
            one(r##"f(r#"a",)"#, br"\", c"k,)",)"##),
            r##"f(r#"a",)"#, br"\", c"k,)")"##
        );
        assert_eq!(
            one("f('\\'', '\\u{2C}', 'é', x,)"),
            "f('\\'', '\\u{2C}', 'é', x)"
        );
        assert_eq!(one("f(\"a\nb\",\n)"), "f(\"a\nb\")");
        assert_eq!(one("f::<'a>(x,)"), "f::<'a>(x)");
        assert_eq!(
            one("'outer: loop { break 'outer g(x,) }"),
            "'outer: loop { break 'outer g(x) }"
        );
    }

    #[test]
    fn deep_nesting_keeps_commas_it_cannot_place() {
        let deep = "(".repeat(40) + "f(x,)" + &")".repeat(40);
        assert_eq!(one(&deep), deep);
        let shallow = "(".repeat(20) + "f(x,)" + &")".repeat(20);
        assert_eq!(one(&shallow), "(".repeat(20) + "f(x)" + &")".repeat(20));
    }
}
