//! Saying that a test skipped: a test whose tool or CPU feature is missing
//! calls [`skip!`](crate::skip!) and returns, so that it does not pass in
//! silence.
//!
//! The line `skipped: <test name>: <reason>` goes straight to the process's
//! standard error (past the test harness's output capture, so `cargo test`
//! shows it without `--nocapture`) and, when the environment variable
//! [`SKIPPED_ENV`] names a file, is appended to that file, which a test
//! script reads back to list and count what did not run.

use std::fmt;
use std::io::Write;
use std::path::Path;

/// The environment variable naming the file skipped tests are appended to.
pub const SKIPPED_ENV: &str = "AESFLOW_SKIPPED";

/// Report that the current test skipped (part of) its work for `reason`:
/// `skipped: <test name>: <reason>` on standard error and, if
/// `AESFLOW_SKIPPED` is set, appended to that file. The test name is the
/// harness's name for the test's thread, else `module` (with one test
/// thread the harness runs tests on the main thread).
pub fn skipped(module: &str, reason: fmt::Arguments<'_>) {
    let line = line(&test_name(module), reason);
    // Past the harness's capture of `eprintln!`: always visible.
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os(SKIPPED_ENV).filter(|p| !p.is_empty())
        && let Err(e) = append(Path::new(&path), &line)
    {
        let _ = writeln!(
            std::io::stderr(),
            "cannot append to {} ({SKIPPED_ENV}): {e}",
            Path::new(&path).display()
        );
    }
}

/// The running test's name: its thread's, else `module`.
fn test_name(module: &str) -> String {
    match std::thread::current().name() {
        Some(n) if n != "main" => n.to_string(),
        _ => module.to_string(),
    }
}

fn line(name: &str, reason: fmt::Arguments<'_>) -> String {
    format!("skipped: {name}: {reason}\n")
}

/// Append `line` with one `write` in append mode: lines from parallel test
/// processes do not interleave.
fn append(path: &Path, line: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(line.as_bytes())
}

/// `skip!("reason {}", x)`: report that the current test skips (part of)
/// its work ([`skip::skipped`](crate::skip::skipped)); the caller then
/// returns or moves on.
///
/// ```no_run
/// fn openssl_runs() -> bool {
///     std::process::Command::new("openssl").arg("version").output().is_ok()
/// }
/// if !openssl_runs() {
///     aesflow_vectors::skip!("openssl not found (apt-get install openssl)");
/// }
/// ```
#[macro_export]
macro_rules! skip {
    ($($reason:tt)+) => {
        $crate::skip::skipped(module_path!(), format_args!($($reason)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_test_and_appends_one_line_per_skip() {
        let name = std::thread::Builder::new()
            .name("some::test".into())
            .spawn(|| test_name("fallback"))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(name, "some::test");
        assert_eq!(
            line(&name, format_args!("no {} here", "tool")),
            "skipped: some::test: no tool here\n"
        );
        let dir = std::env::temp_dir().join(format!("aesflow-skip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("skipped.txt");
        append(&file, "skipped: a: x\n").unwrap();
        append(&file, "skipped: b: y\n").unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(text, "skipped: a: x\nskipped: b: y\n");
    }
}
