//! The constant data of a compiled probe, read from the compiler's assembly output.
//!
//! The layout and constant probes of the tests (the tests' build script writes them) hold their
//! numbers (sizeof, _Alignof, offsetof, enumerator and macro values) in constant tables. Compiled
//! with -S for a target, those tables are the target compiler's own evaluation of every entry,
//! without running anything. [`tables`] gives each table as one line per scalar: the table (a
//! named object, or an anonymous one by the first string it holds), the item's index, the nearest
//! string before it (the entry's name) and the value; pointers to strings are given as the
//! strings. Two targets' lines are compared line by line.

use std::collections::{HashMap, HashSet};

/// The assembler dialect of a target.
#[derive(Clone, Copy)]
pub enum Dialect {
    /// GNU as for x86-64 (Linux and mingw-w64).
    X86_64,
    /// GNU as for aarch64.
    Aarch64,
}

/// One item of a data object.
#[derive(Clone)]
enum Item {
    Int { size: u32, value: u128 },
    Ref(String),
    Bytes(Vec<u8>),
}

impl Dialect {
    /// The size in bytes of a data directive's items.
    fn size(self, directive: &str) -> Option<u32> {
        let sizes: &[(&str, u32)] = match self {
            Dialect::X86_64 => &[
                (".quad", 8),
                (".8byte", 8),
                (".long", 4),
                (".4byte", 4),
                (".value", 2),
                (".short", 2),
                (".word", 2),
                (".2byte", 2),
                (".byte", 1),
            ],
            Dialect::Aarch64 => &[
                (".xword", 8),
                (".8byte", 8),
                (".dword", 8),
                (".word", 4),
                (".4byte", 4),
                (".hword", 2),
                (".short", 2),
                (".2byte", 2),
                (".byte", 1),
            ],
        };
        sizes.iter().find(|(d, _)| *d == directive).map(|(_, s)| *s)
    }
}

/// The tables of the assembly `text`, one line per scalar.
pub fn tables(dialect: Dialect, text: &str) -> Vec<String> {
    let (objects, order) = parse(dialect, text);
    let referenced: HashSet<&str> = objects
        .values()
        .flatten()
        .filter_map(|i| match i {
            Item::Ref(label) => Some(label.as_str()),
            _ => None,
        })
        .collect();
    let mut lines = Vec::new();
    for label in &order {
        let items = &objects[label];
        if items.iter().all(|i| matches!(i, Item::Bytes(_))) {
            continue; // a string, given where it is used
        }
        let anonymous = is_anonymous(label);
        if anonymous && referenced.contains(label.as_str()) {
            continue; // given inline where it is used
        }
        let values: Vec<String> = items.iter().map(|i| render(&objects, i)).collect();
        let name = if anonymous {
            // By its first string: label numbers differ between targets.
            let first = values.iter().find(|v| v.starts_with("string "));
            format!("anon {}", first.map_or("?", |s| s.as_str()))
        } else {
            label.clone()
        };
        let mut context = "";
        for (index, value) in values.iter().enumerate() {
            if let Some(s) = value.strip_prefix("string ") {
                context = s;
            }
            lines.push(format!("{name}[{index}] {context}: {value}"));
        }
    }
    lines
}

fn is_anonymous(label: &str) -> bool {
    label.starts_with(".L") || label.starts_with('L')
}

/// The objects in data sections, by label, and their labels in order.
fn parse(dialect: Dialect, text: &str) -> (HashMap<String, Vec<Item>>, Vec<String>) {
    let mut objects: HashMap<String, Vec<Item>> = HashMap::new();
    let (mut order, mut current, mut in_text) = (Vec::new(), None::<String>, false);
    for line in text.lines().map(str::trim) {
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with("//")
            || line.starts_with('@')
        {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        let second = line.split_whitespace().nth(1).unwrap_or("");
        if first == ".text" || (first == ".section" && second.contains(".text")) {
            (in_text, current) = (true, None);
            continue;
        }
        if [".data", ".bss", ".section"].contains(&first) {
            (in_text, current) = (false, None);
            continue;
        }
        if let Some(label) = label(line) {
            current = None;
            if !in_text {
                objects.insert(label.to_string(), Vec::new());
                order.push(label.to_string());
                current = Some(label.to_string());
            }
            continue;
        }
        let Some(items) = current.as_ref().and_then(|c| objects.get_mut(c)) else {
            continue;
        };
        let arg = line[first.len()..].trim();
        match first {
            ".string" | ".asciz" => items.push(Item::Bytes([unquote(arg), vec![0]].concat())),
            ".ascii" => items.push(Item::Bytes(unquote(arg))),
            ".zero" | ".space" | ".skip" => {
                let n = integer(arg.split(',').next().unwrap_or("")).unwrap_or(0);
                items.push(Item::Bytes(vec![0; n as usize]));
            }
            _ => {
                if let Some(size) = dialect.size(first) {
                    for value in arg.split(',').map(str::trim) {
                        items.push(match integer(value) {
                            Some(n) => Item::Int {
                                size,
                                value: (n as u128) & ((1u128 << (8 * size)) - 1),
                            },
                            None => Item::Ref(value.to_string()),
                        });
                    }
                }
            }
        }
    }
    (objects, order)
}

/// `NAME:` at the start of a line: NAME.
fn label(line: &str) -> Option<&str> {
    let end = line.find(|c: char| !(c.is_ascii_alphanumeric() || "_.$@".contains(c)))?;
    let name = &line[..end];
    let first = name.chars().next()?;
    let starts = first.is_ascii_alphabetic() || "_.$".contains(first);
    (starts && line[end..].starts_with(':')).then_some(name)
}

/// An integer as the assembler writes one: decimal, 0x hexadecimal, 0o/0b, with a sign.
fn integer(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, digits) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        _ if lower.len() > 1 && lower.starts_with('0') => return None,
        _ => (10, &lower[..]),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let n = i128::from_str_radix(digits, radix).ok()?;
    Some(if negative { -n } else { n })
}

/// The bytes of an assembler string literal.
fn unquote(text: &str) -> Vec<u8> {
    let (Some(start), Some(end)) = (text.find('"'), text.rfind('"')) else {
        return Vec::new();
    };
    let body: Vec<char> = text.get(start + 1..end).unwrap_or("").chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < body.len() {
        let c = body[i];
        if c != '\\' || i + 1 == body.len() {
            let mut buffer = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            i += 1;
            continue;
        }
        let n = body[i + 1];
        if n.is_digit(8) {
            let mut j = i + 1;
            let mut value = 0u32;
            while j < body.len() && j < i + 4 && body[j].is_digit(8) {
                value = value * 8 + body[j].to_digit(8).unwrap_or(0);
                j += 1;
            }
            out.push((value & 0xff) as u8);
            i = j;
        } else {
            let escaped = match n {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'f' => '\x0c',
                'b' => '\x08',
                other => other,
            };
            let mut buffer = [0; 4];
            out.extend_from_slice(escaped.encode_utf8(&mut buffer).as_bytes());
            i += 2;
        }
    }
    out
}

fn render(objects: &HashMap<String, Vec<Item>>, item: &Item) -> String {
    match item {
        Item::Int { size, value } => format!("u{} {value}", size * 8),
        Item::Bytes(bytes) => format!("bytes b{}", quote(bytes)),
        Item::Ref(label) => match objects.get(label) {
            Some(target) if target.iter().all(|i| matches!(i, Item::Bytes(_))) => {
                let bytes: Vec<u8> = target
                    .iter()
                    .flat_map(|i| match i {
                        Item::Bytes(b) => b.clone(),
                        _ => Vec::new(),
                    })
                    .collect();
                let text = bytes.split(|b| *b == 0).next().unwrap_or(&[]);
                format!("string {}", quote(text))
            }
            // Another table: an anonymous one inline, a named one by its name.
            Some(target) if is_anonymous(label) => {
                let items: Vec<String> = target.iter().map(|i| render(objects, i)).collect();
                format!("{{{}}}", items.join(", "))
            }
            _ => format!("&{label}"),
        },
    }
}

/// `bytes` quoted, printable ASCII as is, the rest escaped.
fn quote(bytes: &[u8]) -> String {
    let escaped: String = bytes
        .iter()
        .flat_map(|b| std::ascii::escape_default(*b))
        .map(char::from)
        .collect();
    format!("'{escaped}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: &str = r#"
	.text
f:
	.quad	7
	.section	.rodata
.LC0:
	.string	"cuInit"
	.data
table:
	.quad	.LC0
	.long	-1
	.value	0x10
	.quad	other
"#;

    #[test]
    fn tables_are_read_with_names_and_values() {
        assert_eq!(
            tables(Dialect::X86_64, ASM),
            [
                "table[0] 'cuInit': string 'cuInit'",
                "table[1] 'cuInit': u32 4294967295",
                "table[2] 'cuInit': u16 16",
                "table[3] 'cuInit': &other",
            ]
        );
        // None of these is a data directive of aarch64's dialect.
        assert!(tables(Dialect::Aarch64, ASM).is_empty());
    }

    #[test]
    fn numbers_and_strings() {
        assert_eq!(integer("0x1F"), Some(31));
        assert_eq!(integer("-8"), Some(-8));
        assert_eq!(integer("010"), None);
        assert_eq!(integer(".LC0+8"), None);
        assert_eq!(unquote(r#""a\101\n""#), b"aA\n");
    }
}
