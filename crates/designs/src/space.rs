//! The design space: engines built from parameters instead of by hand.
//!
//! Liu & Baas (*Parallel AES Encryption Engines for Many-Core Processor
//! Arrays*, §4) reach their eight designs by a handful of moves applied to
//! the one-task-one-processor engine: unroll the round loop (§4.2–4.3),
//! split SubBytes and MixColumns over several cores (§4.4–4.5), fuse steps
//! onto one core (§4.7, §5), avoid communication cores by splitting the
//! state in halves (§4.8), remove the key-expansion cores (offline key
//! expansion) and duplicate whole engines (§5.2, Fig. 12). [`Params`] names
//! one choice of each move and [`generate`] builds its design, following the
//! same construction rules as the hand-written builders of
//! [`crate::engines`]; the paper's eight are points of this space
//! ([`Params::paper`]) and come out with the same cores and cycles per
//! block.
//!
//! Construction rules (the ones the paper's eight follow):
//! * `loops` round loops of `(Nr − 1) / loops` rounds each (a loop of one
//!   round is an unrolled round), then the final round. With one loop the
//!   key-expansion pair loops over all `Nr` rounds (the final round's key
//!   comes out of it); with several, each loop has its own pair and the
//!   final round one more.
//! * A round of the merge style is SubBytes → ShiftRows → MixColumns →
//!   AddRoundKey, SubBytes on one core (16 bytes), four (one column each)
//!   or sixteen (one byte each: SubBytes-1, §4.5), MixColumns on one core
//!   or four (a MixColumns core needs whole columns, so there is no mc1);
//!   the mapper inserts MergeCores and DispatchCores wherever a core needs
//!   more than two inputs or four destinations, and §5's optimisations then
//!   remove what they can. MixColumns may share its core with AddRoundKey
//!   (Small's loop).
//! * The final round (SubBytes, ShiftRows, AddRoundKey) splits SubBytes
//!   like the rounds only when every round is unrolled (in a pipeline every
//!   core must keep up; behind a loop one SubBytes-16 core does).
//! * The no-merge style (§4.8) is fully unrolled, every round two
//!   ShiftRows+SubBytes-8 and two MixColumns-8+AddRoundKey-8 cores.
//! * A loop may hold two blocks at once (`interleave = 2`, as Small does).
//!
//! SubBytes-1 moves single bytes in an array of 16-bit words: a one-byte
//! part travels as one word carrying the byte and lands on a word of its
//! own, which the receiving core merges into its state
//! ([`crate::kinds::Part`]'s transport rule). Its Table 1 figures (10
//! cycles per byte, 9% IMEM) are [`crate::kinds::SUB_BYTES_TABLE1`]'s.
//!
//! §4.5 describes one SubBytes-1 design in words only: Parallel-SubBytes-
//! MixColumns with its four SubBytes-4 cores replaced by sixteen
//! SubBytes-1 (the point `S1 sb1 mc4`): a loop latency of 120 instead of
//! 150 cycles, 67.5 cycles per byte (1080 per block, against 1350), for
//! seven more communication cores (four MergeCores, three DispatchCores).
//! The model (AES-128, §5 optimisations on; online / offline):
//! * the block-level loop latency falls by Table 1's 40 − 10 = 30 cycles
//!   as in the paper (170 → 140; the SDF bound 1430 → 1190 cycles per
//!   block);
//! * the mapper adds 12 communication cores, not 7: ShiftRows (first in
//!   the loop after §5.1's swap) now feeds 16 cores, four DispatchCores, and
//!   each MixColumns-4 gathers four bytes from four cores on two input
//!   ports, two MergeCores each; 18 → 42 and 15 → 39 cores;
//! * simulated, those communication cores sit on the loop (link latency and
//!   per-firing overhead at every hop; by default the mapper chains the four
//!   DispatchCores, so a round's last bytes pass all four and a MergeCore)
//!   and cost more than the 30 cycles saved: 1454 / 1478 cycles per block
//!   (90.9 / 92.4 cycles per byte) against Parallel-SubBytes-MixColumns'
//!   1390 / 1398;
//! * with the DispatchCores as a balanced tree instead (the point
//!   `S1 sb1 mc4 tree`, [`DispatchShape::Tree`]: the same four, one deep —
//!   each of ShiftRows' four outputs to a DispatchCore with four SubBytes-1
//!   cores) it is 1494 / 1470: no closer to the paper's 1080, so the
//!   chain's depth is not what holds this point back. What changes with
//!   the tree: ShiftRows still writes the 16 words one after another, every
//!   byte now passes a DispatchCore (the chain sends three directly), and
//!   the breadth-first placement puts the sixteen SubBytes-1 cores further
//!   from their DispatchCores and MergeCores (links through the
//!   communication cores of up to 11 tiles, against 8 with the chain). The
//!   tree does pay in the three-loop SubBytes-1 designs (`S3 sb1 mc4`:
//!   30.0 → 28.6 cycles per byte online, 27.1 → 26.3 offline).
//!
//! In this model SubBytes-1 does not pay: with either dispatch shape no
//! SubBytes-1 design is on a Pareto front of `aesflow explore`. The
//! paper's mapping of this design is not published; the `space`
//! integration test `psm_with_sub_bytes_one` checks these relations.
//!
//! The dispatch shape is a parameter of the mapping, not of the design
//! graph: [`Params::enumerate`] offers the tree only where some core needs
//! more than one DispatchCore ([`Params::dispatch_matters`]), elsewhere
//! both shapes map alike.

use aesflow_array::{DispatchShape, Platform};
use aesflow_cipher::KeySize;

use crate::engines::{Engine, KeyChain};
use crate::error::Error;
use crate::graph::{Design, Payload, Role};
use crate::kinds::{Part, Prim};
use crate::optimize::Optimisations;
use crate::run::{Expansion, finish_design};

/// How a step is split over cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// One core for the whole state (SubBytes-16, MixColumns-16).
    Whole,
    /// Four cores, one column each (SubBytes-4, MixColumns-4).
    Columns,
    /// Sixteen cores, one byte each (SubBytes-1, §4.5; SubBytes only:
    /// MixColumns mixes a whole column).
    Bytes,
}

impl Split {
    /// Every split, coarsest first.
    pub const ALL: [Split; 3] = [Split::Whole, Split::Columns, Split::Bytes];

    /// Bytes per core.
    pub fn bytes(self) -> usize {
        match self {
            Split::Whole => 16,
            Split::Columns => 4,
            Split::Bytes => 1,
        }
    }
    fn parts(self) -> Vec<Part> {
        let k = self.bytes() as u8;
        (0..16 / k).map(|i| Part(i * k, i * k + k)).collect()
    }
    fn is_split(self) -> bool {
        self != Split::Whole
    }
}

/// How the state is distributed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Style {
    /// Any split, communication cores where the two-input-port rule needs
    /// them.
    Merge {
        /// SubBytes split.
        sub: Split,
        /// MixColumns split.
        mix: Split,
        /// MixColumns and AddRoundKey on one core.
        fuse_mix_key: bool,
    },
    /// §4.8: halves, no communication core (fully unrolled only).
    NoMerge,
}

/// One point of the design space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Params {
    /// Key size.
    pub key: KeySize,
    /// Round loops S (a divisor of Nr − 1; Nr − 1 is fully unrolled).
    pub loops: u32,
    /// Split and fusion style.
    pub style: Style,
    /// Blocks a loop holds at once (1 or 2; 1 when fully unrolled).
    pub interleave: u32,
    /// §5.1 step 2: fuse AddRoundKey with the next ShiftRows where it pays.
    pub fuse_key_shift: bool,
    /// Online or offline key expansion.
    pub expansion: Expansion,
    /// Copies of the whole engine gathered at the output (Fig. 12).
    pub copies: u32,
    /// How the mapper arranges DispatchCores where a core needs more than
    /// one ([`DispatchShape`]; the paper's designs: the default chain).
    pub dispatch: DispatchShape,
}

impl Params {
    /// Rounds per loop.
    pub fn rounds_per_loop(&self) -> u32 {
        (self.key.nr() as u32 - 1) / self.loops
    }

    /// Every round unrolled.
    pub fn unrolled(&self) -> bool {
        self.loops == self.key.nr() as u32 - 1
    }

    /// Checks the parameters name a buildable design.
    pub fn validate(&self) -> Result<(), Error> {
        let m = self.key.nr() as u32 - 1;
        let bad = |msg: String| Error::invalid(&self.label(), None, msg);
        if self.loops == 0 || !m.is_multiple_of(self.loops) {
            return Err(bad(format!(
                "loops {} does not divide Nr - 1 = {m}",
                self.loops
            )));
        }
        if !(1..=2).contains(&self.interleave) || (self.unrolled() && self.interleave != 1) {
            return Err(bad(format!(
                "interleave {} (1, or 2 for a design with a round loop)",
                self.interleave
            )));
        }
        if self.style == Style::NoMerge && !self.unrolled() {
            return Err(bad("the no-merge style is fully unrolled".into()));
        }
        if let Style::Merge {
            mix: Split::Bytes, ..
        } = self.style
        {
            return Err(bad(
                "MixColumns mixes the four bytes of a column: it splits into whole columns (mc4) at the finest, not bytes (mc1)".into(),
            ));
        }
        if self.copies == 0 {
            return Err(bad("copies must be at least 1".into()));
        }
        Ok(())
    }

    /// The optimisations of §5 this point applies.
    pub fn optimisations(&self) -> Optimisations {
        Optimisations {
            fuse_addkey_shiftrows: self.fuse_key_shift,
            ..Optimisations::ALL
        }
    }

    /// The paper's engine `e` as a point of the space (one copy).
    pub fn paper(e: Engine, key: KeySize, expansion: Expansion) -> Params {
        use Split::*;
        let m = key.nr() as u32 - 1;
        let merge = |sub, mix, fuse_mix_key| Style::Merge {
            sub,
            mix,
            fuse_mix_key,
        };
        let (loops, style, interleave) = match e {
            Engine::Small => (1, merge(Whole, Whole, true), 2),
            Engine::Otop => (1, merge(Whole, Whole, false), 1),
            Engine::ParallelMixColumns => (1, merge(Whole, Columns, false), 1),
            Engine::ParallelSubBytesMixColumns => (1, merge(Columns, Columns, false), 1),
            Engine::LoopUnrolledThree => (3, merge(Whole, Whole, false), 1),
            Engine::LoopUnrolledNine => (m, merge(Whole, Whole, false), 1),
            Engine::NoMerge => (m, Style::NoMerge, 1),
            Engine::FullParallelism => (m, merge(Columns, Columns, false), 1),
        };
        Params {
            key,
            loops,
            style,
            interleave,
            fuse_key_shift: true,
            expansion,
            copies: 1,
            dispatch: DispatchShape::Chain,
        }
    }

    /// `base` with this point's mapping choices (the dispatch shape).
    pub fn platform(&self, base: &Platform) -> Platform {
        Platform {
            dispatch: self.dispatch,
            ..base.clone()
        }
    }

    /// The dispatch shape changes the mapping: some core needs more than
    /// one DispatchCore. That happens where a core feeds the sixteen
    /// SubBytes-1 cores (four DispatchCores); SubBytes-4 and -16 and the
    /// MixColumns splits need at most four destinations per core, or one
    /// DispatchCore, which both shapes place alike.
    pub fn dispatch_matters(&self) -> bool {
        matches!(
            self.style,
            Style::Merge {
                sub: Split::Bytes,
                ..
            }
        )
    }

    /// The paper's engine this point is, if any.
    pub fn paper_engine(&self) -> Option<Engine> {
        if self.copies != 1 {
            return None;
        }
        Engine::ALL
            .into_iter()
            .find(|&e| Params::paper(e, self.key, self.expansion) == *self)
    }

    /// A short label: `S1 sb1 mc4+ark i2 no-arksr tree online x2`.
    pub fn label(&self) -> String {
        let mut s = format!("S{}", self.loops);
        match self.style {
            Style::Merge {
                sub,
                mix,
                fuse_mix_key,
            } => {
                s += &format!(" sb{} mc{}", sub.bytes(), mix.bytes());
                if fuse_mix_key {
                    s += "+ark";
                }
            }
            Style::NoMerge => s += " no-merge",
        }
        if self.interleave > 1 {
            s += &format!(" i{}", self.interleave);
        }
        if !self.fuse_key_shift {
            s += " no-arksr";
        }
        if self.dispatch != DispatchShape::Chain {
            s += &format!(" {}", self.dispatch.name());
        }
        s += &format!(" {}", self.expansion.name());
        if self.copies > 1 {
            s += &format!(" x{}", self.copies);
        }
        s
    }

    /// Every valid point for one key size (copies 1, 2 and 4), with the
    /// tree dispatch shape as well where it changes the mapping
    /// ([`Params::dispatch_matters`]).
    pub fn enumerate(key: KeySize) -> Vec<Params> {
        let m = key.nr() as u32 - 1;
        let mut styles = vec![Style::NoMerge];
        for sub in Split::ALL {
            for mix in [Split::Whole, Split::Columns] {
                for fuse_mix_key in [false, true] {
                    styles.push(Style::Merge {
                        sub,
                        mix,
                        fuse_mix_key,
                    });
                }
            }
        }
        let mut out = Vec::new();
        for loops in (1..=m).filter(|s| m.is_multiple_of(*s)) {
            for &style in &styles {
                for interleave in [1, 2] {
                    for fuse_key_shift in [true, false] {
                        for expansion in Expansion::ALL {
                            for copies in [1, 2, 4] {
                                let p = Params {
                                    key,
                                    loops,
                                    style,
                                    interleave,
                                    fuse_key_shift,
                                    expansion,
                                    copies,
                                    dispatch: DispatchShape::Chain,
                                };
                                if p.validate().is_err() {
                                    continue;
                                }
                                out.push(p);
                                if p.dispatch_matters() {
                                    out.push(Params {
                                        dispatch: DispatchShape::Tree,
                                        ..p
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// The base design (online, before §5) of a point, named by its label.
pub fn base_design(p: &Params) -> Result<Design, Error> {
    p.validate()?;
    let nr = p.key.nr() as u32;
    let mut d = Design::new(&p.label(), p.key);
    d.interleave = p.interleave;
    let src = d.add("plaintext", Role::PlainSource, 1, 0);
    let ksrc = d.add("cipherkey", Role::KeySource, 1, 0);
    let ark0 = d.cipher("ark0", vec![Prim::AddKey(Part::ALL)], 0);
    d.link(src, ark0, Payload::State(Part::ALL));
    d.connect(ksrc, ark0, Payload::Key(Part::ALL), (0, 1), (0, 1));
    let n = p.rounds_per_loop();
    let mut segs: Vec<(u32, u32)> = (0..p.loops).map(|k| (1 + k * n, n)).collect();
    if p.loops == 1 {
        segs = vec![(1, nr)];
    } else {
        segs.push((nr, 1));
    }
    let keys = KeyChain::new(&mut d, ksrc, &segs);
    // The stage before the next loop: its actors with their columns, and
    // the firing in which they emit the finished state.
    let mut prev: Vec<(usize, Part)> = vec![(ark0, Part::ALL)];
    let mut exit = 0;
    let last = match p.style {
        Style::NoMerge => {
            prev = no_merge_rounds(&mut d, &keys, prev, nr);
            let sbf = d.cipher("sb_f", vec![Prim::Sub(Part::ALL)], nr);
            feed(&mut d, &prev, sbf, Part::ALL, (0, 1), (0, 1));
            let srark = d.cipher("srark_f", vec![Prim::Shift, Prim::AddKey(Part::ALL)], nr);
            d.link(sbf, srark, Payload::State(Part::ALL));
            keys.feed(&mut d, srark, (0, 1), nr, Part::ALL);
            srark
        }
        Style::Merge {
            sub,
            mix,
            fuse_mix_key,
        } => {
            for k in 0..p.loops {
                let r = 1 + k * n;
                let tag = if p.unrolled() {
                    r.to_string()
                } else if p.loops == 1 {
                    String::new()
                } else {
                    format!("_loop{k}")
                };
                let lp = Loop {
                    tag: &tag,
                    round: r,
                    n,
                    sub,
                    mix,
                    fuse_mix_key,
                };
                prev = lp.build(&mut d, &keys, &prev, exit);
                exit = n - 1;
            }
            let sub_f = if p.unrolled() { sub } else { Split::Whole };
            final_round(&mut d, &keys, &prev, exit, sub_f, nr)
        }
    };
    let sink = d.add("ciphertext", Role::Sink, 1, 0);
    d.link(last, sink, Payload::State(Part::ALL));
    Ok(d)
}

/// The finished design of a point: §5 optimisations and the key-expansion
/// style applied (copies are made at mapping time).
pub fn generate(p: &Params) -> Result<Design, Error> {
    Ok(finish_design(
        base_design(p)?,
        p.expansion,
        p.optimisations(),
    ))
}

/// Connect every producer of `prev` that covers part of `cols` to `dst`.
fn feed(
    d: &mut Design,
    prev: &[(usize, Part)],
    dst: usize,
    cols: Part,
    src_ph: (u32, u32),
    dst_ph: (u32, u32),
) {
    for &(a, c) in prev {
        if let Some(x) = c.intersect(cols) {
            d.connect(a, dst, Payload::State(x), src_ph, dst_ph);
        }
    }
}

/// One round loop of the merge style.
struct Loop<'a> {
    tag: &'a str,
    round: u32,
    n: u32,
    sub: Split,
    mix: Split,
    fuse_mix_key: bool,
}

impl Loop<'_> {
    fn add(&self, d: &mut Design, name: &str, part: Option<usize>, steps: Vec<Prim>) -> usize {
        let name = match part {
            Some(c) => format!("{name}{}_{c}", self.tag),
            None => format!("{name}{}", self.tag),
        };
        d.add(name, Role::Cipher(steps), self.n, self.round)
    }

    /// Builds the loop fed by `prev` (which emits in firing `exit`);
    /// returns the loop's last stage.
    fn build(
        &self,
        d: &mut Design,
        keys: &KeyChain,
        prev: &[(usize, Part)],
        exit: u32,
    ) -> Vec<(usize, Part)> {
        let n = self.n;
        let all = (0, n);
        let split_sub = self.sub.is_split();
        let split_mix = self.mix.is_split();
        // Actor order as in the hand-written builders: the core that joins
        // a split stage comes before the parts.
        let mut sr = None;
        if split_sub {
            sr = Some(self.add(d, "sr", None, vec![Prim::Shift]));
        }
        let mut ark = None;
        if split_sub && n > 1 && !self.fuse_mix_key {
            ark = Some(self.add(d, "ark", None, vec![Prim::AddKey(Part::ALL)]));
        }
        let mut sbs = Vec::new();
        for (i, c) in self.sub.parts().into_iter().enumerate() {
            let part = split_sub.then_some(i);
            sbs.push((self.add(d, "sb", part, vec![Prim::Sub(c)]), c));
        }
        let sr = sr.unwrap_or_else(|| self.add(d, "sr", None, vec![Prim::Shift]));
        if split_mix && !self.fuse_mix_key && ark.is_none() {
            ark = Some(self.add(d, "ark", None, vec![Prim::AddKey(Part::ALL)]));
        }
        let mut mcs = Vec::new();
        for (i, c) in self.mix.parts().into_iter().enumerate() {
            let part = split_mix.then_some(i);
            let (name, steps) = if self.fuse_mix_key {
                ("mcark", vec![Prim::Mix(c), Prim::AddKey(c)])
            } else {
                ("mc", vec![Prim::Mix(c)])
            };
            mcs.push((self.add(d, name, part, steps), c));
        }
        if !self.fuse_mix_key && ark.is_none() {
            ark = Some(self.add(d, "ark", None, vec![Prim::AddKey(Part::ALL)]));
        }
        let last: Vec<(usize, Part)> = match ark {
            Some(a) => vec![(a, Part::ALL)],
            None => mcs.clone(),
        };
        for &(sb, c) in &sbs {
            feed(d, prev, sb, c, (exit, exit + 1), (0, 1));
            if n > 1 {
                feed(d, &last, sb, c, (0, n - 1), (1, n));
            }
            d.connect(sb, sr, Payload::State(c), all, all);
        }
        for &(mc, c) in &mcs {
            d.connect(sr, mc, Payload::State(c), all, all);
            match ark {
                Some(a) => d.connect(mc, a, Payload::State(c), all, all),
                None => keys.feed(d, mc, all, self.round, c),
            }
        }
        if let Some(a) = ark {
            keys.feed(d, a, all, self.round, Part::ALL);
        }
        last
    }
}

/// The final round of the merge style, fed by `prev` in firing `exit`.
fn final_round(
    d: &mut Design,
    keys: &KeyChain,
    prev: &[(usize, Part)],
    exit: u32,
    sub: Split,
    nr: u32,
) -> usize {
    let one = (0, 1);
    let split = sub.is_split();
    let mut sr = None;
    if split {
        sr = Some(d.cipher("sr_f", vec![Prim::Shift], nr));
    }
    let mut sbs = Vec::new();
    for (i, c) in sub.parts().into_iter().enumerate() {
        let name = if split {
            format!("sb{nr}_{i}")
        } else {
            "sb_f".to_string()
        };
        sbs.push((d.cipher(name, vec![Prim::Sub(c)], nr), c));
    }
    let sr = sr.unwrap_or_else(|| d.cipher("sr_f", vec![Prim::Shift], nr));
    for &(sb, c) in &sbs {
        feed(d, prev, sb, c, (exit, exit + 1), one);
        d.connect(sb, sr, Payload::State(c), one, one);
    }
    let ark = d.cipher("ark_f", vec![Prim::AddKey(Part::ALL)], nr);
    d.link(sr, ark, Payload::State(Part::ALL));
    keys.feed(d, ark, one, nr, Part::ALL);
    ark
}

/// The middle rounds of the no-merge style; returns the last round's halves.
fn no_merge_rounds(
    d: &mut Design,
    keys: &KeyChain,
    mut prev: Vec<(usize, Part)>,
    nr: u32,
) -> Vec<(usize, Part)> {
    let halves = [Part::cols(0, 2), Part::cols(2, 4)];
    for r in 1..nr {
        let mut next = Vec::new();
        for (h, &half) in halves.iter().enumerate() {
            let srsb = d.cipher(
                format!("srsb{r}_{h}"),
                vec![Prim::Shift, Prim::Sub(half)],
                r,
            );
            // ShiftRows needs the whole state.
            feed(d, &prev, srsb, Part::ALL, (0, 1), (0, 1));
            let mcark = d.cipher(
                format!("mcark{r}_{h}"),
                vec![Prim::Mix(half), Prim::AddKey(half)],
                r,
            );
            d.link(srsb, mcark, Payload::State(half));
            keys.feed(d, mcark, (0, 1), r, half);
            next.push((mcark, half));
        }
        prev = next;
    }
    prev
}
