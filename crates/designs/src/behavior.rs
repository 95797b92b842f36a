//! The functional half of each compiled actor: what its core computes on
//! the words in its data memory (the AES steps of FIPS-197 from
//! `aesflow-cipher`), the key-schedule arithmetic of the key-expansion
//! cores, and the off-array sources and sink.

use std::ops::Range;
use std::sync::Arc;

use aesflow_array::Behavior;
use aesflow_cipher::key_schedule::key_schedule_core;
use aesflow_cipher::steps::{
    Word, add_round_key_slice, column, key_xor, mix_column, set_column, shift_rows, sub_bytes_slice,
};

use crate::compile::Blocks;
use crate::graph::{BYTE_BASE, KEY_BASE, SLOT_WORDS, SUBWORD_BASE, WINDOW_BASE};
use crate::kinds::Prim;

/// A behaviour action: firing `p`, block slot `b`, word `w` (15: the
/// whole block).
pub(crate) fn encode(p: usize, b: usize, w: usize, nb: usize) -> u32 {
    (((p * nb + b) * 16) + w) as u32
}

/// The inverse of [`encode`].
pub(crate) fn decode(a: u32, nb: usize) -> (usize, usize, usize) {
    let a = a as usize;
    let w = a % 16;
    let pb = a / 16;
    (pb / nb, pb % nb, w)
}

fn words_to_bytes(m: &[u16], out: &mut [u8]) {
    for (i, w) in m.iter().enumerate() {
        out[2 * i] = (w >> 8) as u8;
        out[2 * i + 1] = *w as u8;
    }
}

fn bytes_to_words(b: &[u8], m: &mut [u16]) {
    for (i, w) in m.iter_mut().enumerate() {
        *w = (u16::from(b[2 * i]) << 8) | u16::from(b[2 * i + 1]);
    }
}

fn get_words(m: &[u16], n: usize) -> Vec<Word> {
    (0..n)
        .map(|i| {
            let mut w = [0u8; 4];
            words_to_bytes(&m[2 * i..2 * i + 2], &mut w);
            w
        })
        .collect()
}

fn put_words(ws: &[Word], m: &mut [u16]) {
    for (i, w) in ws.iter().enumerate() {
        bytes_to_words(w, &mut m[2 * i..2 * i + 2]);
    }
}

/// Key-schedule arithmetic shared by the key cores.
pub mod keyexp {
    use super::*;

    /// Words of `w` known when round `r`'s KeySchedule starts.
    pub fn known(r: usize, nk: usize) -> usize {
        nk.max(4 * r)
    }

    /// The index `i` in round `r`'s words whose computation needs
    /// KeySubWord (FIPS-197 §5.2), if any.
    pub fn sub_index(r: usize, nk: usize) -> Option<usize> {
        (nk.max(4 * r)..4 * r + 4).find(|&i| i.is_multiple_of(nk) || (nk > 6 && i % nk == 4))
    }

    /// Extend `window` (= `w[k−nk..k)`) to `w[k−nk..to)`; at the KeySubWord
    /// index use `t`, elsewhere plain KeyXOR.
    pub fn extend(
        window: &[Word],
        k: usize,
        to: usize,
        nk: usize,
        t: Option<(usize, Word)>,
    ) -> Vec<Word> {
        let mut w: Vec<Word> = window.to_vec();
        let base = k - nk;
        for i in k..to {
            let prev = w[i - 1 - base];
            let f = match t {
                Some((j, tw)) if j == i => tw,
                _ => prev,
            };
            let x = key_xor(w[i - nk - base], f);
            w.push(x);
        }
        w
    }

    /// The word round `r`'s KeySubWord needs, from the window at the start
    /// of round `r` (lookahead without substitution where the word lies
    /// beyond the window, as for AES-192).
    pub fn needed(window: &[Word], r: usize, nk: usize) -> Word {
        let k = known(r, nk);
        match sub_index(r, nk) {
            Some(i) => {
                let ext = extend(window, k, i.max(k), nk, None);
                ext[i - 1 - (k - nk)]
            }
            None => window[nk - 1],
        }
    }
}

/// Behaviour of a cipher actor.
pub(crate) struct CipherB {
    pub(crate) steps: Vec<Prim>,
    pub(crate) round0: usize,
    pub(crate) b: usize,
    pub(crate) key_online: Vec<bool>,
    pub(crate) keys: Vec<[u8; 16]>,
    /// Per firing, the state bytes that arrive as byte-level parts (bit
    /// `k`: byte `k` is on its landing word, see [`crate::kinds::Part`]).
    pub(crate) landed: Vec<u16>,
    /// Some output is a byte-level part: refresh the landing words after
    /// computing.
    pub(crate) bytes_out: bool,
}

impl CipherB {
    /// Merge the landed bytes of `bytes` into the state.
    fn merge_landed(&self, p: usize, mem: &[u16], st: &mut [u8; 16], bytes: Range<usize>) {
        let mask = self.landed.get(p).copied().unwrap_or(0);
        for k in bytes.filter(|&k| mask & (1 << k) != 0) {
            st[k] = mem[BYTE_BASE + k] as u8;
        }
    }
}

impl Behavior for CipherB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (p, b, w) = decode(action, self.b);
        let base = b * SLOT_WORDS;
        let mem = &mut mem[base..base + SLOT_WORDS];
        let mut st = [0u8; 16];
        words_to_bytes(&mem[..8], &mut st);
        let round = self.round0 + p;
        let key: [u8; 16] = if self.key_online.get(p).copied().unwrap_or(false) {
            let mut k = [0u8; 16];
            words_to_bytes(&mem[KEY_BASE..KEY_BASE + 8], &mut k);
            k
        } else {
            self.keys.get(round).copied().unwrap_or([0; 16])
        };
        if w < 8 {
            // Streaming: one word of a bytewise step, on the bytes of its
            // part in that word.
            self.merge_landed(p, mem, &mut st, 2 * w..2 * w + 2);
            let (Prim::Sub(c) | Prim::AddKey(c)) = self.steps[0] else {
                unreachable!("only bytewise steps stream")
            };
            let lo = (2 * w).max(usize::from(c.0));
            let r = lo..(2 * w + 2).min(usize::from(c.1)).max(lo);
            match self.steps[0] {
                Prim::Sub(_) => sub_bytes_slice(&mut st[r]),
                _ => add_round_key_slice(&mut st[r.clone()], &key[r]),
            }
        } else {
            self.merge_landed(p, mem, &mut st, 0..16);
            for s in &self.steps {
                match *s {
                    Prim::Sub(c) => sub_bytes_slice(&mut st[c.range()]),
                    Prim::Shift => shift_rows(&mut st),
                    Prim::Mix(c) => {
                        for col in c.columns() {
                            let mut x = column(&st, col);
                            mix_column(&mut x);
                            set_column(&mut st, col, x);
                        }
                    }
                    Prim::AddKey(c) => add_round_key_slice(&mut st[c.range()], &key[c.range()]),
                }
            }
        }
        bytes_to_words(&st, &mut mem[..8]);
        if self.bytes_out {
            for (k, x) in st.iter().enumerate() {
                mem[BYTE_BASE + k] = u16::from(*x);
            }
        }
    }
}

/// KeySubWord: substitutes (and rotates, adds Rcon) the word round `r`
/// needs; passes it unchanged in rounds that need none.
pub(crate) struct KeySubWordB {
    pub(crate) round0: usize,
    pub(crate) b: usize,
    pub(crate) nk: usize,
    pub(crate) window_in: Vec<bool>,
}

impl Behavior for KeySubWordB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (p, b, _) = decode(action, self.b);
        let base = b * SLOT_WORDS;
        let r = self.round0 + p;
        let w = if self.window_in.get(p).copied().unwrap_or(false) {
            let win = get_words(&mem[base + WINDOW_BASE..], self.nk);
            keyexp::needed(&win, r, self.nk)
        } else {
            get_words(&mem[base + SUBWORD_BASE..], 1)[0]
        };
        let t = match keyexp::sub_index(r, self.nk) {
            Some(i) => key_schedule_core(w, i, self.nk),
            None => w,
        };
        put_words(&[t], &mut mem[base + SUBWORD_BASE..base + SUBWORD_BASE + 2]);
    }
}

/// KeySchedule: round key `r` from the window and the substituted word;
/// then the next window and the word round `r + 1` needs.
pub(crate) struct KeyScheduleB {
    pub(crate) round0: usize,
    pub(crate) b: usize,
    pub(crate) nk: usize,
}

impl Behavior for KeyScheduleB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (p, b, _) = decode(action, self.b);
        let base = b * SLOT_WORDS;
        let nk = self.nk;
        let r = self.round0 + p;
        let win = get_words(&mem[base + WINDOW_BASE..], nk);
        let t = get_words(&mem[base + SUBWORD_BASE..], 1)[0];
        let k = keyexp::known(r, nk);
        let to = (4 * r + 4).max(k);
        let sub = keyexp::sub_index(r, nk).map(|i| (i, t));
        let ext = keyexp::extend(&win, k, to, nk, sub);
        let off = k - nk;
        let rk: Vec<Word> = (4 * r..4 * r + 4).map(|i| ext[i - off]).collect();
        put_words(&rk, &mut mem[base + KEY_BASE..base + KEY_BASE + 8]);
        let new_win = ext[ext.len() - nk..].to_vec();
        put_words(
            &new_win,
            &mut mem[base + WINDOW_BASE..base + WINDOW_BASE + 2 * nk],
        );
        let next = keyexp::needed(&new_win, r + 1, nk);
        put_words(
            &[next],
            &mut mem[base + SUBWORD_BASE..base + SUBWORD_BASE + 2],
        );
    }
}

pub(crate) struct PlainSourceB {
    pub(crate) blocks: Arc<Vec<[u8; 16]>>,
    pub(crate) next: usize,
    pub(crate) b: usize,
}

impl Behavior for PlainSourceB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (_, b, _) = decode(action, self.b);
        let blk = self.blocks[self.next % self.blocks.len().max(1)];
        self.next += 1;
        bytes_to_words(&blk, &mut mem[b * SLOT_WORDS..b * SLOT_WORDS + 8]);
    }
}

pub(crate) struct KeySourceB {
    pub(crate) key: Vec<u8>,
    pub(crate) b: usize,
}

impl Behavior for KeySourceB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (_, b, _) = decode(action, self.b);
        let base = b * SLOT_WORDS;
        bytes_to_words(
            &self.key[..16],
            &mut mem[base + KEY_BASE..base + KEY_BASE + 8],
        );
        let n = self.key.len() / 2;
        bytes_to_words(
            &self.key,
            &mut mem[base + WINDOW_BASE..base + WINDOW_BASE + n],
        );
    }
}

pub(crate) struct SinkB {
    pub(crate) out: Blocks,
    pub(crate) b: usize,
}

impl Behavior for SinkB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (_, b, _) = decode(action, self.b);
        let mut blk = [0u8; 16];
        words_to_bytes(&mem[b * SLOT_WORDS..b * SLOT_WORDS + 8], &mut blk);
        self.out.lock().expect("sink lock").push(blk);
    }
}
