//! How the recorder reads one driver entry's parameters: a tree of [`Node`]s per entry, each a
//! value at a place that C names (`offsetof` and `sizeof` of a type and a member path), classified
//! from the bindings' types and the hand-written [`rules`].

use crate::bindings::{Bindings, Named, Record};
use crate::rules;
use quote::ToTokens;

/// Where a value is, as C spells it: at `offsetof(base, path) - offsetof(base, origin)` from the
/// start of what the recorder reads (the entry's parameter struct, a pointee, an array element),
/// `sizeof(((base *)0)->path)` bytes; the whole `base` where `path` is empty.
#[derive(Clone, Debug)]
pub struct Place {
    /// The C type the offsets are taken in.
    pub base: String,
    /// The member designator (`res.array.hArray`, `attrs`), empty for the whole base.
    pub path: String,
    /// The designator the offsets are taken from (an array element's), empty for the base.
    pub origin: String,
}

impl Place {
    /// No place: where an element or a pointee has no siblings.
    const NOWHERE: Place = Place {
        base: String::new(),
        path: String::new(),
        origin: String::new(),
    };

    /// The whole of `base`.
    fn whole(base: &str) -> Place {
        Place {
            base: base.to_string(),
            path: String::new(),
            origin: String::new(),
        }
    }

    /// Its member `name`.
    fn member(&self, name: &str) -> Place {
        let path = match self.path.is_empty() {
            true => name.to_string(),
            false => format!("{}.{name}", self.path),
        };
        Place {
            path,
            ..self.clone()
        }
    }

    /// Its first element, the origin of the element's own places (a fixed-size array).
    fn element(&self) -> Place {
        let path = format!("{}[0]", self.path);
        Place {
            base: self.base.clone(),
            origin: path.clone(),
            path,
        }
    }
}

/// Another value a node reads: an array's length, a union's discriminant, a launch's function.
#[derive(Clone, Debug)]
pub struct Link {
    /// Where it is.
    pub place: Place,
    /// What `place` is taken from.
    pub from: From,
    /// Subtracted from the value (an array of `rank - 1` strides).
    pub minus: u8,
}

/// What a [`Link`]'s place is taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    /// The same start as the node's own place.
    Base,
    /// The entry's parameter struct.
    Params,
    /// The value behind a parameter that is a pointer, read after the call.
    Pointee,
}

/// One value: its printed name (none for an element) and where and what it is.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: Option<String>,
    pub place: Place,
    pub what: What,
}

/// What a value is, and so how it is printed (the trace format: `ci/coverage/recorder.c`).
#[derive(Clone, Debug)]
pub enum What {
    /// An integer or enum, signed or not.
    Int { signed: bool },
    /// A `float` or `double`.
    Float,
    /// A handle of the typedef named (`CUcontext`), by its identity.
    Handle(String),
    /// A process id, by its identity (`pid#1`).
    ProcessId,
    /// A device address (`CUdeviceptr`), by its allocation and offset.
    Address,
    /// A host pointer (`void *`, a function pointer): null, an allocation's, or `host`.
    Host,
    /// A C string.
    Str,
    /// A structure by value: its fields.
    Record(Vec<Node>),
    /// A union, the member its discriminant selects (each member with its enumerator's C name).
    Union {
        discriminant: Link,
        members: Vec<(String, Option<Node>)>,
    },
    /// A fixed-size array of `length` elements.
    Fixed { length: usize, element: Box<Node> },
    /// A pointer to an input: one value, or an array of `count` values.
    Pointer {
        count: Option<Link>,
        element: Box<Node>,
    },
    /// A pointer the call writes through (a parameter, or a member of an input structure that
    /// the call sets to its own array): one value, or `count` values; their element where it
    /// prints as an identity (else the output is `=>out`), whether a handle written is a new
    /// object, and the handle it lives no longer than.
    Out {
        count: Option<Link>,
        element: Option<Box<Node>>,
        fresh: bool,
        owner: Option<Owner>,
    },
    /// A member of an input structure that the call writes (`=>out`).
    Written,
    /// A launch's `kernelParams`, each by the size the driver gives for `function` (else `kernel`).
    KernelParams {
        function: Link,
        kernel: Option<Link>,
    },
    /// A launch's `extra`: the argument buffer it names.
    Extra,
    /// An array of `count` pointer-sized words: allocations' addresses, `host`, or integers.
    Words { count: Link },
    /// What the recorder does not describe, and why (`union`, `opaque`, ...).
    Undescribed(String),
}

/// The handle that the handles a call writes live no longer than: its typedef, and the parameter
/// that names it.
#[derive(Clone, Debug)]
pub struct Owner {
    pub handle: String,
    pub param: Link,
}

/// One driver entry's description.
pub struct Function {
    /// Its parameters.
    pub params: Vec<Node>,
    /// The parameter whose handle or allocation it ends, if it is a release.
    pub released: Option<usize>,
    /// Where the memory it returns is, if it returns memory.
    pub allocation: Option<&'static rules::Allocation>,
}

/// How deep pointers are followed from a parameter.
const DEPTH: usize = 3;

/// Describes the entry `entry` (its parameter struct in C: `<entry>_params`) whose parameters
/// the bindings give as `params`.
pub fn function(bindings: &Bindings, entry: &str, params: &[(String, syn::Type)]) -> Function {
    let base = rules::base_name(entry);
    let params_place = Place::whole(&format!("{entry}_params"));
    let describer = Describer {
        bindings,
        base: &base,
        params: Siblings {
            place: &params_place,
            fields: params,
        },
    };
    let nodes: Vec<Node> = params.iter().map(|(n, t)| describer.param(n, t)).collect();
    let released = (rules::releases(&base))
        .then(|| nodes.iter().position(|n| is_identity(&n.what)))
        .flatten();
    Function {
        released,
        allocation: rules::allocation(&base),
        params: nodes,
    }
}

/// Whether a value prints as an identity (a handle, an address, a host pointer).
pub fn is_identity(what: &What) -> bool {
    matches!(what, What::Handle(_) | What::Address | What::Host)
}

/// The struct (or parameter list) a value is a member of: where it is, and its members.
#[derive(Clone, Copy)]
struct Siblings<'s> {
    place: &'s Place,
    fields: &'s [(String, syn::Type)],
}

impl<'s> Siblings<'s> {
    /// None: an element or a pointee.
    const NONE: Siblings<'static> = Siblings {
        place: &Place::NOWHERE,
        fields: &[],
    };

    /// The place of the member `name`, if there is one.
    fn member(&self, name: &str) -> Option<Place> {
        (self.fields.iter().any(|(f, _)| f == name)).then(|| self.place.member(name))
    }
}

/// Describes the parameters of one entry.
struct Describer<'b> {
    bindings: &'b Bindings,
    /// The entry's base name (`cuMemcpyAsync` for `cuMemcpyAsync_ptsz`).
    base: &'b str,
    /// Its parameters, as members of `<entry>_params`.
    params: Siblings<'b>,
}

impl Describer<'_> {
    /// The parameter `name` of type `ty`.
    fn param(&self, name: &str, ty: &syn::Type) -> Node {
        let place = self.params.place.member(name);
        let what = match pointee(ty) {
            Some((target, constant)) => self.param_pointer(name, target, constant),
            None if rules::is_process_id(name) => What::ProcessId,
            None => self.value(&place, ty, self.params, DEPTH),
        };
        Node {
            name: Some(name.to_string()),
            place,
            what,
        }
    }

    /// A parameter that is a pointer to `target` (`constant`: to const).
    fn param_pointer(&self, name: &str, target: &syn::Type, constant: bool) -> What {
        if let Some(special) = self.special_pointer(name, target, constant, self.params, true) {
            return special;
        }
        let count = self.count(name);
        let direction = rules::direction(self.base, name).unwrap_or_else(|| {
            let get_like = rules::get_like(self.base);
            let out = if constant {
                false
            } else if name.ends_with("_out") {
                true
            } else if let Some(count) = &count {
                count.from == From::Pointee || get_like
            } else {
                !self.is_record(target) || get_like
            };
            match out {
                true => rules::Direction::Out,
                false => rules::Direction::In,
            }
        });
        if direction == rules::Direction::Out {
            return self.out(name, target, count);
        }
        let Some(c_type) = self.c_type(target) else {
            return What::Undescribed("type".into());
        };
        let place = Place::whole(&c_type);
        let mut element = Node {
            name: None,
            what: self.value(&place, target, Siblings::NONE, DEPTH - 1),
            place: place.clone(),
        };
        if let Some(length) = rules::length(self.base, name) {
            element = Node {
                name: None,
                place,
                what: What::Fixed {
                    length,
                    element: Box::new(element),
                },
            };
        }
        What::Pointer {
            count,
            element: Box::new(element),
        }
    }

    /// What the call writes through the pointer `name` to `target` (`count` of them).
    fn out(&self, name: &str, target: &syn::Type, count: Option<Link>) -> What {
        let Some(c_type) = self.c_type(target) else {
            return What::Undescribed("type".into());
        };
        let place = Place::whole(&c_type);
        let what = self.value(&place, target, Siblings::NONE, 0);
        let handle = matches!(what, What::Handle(_));
        What::Out {
            count,
            fresh: handle && rules::creates(self.base, name),
            owner: handle.then(|| self.owner()).flatten(),
            element: is_identity(&what).then(|| {
                Box::new(Node {
                    name: None,
                    place,
                    what,
                })
            }),
        }
    }

    /// The handle parameter that the rules say the handles this entry writes live no longer
    /// than.
    fn owner(&self) -> Option<Owner> {
        let name = rules::owner(self.base)?;
        let (_, ty) = self.params.fields.iter().find(|(p, _)| p == name)?;
        let place = self.params.member(name)?;
        match self.value(&place, ty, self.params, 0) {
            What::Handle(handle) => Some(Owner {
                handle,
                param: Link {
                    place,
                    from: From::Params,
                    minus: 0,
                },
            }),
            _ => None,
        }
    }

    /// A pointer named `name` (a parameter where `param`) that is none of the common shapes: a
    /// string, a host pointer, `kernelParams`, `extra`, an array of words.
    fn special_pointer(
        &self,
        name: &str,
        target: &syn::Type,
        constant: bool,
        siblings: Siblings,
        param: bool,
    ) -> Option<What> {
        match path_name(target).and_then(|n| primitive(&n)) {
            // A `char *` parameter is a buffer the call writes; any other is a string.
            Some(Primitive::Char) if param && !constant => {
                return Some(What::Out {
                    count: None,
                    element: None,
                    fresh: false,
                    owner: None,
                })
            }
            Some(Primitive::Char) => return Some(What::Str),
            Some(Primitive::Void) => return Some(What::Host),
            _ => {}
        }
        // `void **`
        let (inner, _) = pointee(target)?;
        if !matches!(
            path_name(inner).and_then(|n| primitive(&n)),
            Some(Primitive::Void)
        ) {
            return None;
        }
        let sibling = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| siblings.member(n))
                .map(|place| Link {
                    place,
                    from: From::Base,
                    minus: 0,
                })
        };
        Some(match name {
            "kernelParams" => match sibling(&["f", "func", "function"]) {
                Some(function) => What::KernelParams {
                    function,
                    kernel: sibling(&["kern"]),
                },
                None => What::Undescribed("params".into()),
            },
            "extra" => What::Extra,
            _ if !param => What::Host,
            _ => match self.count(name) {
                Some(count) => What::Words { count },
                None => What::Out {
                    count: None,
                    element: Some(Box::new(Node {
                        name: None,
                        place: Place::whole("void *"),
                        what: What::Host,
                    })),
                    fresh: false,
                    owner: None,
                },
            },
        })
    }

    /// The length of the array parameter `name`: the count parameter the rules or its name give.
    fn count(&self, name: &str) -> Option<Link> {
        let (count, minus) = rules::count(self.base, name)
            .map(|(c, m)| (c.to_string(), m))
            .or_else(|| {
                count_names(name)
                    .into_iter()
                    .find(|c| self.params.member(c).is_some())
                    .map(|c| (c, 0))
            })?;
        let (_, ty) = self.params.fields.iter().find(|(p, _)| *p == count)?;
        let from = match pointee(ty) {
            Some(_) => From::Pointee,
            None => From::Base,
        };
        Some(Link {
            place: self.params.member(&count)?,
            from,
            minus,
        })
    }

    /// A value of type `ty` at `place`, a member of `siblings`; pointers are followed while
    /// `depth` lasts.
    fn value(&self, place: &Place, ty: &syn::Type, siblings: Siblings, depth: usize) -> What {
        match ty {
            syn::Type::Array(a) => {
                let Some(length) = array_length(&a.len) else {
                    return What::Undescribed("array".into());
                };
                let element_place = place.element();
                let element = Node {
                    name: None,
                    what: self.value(&element_place, &a.elem, Siblings::NONE, depth),
                    place: element_place,
                };
                What::Fixed {
                    length,
                    element: Box::new(element),
                }
            }
            syn::Type::Ptr(_) => self.field_pointer(place, ty, siblings, depth),
            syn::Type::Path(_) => {
                let Some(name) = path_name(ty) else {
                    return What::Undescribed("type".into());
                };
                if name == "Option" {
                    return What::Host;
                }
                match primitive(&name) {
                    Some(Primitive::Int { signed }) => What::Int { signed },
                    Some(Primitive::Char) => What::Int { signed: true },
                    Some(Primitive::Float) => What::Float,
                    Some(Primitive::Void) => What::Undescribed("void".into()),
                    None => self.named(place, &name, siblings, depth),
                }
            }
            _ => What::Undescribed("type".into()),
        }
    }

    /// A value of the type named `name`.
    fn named(&self, place: &Place, name: &str, siblings: Siblings, depth: usize) -> What {
        let unversioned = rules::unversioned(name);
        if unversioned == rules::ADDRESS {
            return What::Address;
        }
        if rules::HANDLES_64.contains(&unversioned) {
            return What::Handle(unversioned.to_string());
        }
        if rules::OPAQUE_RECORDS.contains(&name) {
            return What::Undescribed("opaque".into());
        }
        match self.bindings.named(name) {
            Some(Named::Alias(t)) => {
                if let Some((target, _)) = pointee(t) {
                    let opaque = path_name(target)
                        .is_some_and(|n| matches!(self.bindings.named(&n), Some(Named::Opaque)));
                    if opaque {
                        return What::Handle(unversioned.to_string());
                    }
                }
                self.value(place, t, siblings, depth)
            }
            Some(Named::Newtype(t)) => self.value(place, t, Siblings::NONE, depth),
            Some(Named::Record(r)) if r.union => self.union(place, name, r, siblings, depth),
            Some(Named::Record(r)) => What::Record(self.fields(place, r, depth)),
            Some(Named::Opaque) => What::Undescribed("opaque".into()),
            None => What::Undescribed("type".into()),
        }
    }

    /// The fields of the struct `record` at `place`, but its padding and reserved members
    /// (what a program leaves unset there is no argument); an anonymous struct's fields are its
    /// parent's (as C reaches them).
    fn fields(&self, place: &Place, record: &Record, depth: usize) -> Vec<Node> {
        let members = Siblings {
            place,
            fields: &record.fields,
        };
        let mut nodes = Vec::new();
        for (name, ty) in &record.fields {
            if rules::is_padding(name) {
                continue;
            }
            if name.starts_with("__bindgen_anon") {
                // C reaches an anonymous member's fields as its parent's: a struct's are listed
                // with the parent's, a union's selected member is printed as one of them.
                match self.value(place, ty, members, depth) {
                    What::Record(fields) => nodes.extend(fields),
                    what @ What::Union { .. } => nodes.push(Node {
                        name: None,
                        place: place.clone(),
                        what,
                    }),
                    what => nodes.push(Node {
                        name: Some("union".into()),
                        place: place.clone(),
                        what,
                    }),
                }
                continue;
            }
            let field_place = place.member(name);
            let what = match name.ends_with("_out") && pointee(ty).is_none() {
                true => What::Written,
                false => self.value(&field_place, ty, members, depth),
            };
            nodes.push(Node {
                name: Some(name.clone()),
                what,
                place: field_place,
            });
        }
        nodes
    }

    /// The union `name` at `place`, a member of `siblings`: its members by the rules'
    /// discriminant, a single member as itself, else undescribed.
    fn union(
        &self,
        place: &Place,
        name: &str,
        record: &Record,
        siblings: Siblings,
        depth: usize,
    ) -> What {
        let own = Siblings {
            place,
            fields: &record.fields,
        };
        let member = |member: &str| {
            let (_, ty) = record.fields.iter().find(|(n, _)| n == member)?;
            let member_place = place.member(member);
            Some(Node {
                name: Some(member.to_string()),
                what: self.value(&member_place, ty, own, depth),
                place: member_place,
            })
        };
        let Some(rule) = rules::UNIONS.iter().find(|u| u.unions.contains(&name)) else {
            let described: Vec<&String> = record
                .fields
                .iter()
                .map(|(n, _)| n)
                .filter(|n| !rules::is_padding(n))
                .collect();
            return match described.as_slice() {
                [only] => match member(only) {
                    Some(node) => What::Record(vec![node]),
                    None => What::Undescribed("union".into()),
                },
                _ => What::Undescribed("union".into()),
            };
        };
        // The discriminant: a member of the struct holding the union, a member of the union
        // itself, or a parameter of the entry.
        let discriminant = rule.discriminants.iter().find_map(|d| {
            let link = |place, from| Link {
                place,
                from,
                minus: 0,
            };
            (siblings.member(d).map(|p| link(p, From::Base)))
                .or_else(|| own.member(d).map(|p| link(p, From::Base)))
                .or_else(|| self.params.member(d).map(|p| link(p, From::Params)))
        });
        let Some(discriminant) = discriminant else {
            return What::Undescribed("union".into());
        };
        let members = rule
            .members
            .iter()
            .filter(|(enumerator, _)| self.bindings.has_enumerator(enumerator))
            .filter_map(|(enumerator, m)| match m {
                None => Some((enumerator.to_string(), None)),
                Some(m) => member(m).map(|node| (enumerator.to_string(), Some(node))),
            })
            .collect();
        What::Union {
            discriminant,
            members,
        }
    }

    /// A pointer at `place` (a member of `siblings`, or an array element).
    fn field_pointer(
        &self,
        place: &Place,
        ty: &syn::Type,
        siblings: Siblings,
        depth: usize,
    ) -> What {
        let Some((target, constant)) = pointee(ty) else {
            return What::Undescribed("type".into());
        };
        let name = last_member(&place.path);
        if let Some(special) = self.special_pointer(name, target, constant, siblings, false) {
            return special;
        }
        let count = count_names(name)
            .into_iter()
            .chain(rules::field_count(name).map(str::to_string))
            .find_map(|c| siblings.member(&c))
            .map(|place| Link {
                place,
                from: From::Base,
                minus: 0,
            });
        if name.ends_with("_out") {
            // A member the call sets to an array of its own (a conditional node's body graphs).
            return self.out(name, target, count);
        }
        if !constant && count.is_none() && !self.is_record(target) {
            // A single value the call writes or the program keeps: the caller's memory.
            return What::Host;
        }
        if depth == 0 {
            return What::Undescribed("deep".into());
        }
        let Some(c_type) = self.c_type(target) else {
            return What::Undescribed("type".into());
        };
        let element_place = Place::whole(&c_type);
        What::Pointer {
            count,
            element: Box::new(Node {
                name: None,
                what: self.value(&element_place, target, Siblings::NONE, depth - 1),
                place: element_place,
            }),
        }
    }

    /// Whether `ty` names a struct or union (through aliases).
    fn is_record(&self, ty: &syn::Type) -> bool {
        let Some(name) = path_name(ty) else {
            return false;
        };
        match self.bindings.named(&name) {
            Some(Named::Alias(t)) if pointee(t).is_none() => self.is_record(t),
            Some(Named::Record(_)) => !rules::OPAQUE_RECORDS.contains(&name.as_str()),
            _ => false,
        }
    }

    /// How C spells the type `ty` (a pointee's, for `sizeof`), if it can.
    fn c_type(&self, ty: &syn::Type) -> Option<String> {
        match ty {
            syn::Type::Ptr(p) => Some(format!("{} *", self.c_type(&p.elem)?)),
            syn::Type::Path(_) => {
                let name = path_name(ty)?;
                if let Some(c) = c_primitive(&name) {
                    return Some(c.to_string());
                }
                Some(match self.bindings.named(&name)? {
                    Named::Record(r) if r.union => format!("union {name}"),
                    Named::Record(_) => match name.ends_with("_st") || name.ends_with("_union") {
                        true => format!("struct {name}"),
                        false => name,
                    },
                    Named::Newtype(_) if name.ends_with("_enum") => format!("enum {name}"),
                    _ => name,
                })
            }
            _ => None,
        }
    }
}

/// The last member of a designator (`attrs` of `config.attrs`).
fn last_member(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The names the count of an array named `name` goes by: `num<Name>`, `num<Name>s`, and for
/// `<x>Values`, those of `<x>` (`optionValues` is counted by `numOptions`), `nb<Name>`.
fn count_names(name: &str) -> Vec<String> {
    let capital = |s: &str| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let mut stems = vec![name.to_string()];
    if let Some(stem) = name.strip_suffix("Values") {
        stems.push(stem.to_string());
    }
    let mut names = Vec::new();
    for stem in stems {
        let cap = capital(&stem);
        names.push(format!("num{cap}"));
        names.push(format!("num{cap}s"));
        names.push(format!("nb{cap}"));
    }
    names
}

/// The pointee of a pointer type, and whether it is `const`.
fn pointee(ty: &syn::Type) -> Option<(&syn::Type, bool)> {
    match ty {
        syn::Type::Ptr(p) => Some((&p.elem, p.const_token.is_some())),
        _ => None,
    }
}

/// The last path segment of a type (`c_uint` of `::core::ffi::c_uint`).
fn path_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The length of a fixed-size array (`16usize`).
fn array_length(expr: &syn::Expr) -> Option<usize> {
    let text = expr.to_token_stream().to_string();
    text.trim_end_matches("usize").trim().parse().ok()
}

/// A primitive type of the bindings.
enum Primitive {
    Int { signed: bool },
    Char,
    Float,
    Void,
}

/// The primitive a Rust type name is, if it is one.
fn primitive(name: &str) -> Option<Primitive> {
    Some(match name {
        "c_char" | "c_schar" => Primitive::Char,
        "c_int" | "c_short" | "c_long" | "c_longlong" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            Primitive::Int { signed: true }
        }
        "c_uint" | "c_uchar" | "c_ushort" | "c_ulong" | "c_ulonglong" | "u8" | "u16" | "u32"
        | "u64" | "usize" => Primitive::Int { signed: false },
        "f32" | "f64" | "c_float" | "c_double" => Primitive::Float,
        "c_void" => Primitive::Void,
        _ => return None,
    })
}

/// How C spells a primitive Rust type name.
fn c_primitive(name: &str) -> Option<&'static str> {
    Some(match name {
        "c_char" => "char",
        "c_schar" | "i8" => "signed char",
        "c_uchar" | "u8" => "unsigned char",
        "c_short" | "i16" => "short",
        "c_ushort" | "u16" => "unsigned short",
        "c_int" | "i32" => "int",
        "c_uint" | "u32" => "unsigned int",
        "c_long" => "long",
        "c_ulong" => "unsigned long",
        "c_longlong" | "i64" => "long long",
        "c_ulonglong" | "u64" => "unsigned long long",
        "usize" => "size_t",
        "isize" => "ptrdiff_t",
        "f32" | "c_float" => "float",
        "f64" | "c_double" => "double",
        "c_void" => "void",
        _ => return None,
    })
}
