//! The key handling of the AES-192 and AES-256 processors: the online key
//! pipeline (one `key_round_N` stage beside each round) and the offline key
//! unit filling 4(Nr+1) round-key words.
//!
//! Both follow FIPS-197's key expansion word by word: word `i` is
//! `w[i-Nk] ^ temp`, where `temp` is `SubWord(RotWord(w[i-1])) ^ Rcon` when
//! `i mod Nk = 0`, `SubWord(w[i-1])` when `Nk = 8` and `i mod 8 = 4`, and
//! `w[i-1]` otherwise. Any four consecutive words hold at most one SubWord,
//! so each key stage needs the same four S-boxes as AES-128's.

use super::{Src, processor::RCON};
use crate::design::{KeyMode, Variant};

/// How word `i` of the schedule is formed (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Temp {
    /// `SubWord(RotWord(w[i-1])) ^ Rcon`, with the Rcon byte.
    RotSubRcon(u8),
    /// `SubWord(w[i-1])`.
    Sub,
    /// `w[i-1]`.
    Plain,
}

fn temp(i: usize, nk: usize) -> Temp {
    if i.is_multiple_of(nk) {
        Temp::RotSubRcon(RCON[i / nk - 1])
    } else if nk == 8 && i % 8 == 4 {
        Temp::Sub
    } else {
        Temp::Plain
    }
}

/// Word `j` (0 = the most significant, the oldest) of an `nk`-word vector.
fn word(v: &str, j: usize, nk: usize) -> String {
    let top = 32 * nk - 1 - 32 * j;
    format!("{v}[{top}:{}]", top - 31)
}

/// The key words known before round `r` of the online pipeline: the key's
/// Nk words, then four more per round.
fn known(r: usize, nk: usize) -> usize {
    nk.max(4 * r)
}

/// The key stages of the online pipeline, `key_round_1` .. `key_round_Nr`.
pub(crate) fn emit_key_rounds(v: &Variant, out: &mut Src) {
    let nr = v.rounds();
    for r in 1..=nr {
        key_round(v, r, r == nr, out);
    }
}

fn key_round(v: &Variant, r: usize, last: bool, out: &mut Src) {
    let nk = v.key_size.nk();
    let kw = 32 * nk;
    let k = known(r, nk);
    let base = k - nk;
    let end = k.max(4 * r + 4);
    let sub = (k..end).find(|&i| temp(i, nk) != Temp::Plain);
    let inner = v.sbox.stages() - 1;
    let sep = v.separate_sub_bytes();
    // A word's expression: from the window `win`, or a wire `{prefix}{i}`.
    let w = |i: usize, win: &str, prefix: &str| {
        if i < k {
            word(win, i - base, nk)
        } else {
            format!("{prefix}{i}")
        }
    };
    out.line(format!(
        "// Key stage of round {r}: the window holds key words w[{base}..{}]; the round key is\n\
         // w[{}..{}]{}{}.",
        k - 1,
        4 * r,
        4 * r + 3,
        if end > k {
            format!(", words w[{k}..{}] are computed here", end - 1)
        } else {
            String::new()
        },
        match sub {
            Some(i) => format!(" (SubWord for w[{i}] beside SubBytes, with its registers)"),
            None => " (no SubWord: the window is only delayed)".to_string(),
        }
    ));
    let win_out = if last {
        String::new()
    } else {
        format!(", output reg [{}:0] win_out", kw - 1)
    };
    out.line(format!(
        "module key_round_{r} (input clk, input [{}:0] win_in, output [127:0] rk{win_out});",
        kw - 1
    ));
    let mut sw = "sw".to_string();
    if let Some(j) = sub {
        // Words between the window and SubWord's input, before the S-box.
        for i in k..j {
            out.line(format!(
                "  wire [31:0] p{i} = {} ^ {};",
                w(i - nk, "win_in", "p"),
                w(i - 1, "win_in", "p")
            ));
        }
        out.line(format!(
            "  wire [31:0] sw_in = {};",
            w(j - 1, "win_in", "p")
        ));
        let a = match temp(j, nk) {
            Temp::RotSubRcon(_) => "{sw_in[23:0], sw_in[31:24]}",
            _ => "sw_in",
        };
        out.line("  wire [31:0] sw;");
        out.line(format!(
            "  sub_word u_sub_word (.clk(clk), .a({a}), .s(sw));"
        ));
    }
    let mut win = "win_in".to_string();
    for i in 1..=inner {
        out.line(format!("  reg [{}:0] win_d{i};", kw - 1));
        out.line(format!("  always @(posedge clk) win_d{i} <= {win};"));
        win = format!("win_d{i}");
    }
    if sep {
        out.line(format!("  reg [{}:0] win_q;", kw - 1));
        out.line(format!("  always @(posedge clk) win_q <= {win};"));
        win = "win_q".into();
        if sub.is_some() {
            out.line("  reg [31:0] sw_q;");
            out.line("  always @(posedge clk) sw_q <= sw;");
            sw = "sw_q".into();
        }
    }
    for i in k..end {
        let t = match temp(i, nk) {
            Temp::RotSubRcon(c) => format!("{sw} ^ 32'h{c:02x}000000"),
            Temp::Sub => sw.clone(),
            Temp::Plain => w(i - 1, &win, "n"),
        };
        out.line(format!(
            "  wire [31:0] n{i} = {} ^ {t};",
            w(i - nk, &win, "n")
        ));
    }
    let rk: Vec<String> = (4 * r..4 * r + 4).map(|i| w(i, &win, "n")).collect();
    out.line(format!("  assign rk = {{{}}};", rk.join(", ")));
    if !last {
        let next: Vec<String> = (end - nk..end).map(|i| w(i, &win, "n")).collect();
        out.line(format!(
            "  always @(posedge clk) win_out <= {{{}}};",
            next.join(", ")
        ));
    }
    out.line("endmodule");
    out.line("");
}

/// The offline key unit of AES-192/256: a shift register of Nk + steps × S
/// words; the key enters its last Nk words, and each step shifts S new words
/// in behind them, so that after the last step it holds w[0..] in order.
pub(crate) fn emit_key_unit(v: &Variant, out: &mut Src) {
    debug_assert_eq!(v.keys, KeyMode::Offline);
    let nk = v.key_size.nk();
    let kw = 32 * nk;
    let s = v.sbox.stages();
    let per = v.key_step_words();
    let steps = v.key_steps();
    let total = nk + steps * per;
    let rkw = 128 * (v.rounds() + 1);
    out.line(format!(
        "// The offline key scheduling unit: on key_load the key is held; once the pipeline\n\
         // has drained, it enters the last {nk} words of a {total}-word shift register, and\n\
         // {steps} key steps (SubWord with the processor's S-box, {s} stage(s), then the XOR\n\
         // chain) each shift {per} new words in behind them, one step every {} cycles\n\
         // ({} cycles in all). The first {} words are the round keys.",
        s + 1,
        v.key_schedule_cycles(),
        4 * (v.rounds() + 1)
    ));
    out.line(format!(
        "module key_schedule_unit (input clk, input rst, input key_load, input [{}:0] key,\n  \
         input pipe_busy, output ready, output [{}:0] round_keys);",
        kw - 1,
        rkw - 1
    ));
    out.line("  localparam IDLE = 2'd0, DRAIN = 2'd1, SCHED = 2'd2, READY = 2'd3;");
    out.line("  reg [1:0] fsm;");
    out.line("  reg [3:0] rnd;");
    out.line("  reg [1:0] phase;");
    out.line(format!("  reg [{}:0] key_q;", kw - 1));
    out.line(format!("  reg [{}:0] words;", 32 * total - 1));
    out.line(format!("  wire [{}:0] win = words[{}:0];", kw - 1, kw - 1));
    out.line("  wire [31:0] last = words[31:0];");
    out.line("  reg rot;");
    out.line("  reg [7:0] rcon;");
    out.line("  always @* begin");
    out.line("    case (rnd)");
    for j in 0..steps {
        let (rot, c) = match temp(nk + j * per, nk) {
            Temp::RotSubRcon(c) => (1, c),
            _ => (0, 0),
        };
        out.line(format!(
            "      4'd{}: begin rot = 1'b{rot}; rcon = 8'h{c:02x}; end",
            j + 1
        ));
    }
    out.line("      default: begin rot = 1'b0; rcon = 8'h00; end");
    out.line("    endcase");
    out.line("  end");
    out.line("  wire [31:0] sw;");
    out.line(
        "  sub_word u_sub_word (.clk(clk), .a(rot ? {last[23:0], last[31:24]} : last), .s(sw));",
    );
    out.line("  reg [31:0] t_q;");
    out.line("  always @(posedge clk) t_q <= sw;");
    out.line(
        "  wire [31:0] n0 = win[{}] ^ t_q ^ {rcon, 24'h000000};"
            .replace("win[{}]", &word("win", 0, nk)),
    );
    for i in 1..per {
        out.line(format!(
            "  wire [31:0] n{i} = {} ^ n{};",
            word("win", i, nk),
            i - 1
        ));
    }
    let new: Vec<String> = (0..per).map(|i| format!("n{i}")).collect();
    out.text(
        "  always @(posedge clk) begin
    if (rst) begin
      fsm <= IDLE;
    end else if (key_load) begin
      key_q <= key;
      fsm <= DRAIN;
    end else begin
      case (fsm)
        DRAIN: if (!pipe_busy) begin",
    );
    out.line(format!("          words[{}:0] <= key_q;", kw - 1));
    out.text(
        "          fsm <= SCHED;
          phase <= 2'd0;
          rnd <= 4'd1;
        end
        SCHED:",
    );
    out.line(format!("          if (phase == 2'd{s}) begin"));
    out.line(format!(
        "            words <= {{words[{}:0], {}}};",
        32 * (total - per) - 1,
        new.join(", ")
    ));
    out.line("            phase <= 2'd0;");
    out.line("            rnd <= rnd + 4'd1;");
    out.line(format!("            if (rnd == 4'd{steps}) fsm <= READY;"));
    out.text(
        "          end else begin
            phase <= phase + 2'd1;
          end
        default: ;
      endcase
    end
  end
  assign ready = fsm == READY;",
    );
    out.line(format!(
        "  assign round_keys = words[{}:{}];",
        32 * total - 1,
        32 * total - rkw
    ));
    out.line("endmodule");
    out.line("");
}
