//! The array model on small hand-built applications: binding (merge and
//! dispatch cores), placement, the simulator's timing and word flow, and
//! its errors (deadlock, step limit, malformed applications).

use aesflow_array::{
    ActorClass, AppActor, AppEdge, AppGraph, Behavior, DispatchShape, Exec, MapError, Mapping,
    NoBehavior, Op, Platform, SimError, Step, map, simulate,
};

/// Adds 1 to memory word 0.
struct Inc;
impl Behavior for Inc {
    fn exec(&mut self, _a: u32, mem: &mut [u16], _now: u64) {
        mem[0] = mem[0].wrapping_add(1);
    }
}

/// A source counting 0, 1, 2, … into memory word 0.
struct Count(u16);
impl Behavior for Count {
    fn exec(&mut self, _a: u32, mem: &mut [u16], _now: u64) {
        mem[0] = self.0;
        self.0 += 1;
    }
}

/// A sink recording memory word 0.
struct Record(std::sync::Arc<std::sync::Mutex<Vec<u16>>>);
impl Behavior for Record {
    fn exec(&mut self, _a: u32, mem: &mut [u16], _now: u64) {
        self.0.lock().unwrap().push(mem[0]);
    }
}

fn actor(name: &str, class: ActorClass, program: Vec<Step>, b: Box<dyn Behavior>) -> AppActor {
    AppActor {
        name: name.into(),
        kind: name.into(),
        class,
        program,
        behavior: b,
        mem_words: 1,
    }
}

/// A compute actor without behaviour.
fn node(name: &str, program: Vec<Step>) -> AppActor {
    actor(name, ActorClass::Compute, program, Box::new(NoBehavior))
}

/// A source writing one word per period on `edge`.
fn source(name: &str, edge: usize) -> AppActor {
    actor(
        name,
        ActorClass::Source,
        vec![x(1), w(edge)],
        Box::new(NoBehavior),
    )
}

/// A sink reading one word per period from `edge`.
fn sink(name: &str, edge: usize) -> AppActor {
    actor(
        name,
        ActorClass::Sink,
        vec![r(edge), x(0)],
        Box::new(NoBehavior),
    )
}

fn edge(src: usize, dst: usize) -> AppEdge {
    AppEdge {
        src,
        dst,
        label: String::new(),
    }
}

const fn r(edge: usize) -> Step {
    Step::Read { edge, addr: 0 }
}
const fn w(edge: usize) -> Step {
    Step::Write { edge, addr: 0 }
}
const fn x(cycles: u32) -> Step {
    Step::Exec(Exec {
        cycles,
        nop: 0,
        action: 0,
    })
}

/// source -> inc (`cycles` per word) -> sink, recording what arrives.
fn chain(cycles: u32) -> (AppGraph, std::sync::Arc<std::sync::Mutex<Vec<u16>>>) {
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let app = AppGraph {
        actors: vec![
            actor(
                "src",
                ActorClass::Source,
                vec![x(1), w(0)],
                Box::new(Count(0)),
            ),
            actor(
                "inc",
                ActorClass::Compute,
                vec![r(0), x(cycles), w(1)],
                Box::new(Inc),
            ),
            actor(
                "sink",
                ActorClass::Sink,
                vec![r(1), x(0)],
                Box::new(Record(out.clone())),
            ),
        ],
        edges: vec![edge(0, 1), edge(1, 2)],
    };
    (app, out)
}

#[test]
fn a_chain_maps_to_one_core_and_computes() {
    let p = Platform::asap2();
    let (app, out) = chain(10);
    let mut m = map(app, &p).unwrap();
    assert_eq!(m.total_cores(), 1);
    assert_eq!(m.comm_cores(), 0);
    assert!(!m.exceeds_chip);
    assert_eq!(m.cores[1].pos, Some((0, 0)));
    let s = simulate(&mut m, &p, 100);
    s.check(&m).unwrap();
    assert_eq!(*out.lock().unwrap(), (1..=100).collect::<Vec<u16>>());
    // The core is the bottleneck: one word per 10 cycles.
    assert_eq!(s.cycles_per_block(), Some(10.0));
    let st = &s.cores[1];
    assert_eq!(st.exec, 1000);
    assert_eq!(st.exec + st.nop + st.stall + st.halted, s.cycles);
    assert_eq!(s.links[0].words, 100);
}

#[test]
fn debug_output_hides_behaviours() {
    /// A behaviour holding "key material" it would print if asked.
    #[derive(Debug)]
    struct Keyed([u8; 4]);
    impl Behavior for Keyed {
        fn exec(&mut self, _a: u32, mem: &mut [u16], _now: u64) {
            mem[0] ^= u16::from(self.0[0]);
        }
    }
    let secret = "[222, 173, 190, 239]";
    assert!(format!("{:?}", Keyed([0xde, 0xad, 0xbe, 0xef])).contains(secret));
    let app = AppGraph {
        actors: vec![
            source("src", 0),
            actor(
                "keyed",
                ActorClass::Compute,
                vec![r(0), x(3), w(1)],
                Box::new(Keyed([0xde, 0xad, 0xbe, 0xef])),
            ),
            sink("dst", 1),
        ],
        edges: vec![edge(0, 1), edge(1, 2)],
    };
    let a = format!("{:?}", app.actors[1]);
    assert!(a.contains("\"keyed\"") && a.contains("<behavior>"), "{a}");
    let m = map(app, &Platform::asap2()).unwrap();
    let core = m.cores.iter().find(|c| c.name == "keyed").unwrap();
    let c = format!("{core:?}");
    assert!(c.contains("Some(<behavior>)"), "{c}");
    for dbg in [a, c, format!("{m:?}")] {
        assert!(!dbg.contains(secret), "{dbg}");
    }
}

/// `k` sources, each feeding a producer `p_i`, all producers feeding one
/// consumer `c`, which feeds the sink. Edge `2i`: source i -> p_i; edge
/// `2i + 1`: p_i -> c; edge `2k`: c -> sink.
fn fan_in(k: usize) -> AppGraph {
    let mut actors = Vec::new();
    let mut edges = Vec::new();
    for i in 0..k {
        let prog = vec![r(2 * i), x(1), w(2 * i + 1)];
        actors.push(node(&format!("p{i}"), prog));
        edges.push(edge(k + 1 + i, i));
        edges.push(edge(i, k));
    }
    let mut prog: Vec<Step> = (0..k).map(|i| r(2 * i + 1)).collect();
    prog.extend([x(1), w(2 * k)]);
    actors.push(node("c", prog));
    for i in 0..k {
        let prog = vec![x(1), w(2 * i)];
        actors.push(actor(
            &format!("s{i}"),
            ActorClass::Source,
            prog,
            Box::new(NoBehavior),
        ));
    }
    actors.push(sink("sink", 2 * k));
    edges.push(edge(k, 2 * k + 1));
    AppGraph { actors, edges }
}

#[test]
fn merge_cores_where_inputs_exceed_the_ports() {
    let p = Platform::asap2();
    for (k, merges) in [(2, 0), (3, 1), (4, 2), (5, 3)] {
        let mut m = map(fan_in(k), &p).unwrap();
        assert_eq!(m.merge_cores(), merges, "{k} producers");
        assert_eq!(m.total_cores(), k + 1 + merges);
        for c in m.cores.iter().filter(|c| c.class.is_core()) {
            assert!(c.inputs.len() <= p.max_inputs, "{}", c.name);
        }
        let s = simulate(&mut m, &p, 50);
        s.check(&m).unwrap();
        assert_eq!(s.sink_times[0].len(), 50);
    }
}

/// One producer writing to `k` consumers, each to its own sink.
fn fan_out(k: usize) -> AppGraph {
    let mut actors = vec![
        source("src", 0),
        node(
            "p",
            std::iter::once(r(0))
                .chain(std::iter::once(x(1)))
                .chain((0..k).map(|i| w(1 + i)))
                .collect(),
        ),
    ];
    let mut edges = vec![edge(0, 1)];
    for i in 0..k {
        actors.push(node(&format!("c{i}"), vec![r(1 + i), x(1), w(1 + k + i)]));
        edges.push(edge(1, 2 + i));
    }
    for i in 0..k {
        actors.push(sink(&format!("sink{i}"), 1 + k + i));
        edges.push(edge(2 + i, 2 + k + i));
    }
    AppGraph { actors, edges }
}

#[test]
fn dispatch_cores_where_destinations_exceed_the_directions() {
    let cases = [
        (DispatchShape::Chain, [(4, 0), (5, 1), (7, 1), (8, 2)]),
        (DispatchShape::Tree, [(5, 1), (16, 4), (17, 5), (40, 12)]),
    ];
    for (shape, ks) in cases {
        let p = Platform {
            dispatch: shape,
            ..Platform::asap2()
        };
        for (k, dispatches) in ks {
            let mut m = map(fan_out(k), &p).unwrap();
            assert_eq!(m.dispatch_cores(), dispatches, "{shape:?}: {k}");
            // Every core within its two inputs and four outputs.
            let ports = |c: &&aesflow_array::Core| {
                c.inputs.len() <= p.max_inputs && c.outputs.len() <= p.max_outputs
            };
            let cores = m.cores.iter().filter(|c| c.class.is_core());
            assert!(cores.clone().all(|c| ports(&c)), "{shape:?}: {k}");
            let s = simulate(&mut m, &p, 20);
            s.check(&m).unwrap();
            assert!(s.sink_times.iter().all(|t| t.len() == 20));
        }
    }
}

/// DispatchCores crossed on the way to each destination, and the count.
fn depths(plan: &[Vec<usize>]) -> (usize, usize) {
    let count = plan.iter().flatten().map(|&c| c + 1).max().unwrap_or(0);
    (count, plan.iter().map(Vec::len).max().unwrap_or(0))
}

#[test]
fn dispatch_tree_has_the_chains_cores_and_the_least_depth() {
    let m = Platform::asap2().max_outputs;
    for n in 5..=64 {
        let chain = DispatchShape::Chain.plan(n, m);
        let tree = DispatchShape::Tree.plan(n, m);
        let (cc, dc) = depths(&chain);
        let (ct, dt) = depths(&tree);
        assert_eq!(cc, (n - m).div_ceil(m - 1), "{n}");
        assert_eq!(ct, cc, "{n}: tree cores");
        assert!(dt <= dc, "{n}: tree {dt} deeper than chain {dc}");
        // The least depth d with m^(d+1) >= n.
        let least = (0..).find(|&d| m.pow(d as u32 + 1) >= n).unwrap();
        assert_eq!(dt, least, "{n}");
        if n > m + m - 1 {
            assert!(dt < dc, "{n}: {dt} vs {dc}");
        }
        for plan in [&chain, &tree] {
            // A tree: each core has one parent, every core and the
            // producer reach at most m next hops.
            let mut children: Vec<Vec<Option<usize>>> = vec![Vec::new(); cc + 1];
            for above in plan.iter() {
                let mut parent = cc;
                for &c in above {
                    if !children[parent].contains(&Some(c)) {
                        children[parent].push(Some(c));
                    }
                    parent = c;
                }
                children[parent].push(None);
            }
            assert!(children.iter().all(|c| c.len() <= m), "{n}: {children:?}");
            assert!(children[..cc].iter().all(|c| c.len() >= 2), "{n}");
        }
    }
    // One DispatchCore: both shapes send the same destinations through it.
    assert_eq!(
        DispatchShape::Chain.plan(7, m),
        DispatchShape::Tree.plan(7, m)
    );
}

#[test]
fn placement_is_a_serpentine_and_flags_the_chip() {
    let p = Platform::asap2();
    // A chain of 170 cores: more than the 164-core chip.
    let n = 170;
    let mut actors = vec![source("src", 0)];
    let mut edges = vec![edge(0, 1)];
    for i in 0..n {
        actors.push(node(&format!("a{i}"), vec![r(i), x(1), w(i + 1)]));
        edges.push(edge(i + 1, i + 2));
    }
    actors.push(sink("sink", n));
    let m = map(AppGraph { actors, edges }, &p).unwrap();
    assert!(m.exceeds_chip);
    assert!(m.height > p.height);
    // Row 0 left to right, row 1 right to left: every chain link is one tile.
    assert_eq!(m.cores[1].pos, Some((0, 0)));
    assert_eq!(m.cores[12].pos, Some((11, 0)));
    assert_eq!(m.cores[13].pos, Some((11, 1)));
    assert!(
        m.links
            .iter()
            .filter(|l| l.tiles > 0)
            .all(|l| l.tiles == 1 && !l.is_long())
    );
}

#[test]
fn a_cycle_without_tokens_deadlocks_with_names() {
    let p = Platform::asap2();
    let app = AppGraph {
        actors: vec![
            source("src", 0),
            node("a", vec![r(0), r(2), x(1), w(1)]),
            node("b", vec![r(1), x(1), w(2), w(3)]),
            sink("sink", 3),
        ],
        edges: vec![edge(0, 1), edge(1, 2), edge(2, 1), edge(2, 3)],
    };
    let mut m = map(app, &p).unwrap();
    let s = simulate(&mut m, &p, 10);
    match s.check(&m) {
        Err(SimError::Deadlock { stuck }) => assert_eq!(stuck, vec!["a".to_string()]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_core_that_never_waits_hits_the_step_limit() {
    let p = Platform::asap2();
    // Built by hand (the mapper refuses an actor without input).
    let (app, _) = chain(1);
    let mut m: Mapping = map(app, &p).unwrap();
    m.cores[1].program = vec![Op::Exec(Exec {
        cycles: 1,
        nop: 0,
        action: u32::MAX,
    })];
    let s = simulate(&mut m, &p, 10);
    match s.check(&m) {
        Err(e @ SimError::StepLimit { .. }) => assert!(e.to_string().contains("inc"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_applications_are_refused() {
    let p = Platform::asap2();
    let (mut app, _) = chain(1);
    app.actors[1].program = vec![x(1), w(1)];
    assert_eq!(
        map(app, &p).unwrap_err(),
        MapError::NoInput {
            actor: "inc".into()
        }
    );
    let (mut app, _) = chain(1);
    app.actors[1].program.push(w(1));
    assert!(matches!(
        map(app, &p).unwrap_err(),
        MapError::Rates { edge: 1, .. }
    ));
    let (mut app, _) = chain(1);
    app.actors[1].program[0] = Step::Read { edge: 0, addr: 7 };
    assert!(matches!(
        map(app, &p).unwrap_err(),
        MapError::Invalid { .. }
    ));
    let (mut app, _) = chain(1);
    app.actors[1].program[0] = r(5);
    assert!(matches!(
        map(app, &p).unwrap_err(),
        MapError::Invalid { .. }
    ));
    let (mut app, _) = chain(1);
    app.actors[2].program[0] = r(0);
    assert!(map(app, &p).is_err());
    assert!(matches!(
        aesflow_array::gather(Vec::new()).unwrap_err(),
        MapError::Gather { .. }
    ));
}
