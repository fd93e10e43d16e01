//! Facts about a header's items for the rustdoc of the generated files, read from the header's
//! text (never its prose): which Doxygen group an item is in (`\defgroup`, `\addtogroup`,
//! `\ingroup`, `@{` ... `@}`) and so which page of NVIDIA's Driver API reference documents it,
//! and each function's and typedef's C declaration as the header writes it.
//!
//! [`item_docs`](crate::item_docs) turns these facts into the generated items' doc lines.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// Where NVIDIA publishes the Driver API reference, one page per Doxygen group.
pub const DRIVER_API_REFERENCE: &str = "https://docs.nvidia.com/cuda/cuda-driver-api";

/// A Doxygen group of a header (`\defgroup CUDA_MEM Memory Management`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The group's name (`CUDA_MEM`).
    pub name: String,
    /// Its title where a `\defgroup` of the header gives one (`Memory Management`).
    pub title: Option<String>,
}

impl Group {
    /// The group's page of NVIDIA's reference: Doxygen doubles the underscores of the name
    /// (`CUDA_MEM` → `group__CUDA__MEM.html`).
    pub fn url(&self) -> String {
        format!(
            "{DRIVER_API_REFERENCE}/group__{}.html",
            self.name.replace('_', "__")
        )
    }

    /// A Markdown link to the group's page, with its title (or name) as text.
    pub fn link(&self) -> String {
        // Titles hold brackets ("Context Management [DEPRECATED]"), which end a link's text.
        let text = self.title.as_deref().unwrap_or(&self.name);
        let text = text.replace('[', "\\[").replace(']', "\\]");
        format!("[{text}]({})", self.url())
    }
}

/// A function or typedef as the header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The declaration, whitespace-normalised (`CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr,
    /// size_t bytesize);`).
    pub text: String,
    /// Where it starts in the header text.
    offset: usize,
    /// Whether it is only seen under `__CUDA_API_VERSION_INTERNAL` (the legacy ABIs at the end of
    /// `cuda.h`, the legacy `PFN_*` typedefs of `cudaTypedefs.h`).
    internal: bool,
}

/// What one header says about its items.
pub struct HeaderDocs {
    /// The header's file name (`cuda.h`).
    pub file: String,
    groups: Vec<Group>,
    /// (start, end, index into `groups`), in order of start; nested spans follow their parent.
    spans: Vec<(usize, usize, usize)>,
    /// Functions by the name the header declares them under (before any macro renames them).
    functions: BTreeMap<String, Vec<Declaration>>,
    /// Typedefs by the name they define (`PFN_cuMemAlloc_v3020`, `CUcontext`, `CUresult`), a
    /// braced body written as `{ ... }`.
    typedefs: BTreeMap<String, Declaration>,
    /// Object-like macros: `#define NAME VALUE` as written (the first definition).
    defines: BTreeMap<String, String>,
    /// The first place each identifier appears in the code (comments left out): in C, where a
    /// type, enumerator or constant is defined, since it must be declared before it is used.
    first_use: BTreeMap<String, usize>,
}

static DEFGROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[\\@](defgroup|addtogroup|ingroup)[ \t]+(\w+)[ \t]*([^\n]*)").unwrap()
});
static FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*((?:\w+[ \t]+)*?CUresult\s+CUDAAPI\s+(\w+)\s*\([^;{]*\)\s*;)").unwrap()
});
static TYPEDEF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\btypedef\b").unwrap());
static DEFINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]*#[ \t]*define[ \t]+(\w+)([ \t]+[^\n]*)?$").unwrap());
static IDENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_]\w*").unwrap());

impl HeaderDocs {
    /// Reads `text`, the header `file`.
    pub fn parse(file: &str, text: &str) -> HeaderDocs {
        let (code, comments) = split_comments(text);
        let mut groups: Vec<Group> = Vec::new();
        let mut group_index = |name: &str, title: Option<String>| -> usize {
            match groups.iter().position(|g| g.name == name) {
                Some(i) => {
                    if groups[i].title.is_none() {
                        groups[i].title = title;
                    }
                    i
                }
                None => {
                    groups.push(Group {
                        name: name.to_string(),
                        title,
                    });
                    groups.len() - 1
                }
            }
        };
        let mut spans = Vec::new();
        let mut open: Vec<(usize, usize)> = Vec::new();
        for (start, end) in comments {
            let comment = &text[start..end];
            let mut named = None;
            let mut member_of = None;
            for c in DEFGROUP.captures_iter(comment) {
                let title = c[3].trim().trim_end_matches("*/").trim();
                let title = (c[1] == *"defgroup" && !title.is_empty()).then(|| title.to_string());
                let i = group_index(&c[2], title);
                if &c[1] == "ingroup" {
                    member_of = Some(i);
                } else {
                    named = Some(i);
                }
            }
            let opens = comment.contains("@{") || comment.contains("\\{");
            let closes = comment.contains("@}") || comment.contains("\\}");
            if opens {
                if let Some(g) = named.or(member_of) {
                    open.push((end, g));
                }
            } else if let (None, Some(g)) = (named, member_of) {
                // `\ingroup X` in an item's own comment: the declaration that follows.
                let stop = code[end..].find(';').map_or(text.len(), |i| end + i + 1);
                spans.push((end, stop, g));
            }
            if closes {
                if let Some((from, g)) = open.pop() {
                    spans.push((from, start, g));
                }
            }
        }
        while let Some((from, g)) = open.pop() {
            spans.push((from, text.len(), g));
        }
        spans.sort();

        let internal = internal_ranges(&code);
        let is_internal = |o: usize| internal.iter().any(|&(a, b)| a <= o && o < b);
        let mut functions: BTreeMap<String, Vec<Declaration>> = BTreeMap::new();
        for c in FUNCTION.captures_iter(&code) {
            let m = c.get(1).unwrap();
            functions
                .entry(c[2].to_string())
                .or_default()
                .push(Declaration {
                    text: normalise(m.as_str()),
                    offset: m.start(),
                    internal: is_internal(m.start()),
                });
        }
        let mut typedefs = BTreeMap::new();
        for m in TYPEDEF.find_iter(&code) {
            let Some((text, names)) = typedef_at(&code[m.start()..]) else {
                continue;
            };
            for name in names {
                typedefs.entry(name).or_insert_with(|| Declaration {
                    text: text.clone(),
                    offset: m.start(),
                    internal: is_internal(m.start()),
                });
            }
        }
        let mut defines = BTreeMap::new();
        for c in DEFINE.captures_iter(&code) {
            let value = c.get(2).map_or("", |v| v.as_str()).trim();
            let text = normalise(&format!("#define {} {value}", &c[1]));
            defines.entry(c[1].to_string()).or_insert(text);
        }
        let mut first_use = BTreeMap::new();
        for m in IDENT.find_iter(&code) {
            first_use.entry(m.as_str().to_string()).or_insert(m.start());
        }
        HeaderDocs {
            file: file.to_string(),
            groups,
            spans,
            functions,
            typedefs,
            defines,
            first_use,
        }
    }

    /// The innermost group whose `@{ ... @}` holds `offset`.
    fn group_at(&self, offset: usize) -> Option<&Group> {
        self.spans
            .iter()
            .filter(|&&(a, b, _)| a <= offset && offset < b)
            .max_by_key(|&&(a, _, _)| a)
            .map(|&(_, _, g)| &self.groups[g])
    }

    /// The declaration of the function a C program calls as `name` (not the legacy ABIs the
    /// header declares only for the driver's own build).
    pub fn function(&self, name: &str) -> Option<&Declaration> {
        self.functions.get(name)?.iter().find(|d| !d.internal)
    }

    /// Every function a C program calls by name (not the legacy ABIs), in the order the header
    /// declares them, with the group each is in.
    pub fn functions(&self) -> Vec<(&str, Option<&Group>)> {
        let mut declared: Vec<(usize, &str)> = (self.functions.keys())
            .filter_map(|name| Some((self.function(name)?.offset, name.as_str())))
            .collect();
        declared.sort();
        (declared.into_iter())
            .map(|(_, name)| (name, self.function_group(name)))
            .collect()
    }

    /// The group of the function a C program calls as `name`.
    pub fn function_group(&self, name: &str) -> Option<&Group> {
        self.group_at(self.function(name)?.offset)
    }

    /// The typedef that defines `name` (`PFN_cuMemAlloc_v3020`, `CUcontext`), internal ones
    /// included.
    pub fn typedef(&self, name: &str) -> Option<&Declaration> {
        self.typedefs.get(name)
    }

    /// The macro `name` as the header defines it (`#define CU_STREAM_PER_THREAD
    /// ((CUstream)0x2)`).
    pub fn define(&self, name: &str) -> Option<&str> {
        self.defines.get(name).map(String::as_str)
    }

    /// Whether the typedef `name` is declared only under `__CUDA_API_VERSION_INTERNAL`.
    pub fn typedef_is_internal(&self, name: &str) -> bool {
        self.typedefs.get(name).is_some_and(|d| d.internal)
    }

    /// The group of a type, enumerator or constant: that of the first place its name appears.
    pub fn group_of(&self, name: &str) -> Option<&Group> {
        self.group_at(*self.first_use.get(name)?)
    }

    /// Whether the header's code names `name` at all.
    pub fn mentions(&self, name: &str) -> bool {
        self.first_use.contains_key(name)
    }
}

/// The text with every comment replaced by spaces (newlines kept, so offsets stay those of the
/// text), and the ranges of the comments.
fn split_comments(text: &str) -> (String, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut code = bytes.to_vec();
    let mut comments = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'"', _) => in_string = !in_string,
            (b'\\', _) if in_string => i += 1,
            (b'\n', _) => in_string = false,
            (b'/', Some(b'*')) if !in_string => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                comments.push((i, end));
                blank(&mut code[i..end]);
                i = end;
                continue;
            }
            (b'/', Some(b'/')) if !in_string => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                comments.push((i, end));
                blank(&mut code[i..end]);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced by ASCII spaces, and whole comments at that.
    (String::from_utf8_lossy(&code).into_owned(), comments)
}

fn blank(bytes: &mut [u8]) {
    for b in bytes {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// The ranges of `code` that a C program sees only with `__CUDA_API_VERSION_INTERNAL` defined:
/// the first branch of an `#if`/`#ifdef` that requires it (`#else` ends it).
fn internal_ranges(code: &str) -> Vec<(usize, usize)> {
    static IF: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$").unwrap());
    let requires = |cond: &str| {
        let c: String = cond.chars().filter(|c| !c.is_whitespace()).collect();
        (c.starts_with("defined(__CUDA_API_VERSION_INTERNAL)")
            || c == "__CUDA_API_VERSION_INTERNAL")
            && !c.contains("||")
    };
    // Per open conditional: where its internal branch started, if it is in one.
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut ranges = Vec::new();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        if let Some(c) = IF.captures(line.trim_end()) {
            match &c[1] {
                "if" => stack.push(requires(&c[2]).then_some(offset)),
                "ifdef" => stack.push(requires(&c[2]).then_some(offset)),
                "ifndef" => stack.push(None),
                "elif" | "else" => {
                    if let Some(Some(start)) = stack.last_mut().map(Option::take) {
                        ranges.push((start, offset));
                    }
                }
                _ => {
                    if let Some(Some(start)) = stack.pop() {
                        ranges.push((start, offset));
                    }
                }
            }
        }
        offset += line.len();
    }
    ranges
}

/// The typedef statement `code` starts with (up to its `;`, braces balanced), its body written as
/// `{ ... }`, and the names it defines: each declarator's, or the `(*NAME)` of a function pointer.
fn typedef_at(code: &str) -> Option<(String, Vec<String>)> {
    let mut depth = 0usize;
    let (mut open, mut close) = (None, None);
    let mut end = None;
    for (i, c) in code.char_indices() {
        match c {
            '{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    close = Some(i);
                }
            }
            ';' if depth == 0 => {
                end = Some(i + 1);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let (text, declarators) = match (open, close) {
        (Some(o), Some(c)) => (
            format!("{} {{ ... }}{}", &code[..o], &code[c + 1..end]),
            &code[c + 1..end - 1],
        ),
        _ => (code[..end].to_string(), &code[..end - 1]),
    };
    static POINTER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\(\s*(?:\w+\s+)?\*\s*(\w+)\s*\)\s*\(").unwrap());
    static LAST: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$").unwrap());
    let names: Vec<String> = match POINTER.captures(declarators) {
        Some(c) => vec![c[1].to_string()],
        None => declarators
            .split(',')
            .filter_map(|d| LAST.captures(d.trim()).map(|c| c[1].to_string()))
            .filter(|n| n != "typedef")
            .collect(),
    };
    Some((normalise(&text), names))
}

/// Whitespace runs as one space, none inside parentheses' edges.
fn normalise(decl: &str) -> String {
    let s = decl.split_whitespace().collect::<Vec<_>>().join(" ");
    s.replace("( ", "(").replace(" )", ")").replace(" ;", ";")
}

/// `3020` → `3.2`, `12050` → `12.5`: a `CUDA_VERSION` or a typedef's ABI version.
pub fn version_name(v: u32) -> String {
    format!("{}.{}", v / 1000, v % 1000 / 10)
}

/// `PFN_cuMemAlloc_v3020` → 3020.
pub fn typedef_version(pfn: &str) -> Option<u32> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^PFN_\w+?_v(\d+)(?:_pt(?:ds|sz))?$").unwrap());
    RE.captures(pfn)?[1].parse().ok()
}

#[cfg(test)]
mod tests;
