//! Every NIST CAVP KAT/MMT file for CBC, CFB1/8/128, OFB, ECB, the RFC 3686
//! CTR file and the GCM validation files, on every kernel this CPU runs and
//! both key-expansion styles. Run with `--nocapture` to see the coverage
//! summary lines.

mod common;
use aesflow_cipher::{Aes, Kernel, KeyExpansion, detect_best};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions, GhashImpl};
use aesflow_modes::{Cfb, Cfb1, Cfb8, Ctr, Ofb, Padding, cbc, ecb};
use aesflow_vectors::{Record, list, load};
use common::{aes, configs, gcm_by_pieces, label};

fn bits(s: &str) -> (Vec<u8>, usize) {
    let mut v = vec![0u8; s.len().div_ceil(8)];
    for (i, c) in s.bytes().enumerate() {
        assert!(c == b'0' || c == b'1', "bad bit string {s}");
        v[i / 8] |= (c - b'0') << (7 - i % 8);
    }
    (v, s.len())
}

/// Run one block/stream-mode record; returns whether it checked anything.
fn run_record(mode: &str, aes: &Aes, encrypt: bool, r: &Record) {
    let what = format!("{mode} line {}", r.line);
    if mode == "CFB1" {
        let iv = r.hex("IV").unwrap();
        let (pt, n) = bits(r.field("PLAINTEXT").unwrap());
        let (ct, m) = bits(r.field("CIPHERTEXT").unwrap());
        assert_eq!(n, m);
        let (mut buf, want) = if encrypt { (pt.clone(), ct) } else { (ct, pt) };
        let mut c = Cfb1::new(aes, &iv).unwrap();
        if encrypt {
            c.encrypt_bits(&mut buf, n).unwrap();
        } else {
            c.decrypt_bits(&mut buf, n).unwrap();
        }
        assert_eq!(buf, want, "{what}");
        return;
    }
    let pt = r.hex("PLAINTEXT").unwrap();
    let ct = r.hex("CIPHERTEXT").unwrap();
    let iv = if mode == "ECB" {
        vec![]
    } else {
        r.hex("IV").unwrap()
    };
    let (input, want) = if encrypt { (&pt, &ct) } else { (&ct, &pt) };
    let stream = |f: &dyn Fn(&mut [u8])| {
        let mut b = input.clone();
        f(&mut b);
        b
    };
    let got = match (mode, encrypt) {
        ("ECB", true) => ecb::encrypt(aes, Padding::None, input).unwrap(),
        ("ECB", false) => ecb::decrypt(aes, Padding::None, input).unwrap(),
        ("CBC", true) => cbc::encrypt(aes, &iv, Padding::None, input).unwrap(),
        ("CBC", false) => cbc::decrypt(aes, &iv, Padding::None, input).unwrap(),
        ("CFB128", true) => stream(&|b| Cfb::new(aes, &iv).unwrap().encrypt(b)),
        ("CFB128", false) => stream(&|b| Cfb::new(aes, &iv).unwrap().decrypt(b)),
        ("CFB8", true) => stream(&|b| Cfb8::new(aes, &iv).unwrap().encrypt(b)),
        ("CFB8", false) => stream(&|b| Cfb8::new(aes, &iv).unwrap().decrypt(b)),
        ("OFB", _) => stream(&|b| Ofb::new(aes, &iv).unwrap().apply_keystream(b)),
        ("CTR", _) => stream(&|b| Ctr::new(aes, &iv).unwrap().apply_keystream(b)),
        _ => unreachable!(),
    };
    assert_eq!(
        &got,
        want,
        "{what} ({})",
        if encrypt { "encrypt" } else { "decrypt" }
    );
}

fn files(folder: &str, prefix: &str) -> Vec<String> {
    let v: Vec<String> = list(folder)
        .unwrap()
        .into_iter()
        .filter(|f| {
            // "CFB1" must not match "CFB128…".
            let base = f.rsplit('/').next().unwrap();
            base.strip_prefix(prefix).is_some_and(|rest| {
                !prefix.ends_with(|c: char| c.is_ascii_digit())
                    || !rest.starts_with(|c: char| c.is_ascii_digit())
            })
        })
        .collect();
    assert!(!v.is_empty(), "no {prefix} files");
    v
}

fn run_mode(mode: &str, folder: &str, prefix: &str, expect_files: usize) {
    let names = files(folder, prefix);
    assert_eq!(names.len(), expect_files, "{mode}: {names:?}");
    let parsed: Vec<_> = names.iter().map(|n| load(n).unwrap()).collect();
    for (kernel, style) in configs() {
        let mut n = 0;
        for f in &parsed {
            for (sec, r) in f.records() {
                let encrypt = match sec.name() {
                    Some("ENCRYPT") => true,
                    Some("DECRYPT") => false,
                    other => panic!("{}: section {other:?}", f.name),
                };
                let a = aes(&r.hex("KEY").unwrap(), kernel, style);
                run_record(mode, &a, encrypt, r);
                n += 1;
            }
        }
        println!(
            "{mode:7} {:18} {n:5} records from {} files",
            label(kernel, style),
            parsed.len()
        );
    }
}

/// One test per mode: `name: (mode, folder, file prefix, files expected)`.
macro_rules! cavp_tests {
    ($($name:ident: $args:expr;)+) => {$(
        #[test]
        fn $name() {
            let (mode, folder, prefix, expect) = $args;
            run_mode(mode, folder, prefix, expect);
        }
    )+};
}

cavp_tests! {
    cavp_ecb: ("ECB", "ECB", "ECB", 15);
    cavp_cbc: ("CBC", "CBC", "CBC", 15);
    cavp_cfb128: ("CFB128", "CFB", "CFB128", 15);
    cavp_cfb8: ("CFB8", "CFB", "CFB8", 15);
    cavp_cfb1: ("CFB1", "CFB", "CFB1", 15);
    cavp_ofb: ("OFB", "OFB", "OFB", 15);
    rfc3686_ctr: ("CTR", "CTR", "aes-", 3);
}

/// Run one GCM record; returns true if it was a FAIL (expected rejection).
fn gcm_record(gcm: &Gcm<&Aes>, encrypt: bool, r: &Record) -> bool {
    let iv = r.hex("IV").unwrap();
    let aad = r.hex("AAD").unwrap();
    let ct = r.hex("CT").unwrap();
    let tag = r.hex("Tag").unwrap();
    let what = format!("GCM line {}", r.line);
    // The piece API, for a 96-bit IV: a cut after 0..=2 blocks.
    let pieces = |input: &[u8], encrypt| {
        let iv: &[u8; 12] = iv.as_slice().try_into().ok()?;
        Some(gcm_by_pieces(gcm, iv, &aad, input, &[r.line % 3], encrypt))
    };
    if encrypt {
        let pt = r.hex("PT").unwrap();
        let mut buf = pt.clone();
        let full = gcm.seal_in_place_detached(&iv, &aad, &mut buf).unwrap();
        assert_eq!(buf, ct, "{what} ciphertext");
        assert_eq!(&full[..tag.len()], &tag[..], "{what} tag");
        if let Some((c, t)) = pieces(&pt, true) {
            assert_eq!((c, t), (ct.clone(), full), "{what} sealed by pieces");
            assert_eq!(
                pieces(&ct, false),
                Some((pt.clone(), full)),
                "{what} opened by pieces"
            );
        }
        // And back, with the truncated tag.
        gcm.open_in_place_detached(&iv, &aad, &mut buf, &tag)
            .unwrap();
        assert_eq!(buf, pt, "{what} round trip");
        false
    } else {
        if let Some((p, t)) = pieces(&ct, false) {
            let ok = t[..tag.len()] == tag[..];
            assert_eq!(ok, !r.has_flag("FAIL"), "{what} tag by pieces");
            if ok {
                assert_eq!(p, r.hex("PT").unwrap(), "{what} opened by pieces");
            }
        }
        let mut buf = ct.clone();
        let res = gcm.open_in_place_detached(&iv, &aad, &mut buf, &tag);
        if r.has_flag("FAIL") {
            assert_eq!(
                res,
                Err(aesflow_modes::Error::AuthenticationFailed),
                "{what} must fail"
            );
            assert!(buf.iter().all(|&b| b == 0), "{what}: output not zeroed");
            true
        } else {
            res.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(buf, r.hex("PT").unwrap(), "{what} plaintext");
            false
        }
    }
}

fn run_gcm(
    kernel: &'static dyn Kernel,
    style: KeyExpansion,
    opts: GcmOptions,
    every: usize,
    files: &[aesflow_vectors::VectorFile],
) {
    let (mut n, mut fails) = (0, 0);
    let mut i = 0usize;
    for f in files {
        let encrypt = f.name.contains("Encrypt");
        for (_, r) in f.records() {
            i += 1;
            if !i.is_multiple_of(every) {
                continue;
            }
            let a = aes(&r.hex("Key").unwrap(), kernel, style);
            let Ok(gcm) = Gcm::with_options(&a, opts) else {
                return;
            };
            fails += gcm_record(&gcm, encrypt, r) as usize;
            n += 1;
        }
    }
    let zero = aes(&[0; 16], kernel, style);
    let g = Gcm::with_options(&zero, opts).unwrap();
    println!(
        "GCM {:18} ghash={:7} fused={:12} {n:5} records (every {every}), {fails} FAIL cases rejected",
        label(kernel, style),
        g.ghash_impl().name(),
        g.fused_kernel().unwrap_or("none"),
    );
}

#[test]
fn cavp_gcm() {
    let files: Vec<_> = files("GCM", "gcm")
        .iter()
        .map(|n| load(n).unwrap())
        .collect();
    assert_eq!(files.len(), 6);
    let best = detect_best();
    // All records on the default (fastest) kernel with automatic choices.
    run_gcm(
        best,
        KeyExpansion::Offline,
        GcmOptions::default(),
        1,
        &files,
    );
    // Every fused kernel and GHASH backend available, forced.
    for fused in [
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        let opts = GcmOptions { ghash: None, fused };
        if Gcm::with_options(&aes(&[0; 16], best, KeyExpansion::Offline), opts).is_ok() {
            run_gcm(best, KeyExpansion::Offline, opts, 2, &files);
        }
    }
    for ghash in GhashImpl::ALL.into_iter().filter(|g| g.is_available()) {
        let opts = GcmOptions {
            ghash: Some(ghash),
            fused: FusedChoice::Off,
        };
        run_gcm(best, KeyExpansion::Offline, opts, 3, &files);
    }
    // Every kernel × style, a sample.
    for (kernel, style) in configs() {
        let every = match (kernel.name(), style) {
            ("reference", KeyExpansion::Online) => 29,
            ("reference", _) | ("ctime", KeyExpansion::Online) => 13,
            _ => 7,
        };
        run_gcm(kernel, style, GcmOptions::default(), every, &files);
    }
}
