//! The pinned NVRTC and ptxas (`examples/ptx-tools.txt`), fetched into
//! `target/ci-deps/ptx-tools-<version>/` (never into the system).

use crate::base::deps::wheel;
use crate::base::{files, process, Result};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// The tools' pins, as `examples/ptx-tools.txt` lists them.
#[derive(Debug, PartialEq)]
pub struct Pins {
    /// The NVRTC wheel, `name==version`.
    pub nvrtc: String,
    /// The wheel with ptxas, `name==version`.
    pub ptxas: String,
    /// The newest PTX ISA version the PTX may declare, as (major, minor).
    pub isa: (u32, u32),
}

/// The fetched tools.
pub struct Tools {
    /// The tools' CUDA release, `major.minor`, as the log lines name it.
    pub release: String,
    /// libnvrtc.so of the release.
    pub nvrtc: PathBuf,
    /// ptxas of the release.
    pub ptxas: PathBuf,
}

impl Pins {
    /// The pins of `examples/ptx-tools.txt`.
    pub fn read() -> Result<Self> {
        let path = process::root().join("examples/ptx-tools.txt");
        let text = files::read(&path)?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()).into())
    }

    fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut fields = std::collections::HashMap::new();
        let lines = text.lines();
        for line in lines.filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            let (key, value) = line
                .split_once(' ')
                .ok_or_else(|| format!("`{line}` is not `KEY VALUE`"))?;
            fields.insert(key, value.trim().to_string());
        }
        let mut field = |key: &str| fields.remove(key).ok_or_else(|| format!("no `{key}` line"));
        let (nvrtc, ptxas, isa) = (field("nvrtc")?, field("ptxas")?, field("isa")?);
        let isa = parse_isa(&isa).ok_or_else(|| format!("isa `{isa}` is not MAJOR.MINOR"))?;
        if version(&nvrtc).is_none() || version(&nvrtc) != version(&ptxas) {
            return Err("nvrtc and ptxas are not `name==VERSION` wheels of one version".into());
        }
        Ok(Pins { nvrtc, ptxas, isa })
    }

    /// The tools, fetched first where they are missing.
    pub fn fetch(&self) -> Result<Tools> {
        let version = version(&self.nvrtc).unwrap_or_default();
        let release = version.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
        let major = release.split('.').next().unwrap_or_default();
        let dir = process::root().join(format!("target/ci-deps/ptx-tools-{version}"));
        let nvrtc_lib = format!("libnvrtc.so.{major}");
        let tools = Tools {
            nvrtc: dir.join(format!("nvidia/cuda_nvrtc/lib/{nvrtc_lib}")),
            ptxas: dir.join("nvidia/cuda_nvcc/bin/ptxas"),
            release: release.clone(),
        };
        if tools.nvrtc.is_file() && files::executable(&tools.ptxas) {
            return Ok(tools);
        }
        eprintln!("gen-ptx: downloading {} and {}", self.nvrtc, self.ptxas);
        let builtins = format!("libnvrtc-builtins.so.{release}");
        let wanted = [nvrtc_lib.as_str(), builtins.as_str(), "bin/ptxas"];
        files::recreate_dir(&dir, "")?;
        let requirements = [self.nvrtc.as_str(), self.ptxas.as_str()];
        let place = |m: &str| wanted.iter().any(|w| m.ends_with(w)).then(|| m.into());
        wheel::unpack("x86_64", &requirements, &dir, place)?;
        for file in [&tools.nvrtc, &tools.ptxas] {
            fs_err::set_permissions(file, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(tools)
    }
}

/// The version of the wheel `pin` (`name==version`).
fn version(pin: &str) -> Option<&str> {
    pin.split_once("==").map(|(_, v)| v)
}

/// `MAJOR.MINOR` as numbers.
pub fn parse_isa(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::{parse_isa, Pins};

    #[test]
    fn pins_parse_and_mismatched_versions_are_rejected() {
        let pins = Pins::parse("# c\nnvrtc a==1.2.3\nptxas b==1.2.3\nisa 8.0\n").unwrap();
        assert_eq!((pins.nvrtc.as_str(), pins.isa), ("a==1.2.3", (8, 0)));
        assert!(Pins::parse("nvrtc a==1.2.3\nptxas b==1.2.4\nisa 8.0\n").is_err());
        assert!(Pins::parse("nvrtc a==1.2.3\nptxas b==1.2.3\n").is_err());
        assert_eq!(parse_isa("7.8"), Some((7, 8)));
        assert_eq!(parse_isa("8"), None);
    }
}
