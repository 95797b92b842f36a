//! What the scheduler works on: a stream's data (split or in place), its
//! chaining value, and its encryption round keys.

use super::has_aesni;
use aesflow_cipher::{KeyError, KeySize, RoundKeys};

/// Maximum number of round keys (AES-256).
pub(crate) const MAX_RK: usize = 15;

/// Overwrite `*v` with `zero` by one volatile write, then a compiler
/// fence: key material is wiped with word- and vector-sized stores
/// (`zeroize` on byte arrays writes byte by byte: in `aesflow bench`'s
/// 16-stream CBC row the scheduler and the two `Drop`s that wipe took 14 %
/// of the engine's samples that way, 3 % with this).
pub(crate) fn wipe<T: Copy>(v: &mut T, zero: T) {
    // SAFETY: `v` is a valid, aligned, exclusive reference to a `T`.
    unsafe { core::ptr::write_volatile(v, zero) };
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// Overwrite every element of `v` with `zero` by ordinary stores (which
/// the compiler may merge into wide ones), then pass `v`'s address to an
/// empty `asm!` block that may read memory, so that the stores cannot be
/// removed as dead. [`wipe`] per element makes each element a volatile
/// store, which is built on the stack and copied: several times the
/// stores for the lane context's 64-byte rows.
pub(crate) fn wipe_slice<T: Copy>(v: &mut [T], zero: T) {
    for x in v.iter_mut() {
        *x = zero;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: an empty instruction sequence: it reads and writes nothing
    // and only receives the pointer; without `nomem` the compiler must
    // assume it reads the memory behind it, so the zeros are stored first.
    unsafe {
        core::arch::asm!("/* {0} */", in(reg) v.as_mut_ptr(), options(nostack, preserves_flags));
    }
    #[cfg(not(target_arch = "x86_64"))]
    for x in v.iter_mut() {
        wipe(x, zero);
    }
}

/// A stream's data: the whole-block part only.
pub(crate) enum StreamData<'a> {
    /// Separate input and output of equal length.
    Split {
        /// Input bytes.
        input: &'a [u8],
        /// Output bytes.
        output: &'a mut [u8],
    },
    /// Processed in place.
    InPlace(&'a mut [u8]),
}

impl<'a> StreamData<'a> {
    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            StreamData::Split { input, .. } => input.len(),
            StreamData::InPlace(d) => d.len(),
        }
    }

    /// Split at byte `mid` into a head and a tail.
    pub(crate) fn split_at(self, mid: usize) -> (StreamData<'a>, StreamData<'a>) {
        match self {
            StreamData::Split { input, output } => {
                let (i0, i1) = input.split_at(mid);
                let (o0, o1) = output.split_at_mut(mid);
                (
                    StreamData::Split {
                        input: i0,
                        output: o0,
                    },
                    StreamData::Split {
                        input: i1,
                        output: o1,
                    },
                )
            }
            StreamData::InPlace(d) => {
                let (a, b) = d.split_at_mut(mid);
                (StreamData::InPlace(a), StreamData::InPlace(b))
            }
        }
    }

    /// Raw (input, output) pointers; equal for in-place data.
    pub(super) fn raw(&mut self) -> (*const u8, *mut u8) {
        match self {
            StreamData::Split { input, output } => {
                assert_eq!(input.len(), output.len(), "input/output length mismatch");
                (input.as_ptr(), output.as_mut_ptr())
            }
            StreamData::InPlace(d) => {
                let p = d.as_mut_ptr();
                (p as *const u8, p)
            }
        }
    }
}

/// Encryption round keys as the SIMD kernels read them: expanded here
/// (zeroized on drop) or borrowed from the caller's [`RoundKeys`], which
/// are read in place (no copy of the schedule per call, nothing to wipe).
// The expanded variant is kept inline: one per distinct key of a call,
// in a `Vec`; boxing it would add an allocation per key.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Sched<'k> {
    /// Expanded from a key's bytes.
    Own {
        /// Round keys 0..=Nr (the rest zero).
        rk: [[u8; 16]; MAX_RK],
        /// Number of rounds.
        nr: usize,
    },
    /// The caller's expanded keys.
    Of(&'k RoundKeys),
}

impl Drop for Sched<'_> {
    fn drop(&mut self) {
        if let Sched::Own { rk, .. } = self {
            wipe(rk, [[0; 16]; MAX_RK]);
        }
    }
}

impl<'k> Sched<'k> {
    /// Already-expanded keys, read in place.
    pub(crate) fn of(keys: &'k RoundKeys) -> Self {
        Sched::Of(keys)
    }

    /// FIPS-197 key expansion with the CPU's AES instructions doing SubWord
    /// (constant-time, ~100× faster than the portable expansion).
    ///
    /// # Panics
    /// If the CPU lacks AES-NI.
    pub(crate) fn expand(key: &[u8]) -> Result<Self, KeyError> {
        let size = KeySize::from_len(key.len())?;
        assert!(has_aesni(), "AES-NI key expansion on a CPU without AES-NI");
        let (nk, nr) = (size.nk(), size.nr());
        let mut w = [0u32; 4 * MAX_RK];
        for (i, c) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes(c.try_into().expect("4 bytes"));
        }
        let mut rcon = 1u32;
        for i in nk..4 * (nr + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_right(8)) ^ rcon;
                rcon = (rcon << 1) ^ (0x11b & 0u32.wrapping_sub(rcon >> 7));
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; MAX_RK];
        for (r, k) in rk.iter_mut().enumerate().take(nr + 1) {
            for c in 0..4 {
                k[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_le_bytes());
            }
        }
        wipe(&mut w, [0; 4 * MAX_RK]);
        Ok(Sched::Own { rk, nr })
    }

    /// Number of rounds.
    pub(crate) fn nr(&self) -> usize {
        match self {
            Sched::Own { nr, .. } => *nr,
            Sched::Of(k) => k.nr(),
        }
    }

    /// Round keys 0..=Nr.
    pub(crate) fn enc(&self) -> &[[u8; 16]] {
        match self {
            Sched::Own { rk, nr } => &rk[..=*nr],
            Sched::Of(k) => k.enc(),
        }
    }
}

/// SubWord with the CPU's AES instruction (`aesflow-cipher`'s helper).
fn sub_word(w: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    let s = aesflow_cipher::kernels::aesni::sub_word(w.to_le_bytes());
    #[cfg(not(target_arch = "x86_64"))]
    let s = None;
    u32::from_le_bytes(s.expect("only reached from `Sched::expand`, which checked AES-NI"))
}

/// One stream of a class: whole blocks, its key, its chaining value.
pub(crate) struct Stream<'a, K> {
    /// Data (a multiple of 16 bytes).
    pub(crate) data: StreamData<'a>,
    /// Expanded key.
    pub(crate) keys: &'a K,
    /// Chaining value: the IV on entry, the value to continue with on return.
    pub(crate) state: [u8; 16],
    /// Index of the job this stream belongs to.
    pub(crate) job: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipe_slice_zeroes_every_element() {
        let mut rows = [[0xA5u8; 64]; 11];
        wipe_slice(&mut rows[..7], [0; 64]);
        assert!(rows[..7].iter().all(|r| r.iter().all(|&x| x == 0)));
        assert!(rows[7..].iter().all(|r| r.iter().all(|&x| x == 0xA5)));
    }

    #[test]
    fn wipe_zeroes_the_whole_value() {
        let mut rk = [[0xA5u8; 16]; MAX_RK];
        wipe(&mut rk, [[0; 16]; MAX_RK]);
        assert_eq!(rk, [[0; 16]; MAX_RK]);
        let mut w = [u32::MAX; 4 * MAX_RK];
        wipe(&mut w, [0; 4 * MAX_RK]);
        assert!(w.iter().all(|&x| x == 0));
    }
}
