//! Plan files: what `aesflow tune` writes, and how an application finds
//! the plan in force.
//!
//! A plan file is JSON:
//!
//! ```json
//! {
//!   "format": "aesflow-plan 1",
//!   "cpu": { "vendor": "AMD", "family": 26, "model": 2 },
//!   "variants": { "multistream-own-keys": "lanes32" },
//!   "measurements": [
//!     { "operation": "multistream-own-keys", "variant": "lanes16", "gbps": 20.1 }
//!   ]
//! }
//! ```
//!
//! `measurements` is what the tuner timed (kept for the reader; the plan
//! does not use it). An operation the file does not name takes the table's
//! (or the rule's) variant, so a file from an older aesflow stays usable;
//! an operation it names that this aesflow does not know is ignored.

use crate::{Operation, Origin, Plan, Variant};
use aesflow_cipher::{Features, Identity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that names a plan file to use instead of the
/// one in the user's cache directory.
pub const PLAN_ENV: &str = "AESFLOW_PLAN";

/// The `format` field of the plan files this version reads and writes.
pub const FORMAT: &str = "aesflow-plan 1";

/// A measurement the tuner made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The operation's name.
    pub operation: String,
    /// The variant's name.
    pub variant: String,
    /// Its speed, 10^9 bytes per second.
    pub gbps: f64,
}

#[derive(Serialize, Deserialize)]
struct CpuJson {
    vendor: String,
    family: u32,
    model: u32,
}

#[derive(Serialize, Deserialize)]
struct PlanJson {
    format: String,
    cpu: CpuJson,
    variants: BTreeMap<String, String>,
    #[serde(default)]
    measurements: Vec<Measurement>,
}

/// The plan in force and where it came from.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The plan.
    pub plan: Plan,
    /// Where it came from.
    pub origin: Origin,
    /// Why a plan file was ignored, if one was: print it once.
    pub warning: Option<String>,
}

/// The default plan file: `$XDG_CACHE_HOME/aesflow/plan.json`, else
/// `$HOME/.cache/aesflow/plan.json`; `None` without either variable.
pub fn default_path() -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    let base = nonempty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| nonempty("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("aesflow").join("plan.json"))
}

/// The plan an application runs: the file `AESFLOW_PLAN` names, else the
/// default plan file if it exists, else the table of measured CPUs or the
/// rule. A file that cannot be read, is not a plan, or was written on
/// another CPU is ignored and said in [`Resolved::warning`].
pub fn resolve() -> Resolved {
    let cpu = aesflow_cipher::identity();
    let features = aesflow_cipher::features();
    let named = std::env::var_os(PLAN_ENV)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    let path = match named {
        Some(p) => Some(p),
        None => default_path().filter(|p| p.exists()),
    };
    resolve_from(path.as_deref(), cpu, features)
}

/// [`resolve`] for a given file (or none), CPU and features.
pub fn resolve_from(path: Option<&Path>, cpu: Identity, features: Features) -> Resolved {
    let (builtin, origin) = Plan::for_cpu(cpu, features);
    let Some(path) = path else {
        return Resolved {
            plan: builtin,
            origin,
            warning: None,
        };
    };
    match read(path, cpu, builtin) {
        Ok(plan) => Resolved {
            plan,
            origin: Origin::File(path.to_path_buf()),
            warning: None,
        },
        Err(why) => Resolved {
            plan: builtin,
            warning: Some(format!(
                "ignoring the plan file {}: {why}; using {origin}",
                path.display()
            )),
            origin,
        },
    }
}

/// Read a plan file written for `cpu`; operations it does not name keep
/// `base`'s variants.
pub fn read(path: &Path, cpu: Identity, base: Plan) -> Result<Plan, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    parse(&text, cpu, base)
}

/// [`read`] on the file's text.
pub fn parse(text: &str, cpu: Identity, base: Plan) -> Result<Plan, String> {
    let json: PlanJson =
        serde_json::from_str(text).map_err(|e| format!("not a plan file ({e})"))?;
    if json.format != FORMAT {
        return Err(format!(
            "format {:?}, this aesflow reads {FORMAT:?}",
            json.format
        ));
    }
    let this = (cpu.vendor.name(), cpu.family, cpu.model);
    let theirs = (json.cpu.vendor.as_str(), json.cpu.family, json.cpu.model);
    if this != theirs {
        return Err(format!(
            "written on another CPU ({} family {:#x} model {:#x}; this is {} family {:#x} model {:#x})",
            theirs.0, theirs.1, theirs.2, this.0, this.1, this.2
        ));
    }
    let mut plan = base;
    for (op, variant) in &json.variants {
        let Some(op) = Operation::from_name(op) else {
            continue;
        };
        let v = Variant::parse(op, variant)
            .ok_or_else(|| format!("unknown variant {variant:?} for {}", op.name()))?;
        plan = plan.with(v);
    }
    Ok(plan)
}

/// The text of a plan file for `plan` on `cpu`.
pub fn render(plan: &Plan, cpu: Identity, measurements: &[Measurement]) -> String {
    let json = PlanJson {
        format: FORMAT.to_string(),
        cpu: CpuJson {
            vendor: cpu.vendor.name().to_string(),
            family: cpu.family,
            model: cpu.model,
        },
        variants: Operation::ALL
            .iter()
            .map(|&o| (o.name().to_string(), plan.variant(o).name().to_string()))
            .collect(),
        measurements: measurements.to_vec(),
    };
    let mut s = serde_json::to_string_pretty(&json).expect("a plan serialises");
    s.push('\n');
    s
}

/// Write a plan file: its directory is created, and the file appears whole
/// or not at all (a temporary beside it, renamed into place).
pub fn write(
    path: &Path,
    plan: &Plan,
    cpu: Identity,
    measurements: &[Measurement],
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile_in(dir)?;
    let result = (|| {
        tmp.1
            .write_all(render(plan, cpu, measurements).as_bytes())?;
        tmp.1.sync_all()?;
        std::fs::rename(&tmp.0, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp.0);
    }
    result
}

/// A new file in `dir` with a name no other writer uses.
fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let pid = std::process::id();
    for n in 0u32.. {
        let p = dir.join(format!(".plan.json.{pid}.{n}.tmp"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesflow_cipher::Vendor;

    const ZEN4: Identity = Identity {
        vendor: Vendor::Amd,
        family: 0x19,
        model: 0x11,
    };
    const ZEN5: Identity = Identity {
        vendor: Vendor::Amd,
        family: 0x1a,
        model: 0x02,
    };

    #[test]
    fn written_plans_read_back_on_the_same_cpu_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("plan.json");
        let plan = Plan::rule(Features::default()).with(Variant::Lanes16);
        let m = [Measurement {
            operation: "multistream-own-keys".into(),
            variant: "lanes16".into(),
            gbps: 20.5,
        }];
        write(&path, &plan, ZEN5, &m).unwrap();
        let r = resolve_from(Some(&path), ZEN5, Features::default());
        assert_eq!(r.plan, plan);
        assert_eq!(r.origin, Origin::File(path.clone()));
        assert!(r.warning.is_none());

        // Another CPU: the table's plan, and one warning that says why.
        let r = resolve_from(Some(&path), ZEN4, Features::default());
        assert_eq!(r.plan, Plan::for_cpu(ZEN4, Features::default()).0);
        let w = r.warning.unwrap();
        assert!(w.contains("another CPU"), "{w}");
        // No temporary is left beside the plan.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["plan.json"]);
    }

    #[test]
    fn unreadable_or_foreign_files_are_ignored_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("missing.json", None, "No such file"),
            ("junk.json", Some("not json"), "not a plan file"),
            (
                "old.json",
                Some(
                    r#"{"format":"aesflow-plan 0","cpu":{"vendor":"AMD","family":26,"model":2},"variants":{}}"#,
                ),
                "format",
            ),
            (
                "bad.json",
                Some(
                    r#"{"format":"aesflow-plan 1","cpu":{"vendor":"AMD","family":26,"model":2},"variants":{"multistream-own-keys":"lanes7"}}"#,
                ),
                "unknown variant",
            ),
        ];
        for (name, text, why) in cases {
            let p = dir.path().join(name);
            if let Some(t) = text {
                std::fs::write(&p, t).unwrap();
            }
            let r = resolve_from(Some(&p), ZEN5, Features::default());
            assert_eq!(r.plan, Plan::for_cpu(ZEN5, Features::default()).0, "{name}");
            let w = r.warning.unwrap();
            assert!(w.contains(why), "{name}: {w}");
        }
    }

    #[test]
    fn unknown_operations_are_ignored_and_missing_ones_keep_the_table() {
        let text = r#"{"format":"aesflow-plan 1","cpu":{"vendor":"AMD","family":25,"model":17},
            "variants":{"some-future-operation":"x"}}"#;
        let base = Plan::for_cpu(ZEN4, Features::default()).0;
        assert_eq!(parse(text, ZEN4, base).unwrap(), base);
    }

    #[test]
    fn no_file_is_the_table_without_a_warning() {
        let r = resolve_from(None, ZEN4, Features::default());
        assert!(r.warning.is_none());
        assert!(matches!(r.origin, Origin::Table { .. }));
    }
}
