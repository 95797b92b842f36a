//! NIST CAVP MMT vectors, each file's records run as one batch of streams.

use aesflow_multistream::{Backend, Job, Mode, MultiStream};

fn run_file(file: &str, section: &str, mode: Mode) {
    let f = aesflow_vectors::load(file).unwrap();
    let (input_field, output_field) = if section == "ENCRYPT" {
        ("PLAINTEXT", "CIPHERTEXT")
    } else {
        ("CIPHERTEXT", "PLAINTEXT")
    };
    let recs: Vec<_> = f
        .records()
        .filter(|(s, _)| s.name() == Some(section))
        .map(|(_, r)| {
            (
                r.hex("KEY").unwrap(),
                <[u8; 16]>::try_from(r.hex("IV").unwrap()).unwrap(),
                r.hex(input_field).unwrap(),
                r.hex(output_field).unwrap(),
            )
        })
        .collect();
    assert!(
        recs.len() >= 10,
        "{file} [{section}]: {} records",
        recs.len()
    );
    for b in Backend::available() {
        let engine = MultiStream::new(b).unwrap();
        let mut outs: Vec<Vec<u8>> = recs.iter().map(|r| vec![0u8; r.2.len()]).collect();
        let mut jobs: Vec<Job<'_>> = recs
            .iter()
            .zip(outs.iter_mut())
            .map(|((k, iv, i, _), o)| Job::new(mode, k, *iv, i, o))
            .collect();
        engine.process(&mut jobs).unwrap();
        for (n, (r, o)) in recs.iter().zip(&outs).enumerate() {
            assert_eq!(*o, r.3, "{file} [{section}] record {n}, backend {b}");
        }
    }
}

#[test]
fn cbc_mmt_encrypt() {
    for bits in [128, 192, 256] {
        run_file(
            &format!("CBC/CBCMMT{bits}.rsp"),
            "ENCRYPT",
            Mode::CbcEncrypt,
        );
    }
}

/// Both sections of the MMT files `{dir}/{dir}{name}MMT{bits}.rsp` for
/// every key size, with the mode of each.
fn run_both(dir: &str, name: &str, encrypt: Mode, decrypt: Mode) {
    for bits in [128, 192, 256] {
        let f = format!("{dir}/{dir}{name}MMT{bits}.rsp");
        run_file(&f, "ENCRYPT", encrypt);
        run_file(&f, "DECRYPT", decrypt);
    }
}

#[test]
fn cfb128_mmt() {
    run_both("CFB", "128", Mode::CfbEncrypt, Mode::CfbDecrypt);
}

#[test]
fn ofb_mmt() {
    run_both("OFB", "", Mode::Ofb, Mode::Ofb);
}

#[test]
fn all_cbc_mmt_files_mixed_in_one_call() {
    // 30 streams of three key sizes in one call.
    let mut recs = Vec::new();
    for bits in [128, 192, 256] {
        let f = aesflow_vectors::load(&format!("CBC/CBCMMT{bits}.rsp")).unwrap();
        for (s, r) in f.records() {
            if s.name() == Some("ENCRYPT") {
                recs.push((
                    r.hex("KEY").unwrap(),
                    <[u8; 16]>::try_from(r.hex("IV").unwrap()).unwrap(),
                    r.hex("PLAINTEXT").unwrap(),
                    r.hex("CIPHERTEXT").unwrap(),
                ));
            }
        }
    }
    assert_eq!(recs.len(), 30);
    for b in Backend::available() {
        let engine = MultiStream::new(b).unwrap();
        let mut outs: Vec<Vec<u8>> = recs.iter().map(|r| vec![0u8; r.2.len()]).collect();
        let mut jobs: Vec<Job<'_>> = recs
            .iter()
            .zip(outs.iter_mut())
            .map(|((k, iv, i, _), o)| Job::new(Mode::CbcEncrypt, k, *iv, i, o))
            .collect();
        engine.process(&mut jobs).unwrap();
        for (j, r) in jobs.iter().zip(&recs) {
            assert_eq!(j.iv[..], r.3[r.3.len() - 16..]);
        }
        drop(jobs);
        for (r, o) in recs.iter().zip(&outs) {
            assert_eq!(*o, r.3, "backend {b}");
        }
    }
}
