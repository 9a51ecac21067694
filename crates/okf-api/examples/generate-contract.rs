//! Writes the files generated from the wire contract: `web/contract.js` (the page's rules and
//! page tools) and `schemas/ask-request.schema.json`. okf-api's tests fail when either
//! committed file is not what this writes.
#![allow(missing_docs)]

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        ("web/contract.js", okf_api::web::web_contract_module()),
        (
            "schemas/ask-request.schema.json",
            okf_api::schemas::file_text(&okf_api::schemas::ask_request()),
        ),
    ];
    for (relative, text) in files {
        if let Err(e) = std::fs::write(root.join(relative), text) {
            eprintln!("error: writing {relative}: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {relative}");
    }
    ExitCode::SUCCESS
}
