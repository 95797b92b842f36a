//! Tests of the `ctime` kernel.

use super::*;
use crate::kernel::Kernel;
use crate::kernels::reference::Reference;
use crate::key_schedule::KeyExpansion;
use crate::sbox::{INV_SBOX, SBOX};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// Apply a plane transformation to one batch of bytes.
fn on_bytes(bytes: &mut [u8; BATCH_BYTES], f: impl Fn(&mut Planes)) {
    let mut p = pack(bytes);
    f(&mut p);
    unpack(&p, bytes);
}

#[test]
fn sub_word_matches_sbox() {
    for x in 0..=255u8 {
        let w = [x, x.wrapping_add(1), x ^ 0x5a, !x];
        let expect = w.map(|b| crate::sbox::SBOX[b as usize]);
        assert_eq!(sub_word(w), expect);
    }
}

#[test]
fn pack_layout_and_roundtrip() {
    let mut bytes = [0u8; BATCH_BYTES];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(151) ^ (i >> 6) as u8 ^ 0x3c;
    }
    let p = pack(&bytes);
    for blk in 0..BATCH_BLOCKS {
        let (lane, b) = (blk / 4, blk % 4);
        for r in 0..4 {
            for c in 0..4 {
                let byte = bytes[16 * blk + r + 4 * c];
                let pos = 16 * r + 4 * c + b;
                for (i, plane) in p.iter().enumerate() {
                    let bit = (plane.0[lane] >> pos) & 1;
                    assert_eq!(bit, u64::from((byte >> i) & 1));
                }
            }
        }
    }
    let mut back = [0u8; BATCH_BYTES];
    unpack(&p, &mut back);
    assert_eq!(back, bytes);
}

#[test]
fn sbox_circuit_all_inputs() {
    for batch in 0..256usize.div_ceil(BATCH_BYTES) {
        let mut bytes: [u8; BATCH_BYTES] =
            core::array::from_fn(|i| (BATCH_BYTES * batch + i) as u8);
        let orig = bytes;
        on_bytes(&mut bytes, sub_bytes_nc);
        for (x, y) in orig.iter().zip(&bytes) {
            assert_eq!(*y ^ 0x63, SBOX[*x as usize], "S({x:#04x})");
        }
        let mut inv = orig;
        on_bytes(&mut inv, inv_sub_bytes_nc);
        for (x, y) in orig.iter().zip(&inv) {
            assert_eq!(*y, INV_SBOX[(*x ^ 0x63) as usize], "S⁻¹({x:#04x})");
        }
    }
}

#[test]
fn linear_steps_match_spec() {
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..20 {
        let mut bytes = [0u8; BATCH_BYTES];
        rng.fill(&mut bytes[..]);
        let spec = |f: fn(&mut [u8; 16]), mut b: [u8; BATCH_BYTES]| {
            for blk in b.chunks_exact_mut(16) {
                f(blk.try_into().unwrap());
            }
            b
        };
        type Step = (fn(&mut [u8; 16]), fn(&mut Planes));
        let steps: [Step; 4] = [
            (crate::steps::shift_rows, shift_rows_by::<false>),
            (crate::steps::inv_shift_rows, shift_rows_by::<true>),
            (crate::steps::mix_columns, mix_columns),
            (crate::steps::inv_mix_columns, inv_mix_columns),
        ];
        for (s, f) in steps {
            let mut got = bytes;
            on_bytes(&mut got, f);
            assert_eq!(got, spec(s, bytes));
        }
    }
}

#[test]
fn matches_reference_kernel() {
    crate::kernels::testutil::check_ecb(&ConstantTime, 0xc71e);
}

#[test]
fn fips197_appendix_c1() {
    let key: Vec<u8> = (0..16).collect();
    let pt: Block = core::array::from_fn(|i| (i as u8) * 0x11);
    let ct = [
        0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5,
        0x5a,
    ];
    for style in KeyExpansion::ALL {
        let keys = KeySchedule::new(&key, style).unwrap();
        let mut b = [pt];
        ConstantTime.encrypt_blocks(&keys, &mut b);
        assert_eq!(b[0], ct);
        ConstantTime.decrypt_blocks(&keys, &mut b);
        assert_eq!(b[0], pt);
    }
}

#[test]
fn ctr_matches_reference() {
    let mut rng = StdRng::seed_from_u64(7);
    let keys = KeySchedule::new(&[9u8; 32], KeyExpansion::Online).unwrap();
    let mut data = vec![0u8; 1000];
    rng.fill(&mut data[..]);
    let (mut a, mut b) = (data.clone(), data);
    let (mut ca, mut cb) = ([0xffu8; 16], [0xffu8; 16]);
    ConstantTime.ctr_xor(&keys, &mut ca, &mut a);
    Reference.ctr_xor(&keys, &mut cb, &mut b);
    assert_eq!((a, ca), (b, cb));
}
