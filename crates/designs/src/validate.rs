//! Checks on a design before it is compiled: what a hand-written design
//! file can get wrong, each reported with the actor concerned.
//!
//! * one plaintext source and one sink (firing once per block), at most
//!   one key source; the interleave fits the data memory (AsAP2: 128
//!   words, 34 per block slot, so at most 3 blocks);
//! * every actor fires at least once and its rounds lie within 0..=Nr;
//! * every edge's firing ranges lie within its ends' firings and carry as
//!   many tokens out as in (the SDF rates), actor names are unique;
//! * parts: MixColumns on whole columns, round-key parts word-aligned,
//!   byte-level state parts (SubBytes-1) only between cipher actors;
//! * every cipher actor gets state in each firing, every key-expansion
//!   actor gets what it computes from in each firing (KeySubWord a window
//!   or a word, KeySchedule a window and a word);
//! * **key paths**: in an online design (one with a key source or
//!   key-expansion actors) every AddRoundKey step gets its round key over an
//!   edge in every firing: the round keys are never silently taken from
//!   memory. Offline designs (no key source, no key-expansion actor) hold
//!   their round keys in the AddRoundKey cores' data memory.

use crate::error::Error;
use crate::graph::{Adjacency, Design, Payload, Role, SLOT_WORDS};
use crate::kinds::Prim;
use std::collections::HashSet;

/// Data-memory words of an AsAP2 core (paper §3).
pub const DATA_MEMORY_WORDS: usize = 128;

fn active(ph: (u32, u32), p: u32) -> bool {
    ph.0 <= p && p < ph.1
}

/// Validate `d` (see the module docs).
pub fn validate(d: &Design) -> Result<(), Error> {
    let err = |a: Option<&str>, m: String| Error::invalid(&d.name, a, m);
    let count = |f: &dyn Fn(&Role) -> bool| d.actors.iter().filter(|a| f(&a.role)).count();
    if count(&|r| *r == Role::PlainSource) != 1 {
        return Err(err(None, "needs exactly one PlainSource".into()));
    }
    if count(&|r| *r == Role::Sink) != 1 {
        return Err(err(None, "needs exactly one Sink".into()));
    }
    if count(&|r| *r == Role::KeySource) > 1 {
        return Err(err(None, "has more than one KeySource".into()));
    }
    let nb = d.interleave as usize;
    if nb == 0 || nb * SLOT_WORDS > DATA_MEMORY_WORDS {
        return Err(err(
            None,
            format!(
                "interleave {nb}: a core's {DATA_MEMORY_WORDS}-word data memory holds 1 to {} blocks of {SLOT_WORDS} words",
                DATA_MEMORY_WORDS / SLOT_WORDS
            ),
        ));
    }
    let nr = d.key.nr() as u32;
    let mut names = HashSet::new();
    for a in &d.actors {
        if !names.insert(a.name.as_str()) {
            return Err(err(Some(&a.name), "duplicate actor name".into()));
        }
        if a.n == 0 {
            return Err(err(Some(&a.name), "fires 0 times per block".into()));
        }
        if a.role.is_core() && u64::from(a.round0) + u64::from(a.n) - 1 > u64::from(nr) {
            return Err(err(
                Some(&a.name),
                format!(
                    "works on rounds {}..={} but AES-{} has rounds 0..={nr}",
                    a.round0,
                    u64::from(a.round0) + u64::from(a.n) - 1,
                    d.key.bits()
                ),
            ));
        }
        if !a.role.is_core() && a.n != 1 {
            return Err(err(
                Some(&a.name),
                "sources and sinks fire once per block".into(),
            ));
        }
    }
    for e in &d.edges {
        let (s, t) = (&d.actors[e.src], &d.actors[e.dst]);
        let what = format!("edge {} -> {}", s.name, t.name);
        if e.src_ph.1 > s.n
            || e.dst_ph.1 > t.n
            || e.src_ph.0 >= e.src_ph.1
            || e.dst_ph.0 >= e.dst_ph.1
        {
            return Err(err(
                Some(&s.name),
                format!("{what}: firings outside 0..{}/0..{}", s.n, t.n),
            ));
        }
        if e.src_ph.1 - e.src_ph.0 != e.dst_ph.1 - e.dst_ph.0 {
            return Err(err(
                Some(&s.name),
                format!(
                    "{what}: {} tokens written, {} read per block",
                    e.src_ph.1 - e.src_ph.0,
                    e.dst_ph.1 - e.dst_ph.0
                ),
            ));
        }
    }
    let adj = d.adjacency();
    check_parts(d, &adj)?;
    let online = d
        .actors
        .iter()
        .any(|a| a.role.is_key() || a.role == Role::KeySource);
    for (a, actor) in d.actors.iter().enumerate() {
        for p in 0..actor.n {
            let has = |f: &dyn Fn(Payload) -> bool| {
                adj.ins(d, a)
                    .any(|(_, e)| f(e.payload) && active(e.dst_ph, p))
            };
            let missing = |what: &str| {
                err(
                    Some(&actor.name),
                    format!("no {what} input in firing {p} (round {})", actor.round0 + p),
                )
            };
            match &actor.role {
                Role::Cipher(steps) => {
                    if !has(&|x| matches!(x, Payload::State(_))) {
                        return Err(missing("state"));
                    }
                    for s in steps {
                        if let Prim::AddKey(c) = *s
                            && online
                            && !has(&|x| matches!(x, Payload::Key(k) if k.contains(c)))
                        {
                            return Err(err(
                                Some(&actor.name),
                                format!(
                                    "online design, but no round key for part {c} arrives in firing {p} (round {}): a missing key path",
                                    actor.round0 + p
                                ),
                            ));
                        }
                    }
                }
                Role::KeySubWord => {
                    if !has(&|x| matches!(x, Payload::Window | Payload::SubWord)) {
                        return Err(missing("key window or key word"));
                    }
                }
                Role::KeySchedule => {
                    // The window is carried from firing to firing in the
                    // core's memory: it arrives in firing 0.
                    if p == 0 && !has(&|x| x == Payload::Window) {
                        return Err(missing("key window"));
                    }
                    if !has(&|x| x == Payload::SubWord) {
                        return Err(missing("key word"));
                    }
                }
                Role::Sink => {
                    if !has(&|x| matches!(x, Payload::State(_))) {
                        return Err(missing("state"));
                    }
                }
                Role::KeySource => {
                    if adj.outs(d, a).next().is_none() {
                        return Err(err(
                            Some(&actor.name),
                            "feeds nothing: a missing key path".into(),
                        ));
                    }
                }
                Role::PlainSource => {}
            }
        }
    }
    Ok(())
}

/// The parts steps and edges name: inside the block; MixColumns on whole
/// columns; round-key parts word-aligned; byte-level state parts (see
/// [`crate::kinds::Part`]) only between cipher cores, which never also
/// take a key window or key word (those would share the landing words).
fn check_parts(d: &Design, adj: &Adjacency) -> Result<(), Error> {
    let err = |a: usize, m: String| Err(Error::invalid(&d.name, Some(&d.actors[a].name), m));
    for (a, actor) in d.actors.iter().enumerate() {
        let Role::Cipher(steps) = &actor.role else {
            continue;
        };
        for s in steps {
            match *s {
                Prim::Sub(c) | Prim::AddKey(c) if !c.is_valid() => {
                    return err(a, format!("{} on an empty or out-of-block part", s.name()));
                }
                Prim::Mix(c) if !c.is_valid() || !c.is_columns() => {
                    return err(a, format!("MixColumns works on whole columns, not on {c}"));
                }
                _ => {}
            }
        }
    }
    for e in &d.edges {
        let (c, key) = match e.payload {
            Payload::State(c) => (c, false),
            Payload::Key(c) => (c, true),
            _ => continue,
        };
        let what = format!("edge {} -> {}", d.actors[e.src].name, d.actors[e.dst].name);
        if !c.is_valid() || (key && !c.is_word_aligned()) {
            return err(e.src, format!("{what}: bad part {c}"));
        }
        if c.is_word_aligned() {
            continue;
        }
        let cipher = |x: usize| matches!(d.actors[x].role, Role::Cipher(_));
        if !cipher(e.src) || !cipher(e.dst) {
            return err(
                e.src,
                format!(
                    "{what}: byte-level part {c} outside the cipher cores (sources and sinks move whole words)"
                ),
            );
        }
        if adj
            .ins(d, e.dst)
            .any(|(_, x)| matches!(x.payload, Payload::Window | Payload::SubWord))
        {
            return err(
                e.dst,
                "takes a byte-level state part and key-schedule words".into(),
            );
        }
    }
    Ok(())
}
