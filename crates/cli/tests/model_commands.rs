//! The modelling commands follow the command line's conventions: they write
//! files only where the user names a path, `-o -` is stdout (never a file
//! named `-`), and an existing output is not replaced without `--force`.

use std::fs;
use std::process::{Command, Output, Stdio};

mod common;
use common::{BIN, names as entries};

fn run_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn energy_writes_nothing_unasked() {
    let t = tempfile::tempdir().unwrap();
    let o = run_in(
        t.path(),
        &["energy", "--no-host", "--blocks", "16", "--json"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.starts_with(b"{"), "JSON on stdout");
    assert!(entries(t.path()).is_empty(), "{:?}", entries(t.path()));
}

#[test]
fn energy_refuses_an_existing_output_without_force() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("e.txt");
    fs::write(&out, "keep").unwrap();
    let args = ["energy", "--no-host", "--blocks", "16", "-o", "e.txt"];
    let o = run_in(t.path(), &args);
    assert!(!o.status.success());
    assert_eq!(fs::read_to_string(&out).unwrap(), "keep");
    let mut forced = args.to_vec();
    forced.push("--force");
    let o = run_in(t.path(), &forced);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(fs::read_to_string(&out).unwrap(), "keep");
}

#[test]
fn designs_map_to_stdout_creates_no_file_named_dash() {
    let t = tempfile::tempdir().unwrap();
    let o = run_in(t.path(), &["designs", "--map", "small", "-o", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("<svg"));
    assert!(entries(t.path()).is_empty(), "{:?}", entries(t.path()));
    // And a named map is not overwritten silently.
    fs::write(t.path().join("m.svg"), "keep").unwrap();
    let o = run_in(t.path(), &["designs", "--map", "small", "-o", "m.svg"]);
    assert!(!o.status.success());
    assert_eq!(fs::read_to_string(t.path().join("m.svg")).unwrap(), "keep");
}

#[test]
fn report_takes_the_kernel_of_aesflow_kernel_before_any_work() {
    let t = tempfile::tempdir().unwrap();
    let o = Command::new(BIN)
        .args(["report", "--quick", "-o", "r.html"])
        .env("AESFLOW_KERNEL", "no-such-kernel")
        .current_dir(t.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(e.contains("no-such-kernel"), "{e}");
    // Refused before the design space is simulated, and nothing written.
    assert!(!e.contains("design space"), "{e}");
    assert!(entries(t.path()).is_empty(), "{:?}", entries(t.path()));
}
