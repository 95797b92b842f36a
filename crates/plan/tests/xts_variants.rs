//! Every variant of the plan's `xts` operation run explicitly, whichever
//! the plan for this CPU picks: XTS-AES through `aesflow-modes` (ciphertext
//! stealing included) against the NIST XTSGenAES vectors and against
//! RustCrypto `xts-mode` on random inputs of every length from 16 to 600
//! bytes and on large buffers, encryption and decryption, on every kernel
//! with 512-bit VAES (the kernels without it take no such choice).

use aesflow_cipher::{Aes, Kernel, KeyExpansion, available_kernels};
use aesflow_modes::Xts;
use aesflow_plan::{Operation, Plan};
use aesflow_vectors::{Record, load};

const FILES: [&str; 4] = [
    "XTS/tweak-128hexstr/XTSGenAES128.rsp.gz",
    "XTS/tweak-128hexstr/XTSGenAES256.rsp.gz",
    "XTS/tweak-dataunitseqno/XTSGenAES128.rsp.gz",
    "XTS/tweak-dataunitseqno/XTSGenAES256.rsp.gz",
];

/// Every (kernel, expansion style, plan variant) to run: the kernels that
/// take the plan's XTS choice, each with both key styles and every variant.
fn configs() -> Vec<(&'static dyn Kernel, KeyExpansion, aesflow_plan::Variant)> {
    let mut v = Vec::new();
    for k in available_kernels() {
        if k.name() != "vaes" {
            continue;
        }
        for s in KeyExpansion::ALL {
            for &var in Operation::Xts.variants() {
                v.push((k, s, var));
            }
        }
    }
    v
}

/// XTS with `key` (both halves) on kernel `k`, style `s`, tweaks
/// multiplied as `var` says.
fn xts(key: &[u8], k: &'static dyn Kernel, s: KeyExpansion, var: aesflow_plan::Variant) -> Xts {
    let mul = Plan::for_this_cpu().with(var).xts_tweak_mul();
    let half = key.len() / 2;
    let data = Aes::with_kernel(&key[..half], k, s).unwrap();
    let tweak = Aes::with_kernel(&key[half..], k, s).unwrap();
    Xts::from_aes(data.with_xts_tweak_mul(mul), tweak)
}

fn tweak(r: &Record) -> [u8; 16] {
    match r.get("i") {
        Some(_) => r.hex("i").unwrap().try_into().unwrap(),
        None => (r.int("DataUnitSeqNumber").unwrap() as u128).to_le_bytes(),
    }
}

#[test]
fn nist_xtsgenaes_every_variant() {
    let configs = configs();
    if configs.is_empty() {
        aesflow_vectors::skip!("no 512-bit VAES kernel on this CPU");
        return;
    }
    let files: Vec<_> = FILES.iter().map(|f| load(f).unwrap()).collect();
    for (k, s, var) in configs {
        let (mut run, mut partial) = (0, 0);
        for f in &files {
            for (sec, r) in f.records() {
                let bits = r.int("DataUnitLen").unwrap();
                if bits % 8 != 0 {
                    continue;
                }
                let x = xts(&r.hex("Key").unwrap(), k, s, var);
                let (pt, ct) = (r.hex("PT").unwrap(), r.hex("CT").unwrap());
                let t = tweak(r);
                let what = format!("{} {} {var} line {}", f.name, s.name(), r.line);
                if sec.name() == Some("ENCRYPT") {
                    let mut buf = pt.clone();
                    x.encrypt_unit(&t, &mut buf).unwrap();
                    assert_eq!(buf, ct, "encrypt {what}");
                } else {
                    let mut buf = ct.clone();
                    x.decrypt_unit(&t, &mut buf).unwrap();
                    assert_eq!(buf, pt, "decrypt {what}");
                }
                partial += usize::from(!bits.is_multiple_of(128));
                run += 1;
            }
        }
        assert_eq!((run, partial), (2800, 400), "{} {var}", s.name());
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// RustCrypto's XTS of one sector.
fn rustcrypto(key: &[u8], seq: u128, data: &mut [u8]) {
    use aes::cipher::KeyInit;
    let half = key.len() / 2;
    if half == 16 {
        let c1 = aes::Aes128::new_from_slice(&key[..half]).unwrap();
        let c2 = aes::Aes128::new_from_slice(&key[half..]).unwrap();
        xts_mode::Xts128::new(c1, c2).encrypt_sector(data, seq.to_le_bytes());
    } else {
        let c1 = aes::Aes256::new_from_slice(&key[..half]).unwrap();
        let c2 = aes::Aes256::new_from_slice(&key[half..]).unwrap();
        xts_mode::Xts128::new(c1, c2).encrypt_sector(data, seq.to_le_bytes());
    }
}

#[test]
fn matches_rustcrypto_every_length_every_variant() {
    let configs = configs();
    if configs.is_empty() {
        aesflow_vectors::skip!("no 512-bit VAES kernel on this CPU");
        return;
    }
    let mut rng = Rng(0x7e57_0a75);
    let lengths = (16..=600).chain([4096, 4096 + 7, 16384, 65536 + 15, 1 << 20]);
    for (k, s, var) in configs {
        for klen in [32usize, 64] {
            for len in lengths.clone() {
                let key = rng.bytes(klen);
                let seq = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                let data = rng.bytes(len);
                let mut want = data.clone();
                rustcrypto(&key, seq, &mut want);
                let x = xts(&key, k, s, var);
                let what = format!("{} {var} key {klen} len {len}", s.name());
                let mut got = data.clone();
                x.encrypt_sector(seq, &mut got).unwrap();
                assert!(got == want, "encrypt {what}");
                x.decrypt_sector(seq, &mut got).unwrap();
                assert!(got == data, "decrypt {what}");
            }
        }
    }
}
