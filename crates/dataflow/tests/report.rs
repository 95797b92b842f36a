//! The named report behind `aesflow sdf` (text and JSON).

use aesflow_dataflow::analysis::buffer::BufferOptions;
use aesflow_dataflow::report::{ReportOptions, analyse};
use aesflow_dataflow::{AnalysisOptions, sdf3};

#[test]
fn report_of_a_testbench_graph() {
    let imp = sdf3::from_xml_with(
        include_str!("data/h263decoder.xml"),
        &sdf3::ReadOptions::default(),
    )
    .unwrap();
    let ro = ReportOptions {
        file: "h263decoder.xml".into(),
        state_space: true,
        max_steps: 1_000_000,
        buffers: Some(BufferOptions::default()),
        latency: Some(("vld".into(), "mc".into())),
    };
    let r = analyse(&imp.graph, imp.warnings, &AnalysisOptions::sdf3(), &ro);
    assert!(r.consistent);
    assert_eq!(r.deadlock_free, Some(true));
    assert_eq!(r.warnings.len(), 2); // vld and mc: two default processors
    let t = r.throughput.as_ref().unwrap();
    assert_eq!(t.period, "332046");
    assert_eq!(t.critical_actors, vec!["iq".to_string()]);
    assert_eq!(r.state_space_period.as_deref(), Some("332046"));
    let b = r.buffers.as_ref().unwrap();
    assert!(b.complete);
    assert_eq!(b.points[0].size, 1195); // SDF3's first Pareto point
    // latency needs a strongly connected graph: an error, the rest stays
    assert!(r.latency.is_none());
    assert!(r.errors.iter().any(|e| e.contains("strongly connected")));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["repetition_vector"][1]["name"], "iq");
    assert_eq!(json["repetition_vector"][1]["firings"], 594);
    assert_eq!(json["throughput"]["period"], "332046");
}

#[test]
fn report_of_a_deadlocked_graph_names_the_stuck_actors() {
    let xml = "<sdf3 type='sdf'><applicationGraph name='g'><sdf name='g'>\
        <actor name='x'><port name='o' type='out' rate='1'/><port name='i' type='in' rate='1'/></actor>\
        <actor name='y'><port name='o' type='out' rate='1'/><port name='i' type='in' rate='1'/></actor>\
        <channel name='xy' srcActor='x' srcPort='o' dstActor='y' dstPort='i'/>\
        <channel name='yx' srcActor='y' srcPort='o' dstActor='x' dstPort='i'/>\
        </sdf></applicationGraph></sdf3>";
    let g = sdf3::from_xml(xml).unwrap();
    let r = analyse(
        &g,
        Vec::new(),
        &AnalysisOptions::sdf3(),
        &ReportOptions::default(),
    );
    assert_eq!(r.deadlock_free, Some(false));
    assert_eq!(r.stuck_actors, vec!["x".to_string(), "y".to_string()]);
    assert!(r.throughput.is_none());
}
