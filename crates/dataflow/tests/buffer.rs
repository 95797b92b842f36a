//! Buffer sizing against SDF3's own buffer analysis (`sdf3analysis-sdf
//! --algo buffersize`, see `data/sdf3-reference/README.md`): the Pareto
//! points (total size, throughput) must be SDF3's.

mod common;

use aesflow_dataflow::analysis::buffer::BufferOptions;
use aesflow_dataflow::{AnalysisOptions, Rational, SdfGraph, sdf3};

fn load(xml: &str) -> SdfGraph {
    sdf3::from_xml(xml).unwrap()
}

/// SDF3's `<distributionsSet thr='..' sz='..'>` lines.
fn sdf3_points(text: &str) -> Vec<(u128, f64)> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("<distributionsSet thr='")?;
            let (thr, rest) = l.split_once("' sz='")?;
            let sz = rest.split_once('\'')?.0;
            Some((sz.parse().ok()?, thr.parse().ok()?))
        })
        .collect()
}

fn check(name: &str, xml: &str, reference: &str) {
    let g = load(xml);
    let r = g
        .buffer_tradeoff(&AnalysisOptions::sdf3(), &BufferOptions::default())
        .unwrap();
    assert!(r.complete, "{name}");
    let want = sdf3_points(reference);
    let got: Vec<(u128, f64)> = r
        .points
        .iter()
        .map(|p| (p.size, p.throughput.to_f64()))
        .collect();
    assert_eq!(got.len(), want.len(), "{name}: {got:?} vs SDF3 {want:?}");
    for ((gs, gt), (ws, wt)) in got.iter().zip(&want) {
        assert_eq!(gs, ws, "{name}: sizes {got:?} vs SDF3 {want:?}");
        assert!((gt - wt).abs() / wt < 5e-6, "{name}: {gt} vs SDF3 {wt}");
    }
    // the last point reaches the throughput with unbounded channels
    assert_eq!(
        r.points.last().map(|p| p.throughput),
        r.max_throughput,
        "{name}"
    );
    // each point's distribution really has that size and throughput
    for p in &r.points {
        assert_eq!(
            p.capacities.iter().map(|&c| c as u128).sum::<u128>(),
            p.size
        );
        let mut h = g.clone();
        for (i, &c) in p.capacities.iter().enumerate() {
            h.channel_mut(aesflow_dataflow::ChannelId::from_index(i))
                .set_capacity(Some(c));
        }
        let opts = AnalysisOptions {
            respect_capacities: true,
            ..AnalysisOptions::sdf3()
        };
        let t = h.analyze_throughput_with(&opts).unwrap();
        assert_eq!(t.throughput_exact(), Some(p.throughput), "{name}");
    }
}

#[test]
fn modem_equals_sdf3() {
    check(
        "modem",
        include_str!("data/modem.xml"),
        include_str!("data/sdf3-reference/modem.buffer.txt"),
    );
}

#[test]
fn samplerate_equals_sdf3() {
    check(
        "samplerate",
        include_str!("data/samplerate.xml"),
        include_str!("data/sdf3-reference/samplerate.buffer.txt"),
    );
}

#[test]
fn satellite_equals_sdf3() {
    check(
        "satellite",
        include_str!("data/satellite.xml"),
        include_str!("data/sdf3-reference/satellite.buffer.txt"),
    );
}

#[test]
fn h263encoder_equals_sdf3() {
    check(
        "h263encoder",
        include_str!("data/h263encoder.xml"),
        include_str!("data/sdf3-reference/h263encoder.buffer.txt"),
    );
}

#[test]
fn minimal_deadlock_free_capacities_of_a_pipeline() {
    // A -(2:3)-> B: lower bound 2 + 3 - 1 = 4 tokens; with 4 the pipeline
    // runs; the throughput bound stops the search at the first point
    let (mut g, _) = common::graph("p", [("A", 1), ("B", 1)], &[(0, 2, 1, 3, 0)]);
    g.make_all_sequential();
    let r = g
        .buffer_tradeoff(&AnalysisOptions::sdf3(), &BufferOptions::default())
        .unwrap();
    let first = r.min_deadlock_free().unwrap();
    assert_eq!(first.capacities[0], 4);
    assert!(first.throughput > Rational::ZERO);
    assert!(r.complete);
}

#[test]
fn h263decoder_equals_sdf3() {
    check(
        "h263decoder",
        include_str!("data/h263decoder.xml"),
        include_str!("data/sdf3-reference/h263decoder.buffer.txt"),
    );
}
