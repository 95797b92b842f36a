//! Compile a design into an application for the array: a word-level program
//! and a functional behaviour per actor.
//!
//! Program shape (the timing assumptions, see the crate docs):
//! * a *block* actor (ShiftRows, MixColumns, fused kinds, key cores) reads
//!   all its input words, executes its delay (Table 1's, summed over its
//!   steps; a fused ShiftRows costs [`crate::kinds::FUSED_SHIFT_ROWS_DELAY`],
//!   or nothing beside SubBytes: [`crate::kinds::step_delays`]),
//!   then writes its output words;
//! * a *streaming* actor (a lone SubBytes or AddRoundKey, which work byte
//!   by byte) handles one 16-bit state word at a time: read it (and its key
//!   word), execute its share of the delay, write it; a byte-level part
//!   (SubBytes-1) arrives and leaves as one word per byte on the byte's
//!   landing word ([`crate::kinds::Part`]'s transport rule);
//! * reading and writing FIFO words cost no extra cycles (AsAP
//!   instructions take FIFO operands; Table 1's delays include them);
//! * off-array ports deliver one word per `io_cycles_per_word`.
//!
//! Data memory holds one 34-word slot per block in flight: 8 state words,
//! 8 round-key words, up to 16 key-window words (in a cipher core: the 16
//! landing words of byte-level parts), 2 key-word words.

use std::sync::{Arc, Mutex};

use aesflow_array::{ActorClass, AppActor, AppEdge, AppGraph, Behavior, Exec, Platform, Step};
use aesflow_cipher::RoundKeys;

pub use crate::behavior::keyexp;
use crate::behavior::{
    CipherB, KeyScheduleB, KeySourceB, KeySubWordB, PlainSourceB, SinkB, encode,
};
use crate::error::Error;
use crate::graph::{Adjacency, Design, KEY_BASE, Payload, Role, SLOT_WORDS};
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

/// Percent of a step's delay that can run as each input word arrives.
pub fn input_share_pct(p: Prim) -> u32 {
    match p {
        Prim::Sub(_) | Prim::AddKey(_) | Prim::Shift => 100,
        Prim::Mix(_) => 50,
    }
}

fn active(ph: (u32, u32), p: u32) -> bool {
    ph.0 <= p && p < ph.1
}

/// What one firing of an actor on one block slot reads and writes.
struct Firing {
    /// Firing index.
    p: u32,
    /// Block slot.
    b: usize,
    /// Data-memory base of the slot.
    base: usize,
    /// Active input edges with their payloads.
    ins: Vec<(usize, Payload)>,
    /// Active output edges.
    outs: Vec<(usize, Payload)>,
    /// Key length in words.
    nk: usize,
}

impl Firing {
    fn action(&self, w: usize, nb: usize) -> u32 {
        encode(self.p as usize, self.b, w, nb)
    }
    fn read(&self, prog: &mut Vec<Step>, e: usize, pl: Payload) {
        for w in pl.addrs(self.nk) {
            prog.push(Step::Read {
                edge: e,
                addr: (self.base + w) as u16,
            });
        }
    }
    fn write(&self, prog: &mut Vec<Step>, e: usize, pl: Payload) {
        for w in pl.addrs(self.nk) {
            prog.push(Step::Write {
                edge: e,
                addr: (self.base + w) as u16,
            });
        }
    }
    fn read_all(&self, prog: &mut Vec<Step>) {
        for &(e, pl) in &self.ins {
            self.read(prog, e, pl);
        }
    }
    fn write_all(&self, prog: &mut Vec<Step>) {
        for &(e, pl) in &self.outs {
            self.write(prog, e, pl);
        }
    }
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
    let ctx = Context {
        d,
        adj: d.adjacency(),
        nb: d.interleave.max(1) as usize,
        keys: rk.enc().to_vec(),
        key: key.to_vec(),
        plaintext,
        output: Arc::new(Mutex::new(Vec::new())),
    };
    let mut app = AppGraph::default();
    for e in &d.edges {
        app.edges.push(AppEdge {
            src: e.src,
            dst: e.dst,
            label: e.payload.label(),
        });
    }
    for (a, actor) in d.actors.iter().enumerate() {
        let class = match actor.role {
            Role::PlainSource | Role::KeySource => ActorClass::Source,
            Role::Sink => ActorClass::Sink,
            _ => ActorClass::Compute,
        };
        app.actors.push(AppActor {
            name: actor.name.clone(),
            kind: actor.role.kind(),
            class,
            program: program(&ctx, a, platform)?,
            behavior: behavior(&ctx, a),
            mem_words: ctx.nb * SLOT_WORDS,
        });
    }
    Ok(Compiled {
        app,
        output: ctx.output,
        interleave: ctx.nb as u32,
    })
}

/// What every actor's compilation shares.
struct Context<'a> {
    d: &'a Design,
    /// The design's in- and out-edges per actor, indexed once.
    adj: Adjacency,
    nb: usize,
    keys: Vec<[u8; 16]>,
    key: Vec<u8>,
    plaintext: Arc<Vec<[u8; 16]>>,
    output: Blocks,
}

/// The word-level program of actor `a`: one period covers a block (all its
/// firings, each on every block slot).
fn program(ctx: &Context, a: usize, platform: &Platform) -> Result<Vec<Step>, Error> {
    let d = ctx.d;
    let actor = &d.actors[a];
    let nk = d.key.nk();
    let mut prog = Vec::new();
    for p in 0..actor.n {
        for b in 0..ctx.nb {
            let f = Firing {
                p,
                b,
                base: b * SLOT_WORDS,
                ins: ctx
                    .adj
                    .ins(d, a)
                    .filter(|(_, e)| active(e.dst_ph, p))
                    .map(|(i, e)| (i, e.payload))
                    .collect(),
                outs: ctx
                    .adj
                    .outs(d, a)
                    .filter(|(_, e)| active(e.src_ph, p))
                    .map(|(i, e)| (i, e.payload))
                    .collect(),
                nk,
            };
            match &actor.role {
                Role::PlainSource | Role::KeySource => {
                    let words: usize = f.outs.iter().map(|(_, pl)| pl.words(nk)).sum();
                    prog.push(Step::Exec(Exec {
                        cycles: platform.io_cycles_per_word * words as u32,
                        nop: 0,
                        action: f.action(15, ctx.nb),
                    }));
                    f.write_all(&mut prog);
                }
                Role::Sink => {
                    f.read_all(&mut prog);
                    prog.push(Step::Exec(Exec {
                        cycles: 0,
                        nop: 0,
                        action: f.action(15, ctx.nb),
                    }));
                }
                Role::Cipher(s) if s.len() == 1 && s[0].is_bytewise() => {
                    streaming(ctx, a, &f, &mut prog)?
                }
                Role::Cipher(s) => block(ctx, a, s, &f, &mut prog),
                Role::KeySubWord | Role::KeySchedule => {
                    f.read_all(&mut prog);
                    prog.push(Step::Exec(Exec {
                        cycles: d.delay(a),
                        nop: 0,
                        action: f.action(15, ctx.nb),
                    }));
                    f.write_all(&mut prog);
                }
            }
        }
    }
    Ok(prog)
}

/// A lone bytewise step (SubBytes or AddRoundKey) handles one 16-bit state
/// word at a time: read it (or the landing words of its bytes, for a
/// byte-level part) and its key word, execute its share of the delay, write
/// what its outputs carry of that word.
fn streaming(ctx: &Context, a: usize, f: &Firing, prog: &mut Vec<Step>) -> Result<(), Error> {
    let d = ctx.d;
    let delay = d.delay(a);
    let nop = match &d.actors[a].role {
        Role::Cipher(s) => steps_nop(s),
        _ => 0,
    };
    // The state words in the order they arrive, each with its reads.
    let mut words: Vec<(usize, Vec<Step>)> = Vec::new();
    for &(e, pl) in &f.ins {
        let Payload::State(c) = pl else { continue };
        for (w, addr) in c.carried() {
            let read = Step::Read {
                edge: e,
                addr: (f.base + addr) as u16,
            };
            match words.last_mut() {
                Some((lw, reads)) if *lw == w => reads.push(read),
                Some((lw, _)) if *lw > w => {
                    return Err(Error::invalid(
                        &d.name,
                        Some(&d.actors[a].name),
                        "streaming input not in word order",
                    ));
                }
                _ => words.push((w, vec![read])),
            }
        }
    }
    let total = words.len() as u32;
    for (j, (w, reads)) in words.into_iter().enumerate() {
        let j = j as u32;
        prog.extend(reads);
        for &(ke, kpl) in &f.ins {
            if let Payload::Key(kc) = kpl
                && kc.words().contains(&w)
            {
                prog.push(Step::Read {
                    edge: ke,
                    addr: (f.base + KEY_BASE + w) as u16,
                });
            }
        }
        prog.push(Step::Exec(Exec {
            cycles: (j + 1) * delay / total - j * delay / total,
            nop: (j + 1) * nop / total - j * nop / total,
            action: f.action(w, ctx.nb),
        }));
        for &(oe, opl) in &f.outs {
            let Payload::State(oc) = opl else { continue };
            for (ow, addr) in oc.carried() {
                if ow == w {
                    prog.push(Step::Write {
                        edge: oe,
                        addr: (f.base + addr) as u16,
                    });
                }
            }
        }
    }
    Ok(())
}

/// A block actor starts its work as its input words arrive: the share of
/// its first step that needs only the word at hand (all of a bytewise step
/// or of ShiftRows, which only places bytes; half of MixColumns, the xtime
/// of each input byte) is spread over the input state words, the rest runs
/// after the last word; then it writes.
fn block(ctx: &Context, a: usize, s: &[Prim], f: &Firing, prog: &mut Vec<Step>) {
    let delay = ctx.d.delay(a);
    let nop = steps_nop(s);
    let first = step_delays(s).next().unwrap_or(0);
    let in_cycles = first * input_share_pct(s[0]) / 100;
    let total: u32 = f
        .ins
        .iter()
        .filter(|(_, pl)| matches!(pl, Payload::State(_)))
        .map(|(_, pl)| pl.words(f.nk) as u32)
        .sum::<u32>()
        .max(1);
    // NOPs go with the cycles: the input share takes its part (never more
    // NOPs than cycles in a step).
    let nop_in = (u64::from(nop) * u64::from(in_cycles))
        .checked_div(u64::from(delay))
        .unwrap_or(0) as u32;
    let mut nop_spent = 0u32;
    let mut j = 0u32;
    for &(e, pl) in &f.ins {
        let is_state = matches!(pl, Payload::State(_));
        for w in pl.addrs(f.nk) {
            prog.push(Step::Read {
                edge: e,
                addr: (f.base + w) as u16,
            });
            if is_state {
                let cyc = (j + 1) * in_cycles / total - j * in_cycles / total;
                let nc = ((j + 1) * nop_in / total - j * nop_in / total).min(cyc);
                if cyc > 0 {
                    prog.push(Step::Exec(Exec {
                        cycles: cyc,
                        nop: nc,
                        action: u32::MAX,
                    }));
                    nop_spent += nc;
                }
                j += 1;
            }
        }
    }
    prog.push(Step::Exec(Exec {
        cycles: delay - in_cycles,
        nop: (nop - nop_spent.min(nop)).min(delay - in_cycles),
        action: f.action(15, ctx.nb),
    }));
    f.write_all(prog);
}

/// The behaviour of actor `a`.
fn behavior(ctx: &Context, a: usize) -> Box<dyn Behavior> {
    let d = ctx.d;
    let actor = &d.actors[a];
    let (nb, nk, n) = (ctx.nb, d.key.nk(), actor.n);
    let gets = |f: &dyn Fn(Payload) -> bool| -> Vec<bool> {
        (0..n)
            .map(|p| {
                ctx.adj
                    .ins(d, a)
                    .any(|(_, e)| f(e.payload) && active(e.dst_ph, p))
            })
            .collect()
    };
    match &actor.role {
        Role::Cipher(s) => Box::new(CipherB {
            steps: s.clone(),
            round0: actor.round0 as usize,
            b: nb,
            key_online: gets(&|x| matches!(x, Payload::Key(_))),
            keys: ctx.keys.clone(),
            landed: (0..n)
                .map(|p| {
                    ctx.adj
                        .ins(d, a)
                        .filter(|(_, e)| active(e.dst_ph, p))
                        .filter_map(|(_, e)| e.payload.state())
                        .filter(|c| !c.is_word_aligned())
                        .flat_map(|c| c.range())
                        .fold(0u16, |m, k| m | 1 << k)
                })
                .collect(),
            bytes_out: ctx
                .adj
                .outs(d, a)
                .any(|(_, e)| e.payload.state().is_some_and(|c| !c.is_word_aligned())),
        }),
        Role::KeySubWord => Box::new(KeySubWordB {
            round0: actor.round0 as usize,
            b: nb,
            nk,
            window_in: gets(&|x| x == Payload::Window),
        }),
        Role::KeySchedule => Box::new(KeyScheduleB {
            round0: actor.round0 as usize,
            b: nb,
            nk,
        }),
        Role::PlainSource => Box::new(PlainSourceB {
            blocks: ctx.plaintext.clone(),
            next: 0,
            b: nb,
        }),
        Role::KeySource => Box::new(KeySourceB {
            key: ctx.key.clone(),
            b: nb,
        }),
        Role::Sink => Box::new(SinkB {
            out: ctx.output.clone(),
            b: nb,
        }),
    }
}
