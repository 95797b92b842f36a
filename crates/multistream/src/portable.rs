//! The portable backend: each stream alone on an `aesflow-cipher` kernel.
//! No interleaving to gain without SIMD AES, but the same results, so the
//! engine's API works on any CPU.

use crate::kernels::{CBC_ENC, CFB_DEC, CFB_ENC, Stream, StreamData};
use aesflow_cipher::{Kernel, KeySchedule, RoundKeys};
use zeroize::Zeroize;

fn xor(a: &[u8; 16], b: &[u8]) -> [u8; 16] {
    let mut o = *a;
    for (x, y) in o.iter_mut().zip(b) {
        *x ^= y;
    }
    o
}

/// One block of `mode`: returns the output, updates the chaining value.
fn block(k: &dyn Kernel, ks: &KeySchedule, mode: u8, st: &mut [u8; 16], inp: &[u8]) -> [u8; 16] {
    if mode == CBC_ENC {
        let mut x = xor(st, inp);
        k.encrypt_blocks(ks, core::slice::from_mut(&mut x));
        *st = x;
        return x;
    }
    let mut x = *st;
    k.encrypt_blocks(ks, core::slice::from_mut(&mut x));
    let out = xor(&x, inp);
    *st = match mode {
        CFB_ENC => out,
        CFB_DEC => inp.try_into().expect("16 bytes"),
        _ => x,
    };
    x.zeroize();
    out
}

/// Run one whole-block stream; its `state` becomes the continuation value.
pub(crate) fn run_stream(k: &dyn Kernel, mode: u8, s: &mut Stream<'_, RoundKeys>) {
    let ks = KeySchedule::Offline(s.keys.clone());
    let mut st = s.state;
    match &mut s.data {
        StreamData::Split { input, output } => {
            for (i, o) in input.chunks_exact(16).zip(output.chunks_exact_mut(16)) {
                o.copy_from_slice(&block(k, &ks, mode, &mut st, i));
            }
        }
        StreamData::InPlace(d) => {
            for c in d.chunks_exact_mut(16) {
                let out = block(k, &ks, mode, &mut st, c);
                c.copy_from_slice(&out);
            }
        }
    }
    s.state = st;
    st.zeroize();
}

/// Encrypt one block.
pub(crate) fn encrypt_block(k: &dyn Kernel, keys: &RoundKeys, b: &mut [u8; 16]) {
    let ks = KeySchedule::Offline(keys.clone());
    k.encrypt_blocks(&ks, core::slice::from_mut(b));
}
