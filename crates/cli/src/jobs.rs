//! Job planning (inputs paired with outputs), running them on the pool with
//! a progress bar, and the summaries (a line per file, or JSON).

use crate::exit::usage;
use aesflow_format::Pool;
use aesflow_format::files::{self, Job, JobOptions, Operation, Report};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub use aesflow_format::files::EXTENSION;

/// Inputs larger than this get a progress bar (when stderr is a terminal).
pub const PROGRESS_MIN: u64 = 64 << 20;

/// Pair inputs with outputs. `inputs` empty or `-` means stdin; `output`
/// (`-o`) is allowed with one input only. Without `-o`, stdin goes to
/// stdout and a file `F` to `F.cob` (encrypt) or `F` minus `.cob` (decrypt).
/// An `-o` naming the file stdout already is (`/dev/stdout`, `/dev/fd/1`,
/// or any other link to it) means stdout: the link is not replaced.
/// Every error here is a usage error.
pub fn plan_jobs(inputs: &[PathBuf], output: Option<&Path>, encrypt: bool) -> Result<Vec<Job>> {
    let stdin = |p: &PathBuf| p.as_os_str() == "-";
    let inputs: Vec<Option<PathBuf>> = if inputs.is_empty() {
        vec![None]
    } else {
        inputs
            .iter()
            .map(|p| (!stdin(p)).then(|| p.clone()))
            .collect()
    };
    if inputs.iter().filter(|i| i.is_none()).count() > 1 {
        return Err(usage("stdin (-) given more than once"));
    }
    if output.is_some() && inputs.len() > 1 {
        return Err(usage(
            "-o/--output takes a single input; with several inputs each output is named after its input",
        ));
    }
    let mut jobs: Vec<Job> = Vec::new();
    for input in inputs {
        let output = match (output, &input) {
            (Some(o), _) if o.as_os_str() == "-" || crate::stdio::is_stdout(o) => None,
            (Some(o), _) => Some(o.to_path_buf()),
            (None, None) => None,
            (None, Some(i)) if encrypt => {
                let mut s = i.clone().into_os_string();
                s.push(".");
                s.push(EXTENSION);
                Some(PathBuf::from(s))
            }
            (None, Some(i)) if i.extension().is_some_and(|e| e == EXTENSION) => {
                Some(i.with_extension(""))
            }
            (None, Some(i)) => {
                return Err(usage(format!(
                    "{}: cannot name the output (the input does not end in .{EXTENSION}); use -o",
                    i.display()
                )));
            }
        };
        if let Some(o) = &output
            && jobs.iter().any(|j| j.output.as_ref() == Some(o))
        {
            return Err(usage(format!("two inputs would write {}", o.display())));
        }
        jobs.push(Job { input, output });
    }
    Ok(jobs)
}

/// A progress bar on stderr for one job, if it is worth one.
fn bar(job: &Job, encrypt: bool, wanted: bool) -> Option<ProgressBar> {
    let total = files::input_len(job)?;
    if !wanted || total <= PROGRESS_MIN || !crate::stdio::stderr_is_terminal() {
        return None;
    }
    let b = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {percent:>3}% {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    )
    .map(|s| s.progress_chars("#>-"));
    if let Ok(s) = style {
        b.set_style(s);
    }
    b.set_message(if encrypt { "encrypting" } else { "decrypting" });
    Some(b)
}

/// Whether a job goes through the command line's streaming path
/// ([`crate::armor::run_job`]): armor written or read, output to stdout
/// (its bytes are counted for the messages after an error or a signal),
/// or an input that is not a regular file — stdin, a FIFO, `/dev/stdin`,
/// a process substitution — which must be opened and read exactly once,
/// so it is never peeked at by name first.
fn streamed(j: &Job, opts: &JobOptions, armor: bool) -> bool {
    let regular_input = match &j.input {
        None => false,
        // A directory (or a missing input) is the file path's to report.
        Some(p) => std::fs::metadata(p).map_or(true, |m| m.is_file() || m.is_dir()),
    };
    armor
        || j.output.is_none()
        || !regular_input
        || (!opts.encrypt && crate::armor::input_is_armored(j))
}

/// Run the jobs concurrently on the pool (a progress bar when there is
/// one large job); results in job order.
pub fn run_jobs(
    pool: &Pool,
    op: &Operation,
    jobs: &[Job],
    opts: &JobOptions,
    progress: bool,
    armor: bool,
) -> Vec<Result<Report>> {
    let single = jobs.len() == 1;
    pool.map(jobs, |j| {
        let b = bar(j, opts.encrypt, progress && single);
        let add = |n: u64| {
            if let Some(b) = &b {
                b.inc(n);
            }
        };
        let r = if streamed(j, opts, armor) {
            crate::armor::run_job(pool, op, j, opts, armor, &add)
        } else {
            files::run_job_with(pool, op, j, opts, &add).map_err(Into::into)
        };
        if let Some(b) = b {
            b.finish_and_clear();
        }
        r
    })
}

/// A size for people: `512 B`, `1.5 KiB`, `3.2 GiB`.
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// A speed for people, or nothing when the run was too short to say.
fn human_speed(bytes: u64, seconds: f64) -> Option<String> {
    (seconds >= 0.05 && bytes >= 1 << 20).then(|| {
        let s = bytes as f64 / seconds;
        if s >= 1e9 {
            format!("{:.2} GB/s", s / 1e9)
        } else {
            format!("{:.0} MB/s", s / 1e6)
        }
    })
}

/// One human-readable summary line.
pub fn line(r: &Report, kernel: &str) -> String {
    let speed = human_speed(r.bytes_in, r.seconds).map_or(String::new(), |s| format!(", {s}"));
    format!(
        "{} -> {}: {} on the {kernel} kernel, {} -> {} in {:.2} s{speed}",
        r.input,
        r.output,
        r.operation,
        human_size(r.bytes_in),
        human_size(r.bytes_out),
        r.seconds
    )
}

/// One failed input in the JSON summary.
#[derive(Serialize)]
pub struct Failure {
    /// The input (`-` for stdin).
    pub input: String,
    /// The error message.
    pub error: String,
    /// The exit code this error alone would give.
    pub exit_code: u8,
}

/// One successful input in the JSON summary.
#[derive(Serialize)]
struct Done<'a> {
    #[serde(flatten)]
    report: &'a Report,
    gb_per_s: f64,
    kernel: &'a str,
}

/// The JSON summary: `{"ok":[…],"failed":[…]}`.
pub fn json(reports: &[Report], failed: &[Failure], kernel: &str) -> String {
    #[derive(Serialize)]
    struct Summary<'a> {
        ok: Vec<Done<'a>>,
        failed: &'a [Failure],
    }
    let ok = reports
        .iter()
        .map(|r| Done {
            report: r,
            gb_per_s: r.gbps(),
            kernel,
        })
        .collect();
    serde_json::to_string(&Summary { ok, failed })
        .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        for (n, want) in [
            (0, "0 B"),
            (1023, "1023 B"),
            (1536, "1.5 KiB"),
            (3 << 30, "3.0 GiB"),
        ] {
            assert_eq!(human_size(n), want);
        }
        assert_eq!(human_speed(100, 0.001), None);
        assert_eq!(human_speed(2 << 30, 1.0).unwrap(), "2.15 GB/s");
    }

    #[test]
    fn planning_names_outputs() {
        let p = |s: &str| PathBuf::from(s);
        let j = plan_jobs(&[p("a"), p("b.cob")], None, true).unwrap();
        assert_eq!(j[1].output, Some(p("b.cob.cob")));
        let j = plan_jobs(&[p("b.cob")], None, false).unwrap();
        assert_eq!(j[0].output, Some(p("b")));
        assert!(plan_jobs(&[p("b")], None, false).is_err());
        assert!(plan_jobs(&[p("-"), p("-")], None, true).is_err());
        assert!(plan_jobs(&[p("a"), p("b")], Some(&p("o")), true).is_err());
        let j = plan_jobs(&[], Some(&p("-")), true).unwrap();
        assert_eq!(
            j[0],
            Job {
                input: None,
                output: None
            }
        );
    }
}
