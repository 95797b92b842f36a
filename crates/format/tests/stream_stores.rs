//! Outputs written past the caches (`Prefetch::Stream`: non-temporal
//! stores of whole cache lines, each line joined from two registers where
//! the output is not on a line, the part lines at the ends stored
//! normally): the same bytes and tags as stores through the caches, for
//! every fused kernel, output offsets on and off a line, and lengths of
//! whole groups and with tails; and Cobblestone runs larger than the
//! last-level cache (which stream on a pool of several threads) round
//! trip at unaligned outputs.

use aesflow_cipher::{Aes, detect_best};
use aesflow_format::cobblestone::{ChunkKeys, Suite, sealed_len};
use aesflow_format::{Error, Pool};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions, Prefetch};

/// `len` bytes of `buf` starting `off` bytes past a cache line.
fn at(buf: &mut [u8], off: usize, len: usize) -> &mut [u8] {
    let a = (64 - buf.as_ptr() as usize % 64) % 64 + off;
    &mut buf[a..a + len]
}

#[test]
fn streamed_gcm_equals_cached() {
    let lens = [0, 16, 512, 1024 + 48, 16384, 16384 + 16 * 5 + 7, 40000];
    for key in [&[0x11u8; 16][..], &[0x5cu8; 32][..]] {
        let aes = Aes::new(key).unwrap();
        for fused in [
            FusedChoice::Vaes32,
            FusedChoice::Vaes,
            FusedChoice::Vaes256,
            FusedChoice::Aesni,
        ] {
            let Ok(cached) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
                continue;
            };
            let streamed = cached.clone().with_prefetch(Prefetch::Stream);
            for len in lens {
                let pt: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
                let mut want = vec![0u8; len];
                let wt = cached.seal_into(&[3; 12], b"aad", &pt, &mut want).unwrap();
                let (mut cbuf, mut obuf) = (vec![0u8; len + 128], vec![0u8; len + 128]);
                for off in [0, 16, 32, 48, 8, 33] {
                    let what = format!("{fused:?} AES-{} len {len} off {off}", key.len() * 8);
                    let ct = at(&mut cbuf, off, len);
                    let t = streamed.seal_into(&[3; 12], b"aad", &pt, ct).unwrap();
                    assert!(*ct == want[..], "{what}: ciphertext");
                    assert_eq!(t, wt, "{what}: tag");
                    let out = at(&mut obuf, off, len);
                    streamed
                        .open_into(&[3; 12], b"aad", &want, &wt, out)
                        .unwrap();
                    assert!(*out == pt[..], "{what}: opened");
                    if len > 0 {
                        let mut bad = want.clone();
                        bad[len / 2] ^= 1;
                        let r = streamed.open_into(&[3; 12], b"aad", &bad, &wt, out);
                        assert!(r.is_err() && out.iter().all(|&b| b == 0), "{what}: forged");
                    }
                }
            }
        }
    }
}

#[test]
fn large_cobblestone_runs_round_trip_unaligned() {
    let llc = aesflow_engine::cache::last_level_cache();
    if llc > 64 << 20 {
        aesflow_vectors::skip!("last-level cache unknown or over 64 MiB");
        return;
    }
    // Above the last-level cache, a partial last chunk.
    let n = llc + 3 * 16384 + 999;
    let plain: Vec<u8> = (0..n).map(|i| (i * 31 + 7) as u8).collect();
    let kernel = detect_best();
    let keys = ChunkKeys::for_encryption(kernel, Suite::Cobblestone256, &[9; 32], b"ctx").unwrap();
    let one = Pool::new(1).unwrap().with_kernel(kernel);
    let mut want = Vec::new();
    keys.seal_chunks(&one, 0, &plain, true, &mut want).unwrap();
    let slen = sealed_len(n, true);
    let (mut sbuf, mut obuf) = (vec![0u8; slen + 128], vec![0u8; n + 128]);
    for threads in [2, 3] {
        let pool = Pool::new(threads).unwrap().with_kernel(kernel);
        for off in [16, 48, 0] {
            let sealed = at(&mut sbuf, off, slen);
            keys.seal_chunks_into(&pool, 0, &plain, true, sealed)
                .unwrap();
            assert!(*sealed == want[..], "{threads} threads, off {off}: sealed");
            let out = at(&mut obuf, off, n);
            keys.open_chunks_into(&pool, 0, &want, true, out).unwrap();
            assert!(*out == plain[..], "{threads} threads, off {off}: opened");
        }
        let mut bad = want.clone();
        bad[5 * 16400 + 77] ^= 2;
        let out = at(&mut obuf, 16, n);
        let r = keys.open_chunks_into(&pool, 0, &bad, true, out);
        assert!(matches!(r, Err(Error::ChunkAuthentication(5))), "{r:?}");
        assert!(out.iter().all(|&b| b == 0));
    }
}
