//! Every authoring error kind, with the file, line and message it reports (docs/authoring.md).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use okf_authoring::{Built, CaptureFile, Error, ProfileFile, Rule, build};

const PROFILE: &str = r#"[index]
base = "https://x.example/"
scope = "A tiny test bundle."
limitations = ["Test data."]
bundle = { id = "https://x.example/bundle", snapshot = "t1", source_url = "https://x.example/index.json" }

[defaults.concept]
assertion_status = "normalized"
authority = { class = "synthetic", label = "Test", source = "https://x.example/authority" }
scope = "Test scope."
rights = "CC0-1.0"

[defaults.evidence]
assertion_status = "normalized"
authority = { class = "synthetic", label = "Test", source = "https://x.example/authority" }
scope = "Test scope."
rights = "CC0-1.0"

[defaults.assertion]
assertion_status = "normalized"
authority = { class = "synthetic", label = "Test", source = "https://x.example/authority" }
scope = "Test scope."

[[document]]
id = "doc"
captured_at = "2026-01-01T00:00:00Z"
"#;

/// The graph of the one-page loans profile (also built by the CLI tests).
const GRAPH: &str = include_str!("fixtures/loans-graph.toml");

const CAPTURE: &str = r#"{"document_id": "doc", "source_url": "https://x.example/doc.html",
 "source_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
 "pages": [{"page": 1, "url": "https://x.example/doc.html#page=1",
            "text": "Intro. Loans last three weeks. Loans may be renewed twice. Renewals are free."}]}"#;

fn files(profile: &str, graph: &str) -> Vec<ProfileFile> {
    vec![
        ProfileFile {
            name: "graph.toml".into(),
            text: graph.into(),
        },
        ProfileFile {
            name: "profile.toml".into(),
            text: profile.into(),
        },
    ]
}

fn capture(text: &str) -> Vec<CaptureFile> {
    vec![CaptureFile {
        name: "sources/doc.json".into(),
        bytes: text.as_bytes().to_vec(),
    }]
}

fn run(profile: &str, graph: &str, cap: &str) -> Result<Built, Error> {
    build(&files(profile, graph), &capture(cap))
}

fn fails(profile: &str, graph: &str, cap: &str) -> Error {
    run(profile, graph, cap).expect_err("the profile must be refused")
}

fn graph_with(from: &str, to: &str) -> String {
    assert!(GRAPH.contains(from), "{from}");
    GRAPH.replacen(from, to, 1)
}

#[test]
fn the_valid_fixture_builds_and_copies_the_excerpt_exactly() {
    let built = run(PROFILE, GRAPH, CAPTURE).unwrap();
    let rule = &built.index.records[1];
    assert_eq!(rule.text, "Loans last three weeks.");
    let p = &rule.provenance[0];
    assert_eq!(p.url, "https://x.example/doc.html#page=1");
    assert_eq!(
        p.literal_sha256.as_deref(),
        Some(okf_engine::canonical::sha256_hex(b"Loans last three weeks.").as_str())
    );
    // Byte-identical on every run, whatever order the files are given in.
    let mut reversed = files(PROFILE, GRAPH);
    reversed.reverse();
    assert_eq!(
        build(&reversed, &capture(CAPTURE)).unwrap().json,
        built.json
    );
    assert!(built.json.ends_with("}\n"));
}

#[test]
fn missing_profile_toml() {
    let e = build(&files(PROFILE, GRAPH)[..1], &capture(CAPTURE)).unwrap_err();
    assert_eq!(e.rule, Rule::MissingProfile);
    assert_eq!(
        e.to_string(),
        "profile.toml:1: a profile folder needs profile.toml"
    );
}

#[test]
fn syntax_and_shape_errors_name_the_line() {
    let e = fails(
        PROFILE,
        &graph_with("label = \"Loan rule\"", "labl = \"Loan rule\""),
        CAPTURE,
    );
    assert_eq!((e.file.as_str(), e.line), ("graph.toml", 12));
    assert!(matches!(e.rule, Rule::Syntax(_)));
    assert!(e.to_string().contains("unknown field `labl`"), "{e}");
    let e = fails(PROFILE, "[[record]\n", CAPTURE);
    assert_eq!((e.file.as_str(), e.line), ("graph.toml", 1));
    assert!(
        e.to_string()
            .starts_with("graph.toml:1: not a valid profile file:"),
        "{e}"
    );
}

#[test]
fn index_section_only_once_in_profile_toml() {
    let e = fails(
        PROFILE,
        &format!(
            "{GRAPH}\n[index]\nbase = \"x\"\nscope = \"s\"\nbundle = {{ id = \"a\", snapshot = \"\", source_url = \"b\" }}\n"
        ),
        CAPTURE,
    );
    assert_eq!(e.rule, Rule::IndexSection);
    assert_eq!(e.file, "graph.toml");
    assert!(
        e.to_string()
            .ends_with("[index] must be declared exactly once, in profile.toml")
    );
}

#[test]
fn capture_that_is_not_json_or_contradicts_its_digest() {
    let e = fails(PROFILE, GRAPH, "{\"document_id\": \"doc\",\n oops}");
    assert_eq!((e.file.as_str(), e.line), ("sources/doc.json", 2));
    assert!(e.to_string().contains("not a valid capture file"), "{e}");
    let bad = CAPTURE.replace(
        "\"text\":",
        "\"literal_sha256\": \"1111111111111111111111111111111111111111111111111111111111111111\", \"text\":",
    );
    let e = fails(PROFILE, GRAPH, &bad);
    assert!(e.to_string().contains("page 1 text hashes to"), "{e}");
}

#[test]
fn duplicate_document() {
    let e = build(
        &files(PROFILE, GRAPH),
        &[capture(CAPTURE), capture(CAPTURE)].concat(),
    )
    .unwrap_err();
    assert_eq!(e.rule, Rule::DuplicateDocument("doc".into()));
    assert_eq!(
        e.to_string(),
        "sources/doc.json:1: document id \"doc\" is declared twice"
    );
}

#[test]
fn unknown_document() {
    let e = fails(
        PROFILE,
        &graph_with(
            "document = \"doc\", page = 1",
            "document = \"nope\", page = 1",
        ),
        CAPTURE,
    );
    assert_eq!((e.file.as_str(), e.line), ("graph.toml", 9));
    assert_eq!(e.rule, Rule::UnknownDocument("nope".into()));
    assert!(
        e.to_string()
            .contains("document \"nope\" is not declared by a [[document]]")
    );
    let e = fails(
        &PROFILE.replace("id = \"doc\"", "id = \"other\""),
        GRAPH,
        CAPTURE,
    );
    assert_eq!((e.file.as_str(), e.line), ("profile.toml", 24));
}

#[test]
fn unknown_page() {
    let e = fails(PROFILE, &graph_with("page = 1", "page = 7"), CAPTURE);
    assert_eq!(
        e.to_string(),
        "graph.toml:9: the capture of \"doc\" has no page 7"
    );
}

#[test]
fn digest_mismatch_for_pinned_source_and_literal() {
    let pinned = PROFILE.replace(
        "id = \"doc\"",
        "id = \"doc\"\nsource_sha256 = \"2222222222222222222222222222222222222222222222222222222222222222\"",
    );
    let e = fails(&pinned, GRAPH, CAPTURE);
    assert!(matches!(
        e.rule,
        Rule::DigestMismatch {
            what: "source_sha256",
            ..
        }
    ));
    assert!(e.to_string().contains("source_sha256 declared 2222"), "{e}");
    let e = fails(
        PROFILE,
        &graph_with(
            "to = \"weeks.\" }",
            "to = \"weeks.\", literal_sha256 = \"33\" }",
        ),
        CAPTURE,
    );
    assert!(
        e.to_string()
            .contains("literal_sha256 declared 33 but the capture gives"),
        "{e}"
    );
}

#[test]
fn excerpt_not_found_and_not_unique() {
    let e = fails(
        PROFILE,
        &graph_with("to = \"weeks.\"", "to = \"months.\""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:9: excerpt selector \"months.\" is not in the page text; not even its first word is on the page"
    );
    let e = fails(
        PROFILE,
        &graph_with("from = \"Loans last\"", "from = \"Loans\""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:9: excerpt selector \"Loans\" occurs more than once in the page text; lengthen it"
    );
}

#[test]
fn a_selector_matches_across_the_extractors_line_breaks_and_the_record_keeps_the_page_text() {
    // The extractor broke the line after "three"; the author typed a space there.
    let capture = CAPTURE.replace("Loans last three weeks.", "Loans last three\\nweeks.");
    let quoted = graph_with(
        "from = \"Loans last\", to = \"weeks.\"",
        "quote = \"last three weeks.\"",
    );
    let built = run(PROFILE, &quoted, &capture).unwrap();
    assert_eq!(built.index.records[1].text, "last three\nweeks.");
    let built = run(PROFILE, GRAPH, &capture).unwrap();
    assert_eq!(built.index.records[1].text, "Loans last three\nweeks.");
    // Words run together are still one word: a missing space is not matched.
    let e = fails(
        PROFILE,
        &graph_with("from = \"Loans last\"", "from = \"Loanslast\""),
        &capture,
    );
    assert!(matches!(e.rule, Rule::ExcerptNotFound { .. }), "{e}");
}

#[test]
fn a_selector_not_on_the_page_quotes_the_nearest_page_text() {
    let e = fails(
        PROFILE,
        &graph_with("to = \"weeks.\"", "to = \"three months.\""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:9: excerpt selector \"three months.\" is not in the page text; the nearest page text is \"three weeks. Loans may be renewed twice. Rene\""
    );
}

/// The loans page split in two by a page break in the middle of the rule's sentence.
const TWO_PAGES: &str = r#"{"document_id": "doc", "source_url": "https://x.example/doc.pdf",
 "source_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
 "pages": [{"page": 1, "url": "https://x.example/doc.pdf#page=1", "text": "Intro. Loans last three"},
           {"page": 2, "url": "https://x.example/doc.pdf#page=2", "text": "weeks. Loans may be renewed twice."},
           {"page": 3, "url": "https://x.example/doc.pdf#page=3", "text": "Renewals are free."}]}"#;

#[test]
fn a_paragraph_across_a_page_break_is_one_record_citing_both_pages() {
    let across = graph_with(
        "page = 1, locator = \"para 2\",",
        "page = 1, to_page = 2, locator = \"para 2\",",
    );
    let built = run(PROFILE, &across, TWO_PAGES).unwrap();
    let rule = &built.index.records[1];
    assert_eq!(rule.text, "Loans last three\nweeks.");
    let urls: Vec<&str> = rule.provenance.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://x.example/doc.pdf#page=1",
            "https://x.example/doc.pdf#page=2"
        ]
    );
    assert_eq!(
        rule.provenance[0].literal_sha256.as_deref(),
        Some(okf_engine::canonical::sha256_hex(b"Loans last three\nweeks.").as_str())
    );
    assert_eq!(rule.provenance[1].literal_sha256, None);
    // Without `to_page` the sentence is not on page 1 alone.
    let e = fails(PROFILE, GRAPH, TWO_PAGES);
    assert!(matches!(e.rule, Rule::ExcerptNotFound { .. }), "{e}");
}

#[test]
fn to_page_must_be_a_later_page_with_from_on_the_first_and_to_on_the_last() {
    let with = |to_page: &str, to: &str| {
        graph_with(
            "page = 1, locator = \"para 2\", from = \"Loans last\", to = \"weeks.\"",
            &format!(
                "page = 1, {to_page}locator = \"para 2\", from = \"Loans last\", to = \"{to}\""
            ),
        )
    };
    let pages = |page, to_page| Rule::ExcerptPages { page, to_page };
    // Not a later page.
    assert_eq!(
        fails(PROFILE, &with("to_page = 1, ", "weeks."), TWO_PAGES).rule,
        pages(1, 1)
    );
    // `to` ends on page 3's side of the excerpt only when it is on page 3: here it is on page 2.
    assert_eq!(
        fails(PROFILE, &with("to_page = 3, ", "weeks."), TWO_PAGES).rule,
        pages(1, 3)
    );
    // A quote cannot run across pages.
    let quoted = graph_with(
        "page = 1, locator = \"para 2\", from = \"Loans last\", to = \"weeks.\"",
        "page = 1, to_page = 2, locator = \"para 2\", quote = \"three\"",
    );
    let e = fails(PROFILE, &quoted, TWO_PAGES);
    assert_eq!(e.rule, pages(1, 2));
    assert!(
        e.to_string().contains("must be a later page than page 1"),
        "{e}"
    );
    // A page the capture does not hold.
    let e = fails(PROFILE, &with("to_page = 3, ", "free."), &TWO_PAGES.replace(",\n           {\"page\": 3, \"url\": \"https://x.example/doc.pdf#page=3\", \"text\": \"Renewals are free.\"}", ""));
    assert!(matches!(e.rule, Rule::UnknownPage { page: 3, .. }), "{e}");
}

#[test]
fn excerpt_selectors_combine_only_as_documented() {
    let e = fails(
        PROFILE,
        &graph_with("to = \"weeks.\"", "quote = \"weeks.\""),
        CAPTURE,
    );
    assert_eq!(e.rule, Rule::ExcerptSelectors);
    assert!(
        e.to_string()
            .ends_with("an excerpt is the whole page, `quote`, or `from` with `to`; nothing else")
    );
}

#[test]
fn evidence_text_is_cited_never_written() {
    let e = fails(
        PROFILE,
        &graph_with(
            "label = \"Loan rule\"",
            "label = \"Loan rule\"\ntext = \"typed in\"",
        ),
        CAPTURE,
    );
    assert_eq!(e.rule, Rule::EvidenceText);
    assert!(
        e.to_string()
            .contains("an evidence record cites its text with `source`")
    );
}

#[test]
fn record_needs_text_or_source() {
    let e = fails(
        PROFILE,
        &graph_with("text = \"Navigation concept.\"\n", ""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:1: a record needs exactly one of `text` and `source`"
    );
}

#[test]
fn missing_field_without_default() {
    let e = fails(
        &PROFILE.replace(
            "rights = \"CC0-1.0\"\n\n[defaults.evidence]",
            "\n[defaults.evidence]",
        ),
        GRAPH,
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:1: `rights` is given neither on the item nor in [defaults]"
    );
}

#[test]
fn duplicate_id() {
    let e = fails(
        PROFILE,
        &graph_with("route = \"evidence/rule\"", "route = \"concept/loans\""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:9: id https://x.example/concept/loans is declared twice"
    );
}

#[test]
fn unknown_reference() {
    let e = fails(
        PROFILE,
        &graph_with("to = \"evidence/rule\"", "to = \"evidence/nothing\""),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:15: \"evidence/nothing\" does not name a declared record or gap"
    );
    let e = fails(
        PROFILE,
        &graph_with(
            "when_all = [\"concept/loans\"]",
            "when_all = [\"evidence/rule\"]",
        ),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:23: \"evidence/rule\" does not name a declared public concept"
    );
}

#[test]
fn unknown_predicate() {
    let e = fails(
        PROFILE,
        &graph_with("predicate = \"references\"", "predicate = \"mentions\""),
        CAPTURE,
    );
    assert!(
        e.to_string()
            .starts_with("graph.toml:15: predicate \"mentions\" is not requires"),
        "{e}"
    );
}

#[test]
fn required_path_must_chain() {
    let graph = format!(
        "{}\n[[assertion]]\nroute = \"assertion/again\"\nfrom = \"concept/loans\"\npredicate = \"related\"\nto = \"evidence/rule\"\nlabel = \"x\"\nprovenance = \"target\"\n",
        graph_with(
            "paths = [[\"assertion/loans-rule\"]]",
            "paths = [[\"assertion/loans-rule\", \"assertion/again\"]]"
        )
    );
    let e = fails(PROFILE, &graph, CAPTURE);
    assert!(matches!(e.rule, Rule::PathBroken(_)));
    assert!(e.to_string().contains("required path does not chain: assertion/again starts at https://x.example/concept/loans"), "{e}");
}

#[test]
fn gap_must_not_name_a_declared_record() {
    let graph =
        format!("{GRAPH}\n[[gap]]\nroute = \"evidence/rule\"\nlabel = \"x\"\nreason = \"y\"\n");
    let e = fails(PROFILE, &graph, CAPTURE);
    assert_eq!(e.rule, Rule::GapDeclared("evidence/rule".into()));
    assert_eq!(e.line, 31);
    assert!(
        e.to_string()
            .contains("gap \"evidence/rule\" names a record the profile declares")
    );
}

#[test]
fn gap_paragraphs_must_be_five_digit_dmg_numbers() {
    let graph = format!(
        "{GRAPH}\n[[gap]]\nroute = \"gap/absent\"\nlabel = \"x\"\nreason = \"y\"\nparagraphs = [\"78651\", \"7865\"]\n"
    );
    let e = fails(PROFILE, &graph, CAPTURE);
    assert_eq!(e.rule, Rule::GapParagraph("7865".into()));
    assert_eq!(e.line, 31);
    assert!(
        e.to_string()
            .contains("gap paragraphs: \"7865\" is not a five-digit DMG paragraph number"),
        "{e}"
    );
}

#[test]
fn declared_gap_is_required_reachable_and_explained() {
    let graph = format!(
        "{}\n[[gap]]\nroute = \"evidence/absent\"\nlabel = \"Absent rule\"\nreason = \"not captured\"\n\n[[assertion]]\nroute = \"assertion/to-gap\"\nfrom = \"concept/loans\"\npredicate = \"requires\"\nto = \"evidence/absent\"\nlabel = \"x\"\nprovenance = [{{ document = \"doc\", locator = \"whole\" }}]\n",
        graph_with(
            "required = [\"evidence/rule\"]",
            "required = [\"evidence/rule\", \"evidence/absent\"]"
        )
    );
    let built = run(PROFILE, &graph, CAPTURE).unwrap();
    let q = &built.index.requirements[0];
    assert_eq!(
        q.required,
        [
            "https://x.example/evidence/rule",
            "https://x.example/evidence/absent"
        ]
    );
    assert_eq!(
        built.index.assertions[1].target,
        "https://x.example/evidence/absent"
    );
    let gap = &built.index.gaps.as_ref().unwrap()[0];
    assert_eq!(
        (gap.id.as_str(), gap.label.as_str(), gap.reason.as_str()),
        (
            "https://x.example/evidence/absent",
            "Absent rule",
            "not captured"
        )
    );
    // Without the [[gap]] the same reference is an error.
    let e = fails(
        PROFILE,
        &graph.replace(
            "[[gap]]\nroute = \"evidence/absent\"",
            "[[gap]]\nroute = \"evidence/other\"",
        ),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:36: \"evidence/absent\" does not name a declared record or gap"
    );
}

#[test]
fn compiled_index_is_validated_by_the_engine_at_the_item_line() {
    let e = fails(
        PROFILE,
        &graph_with("label = \"Loans\"", "label = \"\""),
        CAPTURE,
    );
    assert_eq!((e.file.as_str(), e.line), ("graph.toml", 1));
    assert!(
        e.to_string()
            .contains("the compiled index is invalid: invalid index at records[0].label"),
        "{e}"
    );
}

#[test]
fn regimes_compile_and_their_dates_are_checked_by_the_engine() {
    let graph = format!(
        "{GRAPH}\n[[regime]]\nroute = \"regime/old\"\nlabel = \"Old rules\"\nconcepts = [\"concept/loans\"]\nphrases = [\"old rules\"]\nvalid_until = \"2020-13-01\"\n"
    );
    let e = fails(PROFILE, &graph, CAPTURE);
    assert_eq!(
        e.to_string(),
        "graph.toml:31: the compiled index is invalid: invalid index at regimes[0].valid_until: must be a YYYY-MM-DD calendar date"
    );
    let ok = run(PROFILE, &graph.replace("2020-13-01", "2020-12-01"), CAPTURE).unwrap();
    let regime = &ok.index.regimes.as_ref().unwrap()[0];
    assert_eq!(regime.id, "https://x.example/regime/old");
    assert_eq!(regime.concepts, ["https://x.example/concept/loans"]);
    let e = fails(
        PROFILE,
        &graph.replace("[\"concept/loans\"]", "[\"evidence/rule\"]"),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        format!("graph.toml:31: \"evidence/rule\" does not name a declared public concept")
    );
    let e = fails(
        PROFILE,
        &graph_with(
            "when_all = [\"concept/loans\"]",
            "when_all = [\"concept/loans\"]\nregime = \"regime/none\"",
        ),
        CAPTURE,
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:23: \"regime/none\" does not name a declared regime"
    );
}

/// The fixture profile with a `[compose]` section pinning `base` (and its own ids under
/// `id_base`), so it can be composed onto the fixture's own compiled index.
fn composing_profile(base: &Built, id_base: &str) -> String {
    let sha = okf_engine::canonical::sha256_hex(base.json.as_bytes());
    PROFILE
        .replacen(
            "base = \"https://x.example/\"",
            &format!("base = {id_base:?}"),
            1,
        )
        .replacen(
            "id = \"https://x.example/bundle\"",
            "id = \"https://y.example/bundle\"",
            1,
        )
        .replacen(
            "[defaults.concept]",
            &format!(
                "[compose]\nbase_sha256 = \"{sha}\"\nbase_label = \"Base\"\nlabel = \"Profile\"\n\
             scope = \"Both.\"\nbundle = {{ id = \"https://z.example/bundle\", snapshot = \"z1\", \
             source_url = \"https://z.example/index.json\" }}\n\n[defaults.concept]"
            ),
            1,
        )
}

fn compose(profile: &str, base: &Built) -> Result<Built, Error> {
    okf_authoring::build_onto(
        &files(profile, GRAPH),
        &capture(CAPTURE),
        Some(base.json.as_bytes()),
    )
}

#[test]
fn a_profile_id_the_base_already_uses_is_refused_at_its_line_naming_the_base_item() {
    let base = run(PROFILE, GRAPH, CAPTURE).unwrap();
    let e = compose(&composing_profile(&base, "https://x.example/"), &base).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("graph.toml", 1));
    assert_eq!(
        e.rule,
        Rule::CollidesWithBase {
            id: "https://x.example/concept/loans".into(),
            base_item: "record",
        }
    );
    assert_eq!(
        e.to_string(),
        "graph.toml:1: id https://x.example/concept/loans is already a record of the base index; the profile must not redeclare it"
    );
}

#[test]
fn a_profile_that_keeps_the_base_bundle_id_is_refused() {
    let base = run(PROFILE, GRAPH, CAPTURE).unwrap();
    let profile = composing_profile(&base, "https://y.example/").replacen(
        "id = \"https://y.example/bundle\"",
        "id = \"https://x.example/bundle\"",
        1,
    );
    let e = compose(&profile, &base).unwrap_err();
    assert_eq!(
        e.rule,
        Rule::CollidesWithBase {
            id: "https://x.example/bundle".into(),
            base_item: "bundle",
        }
    );
}

#[test]
fn a_composed_index_lists_both_parts_and_a_shared_alias_alone_stays_ambiguous() {
    let base = run(PROFILE, GRAPH, CAPTURE).unwrap();
    let built = compose(&composing_profile(&base, "https://y.example/"), &base).unwrap();
    let doc = &built.index;
    assert_eq!(doc.bundle.id, "https://z.example/bundle");
    assert_eq!(doc.records.len(), 4);
    assert_eq!(doc.records[..2], base.index.records[..]);
    let parts = doc.parts.as_ref().unwrap();
    assert_eq!(parts[0].concepts, ["https://x.example/concept/loans"]);
    assert_eq!(parts[1].concepts, ["https://y.example/concept/loans"]);
    // Nothing else in the question says which part "loan" belongs to.
    let index = okf_engine::ContextIndex::from_json_str(&built.json).unwrap();
    let resolution = okf_engine::assemble(&index, "loan", &okf_engine::Budget::default(), None)
        .unwrap()
        .json;
    assert!(resolution.contains("\"ambiguities\":[{"), "{resolution}");
}

#[test]
fn compose_is_declared_in_profile_toml_only() {
    let base = run(PROFILE, GRAPH, CAPTURE).unwrap();
    let profile = composing_profile(&base, "https://y.example/");
    let at = profile.find("[compose]").unwrap();
    let (own, compose_section) = profile.split_at(at);
    let end = compose_section.find("[defaults.concept]").unwrap();
    let graph = format!("{}\n{GRAPH}", &compose_section[..end]);
    let own = format!("{own}{}", &compose_section[end..]);
    let e = okf_authoring::build_onto(
        &files(&own, &graph),
        &capture(CAPTURE),
        Some(base.json.as_bytes()),
    )
    .unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.rule),
        ("graph.toml", Rule::ComposeSection)
    );
}

// Issue 41: a profile gap the base holds (`okf build --base`).

const PARAGRAPH_CAPTURE: &str = r#"{"document_id": "doc", "source_url": "https://x.example/doc.html",
 "source_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
 "pages": [{"page": 1, "url": "https://x.example/doc.html#page=1",
            "text": "10001 A prisoner is a person in custody.\n10002 A transfer to hospital ends custody.\n"}]}"#;

/// A base whose evidence record is a whole page holding DMG-style paragraphs 10001-10002.
fn paragraph_base() -> Built {
    let graph = GRAPH.replacen(
        "source = { document = \"doc\", page = 1, locator = \"para 2\", from = \"Loans last\", to = \"weeks.\" }",
        "source = { document = \"doc\", page = 1, locator = \"paras 10001-10002\" }",
        1,
    );
    build(&files(PROFILE, &graph), &capture(PARAGRAPH_CAPTURE)).unwrap()
}

/// The composing fixture plus a gap standing for `paragraphs`, required by the requirement and
/// pointed at by an assertion from the concept.
fn compose_with_gap(base: &Built, paragraphs: &str) -> Result<Built, Error> {
    let graph = format!(
        "{}\n[[gap]]\nroute = \"gap/prisoner\"\nlabel = \"The prisoner rule\"\nreason = \"Not captured here.\"\nparagraphs = {paragraphs}\n\n\
         [[assertion]]\nroute = \"assertion/loans-prisoner\"\nfrom = \"concept/loans\"\npredicate = \"requires\"\nto = \"gap/prisoner\"\n\
         label = \"Loans to prisoners\"\nprovenance = [{{ document = \"doc\", page = 1, locator = \"para 2\" }}]\n",
        GRAPH.replacen(
            "required = [\"evidence/rule\"]",
            "required = [\"evidence/rule\", \"gap/prisoner\"]",
            1
        )
    );
    okf_authoring::build_onto(
        &files(&composing_profile(base, "https://y.example/"), &graph),
        &capture(CAPTURE),
        Some(base.json.as_bytes()),
    )
}

#[test]
fn a_gap_whose_paragraphs_the_base_holds_is_resolved_to_the_base_record() {
    let base = paragraph_base();
    let holder = "https://x.example/evidence/rule";
    assert!(base.index.records.iter().any(|r| r.id == holder));
    let built = compose_with_gap(&base, "[\"10001\", \"10002\"]").unwrap();
    assert_eq!(
        built.resolved_gaps,
        [okf_authoring::ResolvedGap {
            gap: "https://y.example/gap/prisoner".into(),
            records: vec![holder.into()],
        }]
    );
    let doc = &built.index;
    assert!(doc.gaps.is_none(), "{:?}", doc.gaps);
    let req = doc
        .requirements
        .iter()
        .find(|q| q.id == "https://y.example/requirement/loans")
        .unwrap();
    assert_eq!(req.required, ["https://y.example/evidence/rule", holder]);
    let a = doc
        .assertions
        .iter()
        .find(|a| a.id == "https://y.example/assertion/loans-prisoner")
        .unwrap();
    assert_eq!(a.target, holder);
    // The composed index lints without a stale gap, and the requirement can now be met.
    let index = okf_engine::ContextIndex::from_json_str(&built.json).unwrap();
    let report = okf_eval::lint(&index);
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.kind == okf_eval::lint::kinds::GAP_HELD_IN_INDEX),
        "{report:?}"
    );
    // A gap the base does not hold at all is kept.
    let kept = compose_with_gap(&base, "[\"20001\"]").unwrap();
    assert!(kept.resolved_gaps.is_empty());
    assert_eq!(kept.index.gaps.as_ref().unwrap().len(), 1);
}

#[test]
fn a_gap_the_base_holds_only_in_part_is_refused_naming_the_gap_and_the_base_record() {
    let base = paragraph_base();
    let e = compose_with_gap(&base, "[\"10002\", \"10009\"]").unwrap_err();
    assert_eq!(e.file, "graph.toml");
    assert_eq!(
        e.rule,
        Rule::GapPartlyInBase {
            gap: "https://y.example/gap/prisoner".into(),
            held: Box::new(("10002".into(), "https://x.example/evidence/rule".into())),
            missing: "10009".into(),
        }
    );
    assert!(
        e.to_string()
            .contains("which the base record https://x.example/evidence/rule holds"),
        "{e}"
    );
}
