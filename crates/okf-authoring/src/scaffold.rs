//! `okf init`: a first profile for a publisher's own captures. One `[[document]]` per capture,
//! defaults for published official guidance that `okf lint` accepts, and one concept, one
//! evidence record (the first capture's first page), one assertion and one requirement for the
//! author to rename and extend. It builds as written.

use crate::capture::{CaptureFile, load};
use crate::error::Error;
use crate::{PROFILE_FILE, ProfileFile};

/// The neutral words a new profile starts with: verbs of keeping and losing that benefit
/// questions ask with ("Do they still get …", "… keep …", "… continue …"), none of them
/// built-in scaffolding; sorted, as the index requires.
pub const STARTER_NEUTRAL_WORDS: [&str; 10] = [
    "continue",
    "continues",
    "entitled",
    "gets",
    "keep",
    "keeps",
    "kept",
    "lose",
    "loses",
    "still",
];

/// What `okf init` needs besides the captures.
#[derive(Debug, Clone)]
pub struct ScaffoldOptions {
    /// Base of every id the profile writes (`https://…/`, ending in `/`).
    pub base: String,
    /// The bundle's snapshot name.
    pub snapshot: String,
    /// When the captures were made (`YYYY-MM-DDTHH:MM:SSZ`), written on each `[[document]]`.
    pub captured_at: String,
}

/// A TOML basic string: `s` quoted, with `\` and `"` escaped and control characters written as
/// escapes, so no capture field can end the string or the line.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The profile files (`profile.toml`, `graph.toml`) for `captures`, in document-id order.
pub fn scaffold(
    captures: &[CaptureFile],
    options: &ScaffoldOptions,
) -> Result<Vec<ProfileFile>, Error> {
    let documents = load(captures)?;
    let Some((first_id, (first_file, first))) = documents.iter().next() else {
        return Err(Error {
            file: "sources".into(),
            line: 1,
            rule: crate::error::Rule::Capture("there is no capture file to start from".into()),
        });
    };
    let Some(first_page) = first.pages.iter().map(|p| p.page).min() else {
        return Err(Error {
            file: first_file.clone(),
            line: 1,
            rule: crate::error::Rule::Capture("the capture has no page".into()),
        });
    };
    let source = toml_string(&first.source_url);
    let base = toml_string(&options.base);
    let authority = |class: &str, label: &str| {
        format!("authority = {{ class = \"{class}\", label = \"{label}\", source = {source} }}")
    };
    let mut profile = format!(
        "# A first profile written by `okf init`. Edit the scope, the limitations and the rights,\n\
         # then rename and extend graph.toml. Build: okf build DIR --sources SOURCES --out index.json\n\
         # (docs/authoring.md and docs/publishing.md).\n\n\
         [index]\nbase = {base}\n\
         scope = \"What these documents cover, in one or two sentences a reader can check.\"\n\
         limitations = [\"Machine-extracted text of the captured documents; check it against the published versions.\"]\n\n\
         [index.bundle]\nid = {}\nsnapshot = {}\nsource_url = {}\n\n",
        toml_string(&format!("{}bundle", options.base)),
        toml_string(&options.snapshot),
        toml_string(&format!("{}index.json", options.base)),
    );
    let rights = "rights = \"State the licence of the published text here (for UK government guidance, usually the Open Government Licence v3.0).\"";
    let scope = "scope = \"Published guidance as captured: it explains the text, not anyone's individual entitlement.\"";
    for (kind, status, class, label, with_rights) in [
        (
            "evidence",
            "official",
            "official",
            "Published guidance as captured",
            true,
        ),
        (
            "concept",
            "normalized",
            "derived",
            "Concept written by the author from the guidance",
            true,
        ),
        (
            "assertion",
            "inferred",
            "derived",
            "Link written by the author; not a statement of the guidance",
            false,
        ),
    ] {
        profile.push_str(&format!(
            "[defaults.{kind}]\nassertion_status = \"{status}\"\n{}\n{scope}\n{}\n",
            authority(class, label),
            if with_rights {
                format!("{rights}\n")
            } else {
                String::new()
            },
        ));
    }
    profile.push_str(&format!(
        "# Ordinary words readers ask with that name no subject: left over in a question, they do\n\
         # not make it insufficient (docs/authoring.md, \"Words a question may use freely\"). Keep\n\
         # only words that can never name a topic of these documents.\n\
         [vocabulary]\nneutral = [{}]\n\n",
        STARTER_NEUTRAL_WORDS
            .iter()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for id in documents.keys() {
        profile.push_str(&format!(
            "[[document]]\nid = {}\ncaptured_at = {}\n\n",
            toml_string(id),
            toml_string(&options.captured_at)
        ));
    }
    let graph = format!(
        "# One of each kind of item, to rename and extend (docs/authoring.md, \"The profile\").\n\n\
         [[record]]\nkind = \"concept\"\nroute = \"concept/first-topic\"\nlabel = \"First topic\"\n\
         text = \"What the first topic means, in the author's words.\"\naliases = [\"first topic\"]\n\
         provenance = [{{ document = {doc}, page = {first_page}, locator = \"page {first_page}\" }}]\n\n\
         [[record]]\nkind = \"evidence\"\nroute = \"evidence/first-page\"\nlabel = {page_label}\n\
         source = {{ document = {doc}, page = {first_page}, locator = \"page {first_page}\" }}\n\n\
         [[assertion]]\nroute = \"assertion/first-topic-page\"\nfrom = \"concept/first-topic\"\npredicate = \"references\"\n\
         to = \"evidence/first-page\"\nlabel = \"The first topic is explained on this page\"\nprovenance = \"target\"\n\n\
         [[requirement]]\nroute = \"requirement/first-topic\"\nlabel = \"First topic\"\n\
         scope = \"A question about the first topic needs this page.\"\nwhen_all = [\"concept/first-topic\"]\n\
         required = [\"evidence/first-page\"]\npaths = [[\"assertion/first-topic-page\"]]\n",
        doc = toml_string(first_id),
        page_label = toml_string(&format!("Page {first_page} of {first_id}")),
    );
    Ok(vec![
        ProfileFile {
            name: PROFILE_FILE.into(),
            text: profile,
        },
        ProfileFile {
            name: "graph.toml".into(),
            text: graph,
        },
    ])
}
