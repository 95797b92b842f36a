//! `aesflow encrypt` / `aesflow decrypt` end to end: round trips of every
//! format and mode, every error path leaving no output, overwrite and
//! same-file refusal, raw-mode interop with the `openssl` binary.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{BIN, KDF, names, openssl, private, s};
const SIZES: &[usize] = &[0, 1, 16383, 16384, 16385, (1 << 20) + 7];

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 13 + i / 777) as u8).collect()
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut c = Command::new(BIN)
        .args(args)
        .env("AESFLOW_TEST_PASS", "correct horse")
        .env("AESFLOW_WRONG_PASS", "wrong horse")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut si = c.stdin.take().unwrap();
    let input = stdin.unwrap_or_default().to_vec();
    let t = std::thread::spawn(move || {
        let _ = si.write_all(&input);
    });
    let o = c.wait_with_output().unwrap();
    t.join().unwrap();
    o
}

fn ok(args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    let o = run(args, stdin);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// Fails with a one-line message containing `want`.
fn fails(args: &[&str], want: &str) {
    let o = run(args, None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(
        err.to_lowercase().contains(&want.to_lowercase()),
        "{args:?}: wanted '{want}' in: {err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

struct Setup {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    key: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let key = d.join("k.key");
    fs::write(&key, [0x11u8; 32]).unwrap();
    fs::write(d.join("k128.hex"), "000102030405060708090a0b0c0d0e0f\n").unwrap();
    private(&key);
    private(&d.join("k128.hex"));
    Setup {
        _dir: dir,
        dir: d,
        key,
    }
}

#[test]
fn cobblestone_round_trips_files_and_stdio() {
    let st = setup();
    let d = &st.dir;
    let k128 = d.join("k128.hex");
    for &n in SIZES {
        let p = data(n);
        let inp = d.join(format!("in{n}"));
        fs::write(&inp, &p).unwrap();
        for (keyargs, extra) in [
            (vec!["-k", s(&st.key)], vec![]),
            (vec!["-k", s(&k128), "--suite", "128"], vec![]),
            (vec!["-k", s(&st.key), "--context", "ctx"], vec![]),
            (vec!["--passphrase-env", "AESFLOW_TEST_PASS"], KDF.to_vec()),
        ] {
            let enc = d.join("x.cob");
            let back = d.join("x.back");
            let mut a = vec!["encrypt", "-q", "-o", s(&enc), s(&inp)];
            a.extend(&keyargs);
            a.extend(&extra);
            ok(&a, None);
            let mut a = vec!["decrypt", "-q", "-o", s(&back), s(&enc)];
            a.extend(&keyargs);
            ok(&a, None);
            assert_eq!(fs::read(&back).unwrap(), p, "{n} {keyargs:?}");
            // stdin -> stdout, both directions.
            let mut a = vec!["encrypt", "-q"];
            a.extend(&keyargs);
            a.extend(&extra);
            let ct = ok(&a, Some(&p));
            let mut a = vec!["decrypt", "-q"];
            a.extend(&keyargs);
            assert_eq!(ok(&a, Some(&ct)), p);
            fs::remove_file(&enc).unwrap();
            fs::remove_file(&back).unwrap();
        }
    }
}

#[test]
fn several_files_at_once_and_default_names() {
    let st = setup();
    let d = &st.dir;
    let names: Vec<PathBuf> = (0..4).map(|i| d.join(format!("f{i}.txt"))).collect();
    for (i, p) in names.iter().enumerate() {
        fs::write(p, data(i * 50000)).unwrap();
    }
    let mut a = vec!["encrypt", "-q", "-k", s(&st.key)];
    a.extend(names.iter().map(|p| s(p)));
    ok(&a, None);
    for p in &names {
        let enc = PathBuf::from(format!("{}.cob", p.display()));
        assert!(enc.exists());
        fs::remove_file(p).unwrap();
    }
    let encs: Vec<String> = names
        .iter()
        .map(|p| format!("{}.cob", p.display()))
        .collect();
    let mut a = vec!["decrypt", "--json", "-k", s(&st.key)];
    a.extend(encs.iter().map(|p| p.as_str()));
    let out = String::from_utf8(ok(&a, None)).unwrap();
    assert!(
        out.starts_with("{\"ok\":[{") && out.contains("\"failed\":[]"),
        "{out}"
    );
    for (i, p) in names.iter().enumerate() {
        assert_eq!(fs::read(p).unwrap(), data(i * 50000));
    }
    // -o with several inputs is refused.
    fails(
        &[
            "encrypt",
            "-k",
            s(&st.key),
            "-o",
            "x",
            s(&names[0]),
            s(&names[1]),
        ],
        "single input",
    );
}

#[test]
fn overwrite_and_same_file_are_refused() {
    let st = setup();
    let d = &st.dir;
    let inp = d.join("a");
    let out = d.join("b");
    fs::write(&inp, b"hello").unwrap();
    fs::write(&out, b"precious").unwrap();
    fails(
        &["encrypt", "-k", s(&st.key), "-o", s(&out), s(&inp)],
        "already exists",
    );
    assert_eq!(fs::read(&out).unwrap(), b"precious");
    ok(
        &[
            "encrypt",
            "-q",
            "-f",
            "-k",
            s(&st.key),
            "-o",
            s(&out),
            s(&inp),
        ],
        None,
    );
    assert_ne!(fs::read(&out).unwrap(), b"precious");
    for armor in [&[][..], &["--armor"][..]] {
        let mut args = vec!["encrypt", "-f", "-k", s(&st.key), "-o", s(&inp), s(&inp)];
        args.extend_from_slice(armor);
        fails(&args, "same file");
    }
    fs::hard_link(&inp, d.join("link")).unwrap();
    fails(
        &[
            "encrypt",
            "-f",
            "-k",
            s(&st.key),
            "-o",
            s(&d.join("link")),
            s(&inp),
        ],
        "same file",
    );
    assert_eq!(fs::read(&inp).unwrap(), b"hello");
}

/// Decrypting `ct` must fail with `want` and leave the directory as it was.
fn decrypt_fails(st: &Setup, ct: &[u8], keyargs: &[&str], want: &str) {
    let d = &st.dir;
    let f = d.join("bad.cob");
    fs::write(&f, ct).unwrap();
    let before = names(d);
    let out = d.join("plain.out");
    let mut a = vec!["decrypt", "-o", s(&out), s(&f)];
    a.extend(keyargs);
    fails(&a, want);
    assert_eq!(names(d), before, "no output, no temporary file left");
    // From stdin to stdout: non-zero too.
    let mut a = vec!["decrypt", "-q"];
    a.extend(keyargs);
    let o = run(&a, Some(ct));
    assert!(!o.status.success());
}

#[test]
fn every_error_leaves_no_output() {
    let st = setup();
    let d = &st.dir;
    let p = data(3 * 16384 + 100);
    let inp = d.join("src");
    fs::write(&inp, &p).unwrap();
    let k = ["-k", s(&st.key)];
    let ct = ok(&["encrypt", "-q", "-k", s(&st.key)], Some(&p));
    let chunk = |i: usize| 56 + i * 16400;
    // Wrong key.
    let wrong = d.join("wrong.key");
    fs::write(&wrong, [0x22u8; 32]).unwrap();
    private(&wrong);
    decrypt_fails(&st, &ct, &["-k", s(&wrong)], "wrong key");
    decrypt_fails(&st, &ct, &["-k", s(&st.key), "--context", "x"], "wrong key");
    // Flipped bits: salt (header), commitment, chunk, tag.
    for (pos, want) in [
        (3, "wrong key"),
        (40, "wrong key"),
        (chunk(1) + 7, "chunk 1"),
        (chunk(1) - 2, "chunk 0"),
        (ct.len() - 1, "chunk 3"),
    ] {
        let mut t = ct.clone();
        t[pos] ^= 1;
        decrypt_fails(&st, &t, &k, want);
    }
    // Truncation at and inside chunk boundaries, appended data.
    for len in [0, 30, 56, 71, chunk(1), chunk(3), chunk(2) + 9] {
        decrypt_fails(&st, &ct[..len], &k, "invalid ciphertext");
    }
    // Inside the last chunk: structurally valid, the tag fails.
    decrypt_fails(&st, &ct[..ct.len() - 1], &k, "chunk 3");
    decrypt_fails(&st, &ct[..chunk(2) + 20], &k, "chunk 2");
    for extra in [1usize, 17, 16400] {
        let mut t = ct.clone();
        t.extend(vec![0u8; extra]);
        decrypt_fails(&st, &t, &k, "");
    }
    // Swapped chunks.
    let mut t = ct.clone();
    let c0 = t[chunk(0)..chunk(1)].to_vec();
    let c1 = t[chunk(1)..chunk(2)].to_vec();
    t[chunk(0)..chunk(1)].copy_from_slice(&c1);
    t[chunk(1)..chunk(2)].copy_from_slice(&c0);
    decrypt_fails(&st, &t, &k, "chunk 0");
    // Passphrase: wrong passphrase, a flipped header bit, a bad header.
    let mut a = vec!["encrypt", "-q", "--passphrase-env", "AESFLOW_TEST_PASS"];
    a.extend(KDF);
    let pct = ok(&a, Some(&p));
    let pe = ["--passphrase-env", "AESFLOW_TEST_PASS"];
    decrypt_fails(
        &st,
        &pct,
        &["--passphrase-env", "AESFLOW_WRONG_PASS"],
        "wrong passphrase",
    );
    // Argon2 salt, parameters, Cobblestone salt and commitment.
    for pos in [13, 25, 37, 40, 38 + 55] {
        let mut t = pct.clone();
        t[pos] ^= 1;
        decrypt_fails(&st, &t, &pe, "wrong passphrase");
    }
    let mut t = pct.clone();
    t[38 + 60] ^= 1;
    decrypt_fails(&st, &t, &pe, "chunk 0");
    let mut t = pct.clone();
    t[0] ^= 1;
    decrypt_fails(&st, &t, &pe, "not an aesflow passphrase file");
    let mut t = pct.clone();
    t[8] = 9;
    decrypt_fails(&st, &t, &pe, "version");
    let mut t = pct.clone();
    t[10] = 0xff; // 4 GiB+ of memory
    decrypt_fails(&st, &t, &pe, "out of range");
    decrypt_fails(&st, &pct[..20], &pe, "shorter than the passphrase header");
    // Bare Cobblestone given to --passphrase.
    decrypt_fails(&st, &ct, &pe, "not an aesflow passphrase file");
    // A missing input and a bad key file.
    fails(&["encrypt", "-k", s(&st.key), s(&d.join("nope"))], "nope");
    let badkey = d.join("bad.key");
    fs::write(&badkey, b"short").unwrap();
    private(&badkey);
    fails(&["encrypt", "-k", s(&badkey), s(&inp)], "key file");
    fails(&["encrypt", s(&inp)], "no key");
}

#[test]
fn stdout_decrypt_error_after_output_exits_nonzero() {
    let st = setup();
    let p = data(300 * 16384);
    let mut ct = ok(&["encrypt", "-q", "-k", s(&st.key)], Some(&p));
    ct[56 + 290 * 16400] ^= 1; // in the second batch
    let o = run(&["decrypt", "-q", "-k", s(&st.key)], Some(&ct));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("chunk 290"));
    // Only whole authenticated batches were released.
    assert_eq!(o.stdout, &p[..o.stdout.len()]);
    assert!(o.stdout.len() < p.len());
}

const RAW: &[(&str, &str, Option<&str>)] = &[
    ("ecb", "000102030405060708090a0b0c0d0e0f", None),
    (
        "cbc",
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        Some("0f0e0d0c0b0a09080706050403020100"),
    ),
    (
        "ctr",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        Some("fffffffffffffffffffffffffffffffe"),
    ),
    (
        "cfb",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        Some("00112233445566778899aabbccddeeff"),
    ),
    (
        "ofb",
        "000102030405060708090a0b0c0d0e0f",
        Some("00112233445566778899aabbccddeeff"),
    ),
    (
        "cfb8",
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        Some("00112233445566778899aabbccddeeff"),
    ),
    (
        "cfb1",
        "000102030405060708090a0b0c0d0e0f",
        Some("ffeeddccbbaa99887766554433221100"),
    ),
];

fn raw_args<'a>(mode: &'a str, key: &'a str, iv: Option<&'a str>) -> Vec<&'a str> {
    let mut a = vec!["--raw", "--mode", mode, "--key", key];
    if let Some(iv) = iv {
        a.extend(["--iv", iv]);
    }
    a
}

#[test]
fn raw_modes_round_trip_and_errors() {
    for &(mode, key, iv) in RAW {
        for &n in SIZES {
            if mode == "cfb1" && n > 20000 {
                continue; // one AES call per bit: the small sizes suffice
            }
            let p = data(n);
            let mut a = vec!["encrypt", "-q"];
            a.extend(raw_args(mode, key, iv));
            let ct = ok(&a, Some(&p));
            let mut a = vec!["decrypt", "-q"];
            a.extend(raw_args(mode, key, iv));
            assert_eq!(ok(&a, Some(&ct)), p, "{mode} {n}");
            if n % 16 == 0 {
                let mut a = vec!["encrypt", "-q", "--no-pad"];
                a.extend(raw_args(mode, key, iv));
                let ct = ok(&a, Some(&p));
                assert_eq!(ct.len(), n);
                let mut a = vec!["decrypt", "-q", "--no-pad"];
                a.extend(raw_args(mode, key, iv));
                assert_eq!(ok(&a, Some(&ct)), p);
            }
        }
    }
    let st = setup();
    let f = st.dir.join("odd");
    fs::write(&f, data(17)).unwrap();
    let mut a = vec!["encrypt", "--no-pad", "-o", "/dev/null", s(&f)];
    a.extend(raw_args("cbc", RAW[1].1, RAW[1].2));
    let o = run(&a, None);
    assert!(!o.status.success());
    // Bad padding leaves no output.
    let g = st.dir.join("garbage");
    fs::write(&g, data(64)).unwrap();
    let out = st.dir.join("g.out");
    let mut a = vec!["decrypt", "-o", s(&out), s(&g)];
    a.extend(raw_args("ecb", RAW[0].1, None));
    fails(&a, "padding");
    assert!(!out.exists());
    fails(
        &["encrypt", "--raw", "--mode", "cbc", "--key", "00", s(&f)],
        "--key",
    );
    fails(
        &[
            "encrypt",
            "--raw",
            "--mode",
            "cbc",
            "--key",
            RAW[0].1,
            s(&f),
        ],
        "--iv is required",
    );
}

#[test]
fn raw_modes_match_openssl_enc() {
    if !openssl() {
        return;
    }
    let st = setup();
    for &(mode, key, iv) in RAW {
        let bits = key.len() * 4;
        for &n in SIZES {
            if mode == "cfb1" && n > 20000 {
                continue; // one AES call per bit: the small sizes suffice
            }
            for nopad in [false, true] {
                if nopad && n % 16 != 0 && matches!(mode, "ecb" | "cbc") {
                    continue;
                }
                let p = data(n);
                let inp = st.dir.join("p");
                fs::write(&inp, &p).unwrap();
                let ossl = |dec: bool, input: &Path| -> Vec<u8> {
                    let mut c = Command::new("openssl");
                    c.args(["enc", &format!("-aes-{bits}-{mode}"), "-K", key]);
                    if let Some(iv) = iv {
                        c.args(["-iv", iv]);
                    }
                    if dec {
                        c.arg("-d");
                    }
                    if nopad {
                        c.arg("-nopad");
                    }
                    let o = c.arg("-in").arg(input).output().unwrap();
                    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                    o.stdout
                };
                let want = ossl(false, &inp);
                let mut a = vec!["encrypt", "-q"];
                if nopad {
                    a.push("--no-pad");
                }
                a.extend(raw_args(mode, key, iv));
                let mine = ok(&a, Some(&p));
                assert_eq!(mine, want, "{mode}-{bits} n={n} nopad={nopad}");
                let ct = st.dir.join("c");
                fs::write(&ct, &want).unwrap();
                assert_eq!(ossl(true, &ct), p);
                a[0] = "decrypt";
                assert_eq!(ok(&a, Some(&want)), p);
            }
        }
    }
}
