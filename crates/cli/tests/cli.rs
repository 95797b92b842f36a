//! The command line's conventions: quiet in pipes, summaries that name the
//! kernel, refusals (ciphertext to a terminal, variable-time kernels),
//! key sources (`-k -`, `--key-env`), diagnoses from the header, exit
//! codes, `openssl enc -pbkdf2` files, `inspect`, completions, man page,
//! `--version`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{BIN, KDF, err, in_pty, openssl, private, s, test_dir};

fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("AESFLOW_KERNEL")
        .env("PW", "pass phrase");
    c
}

fn run(c: &mut Command) -> Output {
    c.stdin(Stdio::null()).output().unwrap()
}

/// `aesflow VERB FLAGS… -k KEY -o OUT INPUT`.
fn with_key(verb: &str, flags: &[&str], key: &Path, out: &str, input: &Path) -> Output {
    let mut a = vec![verb];
    a.extend(flags);
    a.extend(["-k", s(key), "-o", out, s(input)]);
    run(&mut cmd(&a))
}

struct D {
    _t: common::TestDir,
    p: PathBuf,
    key: PathBuf,
    input: PathBuf,
}

fn setup() -> D {
    let t = test_dir(0x5a);
    let input = t.p.join("in.bin");
    fs::write(&input, (0..70000u32).map(|i| i as u8).collect::<Vec<_>>()).unwrap();
    D {
        p: t.p.clone(),
        key: t.key.clone(),
        _t: t,
        input,
    }
}

#[test]
fn quiet_in_pipes_summary_on_request() {
    let d = setup();
    let o = with_key("encrypt", &[], &d.key, s(&d.p.join("a.cob")), &d.input);
    assert!(o.status.success());
    assert!(
        err(&o).is_empty(),
        "quiet when stdout is not a terminal: {}",
        err(&o)
    );
    let o = with_key("encrypt", &["-v"], &d.key, s(&d.p.join("b.cob")), &d.input);
    let e = err(&o);
    assert!(
        e.contains("Cobblestone-256 encrypt on the ") && e.contains("kernel"),
        "{e}"
    );
    assert!(e.contains("68.4 KiB"), "human-readable sizes: {e}");
    assert!(!e.contains("GB/s"), "no speed for a tiny file: {e}");
    let o = with_key(
        "encrypt",
        &["--json"],
        &d.key,
        s(&d.p.join("c.cob")),
        &d.input,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"][0]["bytes_in"], 70000);
    assert!(v["ok"][0]["kernel"].is_string());
    assert_eq!(v["failed"].as_array().unwrap().len(), 0);
}

#[test]
fn no_ciphertext_to_a_terminal_and_a_hint_when_reading_one() {
    let d = setup();
    let line = format!("\"$BIN\" encrypt -k {} < {}", s(&d.key), s(&d.input));
    let Some((text, code)) = in_pty(&line) else {
        return;
    };
    assert_eq!(code, Some(6), "{text}");
    assert!(
        text.contains("refusing to write binary ciphertext to a terminal"),
        "{text}"
    );
    let line = format!(
        "\"$BIN\" encrypt -k {} -o - < {} | wc -c",
        s(&d.key),
        s(&d.input)
    );
    let (text, code) = in_pty(&line).unwrap();
    assert_eq!(code, Some(0), "{text}");
    let (text, _) = in_pty(&format!(
        "\"$BIN\" decrypt -k {} -o {}",
        s(&d.key),
        s(&d.p.join("x"))
    ))
    .unwrap();
    assert!(
        text.contains("reading the ciphertext from the terminal"),
        "{text}"
    );
}

#[test]
fn variable_time_kernels_are_refused_unless_allowed() {
    let d = setup();
    let raw = [
        "--raw",
        "--mode",
        "ctr",
        "--key",
        "000102030405060708090a0b0c0d0e0f",
        "--iv",
        "000102030405060708090a0b0c0d0e0f",
    ];
    let out = d.p.join("r.bin");
    let mut a = vec!["encrypt", "-o", s(&out), s(&d.input)];
    a.extend(raw);
    let o = run(cmd(&a).env("AESFLOW_KERNEL", "ttable"));
    assert_eq!(o.status.code(), Some(6), "{}", err(&o));
    assert!(err(&o).contains("not constant-time"), "{}", err(&o));
    assert!(!out.exists());
    a.push("--allow-variable-time");
    a.push("-v");
    let o = run(cmd(&a).env("AESFLOW_KERNEL", "ttable"));
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("warning") && err(&o).contains("on the ttable kernel"),
        "{}",
        err(&o)
    );
    // The same bytes as the default kernel's.
    let ref_out = d.p.join("r2.bin");
    let mut b = vec!["encrypt", "-o", s(&ref_out), s(&d.input)];
    b.extend(raw);
    assert!(run(&mut cmd(&b)).status.success());
    assert_eq!(fs::read(&out).unwrap(), fs::read(&ref_out).unwrap());
    // Cobblestone follows the variable too: refused on ttable, and on a
    // forced constant-time kernel the summary names it and the file opens
    // under the default kernel.
    let cob = d.p.join("c.cob");
    let enc = ["encrypt", "-k", s(&d.key), "-o", s(&cob), s(&d.input)];
    let o = run(cmd(&enc).env("AESFLOW_KERNEL", "ttable"));
    assert_eq!(o.status.code(), Some(6), "{}", err(&o));
    assert!(!cob.exists());
    let mut enc_v = enc.to_vec();
    enc_v.push("-v");
    let o = run(cmd(&enc_v).env("AESFLOW_KERNEL", "ctime"));
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("on the ctime kernel"), "{}", err(&o));
    let back = d.p.join("c.out");
    let o = with_key("decrypt", &[], &d.key, s(&back), &cob);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(fs::read(&back).unwrap(), fs::read(&d.input).unwrap());
    // `aesflow kernels` says which kernel the variable forces.
    let o = run(cmd(&["kernels"]).env("AESFLOW_KERNEL", "ctime"));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("forces the ctime kernel"), "{t}");
    assert!(
        t.lines()
            .any(|l| l.starts_with("ctime") && l.contains("(forced)")),
        "{t}"
    );
}

#[test]
fn key_sources_and_diagnoses() {
    let d = setup();
    let ct = d.p.join("k.cob");
    // -k - : the key on stdin.
    let mut c = cmd(&["encrypt", "-k", "-", "-o", s(&ct), s(&d.input)]);
    c.stdin(fs::File::open(&d.key).unwrap());
    assert!(c.output().unwrap().status.success());
    // --key-env: hex.
    let hexkey: String = fs::read(&d.key)
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let o = run(cmd(&["decrypt", "--key-env", "K", "-o", "-", s(&ct)]).env("K", &hexkey));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(o.stdout, fs::read(&d.input).unwrap());
    // A 128-bit key chooses Cobblestone-128; --suite 256 with it is named.
    let k16 = d.p.join("k16.key");
    fs::write(&k16, "00112233445566778899aabbccddeeff\n").unwrap();
    private(&k16);
    let ct16 = d.p.join("k16.cob");
    let o = with_key("encrypt", &["-v"], &k16, s(&ct16), &d.input);
    assert!(err(&o).contains("Cobblestone-128"), "{}", err(&o));
    let o = with_key("decrypt", &["--suite", "256"], &k16, "-", &ct16);
    assert!(err(&o).contains("Cobblestone-128"), "{}", err(&o));
    // -k on a passphrase file.
    let pf = d.p.join("p.cob");
    let o = run(cmd(&["encrypt", "--passphrase-env", "PW"]).args(KDF).args([
        "-o",
        s(&pf),
        s(&d.input),
    ]));
    assert!(o.status.success(), "{}", err(&o));
    let o = with_key("decrypt", &[], &d.key, "-", &pf);
    assert!(
        err(&o).contains("encrypted with a passphrase"),
        "{}",
        err(&o)
    );
    // inspect reads the header without a key.
    let o = run(&mut cmd(&["inspect", "--json", s(&pf)]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["suite"], "Cobblestone-256");
    assert_eq!(v["argon2id_memory_kib"], 64);
    assert_eq!(v["chunks"], 5);
    assert_eq!(v["plaintext_size"], 70000);
    let o = run(&mut cmd(&["inspect", s(&ct)]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("chunks: 5"));
}

#[test]
fn exit_codes_are_distinct() {
    let d = setup();
    let ct = d.p.join("e.cob");
    let o = with_key("encrypt", &[], &d.key, s(&ct), &d.input);
    assert!(o.status.success());
    let wrong = d.p.join("w.key");
    fs::write(&wrong, [1u8; 32]).unwrap();
    private(&wrong);
    let code = |a: &[&str]| run(&mut cmd(a)).status.code();
    assert_eq!(
        code(&["decrypt", "-k", s(&wrong), "-o", "-", s(&ct)]),
        Some(3)
    );
    assert_eq!(
        code(&["encrypt", "-k", s(&d.key), "-o", s(&ct), s(&d.input)]),
        Some(5)
    );
    assert_eq!(code(&["encrypt", "--no-such-flag"]), Some(2));
    assert_eq!(
        code(&["decrypt", "--passphrase-env", "PW", "-o", "-", s(&ct)]),
        Some(4)
    );
    assert_eq!(
        code(&["encrypt", "-k", s(&d.key), s(&d.p.join("missing"))]),
        Some(1)
    );
    let help = String::from_utf8(run(&mut cmd(&["--help"])).stdout).unwrap();
    assert!(help.contains("Exit status:") && help.contains("authentication failed"));
}

#[test]
fn openssl_pbkdf2_files_both_ways() {
    if !openssl() {
        return;
    }
    let d = setup();
    for (mode, bits, iter) in [
        ("cbc", "256", "10000"),
        ("ctr", "128", "1000"),
        ("cfb8", "192", "50"),
        ("cfb1", "256", "7"),
        ("ecb", "128", "3"),
    ] {
        let cipher = format!("-aes-{bits}-{mode}");
        let openssl_enc = |extra: &[&str]| {
            Command::new("openssl")
                .args(["enc", &cipher, "-pbkdf2", "-md", "sha256", "-iter", iter])
                .args(["-pass", "pass:pass phrase"])
                .args(extra)
                .output()
                .unwrap()
        };
        // openssl -> aesflow
        let theirs = d.p.join(format!("{mode}.ossl"));
        let o = openssl_enc(&["-in", s(&d.input), "-out", s(&theirs)]);
        assert!(o.status.success(), "{mode}: {}", err(&o));
        let aesflow = |dir: &str, out: &str, inp: &Path| {
            run(&mut cmd(&[
                dir,
                "--raw",
                "--mode",
                mode,
                "--pbkdf2",
                "--iter",
                iter,
                "--key-size",
                bits,
                "--passphrase-env",
                "PW",
                "-o",
                out,
                s(inp),
            ]))
        };
        let o = aesflow("decrypt", "-", &theirs);
        assert!(o.status.success(), "{mode}: {}", err(&o));
        assert_eq!(o.stdout, fs::read(&d.input).unwrap(), "{mode}");
        // aesflow -> openssl
        let mine = d.p.join(format!("{mode}.mine"));
        let o = aesflow("encrypt", s(&mine), &d.input);
        assert!(o.status.success(), "{mode}: {}", err(&o));
        let o = openssl_enc(&["-d", "-in", s(&mine)]);
        assert!(o.status.success(), "{mode}: {}", err(&o));
        assert_eq!(o.stdout, fs::read(&d.input).unwrap(), "{mode}");
    }
    // A wrong passphrase: bad padding, exit 3. A wrong key leaves valid
    // padding about once in 256 tries, so the file has a fixed salt (and
    // the input is fixed): the same bytes every run, whose last block
    // under this wrong key does not end in valid padding. (With `-S`
    // openssl writes no header: it is written here.)
    let salt = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77];
    let o = Command::new("openssl")
        .args([
            "enc",
            "-aes-256-cbc",
            "-pbkdf2",
            "-md",
            "sha256",
            "-iter",
            "10000",
        ])
        .args(["-pass", "pass:pass phrase", "-S", "0011223344556677"])
        .args(["-in", s(&d.input)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let fixed = d.p.join("cbc-fixed-salt.ossl");
    fs::write(&fixed, [&b"Salted__"[..], &salt, &o.stdout].concat()).unwrap();
    let decrypt = |pw: &str| {
        run(cmd(&[
            "decrypt",
            "--raw",
            "--mode",
            "cbc",
            "--pbkdf2",
            "--passphrase-env",
            "PW",
            "-o",
            "-",
            s(&fixed),
        ])
        .env("PW", pw))
    };
    let o = decrypt("pass phrase");
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(o.stdout, fs::read(&d.input).unwrap());
    let o = decrypt("wrong");
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
}

#[test]
fn completions_man_page_and_version() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&mut cmd(&["completions", shell]));
        assert!(o.status.success());
        let t = String::from_utf8_lossy(&o.stdout);
        assert!(t.contains("aesflow") && t.contains("encrypt"), "{shell}");
    }
    let o = run(&mut cmd(&["man"]));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains(".TH aesflow 1"), "{t}");
    let o = run(&mut cmd(&["--version"]));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(
        t.contains("kernels:") && t.contains("ctime") && t.contains("default kernel:"),
        "{t}"
    );
}

const BEGIN_LEN: usize = "-----BEGIN AESFLOW ENCRYPTED FILE-----\n".len();

#[test]
fn ascii_armor_round_trips() {
    let d = setup();
    let asc = d.p.join("a.asc");
    let o = with_key("encrypt", &["-a"], &d.key, s(&asc), &d.input);
    assert!(o.status.success(), "{}", err(&o));
    let text = fs::read_to_string(&asc).unwrap();
    assert!(text.starts_with("-----BEGIN AESFLOW ENCRYPTED FILE-----\n"));
    assert!(text.ends_with("-----END AESFLOW ENCRYPTED FILE-----\n"));
    assert!(
        text.lines()
            .all(|l| l.len() <= 64 || l.starts_with("-----"))
    );
    // From a file and from stdin; passphrase files too.
    let o = with_key("decrypt", &[], &d.key, "-", &asc);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(o.stdout, fs::read(&d.input).unwrap());
    let mut c = cmd(&["decrypt", "-k", s(&d.key)]);
    let o = c.stdin(fs::File::open(&asc).unwrap()).output().unwrap();
    assert_eq!(o.stdout, fs::read(&d.input).unwrap());
    let pasc = d.p.join("p.asc");
    let o = run(cmd(&[
        "encrypt",
        "--armor",
        "--passphrase-env",
        "PW",
        "-o",
        s(&pasc),
    ])
    .args(KDF)
    .arg(&d.input));
    assert!(o.status.success(), "{}", err(&o));
    let o = run(&mut cmd(&[
        "decrypt",
        "--passphrase-env",
        "PW",
        "-o",
        "-",
        s(&pasc),
    ]));
    assert_eq!(o.stdout, fs::read(&d.input).unwrap());
    // A damaged or cut armor: an error, no output.
    let back = d.p.join("back");
    let mut damaged = text.clone().into_bytes();
    damaged[BEGIN_LEN + 10] = b'*'; // inside the base64
    let damaged = String::from_utf8(damaged).unwrap();
    for bad in [damaged, text[..text.len() - 20].to_string()] {
        fs::write(&asc, bad).unwrap();
        let o = with_key("decrypt", &[], &d.key, s(&back), &asc);
        assert!(!o.status.success());
        assert!(err(&o).contains("armor"), "{}", err(&o));
        assert!(!back.exists());
    }
}
