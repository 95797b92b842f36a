//! The S-box modules of Hodjat & Verbauwhede's Fig. 4: a look-up table, or
//! the composite-field datapath (isomorphic mapping δ, square-and-scale,
//! GF(2^4) multipliers, the 16-entry GF(2^4) inverse, δ⁻¹ with the affine
//! map) with 0, 1 or 2 pipeline register sets.
//!
//! Every kind is a module `sub_byte (clk, a, s)`; the clock is unused by the
//! unpipelined kinds so that the rounds instantiate any kind alike.

use super::{Src, xor};
use crate::design::SboxKind;
use crate::gf::{self, Matrix};

/// The modules of one S-box kind (`sub_byte` and its parts).
pub(crate) fn emit(kind: SboxKind, out: &mut Src) {
    match kind {
        SboxKind::Lut => lut(out),
        _ => composite(kind, out),
    }
}

fn lut(out: &mut Src) {
    out.line("// SubBytes of one byte as a 256-entry look-up table (Fig. 4a).");
    out.line("module sub_byte (input clk, input [7:0] a, output reg [7:0] s);");
    out.line("  always @* begin");
    out.line("    case (a)");
    for (i, v) in aesflow_cipher::sbox::SBOX.iter().enumerate() {
        out.line(format!("      8'h{i:02x}: s = 8'h{v:02x};"));
    }
    out.line("    endcase");
    out.line("  end");
    out.line("endmodule");
    out.line("");
}

/// `assign y[j] = …;` for a GF(2)-linear map, plus a constant.
fn linear(out: &mut Src, m: &Matrix, bits_out: usize, constant: u8) {
    for j in 0..bits_out {
        let mut terms: Vec<String> = m.row(j).iter().map(|i| format!("a[{i}]")).collect();
        if constant >> j & 1 == 1 {
            terms.push("1'b1".into());
        }
        out.line(format!("  assign y[{j}] = {};", xor(&terms)));
    }
}

fn composite(kind: SboxKind, out: &mut Src) {
    out.line("// Multiplication in GF(2^4) = GF(2)[y]/(y^4 + y + 1).");
    out.line("module gf4_mul (input [3:0] a, input [3:0] b, output [3:0] y);");
    for j in 0..4 {
        let mut terms = Vec::new();
        for i in 0..4 {
            for k in 0..4 {
                if gf::gf4_mul(1 << i, 1 << k) >> j & 1 == 1 {
                    terms.push(format!("(a[{i}] & b[{k}])"));
                }
            }
        }
        out.line(format!("  assign y[{j}] = {};", xor(&terms)));
    }
    out.line("endmodule");
    out.line("");

    out.line(format!(
        "// Square and multiply by lambda = 4'h{:x} (x^2 + x + lambda defines GF((2^4)^2)).",
        gf::LAMBDA
    ));
    out.line("module gf4_sq_scl (input [3:0] a, output [3:0] y);");
    linear(out, &gf::sq_scl_matrix(), 4, 0);
    out.line("endmodule");
    out.line("");

    out.line("// The multiplicative inverse in GF(2^4): a 16-entry table.");
    out.line("module gf4_inv (input [3:0] a, output reg [3:0] y);");
    out.line("  always @* begin");
    out.line("    case (a)");
    for a in 0..16u8 {
        out.line(format!("      4'h{a:x}: y = 4'h{:x};", gf::gf4_inv(a)));
    }
    out.line("    endcase");
    out.line("  end");
    out.line("endmodule");
    out.line("");

    out.line("// The isomorphic mapping delta: GF(2^8) -> GF((2^4)^2), y = {a_h, a_l}.");
    out.line("module iso_map (input [7:0] a, output [7:0] y);");
    linear(out, &gf::delta(), 8, 0);
    out.line("endmodule");
    out.line("");

    out.line("// delta^-1 and the affine transformation of FIPS-197 in one XOR network.");
    out.line("module inv_map_affine (input [7:0] a, output [7:0] y);");
    linear(out, &gf::inverse_delta_affine(), 8, 0x63);
    out.line("endmodule");
    out.line("");

    let (title, regs_d, regs_inv) = match kind {
        SboxKind::Composite => ("not pipelined (Fig. 4b)", false, false),
        SboxKind::Composite2 => (
            "in two stages: d^-1, a_h and a_h ^ a_l registered after the inversion (Fig. 4c)",
            false,
            true,
        ),
        _ => (
            "in three stages: registers after the addition that forms d and after the inversion (Fig. 4d)",
            true,
            true,
        ),
    };
    out.line(format!("// SubBytes of one byte in the composite field, {title}."));
    out.line("module sub_byte (input clk, input [7:0] a, output [7:0] s);");
    out.text(
        "  wire [7:0] m;
  iso_map u_map (.a(a), .y(m));
  wire [3:0] ah = m[7:4];
  wire [3:0] al = m[3:0];
  wire [3:0] sum = ah ^ al;
  wire [3:0] sq, prod;
  gf4_sq_scl u_sq (.a(ah), .y(sq));
  gf4_mul u_mul_d (.a(sum), .b(al), .y(prod));
  wire [3:0] d = sq ^ prod;",
    );
    if regs_d {
        out.text(
            "  reg [3:0] d_q, ah_q, sum_q;
  always @(posedge clk) begin
    d_q <= d;
    ah_q <= ah;
    sum_q <= sum;
  end",
        );
    } else {
        out.text(
            "  wire [3:0] d_q = d;
  wire [3:0] ah_q = ah;
  wire [3:0] sum_q = sum;",
        );
    }
    out.text(
        "  wire [3:0] dinv;
  gf4_inv u_inv (.a(d_q), .y(dinv));",
    );
    if regs_inv {
        out.text(
            "  reg [3:0] dinv_q, ah_qq, sum_qq;
  always @(posedge clk) begin
    dinv_q <= dinv;
    ah_qq <= ah_q;
    sum_qq <= sum_q;
  end",
        );
    } else {
        out.text(
            "  wire [3:0] dinv_q = dinv;
  wire [3:0] ah_qq = ah_q;
  wire [3:0] sum_qq = sum_q;",
        );
    }
    out.text(
        "  wire [3:0] hi, lo;
  gf4_mul u_mul_h (.a(ah_qq), .b(dinv_q), .y(hi));
  gf4_mul u_mul_l (.a(sum_qq), .b(dinv_q), .y(lo));
  inv_map_affine u_out (.a({hi, lo}), .y(s));
endmodule
",
    );
}
