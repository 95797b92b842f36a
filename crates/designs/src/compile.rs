//! Compile a design into an application for the array: a word-level program
//! and a functional behaviour per actor.
//!
//! Program shape (the timing assumptions, see the crate docs):
//! * a *block* actor (ShiftRows, MixColumns, fused kinds, key cores) reads
//!   all its input words, executes its delay (Table 1's, summed over its
//!   steps; a fused ShiftRows costs [`crate::kinds::FUSED_SHIFT_ROWS_DELAY`]),
//!   then writes its output words;
//! * a *streaming* actor (a lone SubBytes or AddRoundKey, which work byte
//!   by byte) handles one 16-bit word at a time: read it (and its key
//!   word), execute its share of the delay, write it;
//! * reading and writing FIFO words cost no extra cycles (AsAP
//!   instructions take FIFO operands; Table 1's delays include them);
//! * off-array ports deliver one word per `io_cycles_per_word`.
//!
//! Data memory holds one 34-word slot per block in flight: 8 state words,
//! 8 round-key words, up to 16 key-window words, 2 key-word words.

use std::sync::{Arc, Mutex};

use aesflow_array::{ActorClass, AppActor, AppEdge, AppGraph, Behavior, Platform, Step};
use aesflow_cipher::RoundKeys;
use aesflow_cipher::key_schedule::key_schedule_core;
use aesflow_cipher::steps::{
    Word, add_round_key_slice, column, key_xor, mix_column, set_column, shift_rows, sub_byte,
    sub_bytes_slice,
};

use crate::error::Error;
use crate::graph::{Design, KEY_BASE, Payload, Role, SLOT_WORDS, SUBWORD_BASE, WINDOW_BASE};
use crate::kinds::{Prim, step_delays, steps_nop};

/// Shared list of blocks (input or output).
pub type Blocks = Arc<Mutex<Vec<[u8; 16]>>>;

/// A compiled design.
pub struct Compiled {
    /// The application.
    pub app: AppGraph,
    /// Ciphertexts as they leave the array.
    pub output: Blocks,
    /// Blocks per source period.
    pub interleave: u32,
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
struct CipherB {
    steps: Vec<Prim>,
    round0: usize,
    b: usize,
    key_online: Vec<bool>,
    keys: Vec<[u8; 16]>,
}

impl Behavior for CipherB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (p, b, w) = decode(action, self.b);
        let base = b * SLOT_WORDS;
        let mut st = [0u8; 16];
        words_to_bytes(&mem[base..base + 8], &mut st);
        let round = self.round0 + p;
        let key: [u8; 16] = if self.key_online.get(p).copied().unwrap_or(false) {
            let mut k = [0u8; 16];
            words_to_bytes(&mem[base + KEY_BASE..base + KEY_BASE + 8], &mut k);
            k
        } else {
            self.keys.get(round).copied().unwrap_or([0; 16])
        };
        if w < 8 {
            // Streaming: one word of a bytewise step.
            let r = 2 * w..2 * w + 2;
            match self.steps[0] {
                Prim::Sub(_) => {
                    for x in &mut st[r] {
                        *x = sub_byte(*x);
                    }
                }
                Prim::AddKey(_) => add_round_key_slice(&mut st[r.clone()], &key[r]),
                _ => unreachable!("only bytewise steps stream"),
            }
        } else {
            for s in &self.steps {
                match *s {
                    Prim::Sub(c) => sub_bytes_slice(&mut st[4 * c.0 as usize..4 * c.1 as usize]),
                    Prim::Shift => shift_rows(&mut st),
                    Prim::Mix(c) => {
                        for col in c.0..c.1 {
                            let mut x = column(&st, col as usize);
                            mix_column(&mut x);
                            set_column(&mut st, col as usize, x);
                        }
                    }
                    Prim::AddKey(c) => {
                        let r = 4 * c.0 as usize..4 * c.1 as usize;
                        add_round_key_slice(&mut st[r.clone()], &key[r]);
                    }
                }
            }
        }
        bytes_to_words(&st, &mut mem[base..base + 8]);
    }
}

/// KeySubWord: substitutes (and rotates, adds Rcon) the word round `r`
/// needs; passes it unchanged in rounds that need none.
struct KeySubWordB {
    round0: usize,
    b: usize,
    nk: usize,
    window_in: Vec<bool>,
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
struct KeyScheduleB {
    round0: usize,
    b: usize,
    nk: usize,
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

struct PlainSourceB {
    blocks: Arc<Vec<[u8; 16]>>,
    next: usize,
    b: usize,
}

impl Behavior for PlainSourceB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (_, b, _) = decode(action, self.b);
        let blk = self.blocks[self.next % self.blocks.len().max(1)];
        self.next += 1;
        bytes_to_words(&blk, &mut mem[b * SLOT_WORDS..b * SLOT_WORDS + 8]);
    }
}

struct KeySourceB {
    key: Vec<u8>,
    b: usize,
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

struct SinkB {
    out: Blocks,
    b: usize,
}

impl Behavior for SinkB {
    fn exec(&mut self, action: u32, mem: &mut [u16], _now: u64) {
        let (_, b, _) = decode(action, self.b);
        let mut blk = [0u8; 16];
        words_to_bytes(&mem[b * SLOT_WORDS..b * SLOT_WORDS + 8], &mut blk);
        self.out.lock().expect("sink lock").push(blk);
    }
}

/// Percent of a step's delay that can run as each input word arrives.
pub fn input_share_pct(p: Prim) -> u32 {
    match p {
        Prim::Sub(_) | Prim::AddKey(_) | Prim::Shift => 100,
        Prim::Mix(_) => 50,
    }
}

fn encode(p: usize, b: usize, w: usize, nb: usize) -> u32 {
    (((p * nb + b) * 16) + w) as u32
}

fn decode(a: u32, nb: usize) -> (usize, usize, usize) {
    let a = a as usize;
    let w = a % 16;
    let pb = a / 16;
    (pb / nb, pb % nb, w)
}

fn active(ph: (u32, u32), p: u32) -> bool {
    ph.0 <= p && p < ph.1
}

/// Compile `d` for `key` (whose size must match the design's) and the given
/// plaintext blocks (repeated cyclically by the source).
pub fn compile(
    d: &Design,
    key: &[u8],
    plaintext: Arc<Vec<[u8; 16]>>,
    platform: &Platform,
) -> Result<Compiled, Error> {
    d.validate()?;
    if key.len() != d.key.bytes() {
        return Err(Error::Key {
            design: d.name.clone(),
            message: format!(
                "the design is for {}-bit keys, got a {}-byte key",
                d.key.bits(),
                key.len()
            ),
        });
    }
    if plaintext.is_empty() {
        return Err(Error::NoBlocks);
    }
    let rk = RoundKeys::from_bytes(key).map_err(|e| Error::Key {
        design: d.name.clone(),
        message: e.to_string(),
    })?;
    let keys: Vec<[u8; 16]> = rk.enc().to_vec();
    let nk = d.key.nk();
    let nb = d.interleave.max(1) as usize;
    let output: Blocks = Arc::new(Mutex::new(Vec::new()));
    let mut app = AppGraph::default();
    for e in &d.edges {
        app.edges.push(AppEdge {
            src: e.src,
            dst: e.dst,
            label: e.payload.label(),
        });
    }
    for (a, actor) in d.actors.iter().enumerate() {
        let n = actor.n;
        let mut prog = Vec::new();
        let delay = d.delay(a);
        let (streaming, nop) = match &actor.role {
            Role::Cipher(s) => (s.len() == 1 && s[0].is_bytewise(), steps_nop(s)),
            _ => (false, 0),
        };
        for p in 0..n {
            for b in 0..nb {
                let base = b * SLOT_WORDS;
                let ins: Vec<(usize, Payload)> = d
                    .ins(a)
                    .filter(|(_, e)| active(e.dst_ph, p))
                    .map(|(i, e)| (i, e.payload))
                    .collect();
                let outs: Vec<(usize, Payload)> = d
                    .outs(a)
                    .filter(|(_, e)| active(e.src_ph, p))
                    .map(|(i, e)| (i, e.payload))
                    .collect();
                let read = |prog: &mut Vec<Step>, e: usize, pl: Payload| {
                    for w in pl.addrs(nk) {
                        prog.push(Step::Read {
                            edge: e,
                            addr: (base + w) as u16,
                        });
                    }
                };
                let write = |prog: &mut Vec<Step>, e: usize, pl: Payload| {
                    for w in pl.addrs(nk) {
                        prog.push(Step::Write {
                            edge: e,
                            addr: (base + w) as u16,
                        });
                    }
                };
                match &actor.role {
                    Role::PlainSource | Role::KeySource => {
                        let words: usize = outs.iter().map(|(_, pl)| pl.words(nk)).sum();
                        prog.push(Step::Exec {
                            cycles: platform.io_cycles_per_word * words as u32,
                            nop: 0,
                            action: encode(p as usize, b, 15, nb),
                        });
                        for &(e, pl) in &outs {
                            write(&mut prog, e, pl);
                        }
                    }
                    Role::Sink => {
                        for &(e, pl) in &ins {
                            read(&mut prog, e, pl);
                        }
                        prog.push(Step::Exec {
                            cycles: 0,
                            nop: 0,
                            action: encode(p as usize, b, 15, nb),
                        });
                    }
                    Role::Cipher(_) if streaming => {
                        let data: Vec<(usize, Payload)> = ins
                            .iter()
                            .copied()
                            .filter(|(_, pl)| matches!(pl, Payload::State(_)))
                            .collect();
                        let key_e: Vec<(usize, Payload)> = ins
                            .iter()
                            .copied()
                            .filter(|(_, pl)| matches!(pl, Payload::Key(_)))
                            .collect();
                        let total: usize = data.iter().map(|(_, pl)| pl.words(nk)).sum();
                        let mut j = 0u32;
                        let mut last_w = None;
                        for &(e, pl) in &data {
                            let Payload::State(c) = pl else {
                                unreachable!()
                            };
                            for w in c.words() {
                                if last_w.is_some_and(|l| l >= w) {
                                    return Err(Error::invalid(
                                        &d.name,
                                        Some(&actor.name),
                                        "streaming input not in word order",
                                    ));
                                }
                                last_w = Some(w);
                                prog.push(Step::Read {
                                    edge: e,
                                    addr: (base + w) as u16,
                                });
                                for &(ke, kpl) in &key_e {
                                    let Payload::Key(kc) = kpl else {
                                        unreachable!()
                                    };
                                    if kc.words().contains(&w) {
                                        prog.push(Step::Read {
                                            edge: ke,
                                            addr: (base + KEY_BASE + w) as u16,
                                        });
                                    }
                                }
                                let t = total as u32;
                                let cyc = (j + 1) * delay / t - j * delay / t;
                                let nc = (j + 1) * nop / t - j * nop / t;
                                prog.push(Step::Exec {
                                    cycles: cyc,
                                    nop: nc,
                                    action: encode(p as usize, b, w, nb),
                                });
                                j += 1;
                                for &(oe, opl) in &outs {
                                    if let Payload::State(oc) = opl
                                        && oc.words().contains(&w)
                                    {
                                        prog.push(Step::Write {
                                            edge: oe,
                                            addr: (base + w) as u16,
                                        });
                                    }
                                }
                            }
                        }
                    }
                    Role::Cipher(s) => {
                        // A block actor starts its work as its input words
                        // arrive: the share of its first step that needs
                        // only the word at hand (all of a bytewise step or
                        // of ShiftRows, which only places bytes; half of
                        // MixColumns, the xtime of each input byte) is
                        // spread over the input state words, the rest runs
                        // after the last word.
                        let first = step_delays(s).next().unwrap_or(0);
                        let in_cycles = first * input_share_pct(s[0]) / 100;
                        let total: u32 = ins
                            .iter()
                            .filter(|(_, pl)| matches!(pl, Payload::State(_)))
                            .map(|(_, pl)| pl.words(nk) as u32)
                            .sum::<u32>()
                            .max(1);
                        // NOPs go with the cycles: the input share takes
                        // its part (never more NOPs than cycles in a step).
                        let nop_in = (u64::from(nop) * u64::from(in_cycles))
                            .checked_div(u64::from(delay))
                            .unwrap_or(0) as u32;
                        let mut nop_spent = 0u32;
                        let mut j = 0u32;
                        for &(e, pl) in &ins {
                            let is_state = matches!(pl, Payload::State(_));
                            for w in pl.addrs(nk) {
                                prog.push(Step::Read {
                                    edge: e,
                                    addr: (base + w) as u16,
                                });
                                if is_state {
                                    let cyc = (j + 1) * in_cycles / total - j * in_cycles / total;
                                    let nc =
                                        ((j + 1) * nop_in / total - j * nop_in / total).min(cyc);
                                    if cyc > 0 {
                                        prog.push(Step::Exec {
                                            cycles: cyc,
                                            nop: nc,
                                            action: u32::MAX,
                                        });
                                        nop_spent += nc;
                                    }
                                    j += 1;
                                }
                            }
                        }
                        prog.push(Step::Exec {
                            cycles: delay - in_cycles,
                            nop: (nop - nop_spent.min(nop)).min(delay - in_cycles),
                            action: encode(p as usize, b, 15, nb),
                        });
                        for &(e, pl) in &outs {
                            write(&mut prog, e, pl);
                        }
                    }
                    _ => {
                        for &(e, pl) in &ins {
                            read(&mut prog, e, pl);
                        }
                        prog.push(Step::Exec {
                            cycles: delay,
                            nop,
                            action: encode(p as usize, b, 15, nb),
                        });
                        for &(e, pl) in &outs {
                            write(&mut prog, e, pl);
                        }
                    }
                }
            }
        }
        let window_in: Vec<bool> = (0..n)
            .map(|p| {
                d.ins(a)
                    .any(|(_, e)| e.payload == Payload::Window && active(e.dst_ph, p))
            })
            .collect();
        let behavior: Box<dyn Behavior> = match &actor.role {
            Role::Cipher(s) => Box::new(CipherB {
                steps: s.clone(),
                round0: actor.round0 as usize,
                b: nb,
                key_online: (0..n)
                    .map(|p| {
                        d.ins(a).any(|(_, e)| {
                            matches!(e.payload, Payload::Key(_)) && active(e.dst_ph, p)
                        })
                    })
                    .collect(),
                keys: keys.clone(),
            }),
            Role::KeySubWord => Box::new(KeySubWordB {
                round0: actor.round0 as usize,
                b: nb,
                nk,
                window_in,
            }),
            Role::KeySchedule => Box::new(KeyScheduleB {
                round0: actor.round0 as usize,
                b: nb,
                nk,
            }),
            Role::PlainSource => Box::new(PlainSourceB {
                blocks: plaintext.clone(),
                next: 0,
                b: nb,
            }),
            Role::KeySource => Box::new(KeySourceB {
                key: key.to_vec(),
                b: nb,
            }),
            Role::Sink => Box::new(SinkB {
                out: output.clone(),
                b: nb,
            }),
        };
        let class = match actor.role {
            Role::PlainSource | Role::KeySource => ActorClass::Source,
            Role::Sink => ActorClass::Sink,
            _ => ActorClass::Compute,
        };
        app.actors.push(AppActor {
            name: actor.name.clone(),
            kind: actor.role.kind(),
            class,
            program: prog,
            behavior,
            mem_words: nb * SLOT_WORDS,
        });
    }
    Ok(Compiled {
        app,
        output,
        interleave: nb as u32,
    })
}
