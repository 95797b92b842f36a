//! # aesflow-designs: the 16 many-core AES engines of Liu & Baas
//!
//! Liu & Baas (*Parallel AES Encryption Engines for Many-Core Processor
//! Arrays*, IEEE Transactions on Computers 2013) map AES-128 onto AsAP2 in
//! eight designs (§4), each with online and offline key expansion: 16 engines. This crate
//! builds them as dataflow graphs of AES actors ([`engines`], one doc
//! comment per design with the paper's reasoning, since the paper's figures
//! are not in its text), applies the area optimisations of §5 as switchable
//! graph transformations ([`optimize`]), derives the offline engines by
//! removing the key-expansion cores, compiles them to word-level programs
//! for the array model of `aesflow-array` ([`compile`]), and simulates them:
//! real 16-bit words flow, so every engine really encrypts (checked against
//! the `aesflow-cipher` reference for 128/192/256-bit keys). [`report`]
//! prints Table 2 beside the model; [`analysis`] cross-checks with the SDF
//! period from `aesflow-dataflow` and exports SDF3 graphs that give the
//! same period under SDF3's own semantics; [`describe`] reads and writes
//! engines as data (the paper's eight ship as `engines/*.aesflow`), and
//! [`validate`] checks what a hand-written design can get wrong (missing
//! key paths, firings, rounds), each [`Error`] naming the line, design or
//! actor. [`space`] builds designs from parameters (loop unrolling, splits,
//! fusions, the no-merge style, interleave, key expansion, copies): the
//! paper's eight are points of it, and `aesflow-explore` evaluates it all.
//!
//! ```
//! use aesflow_designs::{Engine, Expansion, Optimisations, build, run_design};
//! use aesflow_cipher::KeySize;
//! let d = build(Engine::FullParallelism, KeySize::Aes128, Expansion::Online, Optimisations::ALL);
//! let r = run_design(&d, &[0u8; 16], &[[0u8; 16]; 64], &Default::default()).unwrap();
//! assert_eq!(r.mapping.total_cores(), 137);
//! assert_eq!(r.cycles_per_block, 70.0);
//! ```
//!
//! ## The model and its assumptions
//!
//! One global parameter set ([`aesflow_array::Platform::asap2`]) serves all
//! engines; there are no per-engine factors. What the model assumes:
//!
//! * **Actor delays** are Table 1's: SubBytes-1/-4/-16 10/40/132, ShiftRows
//!   38, MixColumns-4/-16 70/266, AddRoundKey 22, KeySubWord 56,
//!   KeySchedule 60 cycles. Sizes Table 1 lacks are interpolated
//!   ([`kinds::Prim::delay`]): SubBytes-8 66, MixColumns-8 135, AddRoundKey
//!   on half a block 11. A fused actor takes the sum of its parts, except
//!   that a ShiftRows fused with another step costs only its compute part,
//!   19 of 38 cycles ([`kinds::FUSED_SHIFT_ROWS_DELAY`], derived from Table
//!   4: the fused AddKeyShiftRows executes 37 cycles, the lone AddRoundKey
//!   18); the paper's AddKeyShiftRows thus takes 22 + 19 = 41 cycles. The
//!   fusions themselves are still decided on §5.1's standalone sum (22 + 38
//!   = 60 < 70). No fused core is any engine's bottleneck, so this changes
//!   no throughput; it changes how long fused cores sit idle (energy). KeySchedule carries the
//!   last Nk key words, so it takes 60·Nk/4 cycles (90/120 for 192/256-bit
//!   keys, §4.9: "the key expansion cores require more clock cycles").
//! * **Program shape** (one rule per step kind, [`compile`]): SubBytes and
//!   AddRoundKey alone stream word by word; every other actor spreads the
//!   part of its first step that needs only the word at hand over its input
//!   words (all of ShiftRows, which only places bytes; half of MixColumns,
//!   the xtime of each input byte) and runs the rest after its last input,
//!   then writes. FIFO reads and writes cost no extra cycles (AsAP
//!   instructions take FIFO operands; Table 1 includes them).
//! * **Platform**: two input ports per core, four output destinations (one
//!   per mesh direction) — more need MergeCores / DispatchCores, which
//!   forward one word per cycle plus two cycles per firing; 32-word FIFOs;
//!   3 cycles link latency plus 1 per extra tile of a long-distance link;
//!   one word per cycle per link; off-array ports one word per cycle; a
//!   stalled core's clock halts after 8 cycles.
//! * **Loops** hold one block: the loop's first core starts the next block
//!   after the current block's last round has passed it, so a
//!   non-unrolled design's throughput is set by the loop latency. Small is
//!   the exception (two blocks, see [`engines::small`]).
//! * **Structures** the text does not pin down are reconstructed from the
//!   core counts: see each builder in [`engines`]. All 16 engines reproduce
//!   Table 2's total and communication core counts exactly, and the
//!   pre-optimisation counts the text gives (OTOP 10, Parallel-MixColumns
//!   16, Parallel-SubBytes-MixColumns 22, Loop-unrolled Three 24 and Nine
//!   60, Full-parallelism 164).
//!
//! ## Model vs paper (AES-128, 4,096 blocks; `aesflow designs --table`)
//!
//! | engine | c/B online | c/B offline | paper | err |
//! |---|---|---|---|---|
//! | Small | 161.9 | 161.9 | 167.375 | −3.3% |
//! | One-task one-processor | 228.1 | 226.1 | 223.875 | +1.9% / +1.0% |
//! | Parallel-MixColumns | 128.8 | 126.3 | 136.25 | −5.5% / −7.3% |
//! | Parallel-SubBytes-MixColumns | 86.9 | 87.4 | 84.375 | +3.0% / +3.6% |
//! | Loop-unrolled Three Times | 70.8 | 69.0 | 68.625 | +3.1% / +0.5% |
//! | Loop-unrolled Nine Times | 16.625 | 16.625 | 16.625 | 0 |
//! | No-merge-parallelism | 9.125 | 9.125 | 9.5 | −3.9% |
//! | Full-parallelism | 4.375 | 4.375 | 4.375 | 0 |
//!
//! Every engine is within ±10%, so none needs a special explanation; the
//! residuals come from the loop designs (whose period is the loop latency,
//! sensitive to how much of each step overlaps its neighbours — the paper's
//! programs are not published) and from No-merge, whose MixColumns-8 delay
//! is interpolated (Table 1 does not list it). Loop-unrolled Nine Times and
//! Full-parallelism are bound by one actor (MixColumns-16, MixColumns-4);
//! there the SDF bound and the simulator agree exactly (266 and 70).
//!
//! Longer keys (§4.9, never built in the paper): non-unrolled designs keep
//! their cores and loop Nr − 1 times; unrolled designs add cores per round
//! (No-merge +12/+24 as the paper says); Full-parallelism online becomes
//! KeySchedule-bound (90/120 cycles per block).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
mod behavior;
pub mod compile;
pub mod describe;
pub mod engines;
pub mod error;
pub mod graph;
pub mod kinds;
pub mod optimize;
pub mod report;
pub mod run;
pub mod space;
pub mod validate;

pub use engines::Engine;
pub use error::Error;
pub use graph::Design;
pub use optimize::Optimisations;
pub use run::{Expansion, Run, build, run_design};
