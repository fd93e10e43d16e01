//! A task's arguments, read against its usage line: the one declaration of what the task takes,
//! which `cargo xtask` lists, `cargo xtask help TASK` prints and a wrong argument is answered with.
//!
//! A usage line is words: `--flag` (the flag itself), `NAME` (one argument not starting with `-`),
//! `NAME...` (one or more), `[...]` (optional), `a | b` (either, inside brackets or across the line).

/// The arguments a task was given, by the usage line's words.
#[derive(Debug, Default)]
pub struct Args(Vec<(String, String)>);

impl Args {
    /// Whether the flag `flag` (`--check`) was given.
    pub fn flag(&self, flag: &str) -> bool {
        self.0.iter().any(|(word, _)| word == flag)
    }

    /// The argument given for `name` (`DIR`), if any.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values(name).into_iter().next()
    }

    /// The arguments given for `name` (`VERSION...`), in order.
    pub fn values(&self, name: &str) -> Vec<&str> {
        (self.0.iter())
            .filter(|(word, _)| word == name)
            .map(|(_, value)| value.as_str())
            .collect()
    }
}

/// The arguments `args` as the usage line `usage` reads them; `None` if they do not fit it.
pub fn parse(usage: &str, args: &[String]) -> Option<Args> {
    let spaced = usage
        .replace('[', " [ ")
        .replace(']', " ] ")
        .replace('|', " | ")
        .replace(" ...", "...");
    let mut tokens = spaced.split_whitespace().peekable();
    let choices = choices(&mut tokens);
    let root = [Word::Either(choices, false)];
    let mut found = Vec::new();
    fits(&root, args, &mut found).then_some(Args(found))
}

/// One word of a usage line.
#[derive(Clone, Debug)]
enum Word {
    Flag(String),
    Value(String),
    Values(String),
    /// One of the sequences; `true`: or none of them.
    Either(Vec<Vec<Word>>, bool),
}

type Tokens<'a> = std::iter::Peekable<std::str::SplitWhitespace<'a>>;

/// The sequences, separated by `|`, up to a `]` or the end.
fn choices(tokens: &mut Tokens) -> Vec<Vec<Word>> {
    let mut choices = vec![Vec::new()];
    while let Some(token) = tokens.next() {
        let word = match token {
            "]" => break,
            "|" => {
                choices.push(Vec::new());
                continue;
            }
            "[" => Word::Either(self::choices(tokens), true),
            flag if flag.starts_with("--") => Word::Flag(flag.into()),
            name => match name.strip_suffix("...") {
                Some(name) => Word::Values(name.into()),
                None => Word::Value(name.into()),
            },
        };
        choices.last_mut().expect("one choice at least").push(word);
    }
    choices
}

/// Whether `args` are `words`, each found argument pushed onto `found` (undone where not).
fn fits(words: &[Word], args: &[String], found: &mut Vec<(String, String)>) -> bool {
    let Some((word, rest)) = words.split_first() else {
        return args.is_empty();
    };
    let kept = found.len();
    let positional = |a: &String| !a.starts_with('-');
    let fit = match word {
        Word::Flag(flag) => {
            args.first().is_some_and(|a| a == flag) && {
                found.push((flag.clone(), String::new()));
                fits(rest, &args[1..], found)
            }
        }
        Word::Value(name) => {
            args.first().is_some_and(positional) && {
                found.push((name.clone(), args[0].clone()));
                fits(rest, &args[1..], found)
            }
        }
        Word::Values(name) => (1..=args.len()).rev().any(|n| {
            found.truncate(kept);
            args[..n].iter().all(positional) && {
                found.extend(args[..n].iter().map(|a| (name.clone(), a.clone())));
                fits(rest, &args[n..], found)
            }
        }),
        Word::Either(choices, optional) => {
            let none = optional.then(Vec::new);
            choices.iter().chain(&none).any(|choice| {
                found.truncate(kept);
                let then: Vec<Word> = choice.iter().chain(rest).cloned().collect();
                fits(&then, args, found)
            })
        }
    };
    if !fit {
        found.truncate(kept);
    }
    fit
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn flags_values_and_repeats_fit_their_usage() {
        let usage = "DIR OUTCOMES [--all-pass-except FILE | --same-as BASELINE_OUTCOMES FILE]";
        let same = parse(usage, &args("d o --same-as b f")).unwrap();
        assert!(same.flag("--same-as") && !same.flag("--all-pass-except"));
        assert_eq!(
            ["DIR", "OUTCOMES", "BASELINE_OUTCOMES", "FILE"].map(|n| same.value(n)),
            [Some("d"), Some("o"), Some("b"), Some("f")]
        );
        assert!(parse(usage, &args("d o")).is_some());
        assert!(parse(usage, &args("d")).is_none());
        assert!(parse(usage, &args("d o --same-as f")).is_none());

        let usage = "[--check | --windows-pass DIR VERSION...]";
        let pass = parse(usage, &args("--windows-pass w 118 130")).unwrap();
        assert_eq!(pass.values("VERSION"), ["118", "130"]);
        assert!(parse(usage, &args("--check")).unwrap().flag("--check"));
        assert!(parse(usage, &[]).is_some());
        assert!(parse(usage, &args("--windows-pass w")).is_none());
        assert!(parse(usage, &args("--check --check")).is_none());
    }

    #[test]
    fn optional_positionals_and_top_level_choices() {
        let usage = "[--parts WORDS] [DIR]";
        let dir = parse(usage, &args("out")).unwrap();
        assert_eq!((dir.value("DIR"), dir.value("WORDS")), (Some("out"), None));
        assert!(parse(usage, &args("--parts")).is_none());
        assert!(parse(usage, &args("--part x")).is_none());
        assert!(parse("OUT | --check", &args("--check"))
            .unwrap()
            .flag("--check"));
        assert!(parse("OUT | --check", &[]).is_none());
        assert!(parse("[--all-versions | VERSION ...]", &args("118 120")).is_some());
        assert!(parse("", &args("x")).is_none());
    }
}
