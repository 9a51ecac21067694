//! The exported C-ABI functions of the `.wasm` module. This is the only place in the
//! workspace that allows `unsafe_code`: exporting a symbol under a fixed name needs
//! `#[unsafe(no_mangle)]`. No function here dereferences a raw pointer; they hand the page the
//! address and length of the module's own buffers, which the page reads and writes through
//! its `WebAssembly.Memory` view.
#![allow(unsafe_code)]

use crate::{Module, WorkbenchCall};
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

/// The evidence brief of the package in the input buffer, at most `max_chars` characters (0:
/// the default): 0 = the brief's text, 1 = error JSON.
#[unsafe(no_mangle)]
pub extern "C" fn okf_brief(max_chars: usize) -> u32 {
    MODULE.with_borrow_mut(|m| m.brief(max_chars))
}

/// The closure of the requirement named in the input buffer, each item with its
/// `item_sha256` (a reviewer's page): 0 = closure JSON, 1 = error JSON.
#[unsafe(no_mangle)]
pub extern "C" fn okf_review_closure() -> u32 {
    MODULE.with_borrow_mut(Module::review_closure)
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

macro_rules! workbench_exports {
    ($($name:ident => $call:ident),* $(,)?) => {$(
        /// A workbench call on the input buffer (see `Module::workbench`): 0 = JSON,
        /// 2 = envelope, 1 = error JSON.
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> u32 {
            MODULE.with_borrow_mut(|m| m.workbench(WorkbenchCall::$call))
        }
    )*};
}

workbench_exports! {
    okf_wb_open => Open,
    okf_wb_descriptors => Descriptors,
    okf_wb_validate => Validate,
    okf_wb_begin => Begin,
    okf_wb_fetch => Fetch,
    okf_wb_finish => Finish,
    okf_wb_read => Read,
    okf_wb_records => Records,
    okf_wb_navigate => Navigate,
    okf_wb_page => Page,
}

/// Stores a fetched workbench file: the input buffer is the path (`path_len` bytes) and the
/// body; `fetched` = 1 for the file's bytes, 0 for the reason it could not be fetched.
#[unsafe(no_mangle)]
pub extern "C" fn okf_wb_put(path_len: usize, fetched: u32) -> u32 {
    MODULE.with_borrow_mut(|m| m.workbench_put(path_len, fetched == 1))
}
