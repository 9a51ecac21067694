//! Prints `web/contract.js` (the page's share of the wire contract).
#![allow(missing_docs)]

fn main() {
    print!("{}", okf_api::web::web_contract_module());
}
