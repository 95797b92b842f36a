//! Shared test helpers for the kernels: comparison with the `reference`
//! kernel on random inputs.

use crate::kernel::{Block, Kernel, XtsTweakMul};
use crate::kernels::reference::Reference;
use crate::key_schedule::{KeyExpansion, KeySchedule, KeySize};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Every key size × key style, with a random key.
pub fn schedules(rng: &mut StdRng) -> Vec<KeySchedule> {
    let mut out = Vec::new();
    for size in KeySize::ALL {
        let mut key = vec![0u8; size.bytes()];
        rng.fill(&mut key[..]);
        for style in KeyExpansion::ALL {
            out.push(KeySchedule::new(&key, style).unwrap());
        }
    }
    out
}

pub fn random_blocks(rng: &mut StdRng, n: usize) -> Vec<Block> {
    (0..n).map(|_| rng.random()).collect()
}

/// Whether this CPU runs `k`; when not, says that its tests are skipped.
pub fn runnable(k: &dyn Kernel) -> bool {
    let ok = k.is_available();
    if !ok {
        aesflow_vectors::skip!("the {} kernel: this CPU lacks its instructions", k.name());
    }
    ok
}

/// The tests of kernels against `reference` ([`check_ecb`], [`check_ctr`],
/// [`check_chained`]), each run for every `kernel => seed` given that this
/// CPU runs, the seed advanced by one from test to test.
macro_rules! matches_reference {
    ($($kernel:expr => $seed:expr),+ $(,)?) => {
        #[test]
        fn ecb_matches_reference() {
            $(if $crate::kernels::testutil::runnable(&$kernel) {
                $crate::kernels::testutil::check_ecb(&$kernel, $seed);
            })+
        }

        #[test]
        fn ctr_matches_reference() {
            $(if $crate::kernels::testutil::runnable(&$kernel) {
                $crate::kernels::testutil::check_ctr(&$kernel, $seed + 1);
            })+
        }

        #[test]
        fn chained_modes_match_reference() {
            $(if $crate::kernels::testutil::runnable(&$kernel) {
                $crate::kernels::testutil::check_chained(&$kernel, $seed + 2);
            })+
        }
    };
}
pub(crate) use matches_reference;

/// ECB encrypt/decrypt of 0..=100 blocks against `reference`: our
/// encryption and decryption of random blocks, and decryption of our own
/// ciphertext.
pub fn check_ecb(k: &dyn Kernel, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for ks in schedules(&mut rng) {
        for n in 0..=100 {
            for dec in [false, true] {
                let data = random_blocks(&mut rng, n);
                let crypt = |k: &dyn Kernel, b: &mut [Block], dec: bool| {
                    if dec {
                        k.decrypt_blocks(&ks, b)
                    } else {
                        k.encrypt_blocks(&ks, b)
                    }
                };
                let mut expect = data.clone();
                crypt(&Reference, &mut expect, dec);
                let mut got = data.clone();
                crypt(k, &mut got, dec);
                assert_eq!(got, expect, "dec={dec} {ks:?} n={n}");
                crypt(k, &mut got, !dec);
                assert_eq!(got, data, "inverse of dec={dec} {ks:?} n={n}");
            }
        }
    }
}

/// Counter values that exercise the carries.
pub fn interesting_counters(rng: &mut StdRng) -> Vec<u128> {
    let r: u128 = rng.random();
    let hi = r & !(u64::MAX as u128);
    let mut v = vec![0, r, u128::MAX, u128::MAX - 1, u128::MAX - 130, hi];
    // Last bytes 256 − 4N and one past, for N = 1, 2, 4, 8 registers of
    // four blocks: the edges of the byte-order counter paths.
    for d in [1u128, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 200] {
        v.push(hi | (u64::MAX as u128 + 1 - d));
        v.push(u128::MAX - d + 1);
    }
    v.push(u64::MAX as u128);
    v.push(hi | (u64::MAX as u128 - 1000));
    v
}

/// CTR on byte lengths 0..=2000 against `reference`, counters near the
/// 2^64 and 2^128 wraps; also split calls.
pub fn check_ctr(k: &dyn Kernel, seed: u64) {
    const MAX: usize = 2000;
    let mut rng = StdRng::seed_from_u64(seed);
    for ks in schedules(&mut rng) {
        for ctr in interesting_counters(&mut rng) {
            let mut data = vec![0u8; MAX];
            rng.fill(&mut data[..]);
            // The reference keystream over the whole length; every
            // shorter length must be its prefix.
            let mut full = data.clone();
            let mut rc = ctr.to_be_bytes();
            Reference.ctr_xor(&ks, &mut rc, &mut full);
            assert_eq!(
                u128::from_be_bytes(rc),
                ctr.wrapping_add(MAX.div_ceil(16) as u128)
            );
            for len in 0..=MAX {
                let mut got = data[..len].to_vec();
                let mut c = ctr.to_be_bytes();
                k.ctr_xor(&ks, &mut c, &mut got);
                assert_eq!(got, full[..len], "ctr {:?} ctr={ctr:#x} len={len}", ks);
                assert_eq!(
                    u128::from_be_bytes(c),
                    ctr.wrapping_add(len.div_ceil(16) as u128),
                    "next counter {:?} ctr={ctr:#x} len={len}",
                    ks
                );
            }
            // Direct comparison with the reference on a few lengths.
            for len in [0, 1, 15, 16, 17, 100, 127, 128, 129, 257, 511, 1024, 1999] {
                let mut a = data[..len].to_vec();
                let mut b = a.clone();
                let mut ca = ctr.to_be_bytes();
                let mut cb = ca;
                Reference.ctr_xor(&ks, &mut ca, &mut a);
                k.ctr_xor(&ks, &mut cb, &mut b);
                assert_eq!((a, ca), (b, cb));
            }
            // Whole-block pieces continue the stream.
            let mut got = data.clone();
            let mut c = ctr.to_be_bytes();
            let mut off = 0;
            while off < MAX {
                let n = (16 * rng.random_range(0..20usize)).min(MAX - off);
                k.ctr_xor(&ks, &mut c, &mut got[off..off + n]);
                off += n;
            }
            assert_eq!(got, full);
            assert_eq!(
                u128::from_be_bytes(c),
                ctr.wrapping_add(MAX.div_ceil(16) as u128)
            );
        }
    }
}

/// CBC (both directions), CFB128 decryption and XTS (both directions) of
/// 0..=100 blocks and some longer runs (past 3 steps of 32 blocks, so the
/// 512-bit XTS tweak registers advance by α^16 several times, with either
/// [`XtsTweakMul`]) against `reference` (the generic paths), in one call
/// and split in two, chaining values and tweaks included.
pub fn check_chained(k: &dyn Kernel, seed: u64) {
    type Op = fn(&dyn Kernel, &KeySchedule, &mut Block, &mut [Block]);
    let ops: [(&str, Op); 7] = [
        ("cbc-enc", |k, ks, iv, b| k.cbc_encrypt(ks, iv, b)),
        ("cbc-dec", |k, ks, iv, b| k.cbc_decrypt(ks, iv, b)),
        ("cfb-dec", |k, ks, iv, b| k.cfb_decrypt(ks, iv, b)),
        ("xts-enc", |k, ks, t, b| {
            k.xts_blocks(ks, t, b, false, XtsTweakMul::Clmul)
        }),
        ("xts-dec", |k, ks, t, b| {
            k.xts_blocks(ks, t, b, true, XtsTweakMul::Clmul)
        }),
        ("xts-enc-shift", |k, ks, t, b| {
            k.xts_blocks(ks, t, b, false, XtsTweakMul::Shift)
        }),
        ("xts-dec-shift", |k, ks, t, b| {
            k.xts_blocks(ks, t, b, true, XtsTweakMul::Shift)
        }),
    ];
    let mut rng = StdRng::seed_from_u64(seed);
    for ks in schedules(&mut rng) {
        for n in (0..=100).chain([127, 128, 129, 130, 160, 191, 257, 300, 513]) {
            let data = random_blocks(&mut rng, n);
            let iv: Block = rng.random();
            let cut = rng.random_range(0..=n);
            for (name, op) in ops {
                let (mut want, mut wiv) = (data.clone(), iv);
                op(&Reference, &ks, &mut wiv, &mut want);
                let (mut got, mut giv) = (data.clone(), iv);
                op(k, &ks, &mut giv, &mut got);
                assert_eq!((&got, giv), (&want, wiv), "{name} {ks:?} n={n}");
                let (mut got, mut giv) = (data.clone(), iv);
                let (a, b) = got.split_at_mut(cut);
                op(k, &ks, &mut giv, a);
                op(k, &ks, &mut giv, b);
                assert_eq!((&got, giv), (&want, wiv), "{name} split {cut} {ks:?} n={n}");
            }
        }
    }
}
