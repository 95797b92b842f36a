//! Differential tests against RustCrypto (`cbc`, `ctr`, `cfb-mode`, `cfb8`,
//! `ofb`, `aes-gcm` over `aes`) on random lengths 0–4 KiB, with partial blocks
//! and unaligned buffers, plus streaming-vs-one-shot equality with random
//! split points.

mod common;
use aes::cipher::consts::{U12, U16};
use aes::cipher::{
    AsyncStreamCipher, BlockCipher, BlockEncrypt, BlockEncryptMut, BlockSizeUser, KeyInit,
    KeyIvInit, StreamCipher, block_padding::Pkcs7,
};
use aes_gcm::aead::AeadInPlace;
use aesflow_cipher::{Aes, Kernel, KeyExpansion, detect_best};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions};
use aesflow_modes::{Cfb, Cfb8, Ctr, Ofb, Padding, cbc, ecb};
use common::{Rng, aes, configs, gcm_by_pieces, label};

/// `$f::<aes::AesN>(key, …)` for the key's size.
macro_rules! by_size {
    ($f:ident($key:expr $(, $a:expr)*)) => {
        match $key.len() {
            16 => $f::<aes::Aes128>($key $(, $a)*),
            24 => $f::<aes::Aes192>($key $(, $a)*),
            _ => $f::<aes::Aes256>($key $(, $a)*),
        }
    };
}

/// A RustCrypto AES of one key size.
trait RcAes: BlockEncrypt + BlockCipher + KeyInit + BlockSizeUser<BlockSize = U16> {}
impl<C: BlockEncrypt + BlockCipher + KeyInit + BlockSizeUser<BlockSize = U16>> RcAes for C {}

/// RustCrypto's encryption (PKCS#7 for ECB and CBC).
fn reference(mode: &str, key: &[u8], iv: &[u8], pt: &[u8]) -> Vec<u8> {
    by_size!(reference_with(key, mode, iv, pt))
}

fn reference_with<C: RcAes>(key: &[u8], mode: &str, iv: &[u8], pt: &[u8]) -> Vec<u8> {
    fn new<M: KeyIvInit>(key: &[u8], iv: &[u8]) -> M {
        M::new_from_slices(key, iv).unwrap()
    }
    let mut b = pt.to_vec();
    match mode {
        "CBC" => return new::<::cbc::Encryptor<C>>(key, iv).encrypt_padded_vec_mut::<Pkcs7>(pt),
        "ECB" => {
            let c = C::new_from_slice(key).unwrap();
            let pad = 16 - b.len() % 16;
            b.resize(b.len() + pad, pad as u8);
            b.chunks_mut(16).for_each(|blk| c.encrypt_block(blk.into()));
        }
        "CTR" => new::<ctr::Ctr128BE<C>>(key, iv).apply_keystream(&mut b),
        "OFB" => new::<ofb::Ofb<C>>(key, iv).apply_keystream(&mut b),
        "CFB128" => new::<cfb_mode::Encryptor<C>>(key, iv).encrypt(&mut b),
        "CFB8" => new::<cfb8::Encryptor<C>>(key, iv).encrypt(&mut b),
        _ => unreachable!(),
    }
    b
}

/// Ours, one-shot: encrypt or decrypt (with PKCS#7 for ECB/CBC), in place
/// at `offset` bytes into a buffer (unaligned).
fn ours(mode: &str, aes: &Aes, iv: &[u8], input: &[u8], offset: usize, encrypt: bool) -> Vec<u8> {
    let mut store = vec![0u8; input.len() + offset];
    let b = &mut store[offset..];
    b.copy_from_slice(input);
    match (mode, encrypt) {
        ("CBC", true) => return cbc::encrypt(aes, iv, Padding::Pkcs7, input).unwrap(),
        ("CBC", false) => return cbc::decrypt(aes, iv, Padding::Pkcs7, input).unwrap(),
        ("ECB", true) => return ecb::encrypt(aes, Padding::Pkcs7, input).unwrap(),
        ("ECB", false) => return ecb::decrypt(aes, Padding::Pkcs7, input).unwrap(),
        ("CTR", _) => Ctr::new(aes, iv).unwrap().apply_keystream(b),
        ("OFB", _) => Ofb::new(aes, iv).unwrap().apply_keystream(b),
        ("CFB128", true) => Cfb::new(aes, iv).unwrap().encrypt(b),
        ("CFB128", false) => Cfb::new(aes, iv).unwrap().decrypt(b),
        ("CFB8", true) => Cfb8::new(aes, iv).unwrap().encrypt(b),
        ("CFB8", false) => Cfb8::new(aes, iv).unwrap().decrypt(b),
        _ => unreachable!(),
    }
    b.to_vec()
}

/// Streaming with random splits must equal one-shot.
fn streamed(mode: &str, aes: &Aes, iv: &[u8], pt: &[u8], rng: &mut Rng, encrypt: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(pt.len() + 1)).collect();
    cuts.push(0);
    cuts.push(pt.len());
    cuts.sort();
    let pieces = cuts.windows(2).map(|w| &pt[w[0]..w[1]]);
    match mode {
        "CBC" | "ECB" => {
            // The CBC or the ECB streamer (`encryptor` or `decryptor`) over
            // the pieces.
            macro_rules! run {
                ($make:ident) => {{
                    let mut s = if mode == "CBC" {
                        cbc::$make(aes, iv, Padding::Pkcs7).unwrap()
                    } else {
                        ecb::$make(aes, Padding::Pkcs7)
                    };
                    pieces.for_each(|p| s.update(p, &mut out));
                    s.finalize(&mut out).unwrap();
                }};
            }
            if encrypt {
                run!(encryptor)
            } else {
                run!(decryptor)
            }
        }
        _ => {
            let mut ctr = Ctr::new(aes, iv).unwrap();
            let mut ofb = Ofb::new(aes, iv).unwrap();
            let mut cfb = Cfb::new(aes, iv).unwrap();
            let mut cfb8 = Cfb8::new(aes, iv).unwrap();
            for p in pieces {
                let mut b = p.to_vec();
                match (mode, encrypt) {
                    ("CTR", _) => ctr.apply_keystream(&mut b),
                    ("OFB", _) => ofb.apply_keystream(&mut b),
                    ("CFB128", true) => cfb.encrypt(&mut b),
                    ("CFB128", false) => cfb.decrypt(&mut b),
                    ("CFB8", true) => cfb8.encrypt(&mut b),
                    ("CFB8", false) => cfb8.decrypt(&mut b),
                    _ => unreachable!(),
                }
                out.extend_from_slice(&b);
            }
        }
    }
    out
}

fn cases_for(kernel: &dyn Kernel, style: KeyExpansion) -> usize {
    match (kernel.name(), style) {
        ("reference", KeyExpansion::Online) => 8,
        ("reference", _) | ("ctime", KeyExpansion::Online) => 20,
        _ => 60,
    }
}

#[test]
fn block_and_stream_modes_match_rustcrypto() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for (kernel, style) in configs() {
        let cases = cases_for(kernel, style);
        for mode in ["ECB", "CBC", "CTR", "OFB", "CFB128", "CFB8"] {
            for case in 0..cases {
                let klen = [16, 24, 32][case % 3];
                let key = rng.bytes(klen);
                let iv = rng.bytes(16);
                let len = if mode == "CFB8" {
                    rng.below(300)
                } else {
                    rng.below(4097)
                };
                let pt = rng.bytes(len);
                let a = aes(&key, kernel, style);
                let want = reference(mode, &key, &iv, &pt);
                let what = format!("{mode} len {len} on {}", label(kernel, style));
                let off = rng.below(16);
                assert_eq!(ours(mode, &a, &iv, &pt, off, true), want, "{what}");
                let off = rng.below(16);
                assert_eq!(ours(mode, &a, &iv, &want, off, false), pt, "{what} decrypt");
                assert_eq!(
                    streamed(mode, &a, &iv, &pt, &mut rng, true),
                    want,
                    "{what} streamed"
                );
                assert_eq!(
                    streamed(mode, &a, &iv, &want, &mut rng, false),
                    pt,
                    "{what} streamed dec"
                );
            }
        }
        println!(
            "differential {:18} {} cases × 6 modes",
            label(kernel, style),
            cases
        );
    }
}

fn rc_gcm(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    by_size!(rc_gcm_with(key, nonce, aad, pt))
}

fn rc_gcm_with<C: RcAes>(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let mut b = pt.to_vec();
    let tag = aes_gcm::AesGcm::<C, U12>::new_from_slice(key)
        .unwrap()
        .encrypt_in_place_detached(nonce.into(), aad, &mut b)
        .unwrap();
    b.extend_from_slice(&tag);
    b
}

#[test]
fn gcm_matches_rustcrypto_and_streams() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let best = detect_best();
    let mut variants: Vec<(&'static dyn Kernel, KeyExpansion, GcmOptions)> = configs()
        .into_iter()
        .map(|(k, s)| (k, s, GcmOptions::default()))
        .collect();
    for fused in [
        FusedChoice::Off,
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        for ghash in aesflow_modes::gcm::GhashImpl::ALL {
            variants.push((
                best,
                KeyExpansion::Offline,
                GcmOptions {
                    ghash: Some(ghash),
                    fused,
                },
            ));
        }
    }
    for (kernel, style, opts) in variants {
        let a0 = aes(&[0; 16], kernel, style);
        let Ok(g0) = Gcm::with_options(&a0, opts) else {
            continue;
        };
        let cases = cases_for(kernel, style);
        for case in 0..cases {
            let klen = [16, 24, 32][case % 3];
            let key = rng.bytes(klen);
            let nonce = rng.bytes(12);
            let alen = rng.below(100);
            let aad = rng.bytes(alen);
            let len = if case % 5 == 0 {
                rng.below(40)
            } else {
                rng.below(4097)
            };
            let pt = rng.bytes(len);
            let want = rc_gcm(&key, &nonce, &aad, &pt);
            let a = aes(&key, kernel, style);
            let gcm = Gcm::with_options(&a, opts).unwrap();
            let what = format!("GCM len {len} on {} {opts:?}", label(kernel, style));
            // One-shot, unaligned out-of-place.
            let off = rng.below(16);
            let mut store = vec![0u8; len + off];
            let tag = gcm.seal_into(&nonce, &aad, &pt, &mut store[off..]).unwrap();
            assert_eq!(&store[off..], &want[..len], "{what}");
            assert_eq!(tag, want[len..], "{what} tag");
            assert_eq!(gcm.open(&nonce, &aad, &want).unwrap(), pt, "{what} open");
            // Streaming with random splits of AAD and data.
            let mut e = gcm.encryptor(&nonce).unwrap();
            let ac = rng.below(alen + 1);
            e.update_aad(&aad[..ac]).unwrap();
            e.update_aad(&aad[ac..]).unwrap();
            let mut buf = pt.clone();
            let mut at = 0;
            while at < len {
                let n = (rng.below(70) + if rng.below(4) == 0 { 1000 } else { 0 }).min(len - at);
                e.update_in_place(&mut buf[at..at + n]).unwrap();
                at += n;
            }
            if len > 0 {
                assert!(matches!(
                    e.update_aad(b"x"),
                    Err(aesflow_modes::Error::Order(_))
                ));
            }
            assert_eq!(buf, want[..len], "{what} streamed");
            assert_eq!(e.finalize(), want[len..], "{what} streamed tag");
            let mut d = gcm.decryptor(&nonce).unwrap();
            d.update_aad(&aad).unwrap();
            for c in want[..len].chunks(rng.below(300) + 1) {
                d.update(c).unwrap();
            }
            assert_eq!(
                d.finalize(&want[len..]).unwrap(),
                pt,
                "{what} streamed open"
            );
            // The piece API: random cuts (whole blocks, some empty) and a
            // last piece of any length.
            let mut cuts = Vec::new();
            while rng.below(3) != 0 {
                let most = if rng.below(2) == 0 { 4 } else { 70 };
                cuts.push(rng.below(most));
            }
            let nonce12: &[u8; 12] = nonce.as_slice().try_into().unwrap();
            let (c, t) = gcm_by_pieces(&gcm, nonce12, &aad, &pt, &cuts, true);
            assert_eq!(c, want[..len], "{what} sealed by pieces {cuts:?}");
            assert_eq!(t, want[len..], "{what} tag by pieces {cuts:?}");
            let (p, t) = gcm_by_pieces(&gcm, nonce12, &aad, &want[..len], &cuts, false);
            assert_eq!(p, pt, "{what} opened by pieces {cuts:?}");
            assert_eq!(t, want[len..], "{what} open tag by pieces {cuts:?}");
            // Tampering anywhere fails and zeroes.
            let mut bad = want.clone();
            let i = rng.below(bad.len());
            bad[i] ^= 1 << rng.below(8);
            let mut body = bad[..len].to_vec();
            assert_eq!(
                gcm.open_in_place_detached(&nonce, &aad, &mut body, &bad[len..]),
                Err(aesflow_modes::Error::AuthenticationFailed)
            );
            assert!(body.iter().all(|&b| b == 0));
            let (_, t) = gcm_by_pieces(&gcm, nonce12, &aad, &bad[..len], &cuts, false);
            assert_ne!(t, bad[len..], "{what} tampered, by pieces");
        }
        let _ = g0;
        println!(
            "GCM differential {:18} {:?}: {cases} cases",
            label(kernel, style),
            opts
        );
    }
}

/// Lengths on both sides of the fused kernels' group and reduction
/// boundaries (16 blocks a group, a reduction per pair of groups: 512 bytes
/// at 256 and 512 bits; 8 and 16 blocks for AES-NI; the 32-block kernel's
/// even and odd numbers of groups, with and without a 16-block group
/// after them, where a text of whole groups ends in the kernel) and past
/// the counters' last-byte carries (every 256 blocks), seal and open,
/// against RustCrypto, for every fused kernel this CPU runs.
#[test]
fn gcm_fused_group_boundaries() {
    let mut rng = Rng(0x5eed_0f6c);
    let deltas = [-17isize, -16, -15, -1, 0, 1, 15, 16, 17];
    for fused in [
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        for klen in [16usize, 32] {
            let key = rng.bytes(klen);
            let a = aes(&key, detect_best(), KeyExpansion::Offline);
            let opts = GcmOptions { ghash: None, fused };
            let Ok(gcm) = Gcm::with_options(&a, opts) else {
                continue;
            };
            for k in (0..=8isize).chain([15, 16, 17, 18, 19, 32]) {
                for d in deltas {
                    let Ok(len) = usize::try_from(256 * k + d) else {
                        continue;
                    };
                    let (nonce, aad, pt) =
                        (rng.bytes(12), rng.bytes(k as usize * 7), rng.bytes(len));
                    let want = rc_gcm(&key, &nonce, &aad, &pt);
                    let what = format!("GCM {fused:?} AES-{} len {len}", klen * 8);
                    assert_eq!(gcm.seal(&nonce, &aad, &pt).unwrap(), want, "{what}");
                    assert_eq!(gcm.open(&nonce, &aad, &want).unwrap(), pt, "{what} open");
                }
            }
        }
    }
}
