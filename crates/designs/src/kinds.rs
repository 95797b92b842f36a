//! AES actor kinds, their delays on AsAP2 (paper Table 1) and the fused
//! kinds the paper uses.

use std::fmt;

/// A part of the state: the bytes `[start, end)` of the 16-byte block, in
/// FIPS-197 order (byte `4c + r` is row `r` of column `c`).
///
/// The steps split the state at three granularities: the whole block, a
/// range of columns (MixColumns needs whole columns), or single bytes
/// (SubBytes-1). A part's Display and the description format write a
/// column-aligned part as its columns (`0..4`, `2..3`) and any other part
/// as its bytes (`b5`, `b4..6`).
///
/// **Transport.** The array's words are 16 bits: state word `w` holds bytes
/// `2w` (high half) and `2w + 1` (low half). A part that starts and ends on
/// a word boundary (every column range) travels as its state words, each
/// landing on its own state address ([`Part::words`]). A part that does not
/// (a single byte) travels byte by byte, each byte as one word carrying the
/// byte in its low half, landing on the byte's own *landing word*
/// ([`crate::graph::BYTE_BASE`] + byte); the receiving core merges the
/// landed bytes into its state before it computes, so two producers of the
/// two bytes of one word never overwrite each other. This is what a
/// SubBytes-1 core on AsAP does (one byte in, one byte out, in 16-bit
/// FIFO words; the paper does not publish the encoding). The model charges
/// the merge no extra cycles: like a FIFO operand it is inside Table 1's
/// delay (SubBytes-1: 10 cycles per byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Part(pub u8, pub u8);

impl Part {
    /// The whole state.
    pub const ALL: Part = Part(0, 16);
    /// Column `c` (bytes `4c..4c + 4`).
    pub fn col(c: u8) -> Part {
        Part(4 * c, 4 * c + 4)
    }
    /// Columns `[a, b)`.
    pub fn cols(a: u8, b: u8) -> Part {
        Part(4 * a, 4 * b)
    }
    /// Byte `k` alone.
    pub fn byte(k: u8) -> Part {
        Part(k, k + 1)
    }
    /// Bytes covered.
    pub fn bytes(self) -> usize {
        usize::from(self.1.saturating_sub(self.0))
    }
    /// Empty range.
    pub fn is_empty(self) -> bool {
        self.bytes() == 0
    }
    /// A non-empty part inside the block.
    pub fn is_valid(self) -> bool {
        self.0 < self.1 && self.1 <= 16
    }
    /// Starts and ends on a column boundary.
    pub fn is_columns(self) -> bool {
        self.0.is_multiple_of(4) && self.1.is_multiple_of(4)
    }
    /// Starts and ends on a word boundary: travels as state words (see
    /// the type's docs).
    pub fn is_word_aligned(self) -> bool {
        self.0.is_multiple_of(2) && self.1.is_multiple_of(2)
    }
    /// The columns the part touches.
    pub fn columns(self) -> std::ops::Range<usize> {
        usize::from(self.0) / 4..usize::from(self.1).div_ceil(4)
    }
    /// The byte indices covered.
    pub fn range(self) -> std::ops::Range<usize> {
        usize::from(self.0)..usize::from(self.1)
    }
    /// The 16-bit state words the part touches (0..8).
    pub fn words(self) -> std::ops::Range<usize> {
        usize::from(self.0) / 2..usize::from(self.1).div_ceil(2)
    }
    /// The words a state part travels as, each with the state word it
    /// belongs to and its data-memory address within a block slot: the
    /// state words themselves for a word-aligned part, otherwise one
    /// landing word per byte (see the type's docs).
    pub fn carried(self) -> Vec<(usize, usize)> {
        if self.is_word_aligned() {
            self.words().map(|w| (w, w)).collect()
        } else {
            self.range()
                .map(|k| (k / 2, crate::graph::BYTE_BASE + k))
                .collect()
        }
    }
    /// Intersection, if not empty.
    pub fn intersect(self, o: Part) -> Option<Part> {
        let a = self.0.max(o.0);
        let b = self.1.min(o.1);
        (a < b).then_some(Part(a, b))
    }
    /// True if `o` lies inside `self`.
    pub fn contains(self, o: Part) -> bool {
        self.0 <= o.0 && o.1 <= self.1
    }
    /// Parse the [`Display`](fmt::Display) form: columns `c0..c1`, bytes
    /// `bK` or `bA..B`.
    pub fn parse(s: &str) -> Result<Part, String> {
        let num = |x: &str| x.parse::<u8>().map_err(|_| format!("bad number {x}"));
        let (bytes, r) = match s.strip_prefix('b') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (a, b) = match r.split_once("..") {
            Some((a, b)) => (num(a)?, num(b)?),
            None if bytes => {
                let k = num(r)?;
                (k, k.saturating_add(1))
            }
            None => return Err(format!("expected c0..c1, bK or bA..B, got {s}")),
        };
        let p = if bytes {
            Part(a, b)
        } else if a < b && b <= 4 {
            Part::cols(a, b)
        } else {
            return Err(format!("bad columns {s}"));
        };
        if !p.is_valid() {
            return Err(format!("bad part {s}"));
        }
        Ok(p)
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_columns() {
            write!(f, "{}..{}", self.0 / 4, self.1 / 4)
        } else if self.bytes() == 1 {
            write!(f, "b{}", self.0)
        } else {
            write!(f, "b{}..{}", self.0, self.1)
        }
    }
}

/// Table 1's SubBytes rows: bytes per core, cycles per firing, IMEM use
/// in percent (SubBytes-1, SubBytes-4, SubBytes-16).
pub const SUB_BYTES_TABLE1: [(usize, u32, u32); 3] = [(1, 10, 9), (4, 40, 9), (16, 132, 10)];

/// The SubBytes row for `k` bytes per core: Table 1's where it lists `k`,
/// otherwise interpolated: up to four bytes at SubBytes-1's 10 cycles per
/// byte with its IMEM, beyond at SubBytes-16's 132 cycles per 16 bytes
/// with its IMEM (SubBytes-8: 66 cycles, 10%).
fn sub_bytes_row(k: usize) -> (usize, u32, u32) {
    let [one, _, sixteen] = SUB_BYTES_TABLE1;
    match SUB_BYTES_TABLE1.into_iter().find(|r| r.0 == k) {
        Some(row) => row,
        None if k < 4 => (k, one.1 * k as u32, one.2),
        None => (k, (sixteen.1 * k as u32).div_ceil(16), sixteen.2),
    }
}

/// One AES step as an actor performs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// SubBytes on the bytes of this part (any part: the whole state, a
    /// column, one byte).
    Sub(Part),
    /// ShiftRows on the whole state.
    Shift,
    /// MixColumns on the columns of this part (whole columns).
    Mix(Part),
    /// AddRoundKey on the bytes of this part.
    AddKey(Part),
}

impl Prim {
    /// Table 1's row for the step: execution delay on AsAP2 in cycles per
    /// firing and instruction-memory use in percent. Sizes the table does
    /// not list are interpolated (see the crate docs): SubBytes as
    /// [`SUB_BYTES_TABLE1`] says, MixColumns linearly between MixColumns-4
    /// and MixColumns-16 per column, AddRoundKey in proportion to its bytes.
    pub fn table1(self) -> (u32, u32) {
        match self {
            Prim::Sub(c) => {
                let (_, delay, imem) = sub_bytes_row(c.bytes());
                (delay, imem)
            }
            Prim::Shift => (38, 18),
            // MixColumns-4: 70 per column, 31%; MixColumns-16: 266, 63%.
            Prim::Mix(c) => match c.bytes() / 4 {
                1 => (70, 31),
                4 => (266, 63),
                n => (70 + 196 * (n as u32 - 1) / 3, 31 + 32 * (n as u32 - 1) / 3),
            },
            // AddRoundKey: 22 per block, 18%.
            Prim::AddKey(c) => ((22 * c.bytes() as u32).div_ceil(16), 18),
        }
    }

    /// Execution delay on AsAP2 in cycles per firing ([`Prim::table1`]).
    pub fn delay(self) -> u32 {
        self.table1().0
    }

    /// Cycles among [`Prim::delay`] that run with the clock on but execute
    /// nothing (hazards; eq. 4 counts them with the clock-on stalls).
    /// Table 4: SubByte 12 NOPs of ~39, MixColumn-4 7 of 70; AddRoundKey
    /// executes 18 of Table 1's 22 (the FinalRoundAddKey row, the same
    /// code alone; the fused AddKeyShiftRows executes 37 = 18 + 19), so 4
    /// of every 22; ShiftRows none.
    pub fn nop(self) -> u32 {
        match self {
            Prim::Sub(_) => self.delay() * 3 / 10,
            Prim::Mix(_) => self.delay() / 10,
            Prim::AddKey(_) => self.delay() * 4 / 22,
            Prim::Shift => 0,
        }
    }

    /// Instruction-memory use in percent ([`Prim::table1`]).
    pub fn imem(self) -> u32 {
        self.table1().1
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
            Prim::AddKey(c) if c == Part::ALL => "AddRoundKey".into(),
            Prim::AddKey(c) => format!("AddRoundKey-{}", c.bytes()),
        }
    }

    /// Parse a [`Prim::name`] on the given part (the description format
    /// gives the part explicitly).
    pub fn parse(s: &str, cols: Part) -> Option<Prim> {
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
        [Sub(a), Shift] | [Shift, Sub(a)] if *a == Part::ALL => "SubBytesShiftRows".into(),
        [Shift, Sub(a)] => format!("ShiftRowsSubBytes-{}", a.bytes()),
        [AddKey(a), Shift] if *a == Part::ALL => "AddKeyShiftRows".into(),
        [Shift, AddKey(a)] if *a == Part::ALL => "ShiftRowsAddKey".into(),
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
/// ShiftRows fused with other steps: [`FUSED_SHIFT_ROWS_DELAY`] beside a
/// wordwise step, nothing beside SubBytes.
///
/// SubBytes handles one byte at a time (Table 1: SubBytes-1, 10 cycles per
/// byte: take the byte out of its 16-bit word, look it up, pack the result
/// into a word); fused with ShiftRows, which "is only byte-rotation"
/// (§5.1), it packs each substituted byte at its rotated place instead of
/// its own, in the same instructions. The 19 cycles of
/// [`FUSED_SHIFT_ROWS_DELAY`] are the repacking a wordwise step
/// (AddRoundKey XORs whole 16-bit words) has to add.
pub fn step_delays(steps: &[Prim]) -> impl Iterator<Item = u32> + '_ {
    let fused = steps.len() > 1;
    let with_sub_bytes = steps.iter().any(|p| matches!(p, Prim::Sub(_)));
    steps.iter().map(move |&p| match p {
        Prim::Shift if fused && with_sub_bytes => 0,
        Prim::Shift if fused => FUSED_SHIFT_ROWS_DELAY,
        _ => p.delay(),
    })
}

/// Delay of a (possibly fused) actor: the sum of its [`step_delays`] (the
/// paper's AddKeyShiftRows: 22 + 19 = 41 cycles, 37 of them executing as
/// in Table 4, see [`Prim::nop`]; §5.1 quotes the standalone sum
/// 22 + 38 = 60).
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
