//! The C table the recorder compiles with (`ci/coverage/arguments.h` declares its types): each
//! described entry's parameters as `struct node` arrays, indexed by CUPTI's callback id. Every
//! offset and size is `offsetof`/`sizeof` of CUPTI's `<entry>_params` or a `cuda.h` type, every
//! discriminant an enumerator's name, so the C compiler checks each against the declarations.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::describe::{From, Function, Link, Node, Place, What};
use crate::rules::{Allocation, Size, Where};

/// The table's text, for the entries `functions` (name and description, in callback id order).
pub fn table(functions: &[(String, Function)], header: &str) -> String {
    let mut table = Table::default();
    let mut rows = String::new();
    for (entry, function) in functions {
        let params = table.children(&function.params);
        let allocation = match function.allocation {
            Some(a) => table.allocation(entry, a),
            None => "NULL".to_string(),
        };
        let released = function.released.map_or(-1, |i| i as i64);
        writeln!(
            rows,
            "    [CUPTI_DRIVER_TRACE_CBID_{entry}] = {{1, {params}, {}, {released}, {allocation}}},",
            function.params.len()
        )
        .unwrap();
    }
    let mut out = String::new();
    writeln!(out, "{header}").unwrap();
    out.push_str(&table.arrays);
    writeln!(
        out,
        "static const struct function functions[CUPTI_DRIVER_TRACE_CBID_SIZE] = {{\n{rows}}};"
    )
    .unwrap();
    out
}

/// What the table holds besides its rows.
#[derive(Default)]
struct Table {
    /// The node arrays, each defined before its first use.
    arrays: String,
    /// Each array's initializer text to its name, so that a description used twice is one.
    names: BTreeMap<String, String>,
}

impl Table {
    /// The name of the array of `nodes` (defined first where new); `NULL` for none.
    fn children(&mut self, nodes: &[Node]) -> String {
        let texts: Vec<String> = nodes.iter().map(|n| self.node(n)).collect();
        self.array(&texts)
    }

    /// The name of the array of the node initializers `texts` (defined first where new); `NULL`
    /// for none.
    fn array(&mut self, texts: &[String]) -> String {
        if texts.is_empty() {
            return "NULL".into();
        }
        let mut body = String::new();
        for text in texts {
            writeln!(body, "    {text},").unwrap();
        }
        if let Some(name) = self.names.get(&body) {
            return name.clone();
        }
        let name = format!("nodes_{}", self.names.len());
        writeln!(
            self.arrays,
            "static const struct node {name}[] = {{\n{body}}};\n"
        )
        .unwrap();
        self.names.insert(body, name.clone());
        name
    }

    /// One node's initializer.
    fn node(&mut self, node: &Node) -> String {
        let name = match &node.name {
            Some(n) => format!("\"{n}\""),
            None => "NULL".into(),
        };
        let (offset, size) = (offset(&node.place), size(&node.place));
        let mut fields = vec![format!(
            ".name = {name}, .offset = {offset}, .size = {size}"
        )];
        let kind = match &node.what {
            What::Int { signed: true } => "K_INT",
            What::Int { signed: false } => "K_UINT",
            What::Float => "K_FLOAT",
            What::Handle(h) => {
                fields.push(format!(".handle = \"{h}\""));
                "K_HANDLE"
            }
            What::ProcessId => {
                fields.push(".handle = \"pid\"".into());
                "K_HANDLE"
            }
            What::Address => "K_ADDRESS",
            What::Host => "K_HOST",
            What::Str => "K_STRING",
            What::Written => "K_WRITTEN",
            What::Extra => "K_EXTRA",
            What::Record(fields_) => {
                fields.push(self.with_children(fields_));
                "K_RECORD"
            }
            What::Union {
                discriminant,
                members,
            } => {
                fields.push(format!(".link = {{{}}}", link(discriminant)));
                let texts: Vec<String> = members
                    .iter()
                    .map(|(enumerator, member)| {
                        let text = match member {
                            Some(m) => self.node(m),
                            None => "{.kind = K_NOTHING".to_string() + "}",
                        };
                        format!("{}, .when = {enumerator}}}", &text[..text.len() - 1])
                    })
                    .collect();
                let name = self.array(&texts);
                fields.push(format!(".children = {name}, .count = {}", texts.len()));
                "K_UNION"
            }
            What::Fixed { length, element } => {
                fields.push(format!(".length = {length}"));
                fields.push(self.with_children(std::slice::from_ref(element)));
                "K_FIXED"
            }
            What::Pointer { count, element } => {
                if let Some(c) = count {
                    fields.push(format!(".link = {{{}}}", link(c)));
                }
                fields.push(self.with_children(std::slice::from_ref(element)));
                "K_POINTER"
            }
            What::Out {
                count,
                element,
                fresh,
                owner,
            } => {
                let count = count.as_ref().map(link);
                match (count, owner) {
                    (None, None) => {}
                    (Some(count), None) => fields.push(format!(".link = {{{count}}}")),
                    (count, Some(owner)) => {
                        let count = count.unwrap_or_else(|| "{FROM_NONE}".into());
                        fields.push(format!(".owner = \"{}\"", owner.handle));
                        fields.push(format!(".link = {{{count}, {}}}", link(&owner.param)));
                    }
                }
                if let Some(e) = element {
                    fields.push(self.with_children(std::slice::from_ref(e)));
                }
                if *fresh {
                    fields.push(".fresh = 1".into());
                }
                "K_OUT"
            }
            What::KernelParams { function, kernel } => {
                let kernel = kernel.as_ref().map(link).unwrap_or_default();
                fields.push(format!(".link = {{{}, {kernel}}}", link(function)));
                "K_KERNEL_PARAMS"
            }
            What::Words { count } => {
                fields.push(format!(".link = {{{}}}", link(count)));
                "K_WORDS"
            }
            What::Undescribed(why) => {
                fields.push(format!(".why = \"{why}\""));
                "K_UNDESCRIBED"
            }
        };
        fields.insert(1, format!(".kind = {kind}"));
        format!("{{{}}}", fields.join(", "))
    }

    /// `.children = ..., .count = n` of `nodes`.
    fn with_children(&mut self, nodes: &[Node]) -> String {
        let name = self.children(nodes);
        format!(".children = {name}, .count = {}", nodes.len())
    }

    /// The allocation rule of `entry`, defined; its address.
    fn allocation(&mut self, entry: &str, rule: &Allocation) -> String {
        let params = format!("{entry}_params");
        let place = |w: &Where| -> String {
            match w {
                Where::Value(p) => format!(
                    "{{W_VALUE, offsetof({params}, {p}), 0, sizeof((({params} *)0)->{p})}}"
                ),
                Where::Pointee(p) => format!(
                    "{{W_POINTEE, offsetof({params}, {p}), 0, sizeof(*(({params} *)0)->{p})}}"
                ),
                Where::Field(p, f) => format!(
                    "{{W_FIELD, offsetof({params}, {p}), offsetof(__typeof__(*(({params} *)0)->{p}), {f}), \
                     sizeof((({params} *)0)->{p}->{f})}}"
                ),
            }
        };
        let none = "{W_NONE, 0, 0, 0}".to_string();
        let (how, size, factor) = match &rule.size {
            Size::Of(w) => ("S_OF", place(w), none),
            Size::Times(a, b) => ("S_TIMES", place(a), place(b)),
            Size::Asked => ("S_ASKED", none.clone(), none),
            Size::AliasOf(w) => ("S_ALIAS_OF", place(w), none),
        };
        let name = format!("allocation_{entry}");
        writeln!(
            self.arrays,
            "static const struct allocation {name} = {{{}, {how}, {size}, {factor}}};\n",
            place(&rule.address)
        )
        .unwrap();
        format!("&{name}")
    }
}

/// `offsetof` of a place from its origin.
fn offset(place: &Place) -> String {
    if place.path.is_empty() || place.path == place.origin {
        return "0".into();
    }
    let Place { base, path, origin } = place;
    match origin.is_empty() {
        true => format!("offsetof({base}, {path})"),
        false => format!("(offsetof({base}, {path}) - offsetof({base}, {origin}))"),
    }
}

/// `sizeof` of the value at a place.
fn size(place: &Place) -> String {
    match place.path.is_empty() {
        true => format!("sizeof({})", place.base),
        false => format!("sizeof((({} *)0)->{})", place.base, place.path),
    }
}

/// A `struct link` initializer.
fn link(link: &Link) -> String {
    let from = match link.from {
        From::Base => "FROM_BASE",
        From::Params => "FROM_PARAMS",
        From::Pointee => "FROM_POINTEE",
    };
    let place = &link.place;
    let size = match link.from {
        From::Pointee => format!("sizeof(*(({} *)0)->{})", place.base, place.path),
        _ => size(place),
    };
    format!("{{{from}, {}, {size}, {}}}", offset(place), link.minus)
}
