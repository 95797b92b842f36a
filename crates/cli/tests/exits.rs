//! Every exit status of the table in `aesflow --help` (and the README), each
//! from a command that must give it; and the truth about stdout after an
//! error or a signal once output went there.

use std::fs;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::{BIN, err, s};

fn run(c: &mut Command) -> Output {
    c.stdin(Stdio::null()).output().unwrap()
}

/// The binary, with the kernel chosen by the CPU.
fn bin() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("AESFLOW_KERNEL");
    c
}

fn aesflow(args: &[&str]) -> Output {
    run(bin().args(args))
}

/// Send SIGINT to a running `aesflow`.
fn sigint(c: &std::process::Child) {
    let pid = c.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
}

/// The codes the help text's table lists.
fn help_codes() -> Vec<i32> {
    let o = aesflow(&["--help"]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    let table = t
        .split("Exit status:")
        .nth(1)
        .expect("an exit status table");
    table
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

#[test]
fn every_exit_status_of_the_table() {
    let d = common::test_dir(0x31);
    let input = d.p.join("in.txt");
    fs::write(&input, b"hello").unwrap();
    let ct = d.p.join("in.txt.cob");
    let key = s(&d.key);
    let o = aesflow(&["encrypt", "-k", key, s(&input)]);
    assert!(o.status.success(), "{}", err(&o));
    let other_key = d.p.join("other.key");
    fs::write(&other_key, [7u8; 32]).unwrap();
    common::private(&other_key);
    let k16 = d.p.join("k16.key");
    fs::write(&k16, [7u8; 16]).unwrap();
    common::private(&k16);
    let junk = d.p.join("junk.bin");
    fs::write(&junk, [0u8; 10]).unwrap();
    let raw = ["--raw", "--mode", "ctr"];
    let iv = "00000000000000000000000000000000";
    let k128 = "000102030405060708090a0b0c0d0e0f";
    let cases: Vec<(i32, Vec<&str>)> = vec![
        (0, vec!["decrypt", "-k", key, "-o", "-", s(&ct)]),
        (1, vec!["encrypt", "-k", key, "no-such-input"]),
        (2, vec!["encrypt", "--no-such-option"]),
        (
            2,
            [&raw[..], &["encrypt", "--key", "zz", "--iv", iv, s(&input)]].concat(),
        ),
        (
            2,
            [
                &raw[..],
                &["encrypt", "--key", k128, "--iv", "12", s(&input)],
            ]
            .concat(),
        ),
        (
            2,
            vec!["encrypt", "-j", "100000", "-k", key, "-o", "-", s(&input)],
        ),
        (2, vec!["decrypt", "-k", key, "-", "-"]),
        (2, vec!["encrypt", "-k", key, "-o", "x", s(&input), s(&ct)]),
        (2, vec!["decrypt", "-k", key, s(&input)]),
        (
            2,
            vec![
                "encrypt",
                "-k",
                s(&k16),
                "--suite",
                "256",
                "-o",
                "-",
                s(&input),
            ],
        ),
        (
            2,
            vec![
                "encrypt",
                "--raw",
                "--mode",
                "cbc",
                "--pbkdf2",
                "--passphrase-env",
                "PW",
                "--iter",
                "0",
                "-o",
                "-",
                s(&input),
            ],
        ),
        (2, vec!["encrypt", "-o", "-", s(&input)]),
        (2, vec!["inspect", "-"]),
        (3, vec!["decrypt", "-k", s(&other_key), "-o", "-", s(&ct)]),
        (3, vec!["decrypt", "-k", key, "-o", "-", s(&junk)]),
        (
            4,
            vec!["decrypt", "--passphrase-env", "PW", "-o", "-", s(&ct)],
        ),
        (5, vec!["encrypt", "-k", key, s(&input)]),
        (5, vec!["encrypt", "-k", key, "-o", s(&d.p), s(&input)]),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (want, args) in &cases {
        let o = run(bin().args(args).env("PW", "pw"));
        assert_eq!(o.status.code(), Some(*want), "{args:?}: {}", err(&o));
        seen.insert(*want);
    }
    // 6: a variable-time kernel without --allow-variable-time.
    let o = run(Command::new(BIN)
        .args(["encrypt", "-k", key, "-o", "-", s(&input)])
        .env("AESFLOW_KERNEL", "reference"));
    assert_eq!(o.status.code(), Some(6), "{}", err(&o));
    seen.insert(6);
    // 6: ciphertext to a terminal.
    if let Some((_, code)) = common::in_pty(&format!("\"$BIN\" encrypt -k {key} < {}", s(&input))) {
        assert_eq!(code, Some(6));
    }
    // 130: SIGINT while reading stdin (a pipe that stays open).
    let c = bin()
        .args(["encrypt", "-k", key, "-o", s(&d.p.join("o.cob"))])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    sigint(&c);
    let o = c.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", err(&o));
    assert!(!d.p.join("o.cob").exists());
    seen.insert(130);
    // 141: text printed to a pipe whose reader has gone.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = bin()
        .args(["kernels"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", err(&o));
    assert!(o.stderr.is_empty(), "{}", err(&o));
    seen.insert(141);
    // Every code of the table was given.
    for code in help_codes() {
        assert!(seen.contains(&code), "exit status {code} not exercised");
    }
}

/// Encrypt `n` bytes to a file; returns its path.
fn big_ciphertext(d: &common::TestDir, n: usize) -> std::path::PathBuf {
    let input = d.p.join("big");
    let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    fs::write(&input, data).unwrap();
    let ct = d.p.join("big.cob");
    let o = aesflow(&["encrypt", "-k", s(&d.key), "-o", s(&ct), s(&input)]);
    assert!(o.status.success(), "{}", err(&o));
    ct
}

#[test]
fn a_failed_stream_says_how_much_reached_stdout() {
    let d = common::test_dir(0x32);
    let ct = big_ciphertext(&d, 12 << 20);
    // Damage a chunk in the second batch (the first 4 MiB are released).
    let mut b = fs::read(&ct).unwrap();
    let at = b.len() - 100_000;
    b[at] ^= 1;
    fs::write(&ct, b).unwrap();
    let o = aesflow(&["decrypt", "-k", s(&d.key), "-o", "-", s(&ct)]);
    assert_eq!(o.status.code(), Some(3));
    assert!(!o.stdout.is_empty());
    let e = err(&o);
    let n = o.stdout.len().to_string();
    assert!(e.contains(&n) && e.contains("discard"), "{e}");
}

#[test]
fn sigint_after_output_reached_stdout_says_so() {
    let d = common::test_dir(0x33);
    let ct = big_ciphertext(&d, 32 << 20);
    let mut c = bin()
        .args(["decrypt", "-j", "1", "-k", s(&d.key), "-o", "-", s(&ct)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read some output, then stop reading (the pipe fills) and interrupt.
    let mut first = vec![0u8; 1 << 20];
    c.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    sigint(&c);
    let o = c.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let e = err(&o);
    assert!(!e.contains("no output written"), "{e}");
    assert!(
        e.contains("written to stdout") && e.contains("discard"),
        "{e}"
    );
}
