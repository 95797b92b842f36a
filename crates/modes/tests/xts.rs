//! XTS-AES against the NIST XTSGenAES vectors (both tweak formats) on every
//! kernel and key-expansion style, against RustCrypto `xts-mode` on random
//! inputs, and its streaming and error paths.

mod common;

use aesflow_modes::{Error, Xts};
use aesflow_vectors::{Record, load};
use common::{Rng, aes, configs, label};

const FILES: [&str; 4] = [
    "XTS/tweak-128hexstr/XTSGenAES128.rsp.gz",
    "XTS/tweak-128hexstr/XTSGenAES256.rsp.gz",
    "XTS/tweak-dataunitseqno/XTSGenAES128.rsp.gz",
    "XTS/tweak-dataunitseqno/XTSGenAES256.rsp.gz",
];

/// The record's tweak: the hex string `i`, or the data unit sequence
/// number as a 128-bit little-endian integer.
fn tweak(r: &Record) -> [u8; 16] {
    match r.get("i") {
        Some(_) => r.hex("i").unwrap().try_into().unwrap(),
        None => (r.int("DataUnitSeqNumber").unwrap() as u128).to_le_bytes(),
    }
}

#[test]
fn nist_xtsgenaes_every_kernel() {
    let files: Vec<_> = FILES.iter().map(|f| load(f).unwrap()).collect();
    for (k, s) in configs() {
        let (mut run, mut partial, mut skipped) = (0, 0, 0);
        for f in &files {
            for (sec, r) in f.records() {
                let bits = r.int("DataUnitLen").unwrap();
                if bits % 8 != 0 {
                    // Bit-granular data units (130 bits): byte-oriented
                    // XTS, as in every common implementation, cannot
                    // express them.
                    skipped += 1;
                    continue;
                }
                let key = r.hex("Key").unwrap();
                let (pt, ct) = (r.hex("PT").unwrap(), r.hex("CT").unwrap());
                assert_eq!(pt.len(), bits / 8);
                let half = key.len() / 2;
                let xts = Xts::from_aes(aes(&key[..half], k, s), aes(&key[half..], k, s));
                let t = tweak(r);
                let encrypt = sec.name() == Some("ENCRYPT");
                let what = format!("{} {} line {} {}", f.name, label(k, s), r.line, bits);
                let mut buf = if encrypt { pt.clone() } else { ct.clone() };
                if encrypt {
                    xts.encrypt_unit(&t, &mut buf).unwrap();
                    assert_eq!(buf, ct, "encrypt {what}");
                } else {
                    xts.decrypt_unit(&t, &mut buf).unwrap();
                    assert_eq!(buf, pt, "decrypt {what}");
                }
                partial += usize::from(!bits.is_multiple_of(128));
                run += 1;
            }
        }
        // 2 key sizes × 2 tweak formats × 1000 records; bit-granular
        // units: 130 bits (AES-128), 140 and 250 bits (AES-256). Ciphertext
        // stealing: the 200-bit units (AES-256 stealing is covered by the
        // comparison with `xts-mode` below).
        assert_eq!((run, skipped), (2800, 1200), "{}", label(k, s));
        assert_eq!(partial, 400, "ciphertext stealing cases, {}", label(k, s));
    }
}

#[test]
fn matches_rustcrypto_xts_mode_on_random_inputs() {
    use aes::cipher::KeyInit;
    let mut rng = Rng(0x5eed_7375);
    for (k, s) in configs() {
        for klen in [32usize, 64] {
            for _ in 0..40 {
                let key = rng.bytes(klen);
                let len = 16 + rng.below(1200);
                let seq = rng.next_u64() as u128 | ((rng.next_u64() as u128) << 64);
                let data = rng.bytes(len);
                let mut want = data.clone();
                if klen == 32 {
                    let c1 = aes::Aes128::new_from_slice(&key[..16]).unwrap();
                    let c2 = aes::Aes128::new_from_slice(&key[16..]).unwrap();
                    xts_mode::Xts128::new(c1, c2).encrypt_sector(&mut want, seq.to_le_bytes());
                } else {
                    let c1 = aes::Aes256::new_from_slice(&key[..32]).unwrap();
                    let c2 = aes::Aes256::new_from_slice(&key[32..]).unwrap();
                    xts_mode::Xts128::new(c1, c2).encrypt_sector(&mut want, seq.to_le_bytes());
                }
                let half = klen / 2;
                let xts = Xts::from_aes(aes(&key[..half], k, s), aes(&key[half..], k, s));
                let mut got = data.clone();
                xts.encrypt_sector(seq, &mut got).unwrap();
                assert_eq!(got, want, "{} len {len}", label(k, s));
                xts.decrypt_sector(seq, &mut got).unwrap();
                assert_eq!(got, data, "{} len {len}", label(k, s));
            }
        }
    }
}

#[test]
fn units_and_stream_agree_with_single_units() {
    let mut rng = Rng(77);
    let key = rng.bytes(64);
    let xts = Xts::new(&key).unwrap();
    for (unit, total) in [
        (512usize, 4096usize),
        (520, 520 * 3 + 100),
        (48, 48 * 9 + 20),
        // More units than one batch of enciphered tweaks (16), twice over,
        // with a stolen tail.
        (32, 32 * 37 + 17),
    ] {
        let data = rng.bytes(total);
        let mut want = data.clone();
        for (i, u) in want.chunks_mut(unit).enumerate() {
            xts.encrypt_sector(1000 + i as u128, u).unwrap();
        }
        let mut got = data.clone();
        let next = xts.encrypt_units(1000, unit, &mut got).unwrap();
        assert_eq!(got, want);
        assert_eq!(next, 1000 + total.div_ceil(unit) as u128);
        // Streaming in pieces of whole units, then the short last one.
        let mut st = xts.stream(1000, unit).unwrap();
        let mut got = data.clone();
        let whole = total / unit * unit;
        let (body, last) = got.split_at_mut(whole);
        let (a, b) = body.split_at_mut(whole / unit / 2 * unit);
        st.encrypt(a).unwrap();
        st.encrypt(b).unwrap();
        if !last.is_empty() {
            st.encrypt_final(last).unwrap();
        }
        assert_eq!(got, want);
        xts.decrypt_units(1000, unit, &mut got).unwrap();
        assert_eq!(got, data);
    }
}

/// Many whole units (the kernels' multi-unit entry, `xts_units`) on every
/// kernel and key style, both key sizes: sector sizes from one block to
/// 4 KiB, unit counts around the tweak batch of 16, with and without a
/// shorter last unit, against `encrypt_sector` / `decrypt_sector` per unit.
#[test]
fn whole_units_every_kernel_agree_with_single_units() {
    let mut rng = Rng(0x0417);
    for (k, s) in configs() {
        for klen in [32usize, 64] {
            let key = rng.bytes(klen);
            let xts = Xts::from_aes(aes(&key[..klen / 2], k, s), aes(&key[klen / 2..], k, s));
            for unit in [16usize, 32, 496, 512, 528, 1024, 1536, 4096] {
                for (count, extra) in [
                    (1usize, 0usize),
                    (3, 0),
                    (16, 0),
                    (17, 0),
                    (33, 0),
                    (5, 16),
                    (18, 40),
                ] {
                    if unit * count > 64 << 10 || extra >= unit {
                        continue;
                    }
                    let total = unit * count + extra;
                    let seq = rng.next_u64() as u128 | ((rng.next_u64() as u128) << 64);
                    let data = rng.bytes(total);
                    let mut want = data.clone();
                    for (i, u) in want.chunks_mut(unit).enumerate() {
                        xts.encrypt_sector(seq.wrapping_add(i as u128), u).unwrap();
                    }
                    let what = format!("{} unit={unit} count={count}+{extra}", label(k, s));
                    let mut got = data.clone();
                    let next = xts.encrypt_units(seq, unit, &mut got).unwrap();
                    assert!(got == want, "encrypt {what}");
                    assert_eq!(next, seq.wrapping_add(total.div_ceil(unit) as u128));
                    let mut back = want.clone();
                    for (i, u) in back.chunks_mut(unit).enumerate() {
                        xts.decrypt_sector(seq.wrapping_add(i as u128), u).unwrap();
                    }
                    assert!(back == data, "decrypt_sector {what}");
                    xts.decrypt_units(seq, unit, &mut got).unwrap();
                    assert!(got == data, "decrypt {what}");
                }
            }
        }
    }
}

#[test]
fn bad_inputs_are_errors_and_change_nothing() {
    assert_eq!(Xts::new(&[0u8; 48]).unwrap_err(), Error::XtsKeyLength(48));
    assert_eq!(Xts::new(&[0u8; 16]).unwrap_err(), Error::XtsKeyLength(16));
    let xts = Xts::new(&[3u8; 32]).unwrap();
    let mut short = [1u8; 15];
    assert_eq!(
        xts.encrypt_sector(0, &mut short),
        Err(Error::DataUnitLength(15))
    );
    assert_eq!(short, [1u8; 15]);
    // A last unit under 16 bytes: refused before anything is touched.
    let mut buf = vec![2u8; 512 + 8];
    assert_eq!(
        xts.encrypt_units(0, 512, &mut buf),
        Err(Error::DataUnitLength(8))
    );
    assert!(buf.iter().all(|&b| b == 2));
    let mut st = xts.stream(0, 512).unwrap();
    assert_eq!(st.encrypt(&mut buf), Err(Error::DataUnitLength(8)));
    assert!(buf.iter().all(|&b| b == 2));
    assert_eq!(st.next_seq(), 0);
    assert!(xts.stream(0, 8).is_err());
    assert!(xts.stream(0, (16 << 20) + 16).is_err());
}

#[test]
fn a_plan_changes_the_tweak_multiply_not_the_output() {
    use aesflow_plan::{Plan, Variant};
    let mut rng = Rng(0x5eed_0a7f);
    for klen in [32, 64] {
        let key = rng.bytes(klen);
        let data = rng.bytes(16 * 97 + 5);
        let mut outs = Vec::new();
        for v in [Variant::TweakClmul, Variant::TweakShift] {
            let plan = Plan::for_this_cpu().with(v);
            let xts = Xts::new(&key).unwrap().with_plan(&plan);
            assert_eq!(
                xts.data_cipher().xts_tweak_mul(),
                plan.xts_tweak_mul(),
                "{v:?}"
            );
            let mut buf = data.clone();
            xts.encrypt_sector(9, &mut buf).unwrap();
            outs.push(buf.clone());
            xts.decrypt_sector(9, &mut buf).unwrap();
            assert_eq!(buf, data);
        }
        assert_eq!(outs[0], outs[1]);
        assert_ne!(outs[0], data);
    }
}
