//! aesflow's contenders of the modes section: `aesflow-modes` for one
//! stream and the multi-stream engine for many.

use crate::measure::{Contender, buffer, fill};
use crate::rustcrypto::AEAD_AAD;
use crate::{BenchError, ModeOp};
use aesflow_cipher::{Aes, KeyExpansion, KeySize, RoundKeys};
use aesflow_multistream::{Job, Mode, MultiStream, Scratch};
use std::hint::black_box;

/// One stream's key of the multi-stream rows (distinct per stream).
pub(crate) fn stream_key(size: KeySize, s: usize) -> Vec<u8> {
    (0..size.bytes())
        .map(|i| (s * 31 + i * 7 + 1) as u8)
        .collect()
}

fn setup(e: impl std::fmt::Display) -> BenchError {
    BenchError::Setup(e.to_string())
}

fn size_of(key: &[u8]) -> KeySize {
    KeySize::from_bits(key.len() * 8).expect("a benchmark key")
}

/// Which code path a one-stream row runs: the default, or a variant
/// measured beside it (a row of its own, where this CPU runs it).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Variant {
    /// The kernel `AESFLOW_KERNEL` asks for (else the best this CPU runs),
    /// GCM with its automatic fused kernel.
    Default,
    /// GCM with this fused kernel.
    Gcm(aesflow_modes::gcm::FusedChoice),
    /// XTS with this plan variant's tweak multiply.
    Xts(aesflow_plan::Variant),
}

/// The variants measured beside the default for `op`: GCM with the
/// plan's other blocks-in-flight variants, XTS on its variant kernel.
pub(crate) fn variants(op: ModeOp, plan: &aesflow_plan::Plan) -> Vec<Variant> {
    use aesflow_plan::Operation;
    match op {
        ModeOp::GcmSeal | ModeOp::GcmOpen => Operation::Gcm
            .variants()
            .iter()
            .filter(|&&v| v != plan.variant(Operation::Gcm))
            .map(|&v| Variant::Gcm(aesflow_modes::gcm::FusedChoice::Plan(plan.with(v))))
            .collect(),
        ModeOp::XtsEnc | ModeOp::XtsDec => Operation::Xts
            .variants()
            .iter()
            .filter(|&&v| v != plan.variant(Operation::Xts))
            .map(|&v| Variant::Xts(v))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether this CPU runs `variant` as a row of its own (with the kernel
/// `AESFLOW_KERNEL` asks for, else the best: as [`one_stream`] runs it): a
/// GCM variant that resolves to the default's fused kernel is no row.
#[cfg(test)]
pub(crate) fn available(variant: Variant, plan: &aesflow_plan::Plan) -> bool {
    match variant {
        Variant::Default => true,
        Variant::Xts(_) => aesflow_cipher::default_kernel().is_ok_and(|k| k.name() == "vaes"),
        Variant::Gcm(fused) => {
            let kernel = |fused| {
                let k = aesflow_cipher::default_kernel().ok()?;
                let aes = Aes::with_kernel(&[0; 16], k, KeyExpansion::Offline).ok()?;
                let opts = aesflow_modes::gcm::GcmOptions { ghash: None, fused };
                let gcm = aesflow_modes::Gcm::with_options(aes, opts).ok()?;
                Some(format!("{:?}", gcm.fused_kernel()))
            };
            let own = kernel(fused);
            own.is_some() && own != kernel(aesflow_modes::gcm::FusedChoice::Plan(*plan))
        }
    }
}

/// `aesflow-modes` on one stream of `n` bytes (XTS: data units of
/// `xts_unit` bytes, one if `xts_unit >= n`) as `variant` runs it; returns
/// the contender and its implementation name (`modes/<kernel>`), or `None`
/// if the variant is not available here.
pub(crate) fn one_stream(
    op: ModeOp,
    key: &[u8],
    n: usize,
    xts_unit: usize,
    kernel: &'static dyn aesflow_cipher::Kernel,
    variant: Variant,
    plan: &aesflow_plan::Plan,
) -> Result<Option<(Contender<'static>, String)>, BenchError> {
    // XTS's tweak multiply: the variant's, else the plan's; a variant
    // row only where the kernel has the choice.
    let xts_variant = match variant {
        Variant::Xts(v) if kernel.name() == "vaes" => v,
        Variant::Xts(_) => return Ok(None),
        _ => plan.variant(aesflow_plan::Operation::Xts),
    };
    let fused = match variant {
        Variant::Gcm(f) => f,
        _ => aesflow_modes::gcm::FusedChoice::Plan(*plan),
    };
    let aes = Aes::with_kernel(key, kernel, KeyExpansion::Offline).map_err(setup)?;
    let name = format!("modes/{}", aes.kernel().name());
    let mut buf = vec![0u8; n];
    fill(&mut buf);
    let f: Contender<'static> = match op {
        ModeOp::CbcEnc => Box::new(move || {
            aesflow_modes::cbc::encrypt_in_place(&aes, &[3u8; 16], black_box(&mut buf))
                .expect("whole blocks");
        }),
        ModeOp::CbcDec => Box::new(move || {
            aesflow_modes::cbc::decrypt_in_place(&aes, &[3u8; 16], black_box(&mut buf))
                .expect("whole blocks");
        }),
        ModeOp::Ctr => {
            let mut c = aesflow_modes::Ctr::new(aes, &[0u8; 16]).map_err(setup)?;
            Box::new(move || c.apply_keystream(black_box(&mut buf)))
        }
        ModeOp::XtsEnc | ModeOp::XtsDec => {
            let xk = crate::rustcrypto::xts_key(size_of(key));
            let (k1, k2) = xk.split_at(xk.len() / 2);
            let half = |k| Aes::with_kernel(k, kernel, KeyExpansion::Offline).map_err(setup);
            let mul = plan.with(xts_variant).xts_tweak_mul();
            let xts = aesflow_modes::Xts::from_aes(half(k1)?.with_xts_tweak_mul(mul), half(k2)?);
            let name = format!("modes/{} {xts_variant}", xts.data_cipher().kernel().name());
            let f: Contender<'static> = Box::new(move || {
                let (enc, b) = (op == ModeOp::XtsEnc, black_box(&mut buf));
                let r = match (xts_unit >= n, enc) {
                    (true, true) => xts.encrypt_sector(7, b),
                    (true, false) => xts.decrypt_sector(7, b),
                    (false, true) => xts.encrypt_units(7, xts_unit, b).map(drop),
                    (false, false) => xts.decrypt_units(7, xts_unit, b).map(drop),
                };
                r.expect("data units of 16 bytes or more");
            });
            return Ok(Some((f, name)));
        }
        ModeOp::GcmSeal | ModeOp::GcmOpen => {
            let opts = aesflow_modes::gcm::GcmOptions { ghash: None, fused };
            let Ok(gcm) = aesflow_modes::Gcm::with_options(aes, opts) else {
                return Ok(None);
            };
            let name = match gcm.fused_kernel() {
                Some(f) => format!("modes/{f}"),
                None => format!(
                    "modes/{}+{}",
                    gcm.aes().kernel().name(),
                    gcm.ghash_impl().name()
                ),
            };
            let mut ct = buf.clone();
            let tag = gcm
                .seal_in_place_detached(&[1u8; 12], &AEAD_AAD, &mut ct)
                .map_err(setup)?;
            // Both directions out of place, from one buffer into another,
            // as ipsec-mb's jobs run from `src` to `dst`.
            let plain = buf.clone();
            let f: Contender<'static> = if op == ModeOp::GcmSeal {
                Box::new(move || {
                    let t = gcm.seal_into(
                        &[1u8; 12],
                        &AEAD_AAD,
                        black_box(&plain),
                        black_box(&mut buf),
                    );
                    black_box(t.expect("message within limits"));
                })
            } else {
                // The same ciphertext every time (the RustCrypto peers, in
                // place only, copy it in first).
                Box::new(move || {
                    gcm.open_into(
                        &[1u8; 12],
                        &AEAD_AAD,
                        black_box(&ct),
                        &tag,
                        black_box(&mut buf),
                    )
                    .expect("authentic");
                })
            };
            return Ok(Some((f, name)));
        }
    };
    Ok(Some((f, name)))
}

/// A multi-stream engine's name in the rows: its backend, and for the
/// 512-bit one the plan's lanes for streams with their own keys
/// (`vaes lanes32`).
pub(crate) fn engine_name(engine: &MultiStream, plan: &aesflow_plan::Plan) -> String {
    let lanes = if engine.backend() == aesflow_multistream::Backend::Vaes {
        format!(
            " {}",
            plan.variant(aesflow_plan::Operation::MultistreamOwnKeys)
        )
    } else {
        String::new()
    };
    format!("{}{lanes}", engine.backend())
}

/// CBC encryption of `streams` streams of `n` bytes each (each buffer
/// allocated `slack` bytes longer, see [`buffer`]; distinct keys,
/// expanded once) through the multi-stream engine, one call per run. The
/// caller keeps its storage from call to call, as a gateway does: the
/// engine's [`Scratch`] and the vector of job descriptors.
pub(crate) fn multistream<'a>(
    engine: &'a MultiStream,
    size: KeySize,
    streams: usize,
    n: usize,
    slack: usize,
) -> Contender<'a> {
    let keys: Vec<RoundKeys> = (0..streams)
        .map(|i| RoundKeys::from_bytes(&stream_key(size, i)).expect("key"))
        .collect();
    let inputs: Vec<Vec<u8>> = (0..streams)
        .map(|i| {
            let mut v = buffer(n, slack);
            fill(&mut v);
            v[0] = i as u8;
            v
        })
        .collect();
    let mut outputs: Vec<Vec<u8>> = (0..streams).map(|_| buffer(n, slack)).collect();
    let mut scratch = Scratch::new();
    // Empty between calls; each call fills it with jobs that borrow the
    // buffers (the same allocation: an empty vector is collected in place).
    let mut spare: Vec<Job<'static>> = Vec::with_capacity(streams);
    Box::new(move || {
        let mut jobs: Vec<Job<'_>> = std::mem::take(&mut spare)
            .into_iter()
            .map(|_| unreachable!("empty"))
            .collect();
        jobs.extend(
            keys.iter()
                .zip(&inputs)
                .zip(outputs.iter_mut())
                .enumerate()
                .map(|(i, ((k, inp), out))| Job::new(Mode::CbcEncrypt, k, [i as u8; 16], inp, out)),
        );
        engine
            .process_with(&mut scratch, black_box(&mut jobs))
            .expect("valid jobs");
        jobs.clear();
        spare = jobs.into_iter().map(|_| unreachable!("empty")).collect();
    })
}
