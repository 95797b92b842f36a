//! Valgrind client requests, issued with Valgrind's "magic sequence".
//!
//! Run natively, the sequence is four rotations of `rdi` by a total of 128
//! bits (no change) and `xchg rbx, rbx` (no change): a no-op that returns
//! the default value. Run under Valgrind, the JIT recognises it and performs
//! the request whose arguments `rax` points at, returning the result in
//! `rdx` (see `valgrind.h`, `VALGRIND_DO_CLIENT_REQUEST_EXPR` for amd64).
//! This is the only `unsafe` of the crate.

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's requests.
const MEMCHECK_BASE: usize = (b'M' as usize) << 24 | (b'C' as usize) << 16;
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;
/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: usize = 0x1001;

#[cfg(target_arch = "x86_64")]
fn client_request(default: usize, request: usize, a1: usize, a2: usize) -> usize {
    let args: [usize; 6] = [request, a1, a2, 0, 0, 0];
    let mut result = default;
    // SAFETY: the instructions only rotate `rdi` by 3+13+61+51 = 128 bits
    // (declared as clobbered anyway) and exchange `rbx` with itself; natively
    // nothing changes and `rdx` keeps `default`. Under Valgrind the request
    // reads the six words of `args`, which live until the asm returns, and
    // changes only shadow state (definedness bits) of the range it is given,
    // which the caller derives from a live slice.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0usize => _,
            options(nostack, preserves_flags),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn client_request(default: usize, _request: usize, _a1: usize, _a2: usize) -> usize {
    default
}

/// Whether this process runs under Valgrind.
pub fn running_on_valgrind() -> bool {
    client_request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
}

/// Marks `bytes` as undefined: a secret. Memcheck then reports every
/// conditional branch and every memory address computed from it.
pub fn mark_secret(bytes: &[u8]) {
    client_request(0, MAKE_MEM_UNDEFINED, bytes.as_ptr() as usize, bytes.len());
}

/// Marks `bytes` as defined again: a public result (declassification), so
/// that checking it afterwards is not reported.
pub fn mark_public(bytes: &[u8]) {
    client_request(0, MAKE_MEM_DEFINED, bytes.as_ptr() as usize, bytes.len());
}
