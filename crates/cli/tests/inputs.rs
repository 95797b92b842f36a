//! Every input path, and bounded work for every hostile input:
//!
//! * inputs that are not regular files (a FIFO, `/dev/stdin` given as a
//!   path) are read once, from their first byte;
//! * an output path that is a link counts as what it points to (a link to
//!   a FIFO is never replaced; a link to stdout writes stdout);
//! * a regular input whose size changes while it is read is an error;
//! * hostile passphrase headers cost at most the default Argon2id limits,
//!   and memory that cannot be had is an error, not an abort;
//! * junk ASCII armor is refused after its first lines, however long;
//! * a bad output name is refused before any input is read.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{BIN, KDF, err, s};

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 13 + i / 7919) as u8).collect()
}

fn sh(script: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(script).arg(BIN);
    c.env_remove("AESFLOW_KERNEL");
    c
}

fn run(c: &mut Command) -> Output {
    c.stdin(Stdio::null()).output().unwrap()
}

/// Wait for `child` at most `limit` (reading its piped stdout and stderr
/// meanwhile); kill it and fail if it is still running.
fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    fn drain(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    }
    let (out, errs) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: errs.join().unwrap(),
    }
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// Feed `bytes` into the FIFO `p` from a thread (the writer blocks until a
/// reader opens it).
fn feed(p: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let p = p.to_path_buf();
    std::thread::spawn(move || {
        if let Ok(mut f) = fs::OpenOptions::new().write(true).open(&p) {
            let _ = f.write_all(&bytes);
        }
    })
}

const KEY: &str = "000102030405060708090a0b0c0d0e0f";
const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

#[test]
fn fifo_and_dev_stdin_inputs_are_read_once() {
    let d = common::test_dir(0x21);
    let plain = data(100_000);
    let pfile = d.p.join("p");
    fs::write(&pfile, &plain).unwrap();
    // Raw CTR and Cobblestone (plain and armored) ciphertexts.
    let raw = d.p.join("p.ctr");
    let raw_args = ["--raw", "--mode", "ctr", "--key", KEY, "--iv", IV];
    let o = run(Command::new(BIN)
        .arg("encrypt")
        .args(raw_args)
        .arg("-o")
        .arg(&raw)
        .arg(&pfile));
    assert!(o.status.success(), "{}", err(&o));
    let cob = d.p.join("p.cob");
    let asc = d.p.join("p.asc");
    for (out, extra) in [(&cob, None), (&asc, Some("--armor"))] {
        let o = run(Command::new(BIN)
            .args(["encrypt", "-k", s(&d.key), "-o", s(out)])
            .args(extra)
            .arg(&pfile));
        assert!(o.status.success(), "{}", err(&o));
    }
    let cases: [(&str, &Path, Vec<&str>); 3] = [
        ("raw ctr", &raw, raw_args.to_vec()),
        ("cobblestone", &cob, vec!["-k", s(&d.key)]),
        ("armored", &asc, vec!["-k", s(&d.key)]),
    ];
    for (what, ct, args) in cases {
        // A FIFO given by name, to a file and to stdout.
        for to_file in [true, false] {
            let fifo = d.p.join("fifo");
            let _ = fs::remove_file(&fifo);
            mkfifo(&fifo);
            let back = d.p.join("back");
            let _ = fs::remove_file(&back);
            let w = feed(&fifo, fs::read(ct).unwrap());
            let target = if to_file { s(&back) } else { "-" };
            // Bounded: a second open of the FIFO would wait for a writer
            // forever.
            let c = Command::new(BIN)
                .arg("decrypt")
                .args(&args)
                .args(["-o", target])
                .arg(&fifo)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let o = wait_bounded(c, Duration::from_secs(60), what);
            w.join().unwrap();
            assert!(o.status.success(), "{what} from a FIFO: {}", err(&o));
            let got = if to_file {
                fs::read(&back).unwrap()
            } else {
                o.stdout
            };
            assert!(got == plain, "{what} from a FIFO: {} bytes", got.len());
        }
        // /dev/stdin given as a path, stdin a pipe.
        let mut c = Command::new(BIN)
            .arg("decrypt")
            .args(&args)
            .args(["-o", "-", "/dev/stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let bytes = fs::read(ct).unwrap();
        let mut stdin = c.stdin.take().unwrap();
        let w = std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let o = wait_bounded(c, Duration::from_secs(60), what);
        w.join().unwrap();
        assert!(o.status.success(), "{what} from /dev/stdin: {}", err(&o));
        assert!(o.stdout == plain, "{what} from /dev/stdin");
    }
    // Encrypting from a FIFO, then back.
    let fifo = d.p.join("fifo2");
    mkfifo(&fifo);
    let w = feed(&fifo, plain.clone());
    let enc = d.p.join("fifo.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-k", s(&d.key), "-o", s(&enc)])
        .arg(&fifo));
    w.join().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let o = run(Command::new(BIN).args(["decrypt", "-k", s(&d.key), "-o", "-", s(&enc)]));
    assert!(o.stdout == plain);
}

#[test]
fn linked_outputs_count_as_what_they_point_to() {
    let d = common::test_dir(0x22);
    let input = d.p.join("in");
    fs::write(&input, b"secret data").unwrap();
    // A link to a FIFO: refused like the FIFO itself, even with --force;
    // the link stays a link.
    let fifo = d.p.join("fifo");
    mkfifo(&fifo);
    let link = d.p.join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let o = run(Command::new(BIN)
        .args(["encrypt", "--force", "-k", s(&d.key), "-o", s(&link)])
        .arg(&input));
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    assert!(err(&o).contains("FIFO"), "{}", err(&o));
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(fs::metadata(&link).unwrap().file_type().is_fifo());
    // A link to this process's stdout (as /dev/stdout and /dev/fd/1 are):
    // the data goes to stdout, with or without --force; the link stays.
    let ct = d.p.join("in.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-k", s(&d.key), "-o", s(&ct)])
        .arg(&input));
    assert!(o.status.success(), "{}", err(&o));
    let to_stdout = d.p.join("to-stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &to_stdout).unwrap();
    for force in [false, true] {
        let o = run(Command::new(BIN)
            .args(["decrypt", "-k", s(&d.key), "-o", s(&to_stdout)])
            .args(force.then_some("--force"))
            .arg(&ct));
        assert!(o.status.success(), "--force {force}: {}", err(&o));
        assert_eq!(o.stdout, b"secret data", "--force {force}");
        assert!(fs::symlink_metadata(&to_stdout).unwrap().is_symlink());
    }
    // The system's own names, which only read here.
    for name in ["/dev/stdout", "/dev/fd/1"] {
        if fs::symlink_metadata(name).is_err() {
            continue;
        }
        let o = run(Command::new(BIN)
            .args(["decrypt", "-k", s(&d.key), "-o", name])
            .arg(&ct));
        assert!(o.status.success(), "{name}: {}", err(&o));
        assert_eq!(o.stdout, b"secret data", "{name}");
    }
}

#[test]
fn a_file_that_changes_size_while_read_is_an_error() {
    let d = common::test_dir(0x23);
    let input = d.p.join("growing");
    fs::write(&input, data(48 << 20)).unwrap();
    // An appender that keeps the file growing while it is encrypted.
    let mut grower = sh(r#"while :; do printf 0123456789abcdef >> "$1"; done"#)
        .arg(&input)
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let out = d.p.join("growing.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-j", "1", "-k", s(&d.key), "-o", s(&out)])
        .arg(&input));
    let _ = grower.kill();
    let _ = grower.wait();
    assert!(!o.status.success(), "a growing input was encrypted");
    assert!(err(&o).contains("changed size"), "{}", err(&o));
    assert!(!out.exists());
}

/// A passphrase file (made with cheap parameters) whose header then asks
/// for `kib` KiB, `passes` passes and `lanes` lanes: its commitment no
/// longer matches, so a decryption runs Argon2id in full and then fails.
fn header_file(dir: &Path, kib: u32, passes: u32, lanes: u32) -> PathBuf {
    let p = dir.join(format!("h-{kib}-{passes}-{lanes}.cob"));
    let _ = fs::remove_file(&p);
    let src = dir.join("small");
    fs::write(&src, b"x").unwrap();
    let o = run(Command::new(BIN)
        .args(["encrypt", "--passphrase-env", "PW", "-o", s(&p)])
        .args(KDF)
        .arg(&src)
        .env("PW", "pw"));
    assert!(o.status.success(), "{}", err(&o));
    let mut b = fs::read(&p).unwrap();
    b[10..14].copy_from_slice(&kib.to_be_bytes());
    b[14..18].copy_from_slice(&passes.to_be_bytes());
    b[18..22].copy_from_slice(&lanes.to_be_bytes());
    fs::write(&p, b).unwrap();
    p
}

fn decrypt_pw(file: &Path, vlimit_kib: Option<u64>, extra: &[&str]) -> Output {
    let limit = vlimit_kib.map_or(String::new(), |k| format!("ulimit -v {k}; "));
    let line = format!(r#"{limit}exec "$0" decrypt -j 1 --passphrase-env PW -o - "$@""#);
    run(sh(&line).args(extra).arg(file).env("PW", "pw"))
}

#[test]
fn hostile_passphrase_headers_are_bounded() {
    let d = common::test_dir(0x24);
    // The worst header the default limits admit: 256 MiB, 4 passes, 16
    // lanes. It runs in full within 400 MiB of address space (exit 3:
    // wrong passphrase), and the smallest step beyond it is refused
    // before any work (exit 4).
    let worst = header_file(&d.p, 256 << 10, 4, 16);
    let o = decrypt_pw(&worst, Some(400 << 10), &[]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    for (kib, passes, lanes) in [
        ((256 << 10) + 1, 1, 1),
        (256 << 10, 5, 1),
        (64 << 10, 17, 1),
        (1 << 20, 16, 16),
    ] {
        let f = header_file(&d.p, kib, passes, lanes);
        let t = Instant::now();
        let o = decrypt_pw(&f, None, &[]);
        assert_eq!(o.status.code(), Some(4), "{kib} {passes}: {}", err(&o));
        assert!(t.elapsed() < Duration::from_secs(10));
    }
    // The message names the amount exactly: one KiB over is not "256 MiB,
    // above the limit of 256 MiB".
    let o = decrypt_pw(&header_file(&d.p, (256 << 10) + 1, 1, 1), None, &[]);
    let e = err(&o);
    assert!(e.contains("262145 KiB") && e.contains("256 MiB"), "{e}");
    // Memory that cannot be had: a clean error (exit 1), not an abort.
    let f = header_file(&d.p, 192 << 10, 1, 1);
    let o = decrypt_pw(&f, Some(160 << 10), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("memory"), "{}", err(&o));
}

/// A writer of endless armor: the BEGIN line, then `line` forever.
fn endless_armor(line: &str) -> String {
    format!(
        r#"{{ echo '-----BEGIN AESFLOW ENCRYPTED FILE-----'; yes '{line}'; }} | \
           {{ ulimit -v 600000; exec "$0" decrypt -j 1 -k "$1" -o -; }}"#
    )
}

#[test]
fn junk_armor_is_refused_after_its_first_lines() {
    let d = common::test_dir(0x25);
    let base64_junk = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2";
    for (line, want) in [(base64_junk, "wrong key"), ("**not base64**", "armor")] {
        let c = sh(&endless_armor(line))
            .arg(&d.key)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = wait_bounded(c, Duration::from_secs(30), line);
        assert_eq!(o.status.code(), Some(3), "{line}: {}", err(&o));
        assert!(err(&o).contains(want), "{line}: {}", err(&o));
        assert!(o.stdout.is_empty());
    }
    // A real message's first lines, then endless junk: the first batch of
    // chunks fails, nothing is released.
    let input = d.p.join("in");
    fs::write(&input, data(1 << 20)).unwrap();
    let asc = d.p.join("in.asc");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-a", "-k", s(&d.key), "-o", s(&asc)])
        .arg(&input));
    assert!(o.status.success(), "{}", err(&o));
    let text = fs::read_to_string(&asc).unwrap();
    let head: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
    fs::write(d.p.join("head"), head).unwrap();
    let line = format!(
        r#"{{ cat "$2"; yes '{base64_junk}'; }} | {{ ulimit -v 600000; exec "$0" decrypt -j 1 -k "$1" -o -; }}"#
    );
    let c = sh(&line)
        .arg(&d.key)
        .arg(d.p.join("head"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_bounded(c, Duration::from_secs(30), "junk after a real head");
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn bad_output_names_are_refused_before_any_input_is_read() {
    let d = common::test_dir(0x26);
    let long = d.p.join("n".repeat(300));
    let subdir = d.p.join("sub");
    fs::create_dir(&subdir).unwrap();
    let missing_dir = format!("{}/", d.p.join("nodir").display());
    let with_slash = format!("{}/", subdir.display());
    for name in [s(&long), &missing_dir, &with_slash] {
        // Endless input: only a refusal before reading it ends the run.
        let line = format!(r#"yes | exec "$0" encrypt -k "$1" -o '{name}'"#);
        let c = sh(&line)
            .arg(&d.key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = wait_bounded(c, Duration::from_secs(30), name);
        assert_eq!(o.status.code(), Some(5), "{name}: {}", err(&o));
    }
    assert_eq!(common::names(&subdir), Vec::<String>::new());
}

#[test]
fn inspect_names_what_it_sees() {
    let d = common::test_dir(0x27);
    let input = d.p.join("in");
    fs::write(&input, data(40_000)).unwrap();
    let inspect = |p: &Path| run(Command::new(BIN).args(["inspect", s(p)]));
    let stdout = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    // A key-file message: recognised as one, suite from the key.
    let cob = d.p.join("in.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-k", s(&d.key), "-o", s(&cob)])
        .arg(&input));
    assert!(o.status.success());
    let o = inspect(&cob);
    assert!(o.status.success(), "{}", err(&o));
    let t = stdout(&o);
    assert!(
        t.contains("Cobblestone message encrypted with a key"),
        "{t}"
    );
    assert!(
        !t.contains("not an aesflow file") && !t.contains("not recorded"),
        "{t}"
    );
    assert!(t.contains("chunks: 3"), "{t}");
    // Armored: the header inside.
    let asc = d.p.join("in.asc");
    let o = run(Command::new(BIN)
        .args(["encrypt", "-a", "--passphrase-env", "PW", "-o", s(&asc)])
        .args(KDF)
        .arg(&input)
        .env("PW", "pw"));
    assert!(o.status.success(), "{}", err(&o));
    let t = stdout(&inspect(&asc));
    assert!(t.contains("ASCII-armored aesflow passphrase file"), "{t}");
    assert!(t.contains("Argon2id memory: 64 KiB"), "{t}");
    // A passphrase header cut at 37 bytes: named as such.
    let cut = d.p.join("cut");
    let full = header_file(&d.p, 64, 1, 1);
    fs::write(&cut, &fs::read(&full).unwrap()[..37]).unwrap();
    let o = inspect(&cut);
    assert!(
        stdout(&o).contains("truncated (37 of its 38 bytes)"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(4));
    // A header decrypt refuses: shown, exit 4.
    let o = inspect(&header_file(&d.p, 1 << 20, 1, 1));
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert!(stdout(&o).contains("1048576 KiB"), "{}", stdout(&o));
    // A FIFO: refused at once (not read, not waited on).
    let fifo = d.p.join("fifo");
    mkfifo(&fifo);
    let c = Command::new(BIN)
        .args(["inspect", s(&fifo)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_bounded(c, Duration::from_secs(20), "inspect a FIFO");
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("not a regular file"), "{}", err(&o));
}

#[test]
fn passphrase_sources_agree_and_whitespace_is_refused() {
    let d = common::test_dir(0x28);
    let input = d.p.join("in");
    fs::write(&input, b"agree").unwrap();
    let pwfile = d.p.join("pw.txt");
    fs::write(&pwfile, b"correct horse\n").unwrap();
    common::private(&pwfile);
    let ct = d.p.join("in.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "--passphrase-file", s(&pwfile), "-o", s(&ct)])
        .args(KDF)
        .arg(&input));
    assert!(o.status.success(), "{}", err(&o));
    // The same line from the environment, with its newline (as
    // `PW="$(cat pw.txt; echo)"` or a here-document leaves it).
    for value in ["correct horse\n", "correct horse\r\n", "correct horse"] {
        let o = run(Command::new(BIN)
            .args(["decrypt", "--passphrase-env", "PW", "-o", "-", s(&ct)])
            .env("PW", value));
        assert!(o.status.success(), "{value:?}: {}", err(&o));
        assert_eq!(o.stdout, b"agree");
    }
    for blank in ["   ", " \t \n", "\n"] {
        let o = run(Command::new(BIN)
            .args(["encrypt", "--passphrase-env", "PW", "-o", "-", s(&input)])
            .env("PW", blank));
        assert!(!o.status.success(), "{blank:?} accepted");
        assert!(
            err(&o).contains("whitespace") || err(&o).contains("empty"),
            "{}",
            err(&o)
        );
    }
}

/// Start `line` in a pseudo-terminal (`script`), answer `answer` the
/// instant `prompt` appears, and return everything the terminal showed;
/// `None` (and a printed reason) without `script`.
fn pty_answer(line: &str, prompt: &str, answer: &str) -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        aesflow_vectors::skip!("`script` (util-linux) not found; the prompt is not checked");
        return None;
    }
    let mut c = Command::new("script")
        .args(["-qefc", line, "/dev/null"])
        .env("BIN", BIN)
        .env_remove("AESFLOW_KERNEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let mut stdout = c.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    let mut answered = false;
    while stdout.read(&mut byte).unwrap_or(0) == 1 {
        seen.push(byte[0]);
        if !answered && seen.ends_with(prompt.as_bytes()) {
            stdin.write_all(answer.as_bytes()).unwrap();
            stdin.flush().unwrap();
            answered = true;
        }
    }
    drop(stdin);
    let _ = c.wait();
    Some(String::from_utf8_lossy(&seen).into_owned())
}

#[test]
fn the_prompt_turns_echo_off_before_it_appears() {
    let d = common::test_dir(0x29);
    let input = d.p.join("in");
    fs::write(&input, b"x").unwrap();
    let ct = d.p.join("in.cob");
    let o = run(Command::new(BIN)
        .args(["encrypt", "--passphrase-env", "PW", "-o", s(&ct)])
        .args(KDF)
        .arg(&input)
        .env("PW", "zq7-secret-zq7"));
    assert!(o.status.success(), "{}", err(&o));
    // A responder that answers the instant the prompt is printed: the
    // passphrase must never come back on the terminal.
    for round in 0..20 {
        let line = format!("\"$BIN\" decrypt --passphrase -o - {}", ct.display());
        let Some(shown) = pty_answer(&line, "Passphrase: ", "zq7-secret-zq7\n") else {
            return;
        };
        assert!(shown.contains("Passphrase: "), "round {round}: {shown}");
        assert!(
            !shown.contains("zq7-secret"),
            "round {round}: the passphrase was echoed: {shown:?}"
        );
        assert!(shown.contains('x'), "round {round}: {shown:?}");
    }
}
