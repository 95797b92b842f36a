//! The steps of AES as first-class functions (FIPS-197 §5).
//!
//! The many-core engines of Liu & Baas (*Parallel AES Encryption
//! Engines for Many-Core Processor Arrays*, §4) distribute these steps
//! over cores: one core runs SubBytes on four bytes (*SubBytes-4*), another
//! MixColumns on one column (*MixColumns-4*), and so on. So each step is usable
//! on a whole state and on the part of a state an actor owns.
//!
//! The state is 16 bytes in FIPS-197's column-major order: byte `r + 4c` is
//! row `r`, column `c` (so the input block maps onto the state unchanged).
//!
//! Key expansion (FIPS-197 §5.2) is written with the paper's actor names:
//! [`key_rot_word`] (RotWord), [`key_sub_word`] (SubWord) and [`key_xor`]
//! (the XOR with the previous words and Rcon).
//!
//! These functions index the S-box table with their input: they are the
//! specification, not a constant-time implementation (see the `ctime` kernel).

use crate::sbox::{INV_SBOX, SBOX, xtime};

/// The AES state: 16 bytes, column-major (`state[r + 4 * c]`).
pub type State = [u8; 16];

/// A 32-bit word of the key schedule, as four bytes `[a0, a1, a2, a3]`.
pub type Word = [u8; 4];

/// SubBytes of one byte (S-box lookup): the work of a *SubBytes-1* actor.
#[inline]
pub fn sub_byte(b: u8) -> u8 {
    SBOX[b as usize]
}

/// InvSubBytes of one byte.
#[inline]
pub fn inv_sub_byte(b: u8) -> u8 {
    INV_SBOX[b as usize]
}

/// SubBytes on any slice of state bytes: four for *SubBytes-4*, the whole
/// state for *SubBytes-16*.
#[inline]
pub fn sub_bytes_slice(bytes: &mut [u8]) {
    for b in bytes {
        *b = sub_byte(*b);
    }
}

/// InvSubBytes on any slice of state bytes.
#[inline]
pub fn inv_sub_bytes_slice(bytes: &mut [u8]) {
    for b in bytes {
        *b = inv_sub_byte(*b);
    }
}

/// SubBytes (FIPS-197 §5.1.1) on the whole state.
#[inline]
pub fn sub_bytes(state: &mut State) {
    sub_bytes_slice(state);
}

/// SubBytes-4: SubBytes on four bytes (one column or one row of the state).
#[inline]
pub fn sub_bytes_4(bytes: &mut [u8; 4]) {
    sub_bytes_slice(bytes);
}

/// InvSubBytes (FIPS-197 §5.3.2) on the whole state.
#[inline]
pub fn inv_sub_bytes(state: &mut State) {
    inv_sub_bytes_slice(state);
}

/// ShiftRows (FIPS-197 §5.1.2): row `r` is rotated left by `r` positions.
#[inline]
pub fn shift_rows(state: &mut State) {
    let s = *state;
    for c in 0..4 {
        for r in 0..4 {
            state[r + 4 * c] = s[r + 4 * ((c + r) % 4)];
        }
    }
}

/// InvShiftRows (FIPS-197 §5.3.1): row `r` is rotated right by `r` positions.
#[inline]
pub fn inv_shift_rows(state: &mut State) {
    let s = *state;
    for c in 0..4 {
        for r in 0..4 {
            state[r + 4 * ((c + r) % 4)] = s[r + 4 * c];
        }
    }
}

/// MixColumns on one column: the work of a *MixColumns-4* actor
/// (FIPS-197 §5.1.3, multiplication by `{03}x^3 + {01}x^2 + {01}x + {02}`).
#[inline]
pub fn mix_column(col: &mut [u8; 4]) {
    let [a0, a1, a2, a3] = *col;
    let t = a0 ^ a1 ^ a2 ^ a3;
    col[0] = a0 ^ t ^ xtime(a0 ^ a1);
    col[1] = a1 ^ t ^ xtime(a1 ^ a2);
    col[2] = a2 ^ t ^ xtime(a2 ^ a3);
    col[3] = a3 ^ t ^ xtime(a3 ^ a0);
}

/// InvMixColumns on one column (FIPS-197 §5.3.3, `{0b}x^3 + {0d}x^2 + {09}x + {0e}`).
///
/// Computed as MixColumns after a pre-step (`{0e,0b,0d,09}` factors as
/// `{02,01,01,03}·{05,00,04,00}`): `u = {04}·(a0 ⊕ a2)`, `v = {04}·(a1 ⊕ a3)`,
/// added to the even and odd rows. Only `xtime` and XORs: constant-time.
#[inline]
pub fn inv_mix_column(col: &mut [u8; 4]) {
    let u = xtime(xtime(col[0] ^ col[2]));
    let v = xtime(xtime(col[1] ^ col[3]));
    col[0] ^= u;
    col[1] ^= v;
    col[2] ^= u;
    col[3] ^= v;
    mix_column(col);
}

/// Column `c` (0..4) of the state, as four bytes.
#[inline]
pub fn column(state: &State, c: usize) -> [u8; 4] {
    [
        state[4 * c],
        state[4 * c + 1],
        state[4 * c + 2],
        state[4 * c + 3],
    ]
}

/// Write column `c` (0..4) of the state.
#[inline]
pub fn set_column(state: &mut State, c: usize, col: [u8; 4]) {
    state[4 * c..4 * c + 4].copy_from_slice(&col);
}

/// `f` on each column of the state.
#[inline]
fn each_column(state: &mut State, f: fn(&mut [u8; 4])) {
    for c in 0..4 {
        let mut col = column(state, c);
        f(&mut col);
        set_column(state, c, col);
    }
}

/// MixColumns (FIPS-197 §5.1.3) on the whole state: *MixColumns-16*.
#[inline]
pub fn mix_columns(state: &mut State) {
    each_column(state, mix_column);
}

/// InvMixColumns (FIPS-197 §5.3.3) on the whole state.
#[inline]
pub fn inv_mix_columns(state: &mut State) {
    each_column(state, inv_mix_column);
}

/// AddRoundKey (FIPS-197 §5.1.4) on any slice of state bytes with the
/// matching slice of the round key (a whole state, or one column).
///
/// It is its own inverse.
#[inline]
pub fn add_round_key_slice(bytes: &mut [u8], round_key: &[u8]) {
    debug_assert_eq!(bytes.len(), round_key.len());
    for (b, k) in bytes.iter_mut().zip(round_key) {
        *b ^= k;
    }
}

/// AddRoundKey (FIPS-197 §5.1.4) on the whole state.
#[inline]
pub fn add_round_key(state: &mut State, round_key: &[u8; 16]) {
    add_round_key_slice(state, round_key);
}

/// KeyRotWord: RotWord of FIPS-197 §5.2, `[a0,a1,a2,a3] ↦ [a1,a2,a3,a0]`.
#[inline]
pub fn key_rot_word(w: Word) -> Word {
    [w[1], w[2], w[3], w[0]]
}

/// KeySubWord: SubWord of FIPS-197 §5.2, the S-box on each byte of a word.
///
/// Key bytes are the most sensitive data, so this step evaluates the S-box
/// as a boolean circuit on bit-planes (the `ctime` kernel's
/// [`sub_word`](crate::kernels::ctime::sub_word)) instead of indexing a
/// table: the key schedule shared by all kernels is constant-time.
///
/// On x86-64 CPUs with AES-NI the same S-box comes from one `AESENCLAST`
/// (also constant-time, and much faster).
#[inline]
pub fn key_sub_word(w: Word) -> Word {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = crate::kernels::aesni::sub_word(w) {
        return s;
    }
    crate::kernels::ctime::sub_word(w)
}

/// KeyXOR: the XOR of two key-schedule words (`w[i-Nk] ⊕ temp`).
#[inline]
pub fn key_xor(a: Word, b: Word) -> Word {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// Rcon\[i\] = `[x^(i-1), 0, 0, 0]` for `i ≥ 1` (FIPS-197 §5.2).
#[inline]
pub fn rcon(i: usize) -> Word {
    debug_assert!(i >= 1);
    let mut r = 1u8;
    for _ in 1..i {
        r = xtime(r);
    }
    [r, 0, 0, 0]
}

/// One full round (SubBytes, ShiftRows, MixColumns, AddRoundKey).
#[inline]
pub fn round(state: &mut State, round_key: &[u8; 16]) {
    sub_bytes(state);
    shift_rows(state);
    mix_columns(state);
    add_round_key(state, round_key);
}

/// The final round (no MixColumns).
#[inline]
pub fn final_round(state: &mut State, round_key: &[u8; 16]) {
    sub_bytes(state);
    shift_rows(state);
    add_round_key(state, round_key);
}

/// One round of the inverse cipher (FIPS-197 §5.3): InvShiftRows,
/// InvSubBytes, AddRoundKey, InvMixColumns.
#[inline]
pub fn inv_round(state: &mut State, round_key: &[u8; 16]) {
    inv_shift_rows(state);
    inv_sub_bytes(state);
    add_round_key(state, round_key);
    inv_mix_columns(state);
}

/// The final round of the inverse cipher (no InvMixColumns).
#[inline]
pub fn inv_final_round(state: &mut State, round_key: &[u8; 16]) {
    inv_shift_rows(state);
    inv_sub_bytes(state);
    add_round_key(state, round_key);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex16(s: &str) -> [u8; 16] {
        let v: Vec<u8> = (0..32)
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect();
        v.try_into().unwrap()
    }

    /// FIPS-197 Appendix B, round 1: the intermediate states of each step.
    #[test]
    fn appendix_b_round_one_step_by_step() {
        let mut s = hex16("193de3bea0f4e22b9ac68d2ae9f84808");
        sub_bytes(&mut s);
        assert_eq!(s, hex16("d42711aee0bf98f1b8b45de51e415230"));
        shift_rows(&mut s);
        assert_eq!(s, hex16("d4bf5d30e0b452aeb84111f11e2798e5"));
        mix_columns(&mut s);
        assert_eq!(s, hex16("046681e5e0cb199a48f8d37a2806264c"));
        add_round_key(&mut s, &hex16("a0fafe1788542cb123a339392a6c7605"));
        assert_eq!(s, hex16("a49c7ff2689f352b6b5bea43026a5049"));
    }

    #[test]
    fn inverses_invert() {
        let orig = hex16("00112233445566778899aabbccddeeff");
        let mut s = orig;
        shift_rows(&mut s);
        inv_shift_rows(&mut s);
        assert_eq!(s, orig);
        mix_columns(&mut s);
        inv_mix_columns(&mut s);
        assert_eq!(s, orig);
        sub_bytes(&mut s);
        inv_sub_bytes(&mut s);
        assert_eq!(s, orig);
    }

    #[test]
    fn mix_column_fips_example() {
        // Known MixColumns test column: db 13 53 45 -> 8e 4d a1 bc.
        let mut c = [0xdb, 0x13, 0x53, 0x45];
        mix_column(&mut c);
        assert_eq!(c, [0x8e, 0x4d, 0xa1, 0xbc]);
        inv_mix_column(&mut c);
        assert_eq!(c, [0xdb, 0x13, 0x53, 0x45]);
    }

    #[test]
    fn inv_mix_column_matches_the_matrix() {
        use crate::sbox::gf_mul;
        for seed in 0..2000u32 {
            let a = (seed.wrapping_mul(2654435761)).to_le_bytes();
            let mut got = a;
            inv_mix_column(&mut got);
            let expect: [u8; 4] = core::array::from_fn(|r| {
                gf_mul(a[r], 0x0e)
                    ^ gf_mul(a[(r + 1) % 4], 0x0b)
                    ^ gf_mul(a[(r + 2) % 4], 0x0d)
                    ^ gf_mul(a[(r + 3) % 4], 0x09)
            });
            assert_eq!(got, expect);
        }
    }

    #[test]
    fn key_steps() {
        // FIPS-197 Appendix A.1, i = 4: temp = 09cf4f3c.
        let temp = [0x09, 0xcf, 0x4f, 0x3c];
        let r = key_rot_word(temp);
        assert_eq!(r, [0xcf, 0x4f, 0x3c, 0x09]);
        let s = key_sub_word(r);
        assert_eq!(s, [0x8a, 0x84, 0xeb, 0x01]);
        let x = key_xor(s, rcon(1));
        assert_eq!(x, [0x8b, 0x84, 0xeb, 0x01]);
        assert_eq!(
            key_xor(x, [0x2b, 0x7e, 0x15, 0x16]),
            [0xa0, 0xfa, 0xfe, 0x17]
        );
        assert_eq!(rcon(10), [0x36, 0, 0, 0]);
    }
}
