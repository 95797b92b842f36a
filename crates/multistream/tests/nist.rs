//! NIST CAVP MMT vectors, each file's records run as one batch of streams.

use aesflow_multistream::{Backend, Job, Mode, MultiStream};

/// One record: key, IV, input, expected output.
type Rec = (Vec<u8>, [u8; 16], Vec<u8>, Vec<u8>);

/// The records of `section` of `file`, input and output for that direction.
fn records(file: &str, section: &str) -> Vec<Rec> {
    let f = aesflow_vectors::load(file).unwrap();
    let (input_field, output_field) = if section == "ENCRYPT" {
        ("PLAINTEXT", "CIPHERTEXT")
    } else {
        ("CIPHERTEXT", "PLAINTEXT")
    };
    f.records()
        .filter(|(s, _)| s.name() == Some(section))
        .map(|(_, r)| {
            (
                r.hex("KEY").unwrap(),
                <[u8; 16]>::try_from(r.hex("IV").unwrap()).unwrap(),
                r.hex(input_field).unwrap(),
                r.hex(output_field).unwrap(),
            )
        })
        .collect()
}

/// Every record as one stream of one call on backend `b`: the outputs and
/// the IVs on return.
fn run_batch(b: Backend, mode: Mode, recs: &[Rec]) -> (Vec<Vec<u8>>, Vec<[u8; 16]>) {
    let engine = MultiStream::new(b).unwrap();
    let mut outs: Vec<Vec<u8>> = recs.iter().map(|r| vec![0u8; r.2.len()]).collect();
    let mut jobs: Vec<Job<'_>> = recs
        .iter()
        .zip(outs.iter_mut())
        .map(|((k, iv, i, _), o)| Job::new(mode, k, *iv, i, o))
        .collect();
    engine.process(&mut jobs).unwrap();
    let ivs = jobs.iter().map(|j| j.iv).collect();
    drop(jobs);
    (outs, ivs)
}

fn run_file(file: &str, section: &str, mode: Mode) {
    let recs = records(file, section);
    assert!(
        recs.len() >= 10,
        "{file} [{section}]: {} records",
        recs.len()
    );
    for b in Backend::available() {
        let (outs, _) = run_batch(b, mode, &recs);
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
    let recs: Vec<Rec> = [128, 192, 256]
        .iter()
        .flat_map(|bits| records(&format!("CBC/CBCMMT{bits}.rsp"), "ENCRYPT"))
        .collect();
    assert_eq!(recs.len(), 30);
    for b in Backend::available() {
        let (outs, ivs) = run_batch(b, Mode::CbcEncrypt, &recs);
        for ((r, o), iv) in recs.iter().zip(&outs).zip(&ivs) {
            assert_eq!(iv[..], r.3[r.3.len() - 16..]);
            assert_eq!(*o, r.3, "backend {b}");
        }
    }
}
