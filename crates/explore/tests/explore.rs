//! The explorer reproduces the paper's designs, verifies every design and
//! computes true Pareto fronts.

use aesflow_cipher::KeySize;
use aesflow_designs::report::paper;
use aesflow_designs::space::Params;
use aesflow_designs::{Engine, Expansion};
use aesflow_explore::pareto::dominates;
use aesflow_explore::{Axis, Standing, distinct_points, evaluate, run_points};

#[test]
fn the_papers_designs_keep_their_figures() {
    for e in Engine::ALL {
        for (i, x) in Expansion::ALL.into_iter().enumerate() {
            let p = evaluate(&Params::paper(e, KeySize::Aes128, x), 1024).unwrap();
            let t = paper(e);
            assert_eq!(p.paper, Some(e));
            assert_eq!(p.cores, t.cores[i], "{} {x:?}", e.name());
            assert_eq!(p.comm_cores, t.comm[i], "{} {x:?}", e.name());
            let m = p.metrics.as_ref().unwrap();
            assert!(m.verified, "{} {x:?}", e.name());
            let err = m.cycles_per_byte / t.cycles_per_byte - 1.0;
            assert!(
                err.abs() <= 0.10,
                "{} {x:?}: {:+.1}%",
                e.name(),
                100.0 * err
            );
        }
    }
    // Energy per bit as `aesflow energy` reports it: No-merge offline at
    // 1.3 V is 1.566 nJ/bit (the paper's 1.55 + 1.1%).
    let nm = evaluate(
        &Params::paper(Engine::NoMerge, KeySize::Aes128, Expansion::Offline),
        2048,
    )
    .unwrap();
    let m = nm.metrics.unwrap();
    assert!(
        (m.nj_per_bit / 1.566 - 1.0).abs() < 0.02,
        "{}",
        m.nj_per_bit
    );
    assert!(m.best_nj_per_bit < m.nj_per_bit && m.best_vdd < 1.3);
}

#[test]
fn fronts_are_pareto_fronts_and_every_design_is_verified() {
    // A slice of the space (every third distinct point, and the paper's)
    // on few blocks, to keep the test short.
    let all = distinct_points(KeySize::Aes128);
    let pts: Vec<Params> = all
        .iter()
        .enumerate()
        .filter(|(i, p)| i % 3 == 0 || p.paper_engine().is_some())
        .map(|(_, p)| *p)
        .collect();
    let x = run_points(KeySize::Aes128, &pts, 256, 2, &|| {});
    assert!(x.failed.is_empty(), "{:?}", x.failed);
    for p in &x.points {
        if !p.exceeds_chip {
            assert!(p.metrics.as_ref().unwrap().verified, "{}", p.label);
        } else {
            assert!(p.cores > 164 && p.metrics.is_none());
        }
    }
    for (axis, front) in [
        (Axis::Cores, &x.front_cores),
        (Axis::Energy, &x.front_energy),
    ] {
        assert!(!front.is_empty());
        let obj: Vec<Option<(f64, f64)>> = x.points.iter().map(|p| axis.objectives(p)).collect();
        // No point dominates a front point.
        for &f in front.iter() {
            let of = obj[f].unwrap();
            assert!(obj.iter().flatten().all(|o| !dominates(o, &of)));
        }
        // Every feasible point off the front is dominated by, or equal to,
        // a front point.
        for (i, o) in obj.iter().enumerate() {
            let Some(o) = o else { continue };
            if front.contains(&i) {
                continue;
            }
            assert!(
                front
                    .iter()
                    .any(|&f| { dominates(&obj[f].unwrap(), o) || obj[f].unwrap() == *o }),
                "{} {axis:?}",
                x.points[i].label
            );
        }
    }
    assert_eq!(x.paper.len(), 16);
    for s in &x.paper {
        let exp = x.points[s.point].params.expansion;
        for (axis, st) in [(Axis::Cores, &s.cores), (Axis::Energy, &s.energy)] {
            let me = axis.objectives(&x.points[s.point]).unwrap();
            match st {
                Standing::OnFront => assert!(
                    x.points
                        .iter()
                        .filter(|p| p.params.expansion == exp)
                        .filter_map(|p| axis.objectives(p))
                        .all(|o| !dominates(&o, &me))
                ),
                Standing::Dominated {
                    by,
                    throughput_ratio,
                    cost_ratio,
                } => {
                    let o = axis.objectives(&x.points[*by]).unwrap();
                    assert!(dominates(&o, &me));
                    assert_eq!(x.points[*by].params.expansion, exp);
                    assert!(*throughput_ratio >= 1.0 && *cost_ratio <= 1.0);
                }
            }
        }
    }
    let json = x.to_json();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), x.points.len());
    let [a, b] = x.charts();
    assert!(aesflow_explore::chart::render(&a).contains("<polyline"));
    assert!(aesflow_explore::chart::render(&b).contains("<polyline"));
}
