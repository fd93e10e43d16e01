//! The arguments of a run of calls in a trace (what the recorder writes after the count), read as
//! values and compared, the first difference named by the argument's path.
//!
//! `-` is none: a function without parameters, a recorder told not to write them
//! (`CUDA_CALLS_ARGUMENTS=0`), or a line of the format without arguments. `?<why>` alone is a call
//! the recorder could not describe. Else the arguments are items `<name>=<value>` separated by
//! spaces, `<name>` the parameter's name in `cuda.h`, and a value one of:
//!
//! - a structure passed by pointer, `{<name>=<value>,...}`, its fields by these rules;
//! - an array, `[<value>,...]`;
//! - an out-parameter, `=><value>`: what the call wrote;
//! - a C string, `"..."` (a `\` escapes the next character; no space, spaces are `\s`);
//! - any other word, compared as written: an integer or float, `null`, a handle's identity
//!   (`CUcontext#2`), an address's (`mem#3+256`, `addr#4`), `host`, `?<why>`.
//!
//! An argument's path names it inside its call: the parameter, then `.<field>` into a structure
//! and `[<index>]` into an array (`config.attrs[1].value`, `kernelParams[2]`).

use std::fmt;

/// What the recorder writes for a call without arguments.
pub const NONE: &str = "-";

/// One argument's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar or a C string, as written.
    Word(String),
    /// A structure's fields, in order.
    Structure(Vec<(String, Value)>),
    Array(Vec<Value>),
    /// What the call wrote through an out-parameter.
    Out(Box<Value>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Word(word) => f.write_str(word),
            Value::Structure(fields) => {
                f.write_str("{")?;
                for (k, (name, value)) in fields.iter().enumerate() {
                    let comma = if k == 0 { "" } else { "," };
                    write!(f, "{comma}{name}={value}")?;
                }
                f.write_str("}")
            }
            Value::Array(values) => {
                f.write_str("[")?;
                for (k, value) in values.iter().enumerate() {
                    let comma = if k == 0 { "" } else { "," };
                    write!(f, "{comma}{value}")?;
                }
                f.write_str("]")
            }
            Value::Out(value) => write!(f, "=>{value}"),
        }
    }
}

/// A call's arguments, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arguments {
    /// `-` or `?<why>`, as written: nothing to compare argument by argument.
    Whole(String),
    /// The items, in order.
    Items(Vec<(String, Value)>),
}

/// Where two calls' arguments first differ: the argument's path (empty where the arguments as a
/// whole differ: `-` against items) and each side's value there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub path: String,
    pub c: String,
    pub rust: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.as_str() {
            "" => f.write_str("in its arguments")?,
            path => write!(f, "in its argument {path}")?,
        }
        write!(f, ": C twin {}, Rust example {}", self.c, self.rust)
    }
}

/// Reads `text`, the arguments of one trace line; an error says what is wrong where.
pub fn parse(text: &str) -> Result<Arguments, String> {
    if text == NONE || (text.starts_with('?') && !text.contains([' ', '='])) {
        return Ok(Arguments::Whole(text.to_string()));
    }
    let mut reader = Reader { text, at: 0 };
    let mut items = Vec::new();
    loop {
        items.push(reader.item()?);
        match reader.next() {
            None => return Ok(Arguments::Items(items)),
            Some(' ') => {}
            Some(other) => return Err(reader.bad(&format!("`{other}` after an argument"))),
        }
    }
}

/// Where the arguments `c` and `rust` (each as a trace line writes them) first differ; `None`
/// where they are the same. Text that does not read as arguments is compared as a whole.
pub fn compare(c: &str, rust: &str) -> Option<Difference> {
    let whole = || {
        (c != rust).then(|| Difference {
            path: String::new(),
            c: c.to_string(),
            rust: rust.to_string(),
        })
    };
    match (parse(c), parse(rust)) {
        (Ok(Arguments::Items(a)), Ok(Arguments::Items(b))) => compare_fields("", ".", &a, &b),
        _ => whole(),
    }
}

/// The first difference of two lists of named values under `path` (`separator` between the path
/// and a name: `.` in a structure, nothing at the top).
fn compare_fields(
    path: &str,
    separator: &str,
    a: &[(String, Value)],
    b: &[(String, Value)],
) -> Option<Difference> {
    let joined = |name: &str| match path {
        "" => name.to_string(),
        _ => format!("{path}{separator}{name}"),
    };
    for k in 0..a.len().max(b.len()) {
        match (a.get(k), b.get(k)) {
            (Some((na, va)), Some((nb, vb))) if na == nb => {
                if let Some(d) = compare_values(&joined(na), va, vb) {
                    return Some(d);
                }
            }
            (x, y) => {
                let name = x.or(y).map(|(n, _)| n.as_str()).unwrap_or_default();
                let show = |f: Option<&(String, Value)>| {
                    f.map_or("(none)".to_string(), |(n, v)| format!("{n}={v}"))
                };
                return Some(Difference {
                    path: joined(name),
                    c: show(x),
                    rust: show(y),
                });
            }
        }
    }
    None
}

/// The first difference of the values `a` and `b` at `path`.
fn compare_values(path: &str, a: &Value, b: &Value) -> Option<Difference> {
    match (a, b) {
        (Value::Structure(fa), Value::Structure(fb)) => compare_fields(path, ".", fa, fb),
        (Value::Array(va), Value::Array(vb)) => {
            for k in 0..va.len().max(vb.len()) {
                let at = format!("{path}[{k}]");
                match (va.get(k), vb.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = compare_values(&at, x, y) {
                            return Some(d);
                        }
                    }
                    (x, y) => {
                        let show = |v: Option<&Value>| v.map_or("(none)".into(), Value::to_string);
                        return Some(Difference {
                            path: at,
                            c: show(x),
                            rust: show(y),
                        });
                    }
                }
            }
            None
        }
        (Value::Out(x), Value::Out(y)) => compare_values(path, x, y),
        _ => (a != b).then(|| Difference {
            path: path.to_string(),
            c: a.to_string(),
            rust: b.to_string(),
        }),
    }
}

/// Reads arguments left to right.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn bad(&self, why: &str) -> String {
        format!("arguments `{}`, at byte {}: {why}", self.text, self.at)
    }

    /// `<name>=<value>`.
    fn item(&mut self) -> Result<(String, Value), String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
        let name = self.text[start..self.at].to_string();
        if name.is_empty() || self.next() != Some('=') {
            return Err(self.bad("not `<name>=<value>`"));
        }
        Ok((name, self.value()?))
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some('{') => {
                self.at += 1;
                let mut fields = Vec::new();
                if self.peek() == Some('}') {
                    self.at += 1;
                    return Ok(Value::Structure(fields));
                }
                loop {
                    fields.push(self.item()?);
                    match self.next() {
                        Some(',') => {}
                        Some('}') => return Ok(Value::Structure(fields)),
                        _ => return Err(self.bad("a structure not closed by `}`")),
                    }
                }
            }
            Some('[') => {
                self.at += 1;
                let mut values = Vec::new();
                if self.peek() == Some(']') {
                    self.at += 1;
                    return Ok(Value::Array(values));
                }
                loop {
                    values.push(self.value()?);
                    match self.next() {
                        Some(',') => {}
                        Some(']') => return Ok(Value::Array(values)),
                        _ => return Err(self.bad("an array not closed by `]`")),
                    }
                }
            }
            Some('=') if self.text[self.at..].starts_with("=>") => {
                self.at += 2;
                Ok(Value::Out(Box::new(self.value()?)))
            }
            Some('"') => {
                let start = self.at;
                self.at += 1;
                loop {
                    match self.next() {
                        Some('\\') if self.next().is_some() => {}
                        Some('"') => break,
                        Some(' ') | Some('\\') | None => {
                            return Err(self.bad("a string not closed by `\"`"))
                        }
                        Some(_) => {}
                    }
                }
                Ok(Value::Word(self.text[start..self.at].to_string()))
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| !" ,{}[]\"".contains(c)) {
                    self.next();
                }
                match &self.text[start..self.at] {
                    "" => Err(self.bad("a value missing")),
                    word => Ok(Value::Word(word.to_string())),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(w: &str) -> Value {
        Value::Word(w.to_string())
    }

    #[test]
    fn every_kind_of_value_reads_and_writes_back() {
        let text = "config={gridDimX=4,attrs=[{id=2,value=?union},{id=7,value=?union}],\
                    numAttrs=2,hStream=CUstream#1} f=CUfunction#1 kernelParams=[mem#1+0,4096,\
                    [1,2]] name=\"a\\sb,c}\\\"\" phEvent==>CUevent#1 ptr=null scale=-1.5 p=host";
        let Ok(Arguments::Items(items)) = parse(text) else {
            panic!("{:?}", parse(text))
        };
        let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "config",
                "f",
                "kernelParams",
                "name",
                "phEvent",
                "ptr",
                "scale",
                "p"
            ]
        );
        assert_eq!(items[3].1, word("\"a\\sb,c}\\\"\""));
        assert_eq!(items[4].1, Value::Out(Box::new(word("CUevent#1"))));
        let back: Vec<String> = items.iter().map(|(n, v)| format!("{n}={v}")).collect();
        assert_eq!(back.join(" "), text);
        for whole in ["-", "?undescribed"] {
            assert_eq!(parse(whole), Ok(Arguments::Whole(whole.into())));
        }
        for bad in [
            "", "x", "=1", "a=1  b=2", "a=1,b=2", "a={b=1", "a=[1,2", "a=\"open", "a=\"x\\", "a=",
            "a={b}", "a=1]",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} read as {:?}", parse(bad));
        }
    }

    /// The four kinds of wrong argument a port may pass, each named by its path with both values.
    #[test]
    fn a_wrong_argument_is_named_by_its_path() {
        let differs = |c: &str, rust: &str| compare(c, rust).map(|d| d.to_string());
        // A wrong handle.
        assert_eq!(
            differs(
                "hEvent=CUevent#1 hStream=CUstream#1",
                "hEvent=CUevent#1 hStream=CUstream#2"
            )
            .as_deref(),
            Some("in its argument hStream: C twin CUstream#1, Rust example CUstream#2")
        );
        // A wrong flag.
        assert_eq!(
            differs(
                "phStream==>CUstream#1 Flags=1",
                "phStream==>CUstream#1 Flags=0"
            )
            .as_deref(),
            Some("in its argument Flags: C twin 1, Rust example 0")
        );
        // A wrong offset into the right allocation.
        assert_eq!(
            differs(
                "data==>out attribute=1 ptr=mem#1+0",
                "data==>out attribute=1 ptr=mem#1+256"
            )
            .as_deref(),
            Some("in its argument ptr: C twin mem#1+0, Rust example mem#1+256")
        );
        // A wrong field of a structure, and one inside an array of structures.
        let config = |shared: u32, value: &str| {
            format!(
                "config={{gridDimX=1,sharedMemBytes={shared},attrs=[{{id=1,value=0}},\
                 {{id=4,value={value}}}],numAttrs=2}} f=CUfunction#1 kernelParams=[mem#1+0,7]"
            )
        };
        assert_eq!(
            differs(&config(0, "1"), &config(1024, "1")).as_deref(),
            Some("in its argument config.sharedMemBytes: C twin 0, Rust example 1024")
        );
        let d = compare(&config(0, "1"), &config(0, "2")).unwrap();
        assert_eq!(
            (d.path.as_str(), d.c.as_str()),
            ("config.attrs[1].value", "1")
        );
        let launch = |seven: &str| format!("f=CUfunction#1 kernelParams=[mem#1+0,{seven}]");
        assert_eq!(
            compare(&launch("7"), &launch("8")).unwrap().path,
            "kernelParams[1]"
        );
        // The same arguments; a missing one; arguments against none.
        assert_eq!(compare(&config(0, "1"), &config(0, "1")), None);
        assert_eq!(
            differs("a=1 b=2", "a=1").as_deref(),
            Some("in its argument b: C twin b=2, Rust example (none)")
        );
        assert_eq!(
            differs("a=[1,2]", "a=[1]").as_deref(),
            Some("in its argument a[1]: C twin 2, Rust example (none)")
        );
        assert_eq!(
            differs("-", "a=1").as_deref(),
            Some("in its arguments: C twin -, Rust example a=1")
        );
        assert_eq!(compare("-", "-"), None);
    }
}
