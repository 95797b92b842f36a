//! The S-box modules of Hodjat & Verbauwhede's Fig. 4: a look-up table, or
//! the composite-field datapath (isomorphic mapping δ, square-and-scale,
//! GF(2^4) multipliers, the 16-entry GF(2^4) inverse, δ⁻¹ with the affine
//! map, each a Verilog function named after its box in the figure) with 0,
//! 1 or 2 pipeline register sets.
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

/// A function body for a GF(2)-linear map plus a constant, as one vector
/// expression: the XOR of the images of the input's set bits.
fn linear(out: &mut Src, name: &str, m: &Matrix, bits: usize, constant: u8) {
    let mut terms: Vec<String> = (0..m.n)
        .map(|i| {
            format!(
                "({{{bits}{{a[{i}]}}}} & {bits}'h{:0w$x})",
                m.cols[i],
                w = bits / 4
            )
        })
        .collect();
    if constant != 0 {
        terms.push(format!("{bits}'h{constant:0w$x}", w = bits / 4));
    }
    out.line(format!(
        "  function [{}:0] {name} (input [{}:0] a);",
        bits - 1,
        m.n - 1
    ));
    out.line(format!("    {name} = {};", xor(&terms)));
    out.line("  endfunction");
}

fn composite(kind: SboxKind, out: &mut Src) {
    let title = match kind {
        SboxKind::Composite => "not pipelined (Fig. 4b)",
        SboxKind::Composite2 => {
            "in two stages: d^-1, a_h and a_h ^ a_l registered after the inversion (Fig. 4c)"
        }
        _ => {
            "in three stages: registers after the addition that forms d and after the inversion (Fig. 4d)"
        }
    };
    out.line(format!(
        "// SubBytes of one byte in the composite field GF((2^4)^2), {title}."
    ));
    out.line("// a = a_h x + a_l modulo x^2 + x + lambda, a_h and a_l in GF(2^4) = GF(2)[y]/(y^4 + y + 1):");
    out.line("// d = lambda a_h^2 + (a_h + a_l) a_l, a^-1 = (a_h d^-1) x + (a_h + a_l) d^-1.");
    out.line("module sub_byte (input clk, input [7:0] a, output [7:0] s);");
    out.line("  // The isomorphic mapping delta: GF(2^8) -> GF((2^4)^2), result {a_h, a_l}.");
    linear(out, "iso_map", &gf::delta(), 8, 0);
    out.line(format!(
        "  // Square and multiply by lambda = 4'h{:x}.",
        gf::LAMBDA
    ));
    linear(out, "gf4_sq_scl", &gf::sq_scl_matrix(), 4, 0);
    out.text(
        "  // Multiplication in GF(2^4): the carry-less product, then y^4 = y + 1,
  // y^5 = y^2 + y, y^6 = y^3 + y^2.
  function [3:0] gf4_mul (input [3:0] a, input [3:0] b);
    reg [6:0] p;
    begin
      p = ({7{b[0]}} & {3'b000, a}) ^ ({7{b[1]}} & {2'b00, a, 1'b0})
        ^ ({7{b[2]}} & {1'b0, a, 2'b00}) ^ ({7{b[3]}} & {a, 3'b000});
      gf4_mul = p[3:0] ^ {2'b00, p[4], p[4]} ^ {1'b0, p[5], p[5], 1'b0} ^ {p[6], p[6], 2'b00};
    end
  endfunction
  // The multiplicative inverse in GF(2^4): a 16-entry table.
  function [3:0] gf4_inv (input [3:0] a);
    case (a)",
    );
    for a in 0..16u8 {
        out.line(format!(
            "      4'h{a:x}: gf4_inv = 4'h{:x};",
            gf::gf4_inv(a)
        ));
    }
    out.line("    endcase");
    out.line("  endfunction");
    out.line("  // delta^-1 and the affine transformation of FIPS-197 in one XOR network.");
    linear(out, "inv_map_affine", &gf::inverse_delta_affine(), 8, 0x63);
    let regs_d = kind == SboxKind::Composite3;
    let regs_inv = kind != SboxKind::Composite;
    out.text(
        "  wire [7:0] m = iso_map(a);
  wire [3:0] ah = m[7:4];
  wire [3:0] al = m[3:0];
  wire [3:0] sum = ah ^ al;
  wire [3:0] d = gf4_sq_scl(ah) ^ gf4_mul(sum, al);",
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
    out.line("  wire [3:0] dinv = gf4_inv(d_q);");
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
        "  assign s = inv_map_affine({gf4_mul(ah_qq, dinv_q), gf4_mul(sum_qq, dinv_q)});
endmodule
",
    );
}
