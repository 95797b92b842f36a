//! The parallel modes equal the serial ones (and RustCrypto's AES-GCM).

use aes_gcm::aead::{AeadInPlace, KeyInit};
use aesflow_cipher::{Aes, available_kernels, detect_best};
use aesflow_engine::{Pool, par};

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 253) as u8).collect()
}

const LENS: &[usize] = &[
    0,
    16,
    1000,
    256 * 1024,
    256 * 1024 + 5,
    3 << 20,
    (5 << 20) + 17,
];

#[test]
fn ctr_matches_serial() {
    let aes = Aes::new(&[1u8; 32]).unwrap();
    for threads in [1, 2, 5] {
        let pool = Pool::new(threads).unwrap();
        for &n in LENS {
            let mut a = data(n);
            let mut b = a.clone();
            let mut c1 = [0xffu8; 16];
            c1[8] = 3;
            let mut c2 = c1;
            par::ctr_xor(&pool, &aes, &mut c1, &mut a);
            aes.ctr_xor(&mut c2, &mut b);
            assert_eq!(a, b, "{threads} {n}");
            assert_eq!(c1, c2);
        }
    }
}

#[test]
fn ecb_and_cbc_decrypt_match_serial() {
    let aes = Aes::new(&[2u8; 24]).unwrap();
    for threads in [1, 3] {
        let pool = Pool::new(threads).unwrap();
        for &n in LENS {
            let n = n / 16 * 16;
            let p = data(n);
            let mut a = p.clone();
            par::ecb_encrypt(&pool, &aes, &mut a).unwrap();
            let mut b = p.clone();
            aesflow_modes::ecb::encrypt_in_place(&aes, &mut b).unwrap();
            assert_eq!(a, b);
            par::ecb_decrypt(&pool, &aes, &mut a).unwrap();
            assert_eq!(a, p);
            let iv = [9u8; 16];
            let mut c = p.clone();
            aesflow_modes::cbc::encrypt_in_place(&aes, &iv, &mut c).unwrap();
            let last: [u8; 16] = if n > 0 {
                c[n - 16..].try_into().unwrap()
            } else {
                iv
            };
            let mut iv2 = iv;
            par::cbc_decrypt(&pool, &aes, &mut iv2, &mut c).unwrap();
            assert_eq!(c, p);
            assert_eq!(iv2, last);
        }
        assert!(par::ecb_encrypt(&pool, &aes, &mut [0u8; 17]).is_err());
    }
}

#[test]
fn gf128_is_a_field() {
    let one = 1u128 << 127;
    let a = 0x66e94bd4ef8a2c3b884cfa59ca342b2eu128;
    assert_eq!(par::gf128_mul(a, one), a);
    assert_eq!(par::gf128_pow(a, 0), one);
    assert_eq!(
        par::gf128_pow(a, 3),
        par::gf128_mul(a, par::gf128_mul(a, a))
    );
}

#[test]
fn gcm_matches_rustcrypto() {
    for key in [vec![3u8; 16], vec![4u8; 32]] {
        let g = par::ParGcm::new(&key, detect_best()).unwrap();
        for threads in [1, 2, 4] {
            let pool = Pool::new(threads).unwrap();
            for &n in LENS {
                for aad in [&b""[..], b"header bytes"] {
                    let p = data(n);
                    let nonce = [7u8; 12];
                    let mut a = p.clone();
                    let tag = g.seal_in_place(&pool, &nonce, aad, &mut a).unwrap();
                    let mut b = p.clone();
                    let t2 = if key.len() == 16 {
                        aes_gcm::Aes128Gcm::new_from_slice(&key)
                            .unwrap()
                            .encrypt_in_place_detached(&nonce.into(), aad, &mut b)
                            .unwrap()
                    } else {
                        aes_gcm::Aes256Gcm::new_from_slice(&key)
                            .unwrap()
                            .encrypt_in_place_detached(&nonce.into(), aad, &mut b)
                            .unwrap()
                    };
                    assert_eq!(a, b, "{threads} {n}");
                    assert_eq!(&tag[..], &t2[..], "{threads} {n}");
                    g.open_in_place(&pool, &nonce, aad, &mut a, &tag).unwrap();
                    assert_eq!(a, p);
                    let mut bad = tag;
                    bad[0] ^= 1;
                    let mut c = b.clone();
                    assert!(g.open_in_place(&pool, &nonce, aad, &mut c, &bad).is_err());
                    if n > 0 {
                        assert!(c.iter().all(|&x| x == 0), "zeroed on failure");
                    }
                }
            }
        }
    }
}

/// The kernel is a value: a pool runs the kernel it was given (and the
/// fastest constant-time one without), parallel GCM runs the kernel it was
/// keyed on, and every kernel of this CPU seals as RustCrypto does.
#[test]
fn kernel_travels_as_a_value() {
    let pool = Pool::new(2).unwrap();
    assert_eq!(pool.kernel().name(), detect_best().name());
    assert_eq!(Pool::inline().kernel().name(), detect_best().name());
    let key = [5u8; 32];
    let n = par::GCM_PARALLEL_MIN + par::GCM_PIECE + 5;
    let p = data(n);
    let mut want = p.clone();
    let want_tag = aes_gcm::Aes256Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt_in_place_detached(&[9u8; 12].into(), b"", &mut want)
        .unwrap();
    for k in available_kernels() {
        let on_k = pool.clone().with_kernel(k);
        assert_eq!(on_k.kernel().name(), k.name());
        assert_eq!(on_k.threads(), 2, "the workers are shared");
        let g = par::ParGcm::new(&key, on_k.kernel()).unwrap();
        assert_eq!(g.gcm().aes().kernel().name(), k.name());
        let mut got = p.clone();
        let tag = g.seal_in_place(&on_k, &[9u8; 12], b"", &mut got).unwrap();
        assert!(got == want, "{}", k.name());
        assert_eq!(&tag[..], &want_tag[..], "{}", k.name());
    }
    // The original pool kept its kernel.
    assert_eq!(pool.kernel().name(), detect_best().name());
}

/// `seal_into` / `open_into` (no copy: each piece read from the input and
/// written to the output in one fused pass) give RustCrypto's ciphertext
/// and tag on one and several threads, leave the input untouched, refuse
/// a wrong tag or lengths that differ with the output zeroed, and on
/// random inputs equal the in-place calls.
#[test]
fn gcm_into_matches_rustcrypto() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect()
    };
    for klen in [16usize, 32] {
        let key = rnd(klen);
        let g = par::ParGcm::new(&key, detect_best()).unwrap();
        for threads in [1, 2, 3] {
            let pool = Pool::new(threads).unwrap();
            for &n in LENS
                .iter()
                .chain(&[par::GCM_PARALLEL_MIN + 3 * par::GCM_PIECE - 16])
            {
                let what = format!("AES-{} {threads} threads {n} bytes", klen * 8);
                let p = rnd(n);
                let aad = rnd(n % 40);
                let nonce: [u8; 12] = rnd(12).try_into().unwrap();
                let mut want = p.clone();
                let want_tag = if klen == 16 {
                    aes_gcm::Aes128Gcm::new_from_slice(&key)
                        .unwrap()
                        .encrypt_in_place_detached(&nonce.into(), &aad, &mut want)
                } else {
                    aes_gcm::Aes256Gcm::new_from_slice(&key)
                        .unwrap()
                        .encrypt_in_place_detached(&nonce.into(), &aad, &mut want)
                }
                .unwrap();
                let mut ct = vec![0x77u8; n];
                let tag = g.seal_into(&pool, &nonce, &aad, &p, &mut ct).unwrap();
                assert!(ct == want, "{what}");
                assert_eq!(&tag[..], &want_tag[..], "{what}");
                let mut pt = vec![0x77u8; n];
                g.open_into(&pool, &nonce, &aad, &ct, &tag, &mut pt)
                    .unwrap();
                assert!(pt == p, "{what} open");
                assert!(ct == want, "{what} input untouched");
                let mut bad = tag;
                bad[15] ^= 0x80;
                let mut out = vec![0x77u8; n];
                assert!(
                    g.open_into(&pool, &nonce, &aad, &ct, &bad, &mut out)
                        .is_err()
                );
                assert!(out.iter().all(|&b| b == 0), "{what} zeroed");
                let mut long = vec![0x77u8; n + 1];
                assert!(g.seal_into(&pool, &nonce, &aad, &p, &mut long).is_err());
                assert!(long.iter().all(|&b| b == 0), "{what} zeroed");
            }
        }
    }
}

/// A pool carries its plan as it carries its kernel: the table's plan by
/// default, the one given otherwise (shared workers, the original pool
/// unchanged); `ParGcm::for_pool` seals with the pool's kernel and plan,
/// every plan giving RustCrypto's bytes.
#[test]
fn plan_travels_as_a_value() {
    use aesflow_plan::{Plan, Variant};
    let pool = Pool::new(2).unwrap();
    assert_eq!(pool.plan(), Plan::for_this_cpu());
    let key = [6u8; 32];
    let n = par::GCM_PARALLEL_MIN + 5;
    let p = data(n);
    let mut want = p.clone();
    let want_tag = aes_gcm::Aes256Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt_in_place_detached(&[3u8; 12].into(), b"", &mut want)
        .unwrap();
    for v in [Variant::Groups16, Variant::Groups32] {
        let plan = Plan::for_this_cpu().with(v);
        let on = pool.clone().with_plan(plan);
        assert_eq!(on.plan(), plan);
        let g = par::ParGcm::for_pool(&key, &on).unwrap();
        if g.gcm()
            .fused_kernel()
            .is_some_and(|f| f.starts_with("vaes+"))
        {
            assert_eq!(
                g.gcm().fused_kernel() == Some("vaes+vpclmul/32"),
                v == Variant::Groups32
            );
        }
        for pool in [on.clone(), Pool::new(1).unwrap().with_plan(plan)] {
            let mut got = vec![0u8; n];
            let tag = g.seal_into(&pool, &[3u8; 12], b"", &p, &mut got).unwrap();
            assert!(got == want, "{v}");
            assert_eq!(&tag[..], &want_tag[..], "{v}");
        }
    }
    assert_eq!(pool.plan(), Plan::for_this_cpu());
}
