//! Re-exports wasmtime's C API so that a `staticlib` carries every `wasm_*` and
//! `wasmtime_*` symbol.
pub use wasmtime_c_api::*;
