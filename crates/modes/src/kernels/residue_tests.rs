//! What a kernel leaves on the stack: the bytes below the caller's stack
//! pointer after a call, compared between two calls that differ only in
//! the key (same buffers, addresses, lengths, counter, text). A byte that
//! differs depends on the key: a spilled AES state, round key, power of H
//! or GHASH sum the kernel left behind. Only the GHASH state it returns may
//! differ (it is the caller's, and masked out).

use super::*;
use crate::gcm::{GhashImpl, GhashKey};
use aesflow_cipher::{Aes, KeySchedule};
use core::arch::asm;

/// Bytes below the stack pointer examined: deeper than any kernel's frames.
const SPAN: usize = 32 * 1024;
/// Bytes at the top of the examined region not compared: the return
/// address pushed by the call of `f` and the callee-saved registers `f`
/// saves (the test's own state).
const SAVED: usize = 64;

/// Zero the `SPAN` bytes below the stack pointer, run `f`, and copy those
/// bytes into `snap` (`f` must not allocate, and `snap` is the same buffer
/// for the calls compared: pointers saved in the frames would differ).
#[inline(never)]
fn stack_after(snap: &mut [u8; SPAN], f: &mut dyn FnMut()) {
    // SAFETY: the `SPAN` bytes below the stack pointer are unused stack of
    // this thread (its stack is far larger); no Rust value lives there (the
    // asm may use the stack, so the compiler keeps no red zone across it).
    unsafe {
        asm!(
            "lea rdi, [rsp - {s}]",
            "xor eax, eax",
            "mov ecx, {s}",
            "rep stosb",
            s = const SPAN,
            out("rdi") _, out("rcx") _, out("rax") _,
        )
    };
    f();
    // SAFETY: as above, read only; `snap` holds `SPAN` bytes.
    unsafe {
        asm!(
            "lea rsi, [rsp - {s}]",
            "mov ecx, {s}",
            "rep movsb",
            s = const SPAN,
            inout("rdi") snap.as_mut_ptr() => _, out("rsi") _, out("rcx") _,
        )
    };
}

/// Zero in `snap` every 16-byte window equal to `x` in either byte order.
fn mask_value(snap: &mut [u8], x: u128) {
    for w in [x.to_le_bytes(), x.to_be_bytes()] {
        let mut i = 0;
        while i + 16 <= snap.len() {
            if snap[i..i + 16] == w {
                snap[i..i + 16].fill(0);
                i += 16;
            } else {
                i += 1;
            }
        }
    }
}

/// A call under test: round keys, GHASH key, GHASH state (or tag) out.
type Call<'a> = dyn FnMut(&[[u8; 16]], &GhashKey, &mut u128) + 'a;

/// The number of key-dependent bytes left on the stack by `call` (run
/// with each of two keys: the Nr + 1 round keys and the GHASH key, in the
/// same places), after masking the GHASH state each returns.
fn residue(klen: usize, call: &mut Call<'_>) -> usize {
    let mut rk = Box::new([[0u8; 16]; 15]);
    let mut gk = Box::new(GhashKey::new(&[0; 16], GhashImpl::Pclmul));
    let mut snaps = Vec::new();
    let mut buf = Box::new([0u8; SPAN]);
    for seed in [0x5au8, 0xc3] {
        let key: Vec<u8> = (0..klen)
            .map(|i| (i as u8).wrapping_mul(seed) ^ seed)
            .collect();
        let aes = Aes::new(&key).unwrap();
        let KeySchedule::Offline(s) = aes.key_schedule() else {
            panic!("offline schedule expected");
        };
        let n = s.enc().len();
        rk[..n].copy_from_slice(s.enc());
        *gk = GhashKey::new(&[seed ^ 0x11; 16], GhashImpl::Pclmul);
        let mut x = 0u128;
        stack_after(&mut buf, &mut || call(&rk[..n], &gk, &mut x));
        let mut snap = buf.to_vec();
        mask_value(&mut snap, x);
        snaps.push(snap);
    }
    // The top bytes hold the return address and the registers `f` saves:
    // this test's own state, not the kernel's.
    let end = SPAN - SAVED;
    (0..end).filter(|&i| snaps[0][i] != snaps[1][i]).count()
}

/// No fused kernel, and no stand-alone GHASH, leaves a key-dependent byte
/// on the stack, at each key size, in both directions, in place and out of
/// place. What spills is a property of the optimized code (`--release`):
/// unoptimized builds spill nearly every value, and are not checked.
#[test]
fn no_secret_left_on_stack() {
    if !has_pclmul() {
        aesflow_vectors::skip!("no PCLMULQDQ");
        return;
    }
    if cfg!(debug_assertions) {
        aesflow_vectors::skip!("stack residue: checked in optimized builds (--release)");
        return;
    }
    let len = 16 * 1024;
    let text: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
    let mut data = text.clone();
    let src = text.clone();
    let ctr = [0x42u8; 16];
    let mut bad = Vec::new();
    for kind in [Fused::Aesni, Fused::Vaes, Fused::Vaes32, Fused::Vaes256] {
        if !kind.is_available() {
            continue;
        }
        for klen in [16, 24, 32] {
            for (encrypt, out_of_place) in [(true, false), (false, false), (true, true)] {
                for finish in [
                    None,
                    Some(((0x1234 << 64) | 1, (0x68 << 64) | (len as u128 * 8))),
                ] {
                    let n = residue(klen, &mut |rk, gk, x| {
                        data.copy_from_slice(&text);
                        let input = out_of_place.then_some(&src[..]);
                        let io = (input, &mut data[..]);
                        if let (_, Some(tag)) = gcm_fused(
                            kind,
                            rk,
                            gk,
                            &ctr,
                            x,
                            io,
                            encrypt,
                            finish,
                            Default::default(),
                        ) {
                            *x = tag;
                        }
                    });
                    if n > 0 {
                        bad.push(format!(
                            "{kind:?} klen {klen} enc {encrypt} oop {out_of_place} \
                             finish {}: {n} bytes",
                            finish.is_some()
                        ));
                    }
                }
            }
        }
    }
    // The whole-message kernels: the tag (masked) is their only output.
    let j0 = (0x1234_u128 << 64) | 1;
    for klen in [16, 24, 32] {
        for encrypt in [true, false] {
            for n in [100, 1536, 4096] {
                let lens = (0x68 << 64) | (n as u128 * 8);
                let short = n <= AESNI_SHORT;
                let r = residue(klen, &mut |rk, gk, x| {
                    data[..n].copy_from_slice(&text[..n]);
                    let io = (None, &mut data[..n]);
                    let tag = if short {
                        gcm_finish(rk, gk, 0, (j0 + 1, j0), io, lens, encrypt)
                    } else if has_vpclmul() {
                        gcm_small(rk, gk, (None, &src[..13]), j0, io, lens, encrypt)
                    } else {
                        return;
                    };
                    *x = tag;
                });
                if r > 0 {
                    bad.push(format!(
                        "one-shot klen {klen} enc {encrypt} len {n}: {r} bytes"
                    ));
                }
            }
        }
    }
    for wide in [false, true] {
        if wide && !has_vpclmul() {
            continue;
        }
        let n = residue(16, &mut |_, gk, x| ghash_clmul(wide, gk, x, &text));
        if n > 0 {
            bad.push(format!("ghash wide {wide}: {n} bytes"));
        }
    }
    assert!(
        bad.is_empty(),
        "key-dependent bytes left on the stack: {bad:#?}"
    );
}
