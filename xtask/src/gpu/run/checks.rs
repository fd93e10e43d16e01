//! The bundle's `checks` file: which example builds gpu-run checks beyond running the tests.
//! gpu-bundle writes it from the version list and the group programs' declarations (which the GPU
//! machine does not have); gpu-run reads it. One line per check, `CHECK TAG...`, each TAG an
//! `examples-<TAG>` folder of the bundle; `api-errors NAME...` names examples.

use crate::base::Result;

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
    /// deprecated function's answer, the group programs' answers of the driver): memcheck does not report their API errors
    /// (memory errors and leaks still count).
    pub api_errors: Vec<String>,
}

impl Checks {
    /// The file's text.
    pub fn render(&self) -> String {
        format!(
            "# The example builds gpu-run checks (cargo xtask gpu-bundle wrote it): CHECK TAG...\n\
             default {}\nsanitizer {}\nprofiler {}\napi-errors {}\n",
            self.default,
            self.sanitizer.join(" "),
            self.profiler.join(" "),
            self.api_errors.join(" ")
        )
    }

    /// The checks of the file `text`.
    pub fn parse(text: &str) -> Result<Self> {
        let mut checks = Checks {
            default: String::new(),
            sanitizer: Vec::new(),
            profiler: Vec::new(),
            api_errors: Vec::new(),
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (check, tags) = line.split_once(' ').unwrap_or((line, ""));
            let tags: Vec<String> = tags.split_whitespace().map(String::from).collect();
            match check {
                "default" if tags.len() == 1 => checks.default = tags[0].clone(),
                "sanitizer" => checks.sanitizer = tags,
                "profiler" => checks.profiler = tags,
                "api-errors" => checks.api_errors = tags,
                _ => {
                    return Err(format!(
                        "`{line}` is not `default TAG`, `sanitizer|profiler TAG...` or \
                         `api-errors NAME...`"
                    )
                    .into())
                }
            }
        }
        if checks.default.is_empty() {
            return Err("it names no `default` build".into());
        }
        Ok(checks)
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
        };
        assert_eq!(Checks::parse(&checks.render()).unwrap(), checks);
        assert!(Checks::parse("sanitizer 1\n").is_err());
        assert!(Checks::parse("default 1\nracecheck 1\n").is_err());
    }
}
