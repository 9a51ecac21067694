//! `okf review`: the tools of the review loop (docs/authoring.md "The review loop").

use crate::{CliError, print, read};
use clap::{Args, Subcommand};
use okf_engine::ContextIndex;
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum ReviewCommand {
    /// Print the item_sha256 a review decision about an item must state: SHA-256 of the
    /// item's canonical JSON as the index holds it.
    Digest(DigestArgs),
}

#[derive(Args)]
pub(crate) struct DigestArgs {
    /// Index file (okf-context-index.v1), as `okf build` wrote it.
    #[arg(long)]
    index: PathBuf,
    /// Id of a record, assertion, requirement or declared gap.
    #[arg(long)]
    item: String,
}

pub(crate) fn run(command: ReviewCommand) -> Result<(), CliError> {
    match command {
        ReviewCommand::Digest(args) => {
            let index = ContextIndex::from_json_slice(&read(&args.index)?)?;
            let digest = okf_authoring::item_sha256(index.document(), &args.item)
                .map_err(CliError::Failed)?;
            print(&digest)
        }
    }
}
