use aesflow_cipher::KeySize;
use aesflow_designs::*;
#[test]
fn dbg() {
    let platform = aesflow_array::Platform::default();
    let key: Vec<u8> = (0u8..16).collect();
    let d = build(Engine::ParallelMixColumns, KeySize::Aes128, Expansion::Online, Optimisations::NONE);
    let m = run::map_design(&d, &key, &platform).unwrap();
    for (i, c) in m.cores.iter().enumerate() {
        println!("{i} {} {:?} in {:?} out {:?} prog {}", c.name, c.class, c.inputs, c.outputs, c.program.len());
        if c.class == aesflow_array::CoreClass::Merge { println!("   {:?}", &c.program[..c.program.len().min(16)]); }
    }
    for (i, l) in m.links.iter().enumerate() { println!("link {i} {} -> {} port {}", m.cores[l.src].name, m.cores[l.dst].name, l.port); }
}
