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
//! Only the paper's: Table 3's five powers, the three AsAP2 (V, f) points,
//! dynamic energy ∝ Vdd² and leakage ∝ Vdd, the AsAP2 platform of
//! `aesflow-array`. One platform parameter differs from that platform: the
//! clock-halting latency is 16 cycles (the array model's default is a
//! guess of 8; it never affects timing), read from Table
//! 4's SubByte row, which stalls once per period — 16 cycles with the clock
//! running, then 15 halted. With it the model reproduces that row exactly
//! (16.0 and 14.0). No per-engine factor exists anywhere.
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
//!   the rule above it is 41 / 17 / 12).
//!
//! ## Model vs paper (AES-128, `aesflow energy`)
//!
//! Before → after the fused-ShiftRows rule:
//!
//! | figure | paper | before | after | error after |
//! |---|---|---|---|---|
//! | Table 4: offline Full-parallelism total power | 4.52 W | 4.53 W | 4.40 W | −2.7% |
//! | — execution | 3.35 W | 3.61 W | 3.45 W | +3.0% |
//! | — stall (clock on) | 1.09 W | 0.82 W | 0.85 W | −21.7% |
//! | — leakage | 2.12 mW | 2.57 mW | 2.79 mW | +32% |
//! | — communication | 81.4 mW | 89.7 mW | 89.7 mW | +10% |
//! | — throughput | 2.21 Gbps | 2.19 Gbps | 2.19 Gbps | −0.7% |
//! | — AddKeyShiftRows exec / clock-on / halted | 37 / 18 / 15 | 60 / 9 / 1 | 41 / 17 / 12 | |
//! | No-merge offline power (1.3 V, 1.21 GHz) | 1.58 W | 1.94 W | 1.80 W | +13.8% |
//! | No-merge offline throughput (1.21 GHz) | 1019 Mbps | 1061 Mbps | 1061 Mbps | +4.1% |
//! | **No-merge offline energy per bit, 1.3 V** | **1.55 nJ/bit** | **1.83** | **1.695** | **+9.4% (target ±10%: met)** |
//! | Fig. 14: No-merge at 0.675 V | 0.39 nJ/bit | 0.50 | 0.46 | +19% |
//! | Parallel-MixColumns / No-merge energy | ≈ 2× | 1.21× | 1.30× | −35% |
//! | Fig. 15: online overhead, range | 35–55% | 29–40% | 29–42% | inside a 25–65% target |
//! | Talk: frequency scaling, best / mean | 16% / 11% | 11.1% / 4.6% | 12.1% / 4.9% | −24% / −55% |
//! | Talk: + dual supply, best / mean | 32% / 22% | 29.0% / 13.4% | 31.8% / 14.7% | −1% / −33% |
//! | Table 5: AsAP No-merge throughput/area | 153.7 Mbps/mm² | 160.0 | 160.0 | +4.1% |
//!
//! ## Where the model misses, and why
//!
//! * **No-merge energy per bit (+9.4%, inside ±10% with little margin).**
//!   Energy per block is, to first order, the executing cycles per block
//!   times 49.6 pJ (Table 3: 59.5 mW at 1.2 GHz). For No-merge's structure
//!   (18 ShiftRows+SubBytes-8, 18 MixColumns-8+AddRoundKey-8, SubBytes-16,
//!   ShiftRows+AddRoundKey, AddRoundKey: the paper's 39 cores) the delays
//!   add up to ≈ 4,350 cycles per block (≈ 4,700 before the rule), of which
//!   ≈ 3,700 executing; the paper's 1.58 W at 152 cycles and 1.21 GHz is
//!   198 nJ per block, at most 4,000 busy cycles. What is left is mostly
//!   the 18 MixColumns-8+AddRoundKey-8 cores (57% of the power), whose
//!   MixColumns-8 delay (135) is interpolated — Table 1 has no MixColumns-8
//!   — and which the model runs at 146 cycles per block against the
//!   paper's 152.
//! * **Stall power (−22%) and MergeCores.** The paper's MergeCores spend 44
//!   of 70 cycles stalled with the clock on; ours forward 8 words per block
//!   and stall between words for less than the 16-cycle halting latency
//!   only once per block. The paper's measured MergeCores evidently keep
//!   their clock running while they wait (e.g. they poll); the model's single
//!   halting latency cannot do both this and the SubByte row. The same
//!   MergeCores are most of the leakage excess (+32%, 2.8 mW of 4.4 W):
//!   they halt 40 of 70 cycles where the paper's halt 16.
//! * **Fig. 14's low end (+19%)** follows the stated law, energy ∝ Vdd².
//!   The measured AsAP2 point (608 µW at 66 MHz, 0.675 V) is 9.2 pJ per
//!   cycle, 0.19 of the 1.3 V figure where Vdd² predicts 0.27; the chip beats
//!   the quadratic law near threshold, and the paper's 0.39 sits between.
//! * **Parallel-MixColumns ≈ 2× No-merge (model 1.3×).** In the model a
//!   core waiting for its loop to come round halts its clock after 16
//!   cycles and then leaks only, so a loop design's energy per block is
//!   close to its work per block, like a pipelined design's. The paper's
//!   factor 2 means its loop designs burn much more while waiting.
//! * **DVFS means (4.9% and 14.7% vs 11% and 22%).** In the reconstructed
//!   non-unrolled designs the loop holds one block, so *every* core is on
//!   the loop's critical path: slowing any core lengthens the loop and loses
//!   throughput, and the re-simulation has to raise the clocks back (margin
//!   `k` of 2–7), leaving little to save. The pipelined engines (Full,
//!   No-merge, Loop-unrolled Nine) save 6–12% by frequency and 21–32% with
//!   dual supply, inside the talk's ranges; the means fall short because of
//!   the loop designs.
//! * **Online overhead 29–42% (paper 35–55%)**: the online engines' key
//!   cores (KeySchedule 60, KeySubWord 56 cycles per round) are simulated
//!   like any core; the overhead of every engine is inside 25–65%.
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
