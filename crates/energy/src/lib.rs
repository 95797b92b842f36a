//! # aesflow-energy: power, energy, DVFS, scaling and the platform comparison
//!
//! Liu & Baas, "Parallel AES Encryption Engines for Many-Core Processor
//! Arrays" (IEEE Transactions on Computers), rest their conclusion on area
//! and energy efficiency (§5–7, Tables 3–5, Figs. 12–15); the companion
//! conference talk adds per-core frequency and dual-supply scaling. This crate computes all of it
//! from the *simulated activity* of each engine — the per-core executing,
//! NOP, clock-on stall and halted cycles and the per-link busy cycles that
//! `aesflow-array`'s timed simulator counts while the engines of
//! `aesflow-designs` really encrypt — and never types a result in.
//!
//! * [`power`] — Table 3 (per-core-state power at 1.3 V / 1.2 GHz) as
//!   energy per event, eqs. 3–7, `f_max(Vdd)` fitted to the AsAP2 points
//!   (alpha-power law through 1.2 GHz at 1.3 V, 1.07 GHz at 1.2 V, 66 MHz at
//!   0.675 V), dynamic energy ∝ Vdd², leakage ∝ Vdd.
//! * [`activity`] — steady-state activity per core: each engine simulated
//!   on `n` and `2n` blocks and the counters subtracted (no fill/drain), every
//!   block checked against the reference cipher; power per core kind
//!   (Table 4), total power, energy per bit.
//! * [`dvfs`] — the talk's `f_opt,i = N_exe,i / N_exe,crit · f_crit`, each
//!   engine re-simulated with every core on its own clock (GALS,
//!   [`aesflow_array::simulate_clocked`]) so that the throughput is kept, and
//!   the dual-supply assignment with the best `Vdd_Low`.
//! * Fig. 12 — 1×, 2×, 4× copies of each offline engine gathered by the next
//!   core's two input ports ([`aesflow_array::gather`]: the mapper inserts
//!   the two MergeCores a 4× copy needs), simulated and verified.
//! * [`compare`] — Table 5 (the paper's rows, the model's AsAP row) and
//!   [`host`] — a row for the host: its measured speed is an *input*
//!   ([`HostFigure`], a plain value the caller measures), its silicon comes from a
//!   small table of known CPUs ([`host::KNOWN_CPUS`]).
//! * [`study()`] runs it all; [`checks`] sets each figure beside the paper's
//!   ([`paper`]); [`json`] writes one JSON document, [`figures`](mod@figures)
//!   draws the charts (with `aesflow-chart`) with the paper's values beside
//!   the model's. The crate returns data: the text tables are the CLI's
//!   (`aesflow energy`). Failures are [`EnergyError`]s naming the design.
//!
//! ## Model parameters
//!
//! One set for every engine and figure; no per-engine or per-figure factor
//! exists anywhere.
//!
//! | parameter | value | where the papers give it | fitted to |
//! |---|---|---|---|
//! | `P_exe`, `P_stall`, `P_leak` | 59.5, 31.0, 0.13 mW | Liu & Baas, Table 3 (§6.1) | given |
//! | `P_near`, `P_long` | 5.9 mW, 12.1 mW per tile | Table 3 | given |
//! | `V_ref`, `f_ref` | 1.3 V, 1.2 GHz | §6.1 | given |
//! | dynamic energy | ∝ Vdd² | §6.3, eq. 7 ("Power ∝ Vdd²·f") | given |
//! | leakage power | ∝ Vdd | not given (Table 3 is one point; §6.1: "negligible") | first-order choice; under 1% of any figure |
//! | `f_max(Vdd)` | `k(V−V_t)^a/V` | §6.1 (1.2 GHz at 1.3 V); Truong et al., JSSC 2009 (1.07 GHz at 1.2 V, 66 MHz at 0.675 V) | the three points, exactly |
//! | halting latency | 16 cycles | Table 4, SubByte row (16 stalled with the clock on, then 15 halted) | that row |
//! | fused ShiftRows | 19 cycles beside AddRoundKey, 0 beside SubBytes | Table 4: AddKeyShiftRows executes 37, FinalRoundAddKey 18; Table 1 and §5.1: SubBytes works per byte, ShiftRows "is only byte-rotation" | that difference (No-merge's energy is a prediction) |
//! | NOP share (clock on, not executing) | SubBytes 30%, MixColumns 10%, AddRoundKey 4 of 22 | Table 4: SubByte 12 of ~39, MixColumn-4 7 of 70; FinalRoundAddKey (AddRoundKey alone) executes 18 of Table 1's 22 | Table 4's NOP and execution columns |
//! | step delays | Table 1 | Table 1; §4.4 (MixColumns-2), §5.1 | given (MixColumns-8 interpolated) |
//! | mesh, FIFOs, links, MergeCores | `aesflow_array::Platform::asap2` | §3 (two input ports, mesh, GALS) | not fitted to any energy figure |
//!
//! Everything else is a **prediction** of the simulated activity: Table
//! 4's totals and per-kind rows (apart from the SubByte row's split and
//! NOPs above), Table 5's No-merge power and energy, Fig. 14, Fig. 15,
//! §6.3's ratio, Fig. 12 and the talk's DVFS savings.
//!
//! ## A fused ShiftRows costs its compute part (Table 4, §5.1, §6.2)
//!
//! One timing rule comes from Table 4 rather than Table 1, for every engine
//! alike ([`aesflow_designs::kinds::FUSED_SHIFT_ROWS_DELAY`]): a ShiftRows
//! that shares a core with another step takes 19 cycles, not Table 1's 38.
//! Derivation, from Table 4's executing cycles per block (measured on the
//! chip, §6): the fused AddKeyShiftRows executes 37; FinalRoundAddKey, the
//! same AddRoundKey alone, executes 18; so the ShiftRows inside the fused
//! core executes 37 − 18 = 19 — half of the standalone 38, the other half
//! being the standalone core's moving of the eight state words in and out
//! (ShiftRows "is only byte-rotation", §5.1). The same row shows that §5.1's
//! "60 cycles" (22 + 38, the standalone sum) is not the chip's timing: the
//! core halts its clock 15 of every 70 cycles, impossible if it were busy
//! 60 of them. The fusions are still *decided* on §5.1's 60 < 70, and no
//! fused core is a bottleneck, so Table 2's cycles per byte are unchanged
//! for all 16 engines (largest error −7.3%, Parallel-MixColumns offline).
//!
//! Beside SubBytes a fused ShiftRows costs nothing
//! ([`aesflow_designs::kinds::step_delays`]): SubBytes handles one byte at
//! a time (Table 1: 10 cycles per byte for SubBytes-1: take the byte out of
//! its 16-bit word, look it up, pack the result), so the No-merge core that
//! combines "the SubBytes and the ShiftRows stages in one core" (§4.8)
//! packs each substituted byte at its rotated place instead of its own, in
//! the same instructions. The 19 cycles above are the repacking a wordwise
//! step (AddRoundKey XORs whole 16-bit words) has to add. No such core is
//! a bottleneck either: Table 2 is unchanged.
//!
//! Rules that keep every core's period at its Table 1 sum and only
//! re-label part of it fall short, and the numbers say why:
//!
//! * *Per-word I/O cycles as clock-on stall* contradicts Table 4: its
//!   MixColumn-4 (2 words in, 2 out) executes 63 and NOPs 7 of Table 1's 70
//!   with no stall at all, and its AddRoundKey (8 in, 8 out) would execute
//!   22 − 16 = 6 cycles where the paper measures 18.
//! * *A compute/communication split per kind from Table 4* (ShiftRows 19 of
//!   38 and AddRoundKey 4 of 22 as clock-on stall; MixColumns and SubBytes
//!   execute their full delays in Table 4) gives No-merge 1.75 nJ/bit
//!   (+13%): a re-labelled cycle saves only 59.5 − 31.0 mW of Table 3,
//!   while the paper's fused core *halts* (0.13 mW). It also cannot show
//!   Table 4's 15 halted cycles (the fused row would be 37 / 32 / 1
//!   executing / clock-on / halted against the paper's 37 / 18 / 15; with
//!   the rule above, and AddRoundKey's 4 hazard cycles of the parameter
//!   table, it is 37 / 21 / 12).
//!
//! ## Model vs paper (AES-128, `aesflow energy`, 256 blocks per engine)
//!
//! Every figure is a [`Check`] held to ±10% ([`checks::TOLERANCE`]) or
//! to the band of a documented exception ([`checks::EXCEPTIONS`], whose
//! reason travels with the figure as [`Check::note`] into the text, the
//! JSON and the report); `tests/energy.rs` fails if any drifts beyond.
//!
//! | figure | paper | model | error |
//! |---|---|---|---|
//! | Table 4: offline Full-parallelism total power | 4.52 W | 4.38 W | −3.1% |
//! | — execution | 3.35 W | 3.41 W | +1.9% |
//! | — stall (clock on) | 1.09 W | 0.87 W | −19.9% (exception) |
//! | — leakage | 2.12 mW | 2.79 mW | +31.6% (exception) |
//! | — communication | 81.4 mW | 89.7 mW | +10.2% (exception) |
//! | — throughput | 2.21 Gbps | 2.19 Gbps | −0.7% |
//! | — per core: AddKeyShiftRows / SubByte / MixColumn-4 / FinalRoundAddKey | 41.5 / 35.7 / 57.2 / 34.4 mW | 43.0 / 37.1 / 57.3 / 31.9 | +3.5 / +3.8 / +0.2 / −7.1% |
//! | — per core: MergeCore | 29.2 mW | 18.6 mW | −36.4% (exception) |
//! | Table 5: No-merge offline energy per bit, 1.3 V | 1.55 nJ/bit | 1.566 | +1.1% |
//! | Table 5: No-merge offline power (1.21 GHz) | 1.58 W | 1.66 W | +5.2% |
//! | Table 5: No-merge offline throughput (1.21 GHz) | 1019 Mbps | 1061 | +4.1% |
//! | Table 5: AsAP No-merge throughput per area | 153.7 Mbps/mm² | 160.0 | +4.1% |
//! | Fig. 14: No-merge at 1.3 V / 0.675 V | 1.54 / 0.39 nJ/bit | 1.566 / 0.431 | +1.7 / +10.5% (exception) |
//! | §6.3: Parallel-MixColumns / No-merge | ≈ 2× | 1.40× | −30% (exception) |
//! | Fig. 15: online overhead, lowest / highest | 35 / 55% | 29.6 / 43.4% | −15 / −21% (exceptions) |
//! | Talk: frequency scaling, best / mean | 16 / 11% | 12.2 / 5.1% | −24 / −53% (exceptions) |
//! | Talk: + dual supply, best / mean | 32 / 22% | 34.2 / 15.2% | +6.8% / −31% (exception) |
//!
//! ## Where the model misses, and why
//!
//! * **No-merge energy per bit (+1.1%)** is close to its floor. The
//!   paper's 1.58 W at 152 cycles per block and 1.21 GHz is 198.5 nJ per
//!   block. No-merge's 39 cores execute about 3,400 cycles per block
//!   (Table 1's delays; nothing for the ShiftRows fused with SubBytes) at
//!   49.6 pJ (Table 3: 59.5 mW at 1.2 GHz), and their NOPs (Table 4's
//!   shares) add about 600 cycles at 25.8 pJ: the rest of the model's
//!   200.4 nJ is clock-on waiting and links (2.5 nJ). With the ShiftRows
//!   at 19 cycles beside SubBytes too, the executing cycles alone would be
//!   185 nJ and the figure +9.4%. The power (+5.2%) is this energy times a
//!   throughput 4.1% above the paper's (146 cycles per block against 152).
//! * **Stall power (−22%), leakage (+32%) and the MergeCore (−36%): one
//!   cause, the MergeCores' waits.** Table 4's MergeCore waits 60 of 70
//!   cycles, 44 with the clock on and 16 halted. With the 16-cycle
//!   halting latency that the SubByte row shows, 44 clock-on cycles need
//!   at least three separate waits of 12 cycles or more per block: the
//!   words reach the paper's MergeCores spread over the period. The
//!   model's MixColumns-4 cores write their column's two words together
//!   at the end of their work, so its MergeCores wait once per block (18
//!   cycles on, 40 halted). A MergeCore's missing 26 clock-on cycles × 20
//!   cores are more than the whole stall gap (≈ 0.23 W) and most of the leakage
//!   excess. Writing MixColumns' output word by word as it is computed
//!   does produce the paper's waits (stall −6.3%, leakage −1.5%, MergeCore
//!   −16%, total +1.0%) but raises No-merge's energy by 8 points (its
//!   ShiftRows+SubBytes-8 cores then wait in many short clock-on stalls)
//!   and the best frequency-scaling saving to 22% (+37%): under one
//!   halting latency the two tables pull the clock-on/halted split in
//!   opposite directions, and the model keeps the rule that serves the
//!   paper's headline figures. The paper's own MergeCore total (18.63 mW)
//!   does not match its four components (29.24 mW); the model's 18.6 mW
//!   matches the printed one.
//! * **Communication (+10%)**: Table 4 counts each core's words in *and*
//!   out (FinalRoundAddKey: 16 = 8 in + 8 out; MergeCore 8 long = 4 + 4),
//!   so every link at both ends, and a long word at one tile's 12.1 mW.
//!   The model charges each link once, at its sender, per tile crossed.
//!   The traffic agrees (656 word-ends per block against the paper's
//!   640); the placement does not (75% of them on long links against
//!   49%), and the two differences nearly cancel.
//! * **Fig. 14 at 0.675 V (+10.5%)** follows the 1.3 V figure (+2%) by the
//!   stated law, energy ∝ Vdd²: 0.27 of it at 0.675 V (0.275 with the
//!   leakage of cores halted at 66 MHz). The paper's own end points give
//!   0.39 / 1.54 = 0.25; the measured AsAP2 point (608 µW at 66 MHz) is
//!   0.19 of Table 3's energy per cycle: the chip beats Vdd² near
//!   threshold.
//! * **Parallel-MixColumns ≈ 2× No-merge (model 1.40×)** and **Fig. 15
//!   (30–43% against 35–55%)**: a loop design's cores, and every online
//!   engine's key-expansion cores, wait most of each block, and the model
//!   halts their clocks 16 cycles into every wait (Table 4's latency).
//!   Parallel-MixColumns then costs about its work: 281 nJ per block, 199
//!   of them executing, its 12 cores halted for about 17,000 of their
//!   24,200 core-cycles per block. The paper's 2× (about 400 nJ) needs
//!   about 4,500 of those halted cycles, a quarter, to run with the clock
//!   on (25.8 pJ each).
//! * **DVFS means (5.1% and 15.2% against 11% and 22%).** In the
//!   non-unrolled designs the loop holds one block, so every core is on
//!   the loop's critical path: slowing any core lengthens the loop, and the
//!   re-simulation raises the clocks back (margin `k` of 2–7), leaving
//!   little to save. The pipelined engines (Full, No-merge, Loop-unrolled
//!   Nine) save 6–12% by frequency and 21–34% with dual supply, inside the
//!   talk's ranges.
//!
//! ## Table 5's host row
//!
//! The caller measures the host (`aesflow energy` times the fastest
//! constant-time kernel on AES-128-CTR, 16 KiB, one core, with
//! `aesflow-bench`) and hands the figure in. The CPU's area, power and
//! supply cannot be measured from software: [`host::identify`] matches
//! `/proc/cpuinfo` to a small table of known CPUs (AMD EPYC Zen 5, Zen 4 and
//! Zen 3, Intel Skylake-SP / Cascade Lake), says whether the part was
//! identified or assumed (a virtual machine may hide it), and leaves area
//! and power out for an unknown CPU. The row is scaled to 65 nm / 1.3 V by
//! the general rule of Fig. 16's caption (the PTM curves the paper used are
//! not in its text); recomputing the paper's own rows with that rule shows
//! how far the two scalings differ (identical at 65 nm, up to 3× in energy
//! at 45 nm).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod activity;
/// The SVG charts the figures are drawn with.
use aesflow_chart as chart;
pub mod checks;
pub mod compare;
pub mod dvfs;
pub mod error;
pub mod figures;
pub mod host;
pub mod json;
pub mod paper;
pub mod power;
pub mod study;
mod table;

pub use checks::Check;
pub use error::EnergyError;
pub use figures::{Figure, figures, write_charts};
pub use host::{CpuChoice, CpuSpec, HostCpu, HostFigure};
pub use json::to_json;
pub use study::{Options, Study, overhead, study, study_with_progress};
