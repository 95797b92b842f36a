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
