//! Unit tests of GCM's paths and its streaming API.

use super::state::inc32;
use super::*;

/// inc32 wraps the low 32 bits only, in the generic and the fused paths.
#[test]
fn counter_wraps_in_32_bits_on_every_path() {
    let aes = Aes::new(&[9u8; 16]).unwrap();
    let start: Block = [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0xff, 0xff, 0xff, 0xf0,
    ];
    let len = 16 * 40 + 16;
    // Reference: one block at a time, inc32 by hand.
    let mut want = vec![0u8; len];
    let mut c = start;
    for blk in want.chunks_mut(16) {
        let mut k = c;
        aes.encrypt_block(&mut k);
        blk.copy_from_slice(&k);
        inc32(&mut c);
    }
    assert_eq!(&c[..12], &start[..12]);
    for fused in [
        FusedChoice::Off,
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        for ghash in GhashImpl::ALL {
            let opts = GcmOptions {
                ghash: Some(ghash),
                fused,
            };
            let Ok(gcm) = Gcm::with_options(&aes, opts) else {
                continue;
            };
            let (mut ctr, mut x) = (start, 0u128);
            let mut data = vec![0u8; len];
            gcm.crypt_blocks(&mut ctr, &mut x, &mut data, true);
            assert_eq!(data, want, "{opts:?}");
            assert_eq!(ctr, c, "{opts:?}");
            let mut x2 = 0u128;
            gcm.key.update_blocks(&mut x2, &data);
            assert_eq!(x, x2, "{opts:?}");
            // And decryption.
            let (mut ctr, mut x) = (start, 0u128);
            gcm.crypt_blocks(&mut ctr, &mut x, &mut data, false);
            assert!(data.iter().all(|&b| b == 0));
            assert_eq!(x, x2);
        }
    }
}

/// `open_into` with a wrong tag: an authentication error, and the output
/// (prefilled with 0x77) left all zero.
fn rejects_into<A: Borrow<Aes>>(
    gcm: &Gcm<A>,
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    bad: &[u8],
    what: &str,
) {
    let mut out = vec![0x77u8; ct.len()];
    assert_eq!(
        gcm.open_into(nonce, aad, ct, bad, &mut out),
        Err(Error::AuthenticationFailed),
        "{what} bad tag"
    );
    assert!(out.iter().all(|&b| b == 0), "{what} wiped");
}

/// Every call agrees with `want` and its tag `wtag`: `seal_into`, sealing
/// in place, and opening both ways with the tag cut to `tl` bytes. Returns
/// the ciphertext.
#[allow(clippy::too_many_arguments)]
fn every_call_agrees<A: Borrow<Aes>>(
    gcm: &Gcm<A>,
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    want: &[u8],
    wtag: Tag,
    tl: usize,
    what: &str,
) -> Vec<u8> {
    let mut ct = vec![0x77u8; pt.len()];
    let t = gcm.seal_into(nonce, aad, pt, &mut ct).unwrap();
    assert_eq!((&ct[..], t), (want, wtag), "{what} seal_into");
    let mut ip = pt.to_vec();
    let t = gcm.seal_in_place_detached(nonce, aad, &mut ip).unwrap();
    assert_eq!((&ip[..], t), (want, wtag), "{what} seal in place");
    let mut out = vec![0x77u8; pt.len()];
    gcm.open_into(nonce, aad, &ct, &wtag[..tl], &mut out)
        .unwrap();
    assert_eq!(out, pt, "{what} open_into");
    gcm.open_in_place_detached(nonce, aad, &mut ip, &wtag[..tl])
        .unwrap();
    assert_eq!(ip, pt, "{what} open in place");
    ct
}

/// A wrong tag is refused in place too, and the buffer wiped.
fn rejects_in_place<A: Borrow<Aes>>(
    gcm: &Gcm<A>,
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    bad: &[u8],
    what: &str,
) {
    let mut inplace = ct.to_vec();
    assert_eq!(
        gcm.open_in_place_detached(nonce, aad, &mut inplace, bad),
        Err(Error::AuthenticationFailed),
        "{what} bad tag in place"
    );
    assert!(inplace.iter().all(|&b| b == 0), "{what} wiped in place");
}

/// GCM on the generic path: portable GHASH, no fused kernel (the
/// reference the fused and short paths are checked against).
fn generic(aes: &Aes) -> Gcm<&Aes> {
    Gcm::with_options(
        aes,
        GcmOptions {
            ghash: Some(GhashImpl::Soft),
            fused: FusedChoice::Off,
        },
    )
    .unwrap()
}

/// The fused kernels agree with the generic path from counters with every
/// last byte (their fast path adds to that byte while it cannot carry) and
/// across 32-bit wraps, over group counts that end on a pair and alone, and
/// with blocks left after the groups (AES-NI `ctr32`; with a wrap among
/// them from last bytes 0xa4, 0xaa, 0xe8, 0xee) and a partial block.
#[test]
fn fused_counters_from_every_last_byte() {
    let aes = Aes::new(&[0x1d; 32]).unwrap();
    let plain = generic(&aes);
    for fused in [
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
            continue;
        };
        for last in 0..=255u8 {
            let hi = if last % 2 == 0 {
                0xffff_ff00u32
            } else {
                0x0102_0300
            };
            let mut start: Block = [0x5c; 16];
            start[12..].copy_from_slice(&(hi | u32::from(last)).to_be_bytes());
            let blocks = [16usize, 48, 93, 304, 27, 7][usize::from(last) % 6];
            let data: Vec<u8> = (0..16 * blocks + 5)
                .map(|i| (i * 31 + usize::from(last)) as u8)
                .collect();
            for encrypt in [true, false] {
                let whole = 16 * blocks;
                let (mut want, mut got) = (data[..whole].to_vec(), data[..whole].to_vec());
                let (mut cw, mut cg, mut xw, mut xg) = (start, start, 7u128, 7u128);
                plain.crypt_blocks(&mut cw, &mut xw, &mut want, encrypt);
                gcm.crypt_blocks(&mut cg, &mut xg, &mut got, encrypt);
                let what = format!("{fused:?} last byte {last:#x} {blocks} blocks enc {encrypt}");
                assert_eq!(got, want, "{what}");
                assert_eq!((cg, xg), (cw, xw), "{what}");
                // And with a partial block, through a message's state.
                let (mut want, mut got) = (data.clone(), data.clone());
                let mut sw = super::state::GcmState::new([0; 16], start);
                let mut sg = super::state::GcmState::new([0; 16], start);
                sw.crypt(&plain, &mut want, encrypt).unwrap();
                sg.crypt(&gcm, &mut got, encrypt).unwrap();
                assert_eq!(got, want, "{what} partial");
                assert_eq!(sg.text_ghash(&gcm), sw.text_ghash(&plain), "{what} partial");
            }
        }
    }
}

#[test]
fn bad_inputs_are_errors() {
    let gcm = Gcm::new(&[1u8; 16]).unwrap();
    assert!(matches!(
        gcm.seal(&[], b"", b"x"),
        Err(Error::IvLength { .. })
    ));
    let sealed = gcm.seal(&[0; 12], b"", b"hello").unwrap();
    for bad in [0, 3, 17] {
        assert_eq!(
            gcm.open_with_tag_len(&[0; 12], b"", &sealed, bad),
            Err(Error::TagLength(bad))
        );
    }
    assert_eq!(
        gcm.open(&[0; 12], b"", &sealed[..10]),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(
        gcm.open_with_tag_len(&[0; 12], b"", &sealed[..5 + 4], 4)
            .unwrap(),
        b"hello"
    );
    assert!(Gcm::new(&[0u8; 15]).is_err());
}

/// The encryptor accepts AAD after an empty `update_in_place(&mut [])`,
/// as the decryptor does after `update(&[])`, and the
/// tags agree with the one-shot seal; AAD after real data is refused by
/// both.
#[test]
fn aad_after_empty_update_is_accepted_by_both() {
    let gcm = Gcm::new(&[5u8; 16]).unwrap();
    let nonce = [1u8; 12];
    let sealed = gcm.seal(&nonce, b"ab", b"data").unwrap();
    let mut e = gcm.encryptor(&nonce).unwrap();
    e.update_in_place(&mut []).unwrap();
    e.update_aad(b"a").unwrap();
    e.update(&[], &mut []).unwrap();
    e.update_aad(b"b").unwrap();
    let mut buf = *b"data";
    e.update_in_place(&mut buf).unwrap();
    assert_eq!(
        e.update_aad(b"c"),
        Err(Error::Order("AAD after message data"))
    );
    assert_eq!(&buf[..], &sealed[..4]);
    assert_eq!(&e.finalize()[..], &sealed[4..]);
    let mut d = gcm.decryptor(&nonce).unwrap();
    d.update(&[]).unwrap();
    d.update_aad(b"a").unwrap();
    d.update_aad(b"b").unwrap();
    d.update(&sealed[..4]).unwrap();
    assert_eq!(
        d.update_aad(b"c"),
        Err(Error::Order("AAD after message data"))
    );
    assert_eq!(d.finalize(&sealed[4..]).unwrap(), b"data");
}

/// `seal_into` / `open_into` (the fused kernels read the input and write
/// the output, no copy) give what the in-place calls give, for every fused
/// kernel this CPU runs and none, over group counts that end on a pair and
/// alone, with whole-block and partial tails; the input is untouched and a
/// failed open leaves the output zeroed.
#[test]
fn into_calls_match_in_place() {
    for klen in [16usize, 32] {
        let aes = Aes::new(&vec![0x3e; klen]).unwrap();
        for fused in [
            FusedChoice::Off,
            FusedChoice::Aesni,
            FusedChoice::Vaes256,
            FusedChoice::Vaes,
            FusedChoice::Vaes32,
        ] {
            let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
                continue;
            };
            for groups in 0..=5usize {
                for extra in [0usize, 16, 31, 16 * 9] {
                    let len = 256 * groups + extra;
                    let (nonce, aad) = ([groups as u8; 12], [extra as u8; 5]);
                    let pt: Vec<u8> = (0..len).map(|i| (i * 11 + klen) as u8).collect();
                    let what = format!("{fused:?} AES-{} len {len}", klen * 8);
                    let mut want = pt.clone();
                    let tag = gcm.seal_in_place_detached(&nonce, &aad, &mut want).unwrap();
                    let mut ct = vec![0x77u8; len];
                    let t = gcm.seal_into(&nonce, &aad, &pt, &mut ct).unwrap();
                    assert_eq!((&ct, t), (&want, tag), "{what} seal");
                    let mut out = vec![0x77u8; len];
                    gcm.open_into(&nonce, &aad, &ct, &tag, &mut out).unwrap();
                    assert_eq!(out, pt, "{what} open");
                    assert_eq!(ct, want, "{what} input untouched");
                    let mut bad = tag;
                    bad[3] ^= 4;
                    rejects_into(&gcm, &nonce, &aad, &ct, &bad, &what);
                }
            }
        }
    }
}

/// The one-shot path (`Gcm::one_shot`: 96-bit nonce and a fused kernel)
/// gives what the streaming encryptor gives (the block-by-block state
/// machine, no one-shot code) for every fused kernel this CPU runs, every
/// key size, text lengths around each group boundary (every tail of whole
/// and partial blocks), AADs from empty to longer than the one-reduction
/// limit; seal and open, in place and out of place, full and truncated
/// tags, a wrong tag refused and the output wiped.
#[test]
fn one_shot_matches_streaming() {
    let mut lens: Vec<usize> = (0..=48).collect();
    for g in 1..=4usize {
        lens.extend((0..=40).map(|e| 128 * g + e * 7 % 129));
    }
    lens.extend([1024 + 255, 4096 + 17, 16384]);
    for klen in [16usize, 24, 32] {
        let aes = Aes::new(&vec![0x5c ^ klen as u8; klen]).unwrap();
        for fused in [
            FusedChoice::Aesni,
            FusedChoice::Vaes256,
            FusedChoice::Vaes,
            FusedChoice::Vaes32,
        ] {
            let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
                aesflow_vectors::skip!("fused {fused:?}: not on this CPU");
                continue;
            };
            for (i, &len) in lens.iter().enumerate() {
                let alen = [0usize, 1, 13, 16, 17, 33, 16 * 33 + 5][i % 7];
                let aad: Vec<u8> = (0..alen).map(|j| (j * 5 + i) as u8).collect();
                let pt: Vec<u8> = (0..len).map(|j| (j * 13 + i + klen) as u8).collect();
                let nonce = [i as u8 ^ 0xa5; 12];
                let what = format!("{fused:?} AES-{} len {len} aad {alen}", klen * 8);
                let mut want = pt.clone();
                let mut e = gcm.encryptor(&nonce).unwrap();
                e.update_aad(&aad).unwrap();
                e.update_in_place(&mut want).unwrap();
                let wtag = e.finalize();
                let tl = [16usize, 12, 4][i % 3];
                let ct = every_call_agrees(&gcm, &nonce, &aad, &pt, &want, wtag, tl, &what);
                let mut bad = wtag;
                bad[tl - 1] ^= 0x10;
                rejects_into(&gcm, &nonce, &aad, &ct, &bad[..tl], &what);
                rejects_in_place(&gcm, &nonce, &aad, &ct, &bad[..tl], &what);
            }
        }
    }
}

/// The short-message paths — `kernels::gcm_small` (the `vaes` fused
/// kernel, texts up to `kernels::SMALL_TEXT` bytes, AADs up to `SMALL_AAD`
/// hashed in it, longer ones first) and `gcm_finish` alone (`aesni`, texts
/// up to `kernels::AESNI_SHORT` = 640) — and the `vaes256` one-shot path, against
/// RustCrypto's `aes-gcm` and the generic path (portable GHASH, no fused
/// kernel), at every boundary they introduce: text lengths around a block,
/// a register (64 bytes), a chunk of 4 registers (256), `aesni`'s limit
/// (640) and 1 KiB (`gcm_small`'s own limit, 4 KiB, and its segments are
/// covered by `tests/gcm_middle.rs`); AADs around a block and the
/// one-register limit (64, 65: hashed first). Seal and open, in place and out of
/// place; a wrong tag and a flipped ciphertext bit refused and the output
/// wiped.
#[test]
fn small_path_matches_rustcrypto_at_its_boundaries() {
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let lens = [
        0usize, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 511, 512,
        513, 639, 640, 641, 1023, 1024, 1025, 1071, 1072, 1073, 1088,
    ];
    let alens = [0usize, 1, 13, 16, 17, 48, 63, 64, 65, 100, 16 * 33 + 5];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut bytes = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 56) as u8
            })
            .collect()
    };
    for (klen, fused) in [16usize, 32].into_iter().flat_map(|k| {
        [
            FusedChoice::Vaes,
            FusedChoice::Vaes32,
            FusedChoice::Aesni,
            FusedChoice::Vaes256,
        ]
        .map(|f| (k, f))
    }) {
        let key = bytes(klen);
        let aes = Aes::new(&key).unwrap();
        let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
            aesflow_vectors::skip!("fused {fused:?}: not on this CPU");
            continue;
        };
        let plain = generic(&aes);
        for (i, &len) in lens.iter().enumerate() {
            for (j, &alen) in alens.iter().enumerate() {
                let (nonce, aad, pt) = (bytes(12), bytes(alen), bytes(len));
                let what = format!("{fused:?} AES-{} len {len} aad {alen}", klen * 8);
                let mut want = pt.clone();
                let wtag = match klen {
                    16 => aes_gcm::Aes128Gcm::new_from_slice(&key)
                        .unwrap()
                        .encrypt_in_place_detached((&nonce[..]).into(), &aad, &mut want),
                    _ => aes_gcm::Aes256Gcm::new_from_slice(&key)
                        .unwrap()
                        .encrypt_in_place_detached((&nonce[..]).into(), &aad, &mut want),
                }
                .unwrap();
                let wtag: Tag = wtag.into();
                let mut g = pt.clone();
                let t = plain.seal_in_place_detached(&nonce, &aad, &mut g).unwrap();
                assert_eq!((&g, t), (&want, wtag), "{what} generic path");
                let ct = every_call_agrees(&gcm, &nonce, &aad, &pt, &want, wtag, 16, &what);
                let mut bad = wtag;
                bad[(i + j) % 16] ^= 1 << (j % 8);
                rejects_into(&gcm, &nonce, &aad, &ct, &bad, &what);
                rejects_in_place(&gcm, &nonce, &aad, &ct, &bad, &what);
                if len > 0 {
                    // A flipped ciphertext bit (the last byte: the masked
                    // partial register) is refused too.
                    let mut c2 = ct.clone();
                    c2[len - 1] ^= 0x80;
                    assert_eq!(
                        gcm.open_in_place_detached(&nonce, &aad, &mut c2, &wtag),
                        Err(Error::AuthenticationFailed),
                        "{what} flipped ciphertext"
                    );
                    assert!(c2.iter().all(|&b| b == 0), "{what} wiped after flip");
                }
            }
        }
    }
}

/// `seal_piece_into` / `open_piece_into_unverified` give the bytes and the
/// GHASH of their in-place twins for every fused kernel this CPU runs and
/// none, whole groups and partial tails, at a counter that is not the
/// message's first; the input is untouched, and the pieces' GHASH values
/// equal the GHASH of the ciphertext (so a caller's Horner combine gets
/// the message's tag).
#[test]
fn piece_into_matches_piece_in_place() {
    let aes = Aes::new(&[0x5c; 32]).unwrap();
    let counter: Block = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 1, 2];
    for fused in [
        FusedChoice::Off,
        FusedChoice::Aesni,
        FusedChoice::Vaes256,
        FusedChoice::Vaes,
        FusedChoice::Vaes32,
    ] {
        let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
            continue;
        };
        for len in [0usize, 15, 16, 512, 512 * 3 + 16 * 5 + 9, 4096] {
            let what = format!("{fused:?} len {len}");
            let pt: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
            let mut want = pt.clone();
            let y = gcm.seal_piece(&counter, &mut want).unwrap();
            let mut ct = vec![0x77u8; len];
            let y2 = gcm.seal_piece_into(&counter, &pt, &mut ct).unwrap();
            assert_eq!((&ct, y2), (&want, y), "{what} seal");
            let mut x = 0u128;
            gcm.key.update_padded(&mut x, &ct);
            assert_eq!(x, y, "{what} GHASH of the ciphertext");
            let mut out = vec![0x77u8; len];
            let y3 = gcm
                .open_piece_into_unverified(&counter, &ct, &mut out)
                .unwrap();
            assert_eq!((&out, y3), (&pt, y), "{what} open");
            assert_eq!(ct, want, "{what} input untouched");
            let mut short = vec![0u8; len + 1];
            assert!(gcm.seal_piece_into(&counter, &pt, &mut short).is_err());
        }
    }
}
