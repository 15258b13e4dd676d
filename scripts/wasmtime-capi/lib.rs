//! Re-exports wasmtime's C API so that a `staticlib` carries every `wasm_*` and
//! `wasmtime_*` symbol, plus the one call the wasmgraph host needs that the C API lacks.
pub use wasmtime_c_api::*;

use wasmtime_c_api::wasmtime::SharedMemory;

/// Wakes every thread waiting anywhere in `mem` (`memory.atomic.notify` at each aligned
/// address); returns how many were woken. An engine's epoch deadline never reaches a
/// thread inside `memory.atomic.wait*` (wasmtime issue 12809), so the host's watchdog
/// calls this for a run that is well past its time limit: the woken thread runs on into
/// its next epoch check and traps there. It costs one lookup per 4 bytes of memory,
/// which is why it is kept for runs that are already overdue.
#[no_mangle]
pub extern "C" fn wgh_shared_memory_wake_all(mem: &SharedMemory) -> u64 {
    let size = mem.data_size() as u64;
    let mut woken = 0u64;
    let mut addr = 0u64;
    while addr + 4 <= size {
        if let Ok(n) = mem.atomic_notify(addr, u32::MAX) {
            woken += u64::from(n);
        }
        addr += 4;
    }
    woken
}
