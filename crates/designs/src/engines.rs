//! The eight engines of Liu & Baas (§4), as dataflow graphs before the area
//! optimisations of §5 and with online key expansion; [`crate::optimize`]
//! derives the optimised and the offline versions.
//!
//! The paper's figures (the dataflow diagrams and mappings, Figs. 3–11) are
//! not in its text, so each builder documents the structure and the
//! reasoning that pins it down: the core counts of Table 2 (online and
//! offline, total and communication) and the pre-optimisation counts of
//! §4–5 leave little freedom once two platform rules are fixed — at most two
//! input ports per core and at most four output destinations (one per mesh
//! direction).

use aesflow_cipher::KeySize;

use crate::graph::{Design, Payload, Role};
use crate::kinds::{Part, Prim};

/// The eight engine designs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// Small (§4.7).
    Small,
    /// One-task one-processor (§4.1).
    Otop,
    /// Parallel-MixColumns (§4.4).
    ParallelMixColumns,
    /// Parallel-SubBytes-MixColumns (§4.5).
    ParallelSubBytesMixColumns,
    /// Loop-unrolled Three Times (§4.3).
    LoopUnrolledThree,
    /// Loop-unrolled Nine Times (§4.2).
    LoopUnrolledNine,
    /// No-merge-parallelism (§4.8).
    NoMerge,
    /// Full-parallelism (§4.6, optimised in §5.1).
    FullParallelism,
}

impl Engine {
    /// All eight, in Table 2's order.
    pub const ALL: [Engine; 8] = [
        Engine::Small,
        Engine::Otop,
        Engine::ParallelMixColumns,
        Engine::ParallelSubBytesMixColumns,
        Engine::LoopUnrolledThree,
        Engine::LoopUnrolledNine,
        Engine::NoMerge,
        Engine::FullParallelism,
    ];

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Small => "Small",
            Engine::Otop => "One-task one-processor",
            Engine::ParallelMixColumns => "Parallel-MixColumns",
            Engine::ParallelSubBytesMixColumns => "Parallel-SubBytes-MixColumns",
            Engine::LoopUnrolledThree => "Loop-unrolled Three Times",
            Engine::LoopUnrolledNine => "Loop-unrolled Nine Times",
            Engine::NoMerge => "No-merge-parallelism",
            Engine::FullParallelism => "Full-parallelism",
        }
    }

    /// Short command-line name.
    pub fn slug(self) -> &'static str {
        match self {
            Engine::Small => "small",
            Engine::Otop => "otop",
            Engine::ParallelMixColumns => "p-mix",
            Engine::ParallelSubBytesMixColumns => "p-sub-mix",
            Engine::LoopUnrolledThree => "l-three",
            Engine::LoopUnrolledNine => "l-nine",
            Engine::NoMerge => "no-merge",
            Engine::FullParallelism => "full",
        }
    }

    /// Look up by slug or by name (case-insensitive).
    pub fn parse(s: &str) -> Option<Engine> {
        let s = s.to_ascii_lowercase();
        Engine::ALL
            .into_iter()
            .find(|e| e.slug() == s || e.name().to_ascii_lowercase() == s)
    }

    /// The online, unoptimised design for a key size.
    pub fn base_design(self, key: KeySize) -> Design {
        match self {
            Engine::Small => small(key),
            Engine::Otop => otop(key),
            Engine::ParallelMixColumns => parallel_mix(key),
            Engine::ParallelSubBytesMixColumns => parallel_sub_mix(key),
            Engine::LoopUnrolledThree => loop_three(key),
            Engine::LoopUnrolledNine => loop_nine(key),
            Engine::NoMerge => no_merge(key),
            Engine::FullParallelism => full(key),
        }
    }
}

const ALL: Part = Part::ALL;

/// The key-expansion cores: one KeySchedule + KeySubWord pair per segment
/// of consecutive rounds (a segment of `len` rounds loops `len` times).
pub struct KeyChain {
    /// The key source.
    pub src: usize,
    /// `(first round, rounds, KeySchedule, KeySubWord)`.
    pub segs: Vec<(u32, u32, usize, usize)>,
}

impl KeyChain {
    /// Build the chain for `segs` = `(first round, rounds)`, covering rounds
    /// 1..=Nr. KeySchedule `k` reads the window from KeySchedule `k−1` (the
    /// cipher key from the source for the first) and the substituted word
    /// from its KeySubWord, which gets the word to substitute from the
    /// previous KeySchedule (the source for round 1) and, inside a loop,
    /// from its own KeySchedule.
    pub fn new(d: &mut Design, src: usize, segs: &[(u32, u32)]) -> KeyChain {
        let mut out = Vec::new();
        let unrolled = segs.iter().all(|s| s.1 == 1);
        for (k, &(first, len)) in segs.iter().enumerate() {
            let tag = if unrolled {
                first.to_string()
            } else if segs.len() == 1 {
                String::new()
            } else {
                k.to_string()
            };
            let ksw = d.add(format!("ksw{tag}"), Role::KeySubWord, len, first);
            let ks = d.add(format!("ks{tag}"), Role::KeySchedule, len, first);
            if k == 0 {
                d.connect(src, ksw, Payload::Window, (0, 1), (0, 1));
                d.connect(src, ks, Payload::Window, (0, 1), (0, 1));
            } else {
                let (_, plen, pks, _) = out[k - 1];
                d.connect(pks, ksw, Payload::SubWord, (plen - 1, plen), (0, 1));
                d.connect(pks, ks, Payload::Window, (plen - 1, plen), (0, 1));
            }
            if len > 1 {
                d.connect(ks, ksw, Payload::SubWord, (0, len - 1), (1, len));
            }
            d.link(ksw, ks, Payload::SubWord);
            out.push((first, len, ks, ksw));
        }
        KeyChain { src, segs: out }
    }

    /// Unrolled: one pair per round.
    pub fn unrolled(d: &mut Design, src: usize, nr: u32) -> KeyChain {
        let segs: Vec<(u32, u32)> = (1..=nr).map(|r| (r, 1)).collect();
        KeyChain::new(d, src, &segs)
    }

    /// Feed round keys `first_round ..` (one per consumer firing in
    /// `dst_ph`) of columns `cols` to actor `dst`. Round 0 comes from the
    /// key source.
    pub fn feed(
        &self,
        d: &mut Design,
        dst: usize,
        dst_ph: (u32, u32),
        first_round: u32,
        cols: Part,
    ) {
        let count = dst_ph.1 - dst_ph.0;
        if first_round == 0 {
            assert_eq!(count, 1);
            d.connect(self.src, dst, Payload::Key(cols), (0, 1), dst_ph);
            return;
        }
        let &(first, _, ks, _) = self
            .segs
            .iter()
            .find(|s| s.0 <= first_round && first_round + count <= s.0 + s.1)
            .expect("rounds within one key segment");
        let a = first_round - first;
        d.connect(ks, dst, Payload::Key(cols), (a, a + count), dst_ph);
    }
}

/// `engine`'s design with the sources and the initial AddRoundKey common
/// to all designs; returns it with the key source and the AddRoundKey.
fn start(engine: Engine, key: KeySize) -> (Design, usize, usize) {
    let mut d = Design::new(engine.name(), key);
    let src = d.add("plaintext", Role::PlainSource, 1, 0);
    let ksrc = d.add("cipherkey", Role::KeySource, 1, 0);
    let ark0 = d.cipher("ark0", vec![Prim::AddKey(ALL)], 0);
    d.link(src, ark0, Payload::State(ALL));
    d.connect(ksrc, ark0, Payload::Key(ALL), (0, 1), (0, 1));
    (d, ksrc, ark0)
}

/// [`start`] with key expansion unrolled (one KeySchedule/KeySubWord pair
/// per round); returns the design, its key chain, the initial AddRoundKey
/// and Nr.
fn unrolled(engine: Engine, key: KeySize) -> (Design, KeyChain, usize, u32) {
    let nr = key.nr() as u32;
    let (mut d, ksrc, ark0) = start(engine, key);
    let keys = KeyChain::unrolled(&mut d, ksrc, nr);
    (d, keys, ark0, nr)
}

/// The ciphertext sink after `last`: the finished design.
fn finish(mut d: Design, last: usize) -> Design {
    let sink = d.add("ciphertext", Role::Sink, 1, 0);
    d.link(last, sink, Payload::State(ALL));
    d
}

/// Final round SubBytes → ShiftRows → AddRoundKey from `from` (exiting in
/// firing `exit` of `from`), with SubBytes and ShiftRows on one core if
/// `fuse_sub_shift`.
fn final_round(
    d: &mut Design,
    keys: &KeyChain,
    from: (usize, u32),
    nr: u32,
    fuse_sub_shift: bool,
) -> usize {
    let steps: &[(&str, &[Prim])] = if fuse_sub_shift {
        &[("sbsr_f", &[Prim::Sub(ALL), Prim::Shift])]
    } else {
        &[("sb_f", &[Prim::Sub(ALL)]), ("sr_f", &[Prim::Shift])]
    };
    let mut cores: Vec<usize> = steps
        .iter()
        .map(|&(name, prims)| d.cipher(name, prims.to_vec(), nr))
        .collect();
    cores.push(d.cipher("ark_f", vec![Prim::AddKey(ALL)], nr));
    let (src, exit) = from;
    d.connect(src, cores[0], Payload::State(ALL), (exit, exit + 1), (0, 1));
    chain(d, &cores, ALL);
    let ark = cores[cores.len() - 1];
    keys.feed(d, ark, (0, 1), nr, ALL);
    ark
}

/// Link each core of `cores` to the next with the state columns `cols`.
fn chain(d: &mut Design, cores: &[usize], cols: Part) {
    for w in cores.windows(2) {
        d.link(w[0], w[1], Payload::State(cols));
    }
}

/// A round's steps, one core each: SubBytes-16, ShiftRows, MixColumns-16,
/// AddRoundKey.
const ROUND: [(&str, &[Prim]); 4] = [
    ("sb", &[Prim::Sub(ALL)]),
    ("sr", &[Prim::Shift]),
    ("mc", &[Prim::Mix(ALL)]),
    ("ark", &[Prim::AddKey(ALL)]),
];

/// Small's round: MixColumns-16 fused with AddRoundKey.
const SMALL_ROUND: [(&str, &[Prim]); 3] = [
    ("sb", &[Prim::Sub(ALL)]),
    ("sr", &[Prim::Shift]),
    ("mcark", &[Prim::Mix(ALL), Prim::AddKey(ALL)]),
];

/// A core of a loop of `n` rounds from round `first`, named `name`.
fn loop_core(d: &mut Design, name: String, steps: &[Prim], n: u32, first: u32) -> usize {
    d.add(name, Role::Cipher(steps.to_vec()), n, first)
}

/// The state columns `cols` into a loop's first core `to`: from firing
/// `exit` of `from` for the loop's first round, fed back from the loop's
/// last core `back` for the other `n − 1`.
fn enter(d: &mut Design, from: (usize, u32), back: usize, to: usize, cols: Part, n: u32) {
    let (src, exit) = from;
    d.connect(src, to, Payload::State(cols), (exit, exit + 1), (0, 1));
    if n > 1 {
        d.connect(back, to, Payload::State(cols), (0, n - 1), (1, n));
    }
}

/// A loop of `n` rounds from round `first` (one round unrolled if `n` is
/// 1), one core per step of `steps` named with `tag`, entered from
/// `from`; returns its last core (which still needs its round keys).
fn round_loop(
    d: &mut Design,
    steps: &[(&str, &[Prim])],
    tag: &str,
    from: (usize, u32),
    n: u32,
    first: u32,
) -> usize {
    let cores: Vec<usize> = steps
        .iter()
        .map(|&(name, prims)| loop_core(d, format!("{name}{tag}"), prims, n, first))
        .collect();
    let last = cores[cores.len() - 1];
    enter(d, from, last, cores[0], ALL, n);
    chain(d, &cores, ALL);
    last
}

/// Four MixColumns-4 between ShiftRows `sr` and AddRoundKey `ark`, one per
/// column, named by `name`.
fn split_mix(
    d: &mut Design,
    sr: usize,
    ark: usize,
    name: impl Fn(u8) -> String,
    n: u32,
    first: u32,
) {
    for c in 0..4u8 {
        let mc = loop_core(d, name(c), &[Prim::Mix(Part::col(c))], n, first);
        d.link(sr, mc, Payload::State(Part::col(c)));
        d.link(mc, ark, Payload::State(Part::col(c)));
    }
}

/// A design with one loop over the `n` = Nr − 1 middle rounds: `body`
/// builds the loop from the initial AddRoundKey and returns its last core,
/// which gets the round keys and feeds the final round.
fn looped(
    engine: Engine,
    key: KeySize,
    fuse_final: bool,
    body: impl FnOnce(&mut Design, usize, u32) -> usize,
) -> Design {
    let nr = key.nr() as u32;
    let n = nr - 1;
    let (mut d, ksrc, ark0) = start(engine, key);
    let keys = KeyChain::new(&mut d, ksrc, &[(1, nr)]);
    let last = body(&mut d, ark0, n);
    keys.feed(&mut d, last, (0, n), 1, ALL);
    let out = final_round(&mut d, &keys, (last, n - 1), nr, fuse_final);
    finish(d, out)
}

/// One-task one-processor (§4.1, Fig. 3): each step of the algorithm on its
/// own core. The nine middle rounds loop through four cores (SubBytes-16 →
/// ShiftRows → MixColumns-16 → AddRoundKey and back); the initial
/// AddRoundKey and the final round (SubBytes, ShiftRows, AddRoundKey) have
/// their own cores, and key expansion loops through KeySchedule and
/// KeySubWord in parallel. 10 cores online (the paper's count), 9 after §5.2
/// fuses the final SubBytes and ShiftRows, 7 offline. The loop holds one
/// block: its first core starts the next block's first round only when the
/// current block has done its last round there, so throughput is set by the
/// loop's latency, not by the slowest core.
pub fn otop(key: KeySize) -> Design {
    looped(Engine::Otop, key, false, |d, ark0, n| {
        round_loop(d, &ROUND, "", (ark0, 0), n, 1)
    })
}

/// Small (§4.7, Fig. 9): the fewest cores — 8 online, 6 offline, limited by
/// each core's 128-word instruction and data memories. The paper shows only
/// the mapping; our reconstruction fuses what fits one core: MixColumns-16
/// with AddRoundKey (63% + 18% of the instruction memory) in the loop, and
/// SubBytes with ShiftRows in the final round, leaving SubBytes-16 and
/// ShiftRows as loop cores. Small is faster than OTOP (2,678 vs 3,582
/// cycles per block) with fewer cores, which a loop holding one block cannot
/// do (its round latency only grows by fusing), so the loop is programmed to
/// hold two blocks (`interleave = 2`: the loop cores alternate between two
/// blocks), and the fused MixColumns+AddRoundKey core becomes the
/// bottleneck. This interleave is our assumption, the one design choice
/// not pinned down by the paper's text.
pub fn small(key: KeySize) -> Design {
    looped(Engine::Small, key, true, |d, ark0, n| {
        d.interleave = 2;
        round_loop(d, &SMALL_ROUND, "", (ark0, 0), n, 1)
    })
}

/// Parallel-MixColumns (§4.4, Fig. 6): OTOP with the loop's MixColumns-16
/// (60% of a round's latency) split into four MixColumns-4, one per column.
/// The loop's AddRoundKey then needs five inputs (four columns and the
/// round key): three MergeCores (§4.4). 16 cores before §5, 15 after fusing
/// the final SubBytes and ShiftRows; offline the AddRoundKey has no key
/// input, so two MergeCores suffice: 12 cores.
pub fn parallel_mix(key: KeySize) -> Design {
    looped(Engine::ParallelMixColumns, key, false, |d, ark0, n| {
        let [sb, sr, ark] = [ROUND[0], ROUND[1], ROUND[3]]
            .map(|(name, steps)| loop_core(d, name.into(), steps, n, 1));
        enter(d, (ark0, 0), ark, sb, ALL, n);
        d.link(sb, sr, Payload::State(ALL));
        split_mix(d, sr, ark, |c| format!("mc_{c}"), n, 1);
        ark
    })
}

/// Parallel-SubBytes-MixColumns (§4.5, Fig. 7): Parallel-MixColumns with the
/// loop's SubBytes-16 (now the slowest step) split into four SubBytes-4.
/// As drawn in the paper, SubBytes comes before ShiftRows, so the four
/// SubBytes-4 streams need two MergeCores into ShiftRows, and the loop's
/// AddRoundKey feeds five cores (four SubBytes-4 and the final round): one
/// DispatchCore. 22 cores; §5.2 swaps SubBytes and ShiftRows (ShiftRows only
/// moves bytes), after which each SubBytes-4 feeds its MixColumns-4 directly
/// and AddRoundKey feeds two cores — three cores saved — and fuses the final
/// SubBytes and ShiftRows: 18 online (3 MergeCores), 15 offline (2).
pub fn parallel_sub_mix(key: KeySize) -> Design {
    looped(
        Engine::ParallelSubBytesMixColumns,
        key,
        false,
        |d, ark0, n| {
            let [sr, ark] =
                [ROUND[1], ROUND[3]].map(|(name, steps)| loop_core(d, name.into(), steps, n, 1));
            for c in 0..4u8 {
                let sb = loop_core(d, format!("sb_{c}"), &[Prim::Sub(Part::col(c))], n, 1);
                enter(d, (ark0, 0), ark, sb, Part::col(c), n);
                d.link(sb, sr, Payload::State(Part::col(c)));
            }
            split_mix(d, sr, ark, |c| format!("mc_{c}"), n, 1);
            ark
        },
    )
}

/// How Loop-unrolled Three Times splits the Nr − 1 middle rounds over its
/// three loops (3+3+3 for AES-128; 4+4+3 and 5+4+4 for longer keys, where
/// Nr − 1 is not a multiple of three).
pub fn three_stages(nr: u32) -> [u32; 3] {
    let m = nr - 1;
    let q = m / 3;
    let r = m % 3;
    [q + u32::from(r > 0), q + u32::from(r > 1), q]
}

/// Loop-unrolled Three Times (§4.3, Fig. 5): the nine middle rounds split
/// into three loops of three rounds, each loop four cores (SubBytes-16,
/// ShiftRows, MixColumns-16, AddRoundKey), so three blocks are in flight.
/// Key expansion has one KeySchedule/KeySubWord pair per loop plus one for
/// the final round. 24 cores (the paper's count: 1 + 12 + 3 + 8), 23 after
/// fusing the final SubBytes and ShiftRows, 15 offline.
pub fn loop_three(key: KeySize) -> Design {
    let nr = key.nr() as u32;
    let (mut d, ksrc, ark0) = start(Engine::LoopUnrolledThree, key);
    let stages = three_stages(nr);
    let mut segs = Vec::new();
    let mut r = 1;
    for &len in &stages {
        segs.push((r, len));
        r += len;
    }
    segs.push((nr, 1));
    let keys = KeyChain::new(&mut d, ksrc, &segs);
    let mut from = (ark0, 0);
    let mut r = 1;
    for (k, &n) in stages.iter().enumerate() {
        let ark = round_loop(&mut d, &ROUND, &format!("_loop{k}"), from, n, r);
        keys.feed(&mut d, ark, (0, n), r, ALL);
        from = (ark, n - 1);
        r += n;
    }
    let last = final_round(&mut d, &keys, from, nr, false);
    finish(d, last)
}

/// Loop-unrolled Nine Times (§4.2, Fig. 4): every round on its own cores
/// (Nr − 1 = 9 middle rounds of four cores, the final round of three, the
/// initial AddRoundKey) and key expansion unrolled Nr = 10 times: 60 cores.
/// Throughput is set by the slowest core, MixColumns-16 (266 cycles per
/// block). §5.2 fuses SubBytes and ShiftRows in every round (170 < 266
/// cycles): 50 cores, 30 offline. Longer keys add five cores per extra
/// round (§4.9).
pub fn loop_nine(key: KeySize) -> Design {
    let (mut d, keys, ark0, nr) = unrolled(Engine::LoopUnrolledNine, key);
    let mut prev = ark0;
    for r in 1..nr {
        prev = round_loop(&mut d, &ROUND, &r.to_string(), (prev, 0), 1, r);
        keys.feed(&mut d, prev, (0, 1), r, ALL);
    }
    let last = final_round(&mut d, &keys, (prev, 0), nr, false);
    finish(d, last)
}

/// No-merge-parallelism (§4.8, Fig. 10): as much parallelism as possible
/// without any communication core. Every round is unrolled; each
/// MixColumns-16 is split into two MixColumns-8 and SubBytes is combined
/// with ShiftRows. With two input ports per core and no MergeCores, the
/// only way to split a round into halves is: two ShiftRows+SubBytes-8
/// cores, each reading both halves of the previous round and producing the
/// two columns of its half, each feeding a MixColumns-8+AddRoundKey core
/// that reads its half of the round key (second input). The final round is
/// SubBytes-16 (reading both halves) and ShiftRows+AddRoundKey: 1 + 4·9 +
/// 2 = 39 cipher cores plus 2·10 key cores = 59 (39 offline), the paper's
/// counts, and +12/+24 cores for 192/256-bit keys (§4.9). The slowest core
/// is MixColumns-8+AddRoundKey-8 (135 + 11 cycles); the paper measures
/// 152 cycles per block.
pub fn no_merge(key: KeySize) -> Design {
    let (mut d, keys, ark0, nr) = unrolled(Engine::NoMerge, key);
    let halves = [Part::cols(0, 2), Part::cols(2, 4)];
    let mut prev: Vec<usize> = vec![ark0];
    for r in 1..nr {
        let mut next = Vec::new();
        for (h, &half) in halves.iter().enumerate() {
            let sbsr = d.cipher(
                format!("srsb{r}_{h}"),
                vec![Prim::Shift, Prim::Sub(half)],
                r,
            );
            if prev.len() == 1 {
                d.link(prev[0], sbsr, Payload::State(ALL));
            } else {
                for (ph, &p) in prev.iter().enumerate() {
                    d.link(p, sbsr, Payload::State(halves[ph]));
                }
            }
            let mcark = d.cipher(
                format!("mcark{r}_{h}"),
                vec![Prim::Mix(half), Prim::AddKey(half)],
                r,
            );
            d.link(sbsr, mcark, Payload::State(half));
            keys.feed(&mut d, mcark, (0, 1), r, half);
            next.push(mcark);
        }
        prev = next;
    }
    let sbf = d.cipher("sb_f", vec![Prim::Sub(ALL)], nr);
    for (ph, &p) in prev.iter().enumerate() {
        d.link(p, sbf, Payload::State(halves[ph]));
    }
    let srark = d.cipher("srark_f", vec![Prim::Shift, Prim::AddKey(ALL)], nr);
    d.link(sbf, srark, Payload::State(ALL));
    keys.feed(&mut d, srark, (0, 1), nr, ALL);
    finish(d, srark)
}

/// Full-parallelism (§4.6, Fig. 8): Parallel-SubBytes-MixColumns unrolled.
/// Each middle round: four SubBytes-4, two MergeCores into ShiftRows, four
/// MixColumns-4, three MergeCores into AddRoundKey (four columns and the
/// round key), and a KeySchedule/KeySubWord pair: 17 cores; the final round
/// with the initial AddRoundKey: 11; 9 × 17 + 11 = 164 (§5.1). MixColumns-4
/// (70 cycles) is the bottleneck. §5.1 then swaps SubBytes and ShiftRows
/// (each SubBytes-4 now feeds its MixColumns-4 directly: −2 MergeCores per
/// round) and fuses each AddRoundKey with the next round's ShiftRows into
/// AddKeyShiftRows (60 < 70 cycles): 137 cores (30 MergeCores), 107 offline
/// (20), Table 2. For 192/256-bit keys KeySchedule (90/120 cycles, it
/// carries 6/8 key words) becomes the bottleneck (§4.9).
pub fn full(key: KeySize) -> Design {
    let (mut d, keys, ark0, nr) = unrolled(Engine::FullParallelism, key);
    let mut prev = ark0;
    for r in 1..=nr {
        let name = |step: &str| {
            if r == nr {
                format!("{step}_f")
            } else {
                format!("{step}{r}")
            }
        };
        let sr = d.cipher(name("sr"), vec![Prim::Shift], r);
        for c in 0..4u8 {
            let sb = d.cipher(format!("sb{r}_{c}"), vec![Prim::Sub(Part::col(c))], r);
            d.link(prev, sb, Payload::State(Part::col(c)));
            d.link(sb, sr, Payload::State(Part::col(c)));
        }
        let ark = d.cipher(name("ark"), vec![Prim::AddKey(ALL)], r);
        if r == nr {
            d.link(sr, ark, Payload::State(ALL));
        } else {
            split_mix(&mut d, sr, ark, |c| format!("mc{r}_{c}"), 1, r);
        }
        keys.feed(&mut d, ark, (0, 1), r, ALL);
        prev = ark;
    }
    finish(d, prev)
}
