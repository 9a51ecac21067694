//! The exported C-ABI functions of the `.wasm` module. This is the only place in the
//! workspace that allows `unsafe_code`: exporting a symbol under a fixed name needs
//! `#[unsafe(no_mangle)]`. No function here dereferences a raw pointer; they hand the page the
//! address and length of the module's own buffers, which the page reads and writes through
//! its `WebAssembly.Memory` view.
#![allow(unsafe_code)]

use crate::Module;
use std::cell::RefCell;

thread_local! {
    // One module state per WebAssembly instance (wasm32-unknown-unknown is single-threaded).
    static MODULE: RefCell<Module> = RefCell::new(Module::default());
}

/// Resizes the input buffer to `len` bytes and returns its address for the page to fill.
#[unsafe(no_mangle)]
pub extern "C" fn okf_input(len: usize) -> *mut u8 {
    MODULE.with_borrow_mut(|m| m.input(len).as_mut_ptr())
}

/// Loads the index in the input buffer: 0 = loaded (output: index info JSON), 1 = refused
/// (output: error JSON).
#[unsafe(no_mangle)]
pub extern "C" fn okf_load_index() -> u32 {
    MODULE.with_borrow_mut(Module::load_index)
}

/// Assembles the request in the input buffer: 0 = package bytes, 1 = error JSON.
#[unsafe(no_mangle)]
pub extern "C" fn okf_ask() -> u32 {
    MODULE.with_borrow_mut(Module::ask)
}

/// Address of the output of the last call.
#[unsafe(no_mangle)]
pub extern "C" fn okf_output_ptr() -> *const u8 {
    MODULE.with_borrow(|m| m.output().as_ptr())
}

/// Length in bytes of the output of the last call.
#[unsafe(no_mangle)]
pub extern "C" fn okf_output_len() -> usize {
    MODULE.with_borrow(|m| m.output().len())
}
