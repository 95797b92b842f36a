//! AES actor kinds, their delays on AsAP2 (paper Table 1) and the fused
//! kinds the paper uses.

use std::fmt;

/// A range of state columns `[start, end)` (a column is four bytes, two
/// 16-bit words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cols(pub u8, pub u8);

impl Cols {
    /// All four columns.
    pub const ALL: Cols = Cols(0, 4);
    /// Column `c` alone.
    pub fn one(c: u8) -> Cols {
        Cols(c, c + 1)
    }
    /// Number of columns.
    pub fn len(self) -> usize {
        usize::from(self.1.saturating_sub(self.0))
    }
    /// Empty range.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// Bytes covered.
    pub fn bytes(self) -> usize {
        4 * self.len()
    }
    /// The 16-bit word indices covered (0..8 within a state).
    pub fn words(self) -> std::ops::Range<usize> {
        2 * usize::from(self.0)..2 * usize::from(self.1)
    }
    /// Intersection, if not empty.
    pub fn intersect(self, o: Cols) -> Option<Cols> {
        let a = self.0.max(o.0);
        let b = self.1.min(o.1);
        (a < b).then_some(Cols(a, b))
    }
    /// True if `o` lies inside `self`.
    pub fn contains(self, o: Cols) -> bool {
        self.0 <= o.0 && o.1 <= self.1
    }
}

impl fmt::Display for Cols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.0, self.1)
    }
}

/// One AES step as an actor performs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// SubBytes on the bytes of these columns.
    Sub(Cols),
    /// ShiftRows on the whole state.
    Shift,
    /// MixColumns on these columns.
    Mix(Cols),
    /// AddRoundKey on these columns.
    AddKey(Cols),
}

impl Prim {
    /// Execution delay on AsAP2 in cycles per firing (paper Table 1; sizes
    /// the table does not list are interpolated, see the crate docs).
    pub fn delay(self) -> u32 {
        match self {
            Prim::Sub(c) => {
                let k = c.bytes() as u32;
                // SubBytes-1: 10/byte, SubBytes-4: 40, SubBytes-16: 132.
                if k <= 4 {
                    10 * k
                } else {
                    (132 * k).div_ceil(16)
                }
            }
            Prim::Shift => 38,
            Prim::Mix(c) => match c.len() {
                // MixColumns-4: 70 per column, MixColumns-16: 266 per block.
                1 => 70,
                4 => 266,
                n => 70 + (196 * (n as u32 - 1)) / 3,
            },
            // AddRoundKey: 22 per block.
            Prim::AddKey(c) => (22 * c.bytes() as u32).div_ceil(16),
        }
    }

    /// NOP cycles among [`Prim::delay`] (hazards; Table 4: SubByte 12 of
    /// ~39, MixColumn-4 7 of 70, the rest none).
    pub fn nop(self) -> u32 {
        match self {
            Prim::Sub(_) => self.delay() * 3 / 10,
            Prim::Mix(_) => self.delay() / 10,
            _ => 0,
        }
    }

    /// Instruction-memory use in percent (Table 1).
    pub fn imem(self) -> u32 {
        match self {
            Prim::Sub(c) => {
                if c.bytes() <= 4 {
                    9
                } else {
                    10
                }
            }
            Prim::Shift => 18,
            Prim::Mix(c) => match c.len() {
                1 => 31,
                4 => 63,
                n => 31 + 32 * (n as u32 - 1) / 3,
            },
            Prim::AddKey(_) => 18,
        }
    }

    /// Bytewise steps can stream word by word.
    pub fn is_bytewise(self) -> bool {
        matches!(self, Prim::Sub(_) | Prim::AddKey(_))
    }

    /// Short name: `SubBytes-4`, `MixColumns-16`, `ShiftRows`, `AddRoundKey`.
    pub fn name(self) -> String {
        match self {
            Prim::Sub(c) => format!("SubBytes-{}", c.bytes()),
            Prim::Shift => "ShiftRows".into(),
            Prim::Mix(c) => format!("MixColumns-{}", c.bytes()),
            Prim::AddKey(c) if c == Cols::ALL => "AddRoundKey".into(),
            Prim::AddKey(c) => format!("AddRoundKey-{}", c.bytes()),
        }
    }

    /// Parse a [`Prim::name`] (columns default to the whole state or, for
    /// partial sizes, to the first columns; the description format gives
    /// columns explicitly).
    pub fn parse(s: &str, cols: Cols) -> Option<Prim> {
        let base = s.split('-').next()?;
        Some(match base {
            "SubBytes" => Prim::Sub(cols),
            "ShiftRows" => Prim::Shift,
            "MixColumns" => Prim::Mix(cols),
            "AddRoundKey" => Prim::AddKey(cols),
            _ => return None,
        })
    }
}

/// The kind of a (possibly fused) cipher actor: its steps in order.
pub fn kind_name(steps: &[Prim]) -> String {
    use Prim::*;
    match steps {
        [p] => p.name(),
        [Sub(a), Shift] | [Shift, Sub(a)] if *a == Cols::ALL => "SubBytesShiftRows".into(),
        [Shift, Sub(a)] => format!("ShiftRowsSubBytes-{}", a.bytes()),
        [AddKey(a), Shift] if *a == Cols::ALL => "AddKeyShiftRows".into(),
        [Shift, AddKey(a)] if *a == Cols::ALL => "ShiftRowsAddKey".into(),
        [Mix(a), AddKey(b)] if a == b => format!("MixColumnsAddKey-{}", a.bytes()),
        _ => steps.iter().map(|p| p.name()).collect::<Vec<_>>().join("+"),
    }
}

/// Cycles of a ShiftRows that shares its core with another step (a fused
/// actor): its compute part only, 19 of Table 1's 38.
///
/// Derived from Table 4 (§6.2, measured on the chip): the fused
/// AddKeyShiftRows core *executes* 37 cycles per block and the
/// FinalRoundAddKey core, the same AddRoundKey code alone, 18; the
/// ShiftRows part of the fused core is therefore 37 − 18 = 19 cycles. The
/// other 19 cycles of a standalone ShiftRows move the state through the
/// core (ShiftRows "is only byte-rotation", §5.1: a standalone core reads
/// the eight state words, repacks their bytes and writes them); fused,
/// the neighbouring step already holds the state and the rotation is done
/// while that step stores it. Table 4's own AddKeyShiftRows row rules out
/// the §5.1 figure as the chip's timing: the core halts its clock 15 of
/// every 70 cycles, impossible if it were busy 60 of them (at most 10 idle).
/// §5.1's "60 cycles" is the sum of Table 1's standalone delays, which is
/// what the fusion rule of [`crate::optimize`] still checks against the
/// bottleneck (the designer's criterion).
pub const FUSED_SHIFT_ROWS_DELAY: u32 = 19;

/// The cycles each step of an actor takes: [`Prim::delay`], except a
/// ShiftRows fused with other steps ([`FUSED_SHIFT_ROWS_DELAY`]).
pub fn step_delays(steps: &[Prim]) -> impl Iterator<Item = u32> + '_ {
    let fused = steps.len() > 1;
    steps.iter().map(move |&p| match p {
        Prim::Shift if fused => FUSED_SHIFT_ROWS_DELAY,
        _ => p.delay(),
    })
}

/// Delay of a (possibly fused) actor: the sum of its [`step_delays`] (the
/// paper's AddKeyShiftRows: 22 + 19 = 41 cycles; Table 4 measures 37,
/// §5.1 quotes the standalone sum 22 + 38 = 60).
pub fn steps_delay(steps: &[Prim]) -> u32 {
    step_delays(steps).sum()
}

/// NOPs of a fused actor.
pub fn steps_nop(steps: &[Prim]) -> u32 {
    steps.iter().map(|p| p.nop()).sum()
}

/// Instruction memory of a fused actor in percent.
pub fn steps_imem(steps: &[Prim]) -> u32 {
    steps.iter().map(|p| p.imem()).sum()
}

/// KeySubWord: 56 cycles per round key (Table 1).
pub const KEY_SUB_WORD_DELAY: u32 = 56;
/// KeySubWord instruction memory (Table 1).
pub const KEY_SUB_WORD_IMEM: u32 = 13;
/// KeySchedule instruction memory (Table 1).
pub const KEY_SCHEDULE_IMEM: u32 = 22;

/// KeySchedule (KeyRotWord + KeyXOR): 60 cycles per round key for AES-128
/// (Table 1). It carries the last `Nk` key words from round to round, so for
/// longer keys its work grows with `Nk` (§4.9: "the key expansion cores
/// require more clock cycles"): 60·Nk/4 = 60, 90, 120.
pub fn key_schedule_delay(nk: usize) -> u32 {
    60 * nk as u32 / 4
}
