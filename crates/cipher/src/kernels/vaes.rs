//! placeholder
use crate::kernel::{Block, Kernel};
use crate::key_schedule::KeySchedule;
/// VAES
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes;
impl Kernel for Vaes {
    fn name(&self) -> &'static str {
        "vaes"
    }
    fn description(&self) -> &'static str {
        ""
    }
    fn is_available(&self) -> bool {
        false
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        30
    }
    fn encrypt_blocks(&self, _keys: &KeySchedule, _blocks: &mut [Block]) {
        panic!()
    }
    fn decrypt_blocks(&self, _keys: &KeySchedule, _blocks: &mut [Block]) {
        panic!()
    }
}
