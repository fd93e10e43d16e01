//! The bundle's `checks.json`: which example builds gpu-run checks beyond running the tests.
//! gpu-bundle writes it from the version list and the group programs' declarations (which the GPU
//! machine does not have); gpu-run reads it. Each check's key lists the `examples-<TAG>` folders
//! of the bundle it takes (`default` and `drop` name one); `api_errors` lists examples.

use crate::base::Result;
use serde_json::{json, Value};

/// The example builds of each check.
#[derive(Debug, PartialEq)]
pub struct Checks {
    /// The default version's build: racecheck, the profiled ranges' kernels, nsys.
    pub default: String,
    /// The builds whose examples and C twins run under compute-sanitizer memcheck.
    pub sanitizer: Vec<String>,
    /// The builds whose profiler and vector_add examples run under ncu.
    pub profiler: Vec<String>,
    /// The examples whose driver API errors are part of what they print (a broken PTX, a
    /// deprecated function's answer, the group programs' answers of the driver): memcheck does
    /// not report their API errors (memory errors and leaks still count).
    pub api_errors: Vec<String>,
    /// The build whose programs the drop part runs with each droppable driver call taken away.
    pub drop: String,
}

impl Checks {
    /// The file's text.
    pub fn render(&self) -> String {
        let checks = json!({
            "default": self.default,
            "sanitizer": self.sanitizer,
            "profiler": self.profiler,
            "api_errors": self.api_errors,
            "drop": self.drop,
        });
        format!("{checks:#}\n")
    }

    /// The checks of the file `text`.
    pub fn parse(text: &str) -> Result<Self> {
        let checks: Value = serde_json::from_str(text)?;
        let names = |key: &str| -> Option<Vec<String>> {
            let items = checks[key].as_array()?.iter();
            items.map(|v| v.as_str().map(String::from)).collect()
        };
        let list = |key: &str| names(key).ok_or(format!("`{key}` is not a list of names"));
        let build = |key: &str| {
            checks[key]
                .as_str()
                .ok_or(format!("it names no `{key}` build"))
        };
        Ok(Checks {
            default: build("default")?.into(),
            sanitizer: list("sanitizer")?,
            profiler: list("profiler")?,
            api_errors: list("api_errors")?,
            drop: build("drop")?.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Checks;

    #[test]
    fn rendered_checks_parse_back_and_others_are_rejected() {
        let checks = Checks {
            default: "1".into(),
            sanitizer: vec!["1".into(), "2".into()],
            profiler: vec!["1-dyn".into()],
            api_errors: vec!["ptx_jit".into()],
            drop: "2".into(),
        };
        assert_eq!(Checks::parse(&checks.render()).unwrap(), checks);
        let lists = r#""sanitizer": [], "profiler": [], "api_errors": []"#;
        let no_default = format!(r#"{{{lists}, "drop": "2"}}"#);
        assert!(Checks::parse(&no_default).is_err());
        let no_drop = format!(r#"{{"default": "1", {lists}}}"#);
        let error = Checks::parse(&no_drop).err().unwrap().to_string();
        assert_eq!(error, "it names no `drop` build");
        assert!(Checks::parse("default 1\n").is_err());
    }
}
