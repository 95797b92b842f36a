//! Runs every constant-time case under Valgrind's memcheck with the secrets
//! marked undefined: the constant-time cases must report no secret-dependent
//! branch or address, the `ttable` control must be reported. Skips with a
//! printed reason where Valgrind is not installed; runs every case natively
//! in any case.

use aesflow_ctcheck::Case;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_aesflow-ctcheck");

#[test]
fn every_case_is_correct_natively() {
    for case in Case::ALL {
        case.run()
            .unwrap_or_else(|e| panic!("{}: {e}", case.name()));
    }
}

/// memcheck's findings for one case.
struct Findings {
    /// "Conditional jump or move depends on uninitialised value(s)", outside
    /// the case's declassification points.
    branches: usize,
    /// The same inside them (see `Case::declassified_in`).
    declassified: usize,
    /// "Use of uninitialised value of size N": an address from a secret.
    addresses: usize,
    /// Any other error.
    other: usize,
    log: String,
}

fn memcheck(case: Case) -> Findings {
    let out = Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=0",
            "--leak-check=no",
            "--error-limit=no",
            "--num-callers=8",
        ])
        .arg(BIN)
        .arg(case.name())
        .output()
        .expect("run valgrind");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("under valgrind"),
        "{}: the case failed or did not see valgrind's client requests\nstdout: {stdout}\n{log}",
        case.name()
    );
    let count = |what: &str| log.lines().filter(|l| l.contains(what)).count();
    // The function a conditional jump sits in: the first frame after it,
    // past the conversions of `subtle` and `core` a `Choice` goes through on
    // its way to a `bool` (not inlined at low optimisation).
    let lines: Vec<&str> = log.lines().collect();
    let glue = |frame: &str| {
        frame.contains("subtle")
            || frame.contains("from (src/lib.rs")
            || frame.contains("core/src/convert")
    };
    let jumps: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("Conditional jump or move depends on uninitialised"))
        .map(|(i, _)| {
            lines[i + 1..]
                .iter()
                .take_while(|l| l.contains(" at 0x") || l.contains(" by 0x"))
                .find(|frame| !glue(frame))
                .copied()
                .unwrap_or("")
        })
        .collect();
    let allowed = |frame: &str| case.declassified_in().iter().any(|f| frame.contains(f));
    let declassified = jumps.iter().filter(|f| allowed(f)).count();
    let branches = jumps.len() - declassified;
    let addresses = count("Use of uninitialised value of size");
    // Every error report has exactly one first frame, "   at 0x…".
    let total = log
        .lines()
        .filter(|l| {
            l.split_once("== ")
                .is_some_and(|(_, r)| r.trim_start().starts_with("at 0x"))
        })
        .count();
    Findings {
        branches,
        declassified,
        addresses,
        other: total - branches - declassified - addresses,
        log,
    }
}

#[test]
fn secrets_never_reach_a_branch_or_an_address() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        aesflow_vectors::skip!(
            "valgrind is not installed (apt-get install valgrind); the constant-time check did not run"
        );
        return;
    }
    // The cases run concurrently (each is a separate valgrind process).
    let findings: Vec<(Case, Findings)> = std::thread::scope(|s| {
        let runs: Vec<_> = Case::ALL
            .into_iter()
            .map(|case| s.spawn(move || (case, memcheck(case))))
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("valgrind run"))
            .collect()
    });
    let mut control_flagged = false;
    for (case, f) in findings {
        println!(
            "ctcheck {:<15} secret-dependent branches {:>3} (+{} public by design), addresses {:>3}, other {:>2}",
            case.name(),
            f.branches,
            f.declassified,
            f.addresses,
            f.other
        );
        if case.is_control() {
            control_flagged = f.addresses > 0;
            continue;
        }
        assert!(
            f.branches == 0 && f.addresses == 0 && f.other == 0,
            "{}: secret-dependent behaviour found by memcheck:\n{}",
            case.name(),
            f.log
        );
    }
    assert!(
        control_flagged,
        "the ttable control was not flagged: the check cannot see secret-indexed loads"
    );
}
