#!/usr/bin/env python3
"""Check the project's JSON Schemas (schemas/*.schema.json) and validate real documents against them.

Needs only the standard library and the `jsonschema` package (>= 4.18, for `referencing`).

  (a) every schema is a valid draft 2020-12 schema with our $schema and $id;
  (b) every $ref is local ("#/...") and resolves inside its own document, and validation
      runs with a registry that refuses to retrieve anything, so no schema can reach out;
  (c) package.schema.json accepts every package the CLI prints for the example questions,
      a byte-trimmed and a metadata-fallback package (--max-bytes 8192), our own DWP package,
      a richer-profile package of the review fixture built with its decisions (review facts),
      the reference engine's DWP packages and corpus fixture, and explain.schema.json accepts
      the `okf explain --record` views; deliberately broken packages must be rejected;
  (d) ask-request.schema.json (and the error, bundles and health schemas) accept and reject
      hand-written examples;
  (e) answer-check.schema.json accepts the reports `okf check-answer` prints for answers that
      are grounded, quote a fragment (quote_not_whole_sentence, with its sentences) and quote
      another record (quote_in_other_record, with where), and rejects altered reports;
  (f) review-decision.schema.json accepts the review fixture's decision files (which `okf build`
      applies) and rejects the refusal cases `okf build` refuses by shape;
  (g) evaluation-case.schema.json accepts every evaluation case in the repository and the DWP
      cases in ../shared/dwp (read in place), and rejects broken copies that `okf eval` refuses.

Exit status 0 only if everything passed. Usage:

  python3 schemas/check_schemas.py    # uses $OKF_BIN, else debug/okf in cargo's target directory
"""

import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.exceptions import NoSuchResource

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"


def cargo_target_dir():
    """Where cargo puts build output: `cargo metadata` knows (CARGO_TARGET_DIR, config files)."""
    try:
        meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT,
                              capture_output=True, check=True, timeout=120)
        return Path(json.loads(meta.stdout)["target_directory"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


OKF = Path(os.environ["OKF_BIN"]) if os.environ.get("OKF_BIN") else cargo_target_dir() / "debug" / "okf"
ID_PREFIX = "https://ask-okf.invalid/schemas/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
DWP_INDEX = SHARED / "dwp" / "full-dmg" / "context" / "assembly-index.json"
DWP_BINDING = (
    "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/"
    "efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json",
    "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54",
)
DWP_QUESTION = (
    "A claimant is imprisoned. Explain the effect on JSA, IS, State Pension Credit and ESA, "
    "distinguishing loss of payment from loss of entitlement, and trace each conclusion to the "
    "relevant DMG guidance."
)

passed = 0
failures = []
skipped = []


def ok(label):
    global passed
    passed += 1
    print(f"  ok    {label}")


def fail(label, detail):
    failures.append(f"{label}: {detail}")
    print(f"  FAIL  {label}: {detail}")


def skip(label, why):
    skipped.append(f"{label}: {why}")
    print(f"  skip  {label}: {why}")


def refuse_retrieval(uri):
    raise NoSuchResource(ref=uri)


# A registry that can never fetch: any non-local reference fails loudly.
NO_NETWORK = Registry(retrieve=refuse_retrieval)


def load_schemas():
    schemas = {}
    for path in sorted(HERE.glob("*.schema.json")):
        with path.open(encoding="utf-8") as f:
            schemas[path.name] = json.load(f)
    return schemas


def walk(node, pointer=""):
    """Yield (json-pointer, key, value) for every key of every object in node."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield pointer, k, v
            yield from walk(v, f"{pointer}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{pointer}/{i}")


def resolve_local(doc, ref):
    target = doc
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, list):
            target = target[int(part)]
        else:
            target = target[part]
    return target


def validator(schema):
    return Draft202012Validator(
        schema, registry=NO_NETWORK, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def errors_of(v, instance):
    errs = sorted(v.iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:160]}" for e in errs]


def expect_valid(v, instance, label):
    errs = errors_of(v, instance)
    if errs:
        fail(label, f"{len(errs)} error(s); first: {errs[0]}")
    else:
        ok(label)


def expect_invalid(v, instance, label, where=None):
    """The instance must be rejected; with `where`, by an error at (or under) that JSON path."""
    errs = list(v.iter_errors(instance))
    if not errs:
        fail(label, "was accepted but must be rejected")
        return
    leaves = []
    for e in errs:  # descend into anyOf/oneOf/allOf branches to the innermost errors
        stack = [e]
        while stack:
            cur = stack.pop()
            leaves.append("/".join(map(str, cur.absolute_path)))
            stack.extend(cur.context or [])
    if where is not None and not any(p == where or p.startswith(where) for p in leaves):
        fail(label, f"rejected, but not at {where!r} (errors at {sorted(set(leaves))[:4]})")
    else:
        ok(f"rejected: {label}" + (f" (at {where or '<root>'})" if where is not None else ""))


# ----------------------------------------------------------------------------- (a) and (b)
def check_schema_documents(schemas):
    print("(a) schema documents / (b) self-containment")
    expected = {
        "package.schema.json", "ask-request.schema.json", "error.schema.json",
        "bundles.schema.json", "health.schema.json", "explain.schema.json",
        "review-decision.schema.json", "evaluation-case.schema.json",
    }
    missing = expected - set(schemas)
    if missing:
        fail("schema files", f"missing {sorted(missing)}")
    for name, doc in schemas.items():
        try:
            Draft202012Validator.check_schema(doc)
        except jsonschema.exceptions.SchemaError as e:
            fail(f"{name} check_schema", e.message)
            continue
        if doc.get("$schema") != DRAFT:
            fail(f"{name} $schema", repr(doc.get("$schema")))
        elif doc.get("$id") != ID_PREFIX + name:
            fail(f"{name} $id", repr(doc.get("$id")))
        else:
            ok(f"{name}: valid 2020-12 schema, $id {doc['$id']}")
        bad = []
        refs = 0
        for pointer, key, value in walk(doc):
            if key in ("$ref", "$dynamicRef"):
                refs += 1
                if not isinstance(value, str) or not value.startswith("#/"):
                    bad.append(f"{pointer}: {key} {value!r} leaves the document")
                    continue
                try:
                    resolve_local(doc, value)
                except (KeyError, IndexError, ValueError, TypeError):
                    bad.append(f"{pointer}: {key} {value!r} does not resolve")
            elif key == "$id" and pointer != "":
                bad.append(f"{pointer}: nested $id {value!r}")
        if bad:
            fail(f"{name} refs", "; ".join(bad[:3]))
        else:
            ok(f"{name}: {refs} $ref(s), all local and resolvable")


# ----------------------------------------------------------------------------- (c)
def run_okf(args, label):
    proc = subprocess.run([str(OKF), *args], capture_output=True, timeout=300)
    if proc.returncode != 0:
        fail(label, f"okf exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:200]}")
        return None
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        fail(label, f"okf printed invalid JSON: {e}")
        return None


def reviewed_package():
    """The richer-profile package of the review fixture built with its decisions: requirement
    review facts and review_basis (issue 45, DEVIATIONS A11)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "reviewed-index.json"
        proc = subprocess.run([str(OKF), "build", str(REVIEW_FIXTURE), "--out", str(out)], capture_output=True, timeout=300)
        if proc.returncode != 0:
            fail("okf build <review fixture>", proc.stderr.decode(errors="replace")[:200])
            return None
        return run_okf(["ask", "--index", str(out), "--regime-profile", "How long is a loan?"],
                       "okf ask --regime-profile <review fixture>")


def guarded_example_index():
    """The embedded example index plus features it lacks: two routing guards (one matched, one
    unmatched), an evidence unit of two spans, and a declared required path."""
    doc = json.loads((ROOT / "crates" / "okf" / "example" / "index.json").read_text(encoding="utf-8"))
    base = "https://example.org/okf-example/"
    sha = lambda b: hashlib.sha256(b).hexdigest()
    for a in doc["assertions"]:
        if a["id"] == base + "assertion/borrowing-lending-rules":
            a["context_guard"] = {"when_all": [base + "concept/borrowing"]}
        if a["id"] == base + "assertion/borrowing-related-overdue":
            a["context_guard"] = {"when_all": [base + "concept/overdue-charges", base + "concept/not-declared"]}
    for r in doc["records"]:
        if r["id"] != base + "evidence/lending-rules":
            continue
        text = r["text"].encode("utf-8")
        cut = len(r["text"][: len(r["text"]) // 2].encode("utf-8"))  # a character boundary
        source = r["provenance"][0]
        extraction_url = base + "extractions/lending-policy.txt"
        r["provenance"].append({"captured_at": source["captured_at"], "locator": "plain-text extraction",
                                "source_sha256": sha(text), "url": extraction_url})
        span = lambda start, end: {
            "extraction_sha256": sha(text), "extraction_url": extraction_url, "literal_sha256": sha(text[start:end]),
            "locator": source["locator"], "source_end": end, "source_sha256": source["source_sha256"],
            "source_start": start, "source_text_bytes": len(text), "source_text_sha256": sha(text),
            "source_url": source["url"], "unit_end": end, "unit_start": start}
        r["evidence_unit"] = {"boundary_status": "author-declared", "completeness": "complete-within-declared-boundary",
                              "joiner": "", "kind": "paragraph", "offset_unit": "utf-8-bytes",
                              "schema": "okf-evidence-unit.v1", "spans": [span(0, cut), span(cut, len(text))]}
    for q in doc["requirements"]:
        if q["id"] == base + "requirement/borrowing":
            q["required_paths"] = [{"seed": base + "concept/borrowing",
                                    "assertions": [base + "assertion/borrowing-lending-rules"],
                                    "records": [base + "concept/borrowing", base + "evidence/lending-rules"]}]
    return doc


def broken_variants(pkg):
    """Deliberately wrong copies of a valid package, each with the JSON path its error must point at."""
    out = []

    def variant(label, where, mutate):
        p = copy.deepcopy(pkg)
        mutate(p)
        out.append((label, where, p))

    variant("extra top-level key", "", lambda p: p.update(answer="yes"))
    variant("ai_answer is not null", "ai_answer", lambda p: p.update(ai_answer="The answer is 42."))
    variant("context_id not urn:sha256", "context_id", lambda p: p.update(context_id="sha256:" + "0" * 64))
    variant("unknown evidence_status", "evidence_status", lambda p: p.update(evidence_status="partial"))
    variant("binding digest in upper case", "binding/index_sha256", lambda p: p["binding"].update(index_sha256="A" * 64))
    variant("bundle source_url not http(s)", "bundle/source_url", lambda p: p["bundle"].update(source_url="ftp://x/y"))
    variant("budget max_bytes below 8192", "budget/max_bytes", lambda p: p["budget"].update(max_bytes=42))
    variant("budget truncated without omissions", "budget/omissions",
            lambda p: p["budget"].update(truncated=True, omissions=[]))
    variant("extra key in issue", "missing_evidence/",
            lambda p: p["missing_evidence"].append({"code": "x", "message": "", "ids": [], "extra": 1}))
    variant("sufficient despite an issue", "missing_evidence",
            lambda p: (p.update(evidence_status="sufficient"),
                       p["missing_evidence"].append({"code": "missing_record", "message": "m", "ids": ["urn:x:1"]})))
    variant("insufficient although a conflict is declared", "conflicts",
            lambda p: p["conflicts"].append({"code": "declared_conflict", "message": "m", "ids": ["urn:x:1", "urn:x:2"]}))
    variant("conflict issue with another code", "conflicts/0/code",
            lambda p: (p.update(evidence_status="conflicting"),
                       p["conflicts"].append({"code": "missing_record", "message": "m", "ids": ["urn:x:1", "urn:x:2"]})))
    variant("ambiguity with one candidate", "ambiguities/0/candidates",
            lambda p: p["ambiguities"].append({"phrase": "room", "candidates": ["urn:x:1"]}))
    variant("routing_guards present but empty", "routing_guards", lambda p: p.update(routing_guards=[]))
    variant("matched routing guard with a missing concept", "routing_guards/0/missing_concepts",
            lambda p: p.update(routing_guards=[{"assertion_id": "urn:a:1", "source": "urn:r:1", "target": "urn:r:2",
                                                "when_all": ["urn:c:1"], "missing_concepts": ["urn:c:1"],
                                                "unavailable_concepts": [], "status": "matched"}]))
    if pkg["selected"]:
        unit = {"schema": "okf-evidence-unit.v1", "kind": "paragraph", "boundary_status": "machine-detected",
                "completeness": "complete-within-declared-boundary", "offset_unit": "utf-8-bytes", "joiner": "",
                "spans": [{"source_url": "https://example.org/s", "extraction_url": "https://example.org/e",
                           "source_sha256": "0" * 64, "extraction_sha256": "1" * 64, "source_text_sha256": "2" * 64,
                           "literal_sha256": "3" * 64, "locator": "p1", "source_text_bytes": 3, "source_start": 0,
                           "source_end": 3, "unit_start": 0, "unit_end": 3}]}
        variant("extra key in a record", "selected/0/record", lambda p: p["selected"][0]["record"].update(score=1))
        variant("restricted record selected", "selected/0/record/access",
                lambda p: p["selected"][0]["record"].update(access="restricted"))
        variant("record kind outside the enum", "selected/0/record/kind",
                lambda p: p["selected"][0]["record"].update(kind="note"))
        variant("unsafe route", "selected/0/record/route",
                lambda p: p["selected"][0]["record"].update(route="../etc/passwd"))
        variant("record id is not an IRI", "selected/0/record/id",
                lambda p: p["selected"][0]["record"].update(id="not an iri"))
        variant("alias object with an extra key", "selected/0/record/aliases/0",
                lambda p: p["selected"][0]["record"].update(aliases=[{"label": "a", "case_sensitive": True, "lang": "en"}]))
        variant("selected item without paths", "selected/0/paths", lambda p: p["selected"][0].update(paths=[]))
        variant("path with records not one longer than assertions", "selected/0/paths/0/records",
                lambda p: p["selected"][0]["paths"][0].update(assertions=["urn:a:1"]))
        variant("evidence_unit on a concept", "selected/0/record/kind",
                lambda p: p["selected"][0]["record"].update(kind="concept", evidence_unit=unit))
        variant("page-fallback unit claiming completeness", "selected/0/record/evidence_unit/completeness",
                lambda p: p["selected"][0]["record"].update(kind="evidence", evidence_unit=dict(unit, kind="page-fallback")))
        variant("span offset beyond 16 MiB", "selected/0/record/evidence_unit/spans/0/source_end",
                lambda p: p["selected"][0]["record"].update(kind="evidence", evidence_unit=dict(
                    unit, spans=[dict(unit["spans"][0], source_end=16777217)])))
    if pkg["relationships"]:
        variant("held edge with an unsupported predicate", "relationships/0/predicate",
                lambda p: p["relationships"][0].update(predicate="http://example.org/knows"))
        variant("context guard with 9 concepts", "relationships/0/context_guard/when_all",
                lambda p: p["relationships"][0].update(context_guard={"when_all": [f"urn:c:{i}" for i in range(9)]}))
    if pkg["requirements"]:
        variant("supported requirement with missing ids", "requirements/0/missing",
                lambda p: p["requirements"][0].update(status="supported-within-declared-scope", missing=["urn:x:1"]))
        variant("insufficient requirement with nothing missing", "requirements/0/missing",
                lambda p: p["requirements"][0].update(status="insufficient", missing=[]))
    return out


def check_packages(schemas):
    print("(c) packages")
    pkg_v = validator(schemas["package.schema.json"])
    exp_v = validator(schemas["explain.schema.json"])
    packages = []  # (label, package)

    if not OKF.is_file():
        # Without the CLI most package checks cannot run: that is a failure, never a skip.
        fail("CLI packages", f"{OKF} does not exist (build it with cargo build -p okf, or set OKF_BIN)")
    else:
        questions = json.loads((ROOT / "crates" / "okf" / "example" / "questions.json").read_text(encoding="utf-8"))
        for q in questions:
            pkg = run_okf(["ask", q["question"]], f"okf ask {q['question']!r}")
            if pkg is None:
                continue
            if pkg.get("evidence_status") != q.get("expected_status"):
                fail(f"example {q['name']}", f"status {pkg.get('evidence_status')} != {q.get('expected_status')}")
            packages.append((f"okf ask {q['question']!r} ({pkg.get('evidence_status')})", pkg))
        small = run_okf(["ask", "--max-bytes", "8192", questions[0]["question"]], "okf ask --max-bytes 8192")
        if small is not None:
            if not small["budget"]["truncated"] or not small["selected"]:
                fail("--max-bytes 8192 (example)", "expected a trimmed package that still selects records")
            packages.append((f"okf ask --max-bytes 8192 {questions[0]['question']!r} (trimmed)", small))
        if DWP_INDEX.is_file():
            full = run_okf(["ask", "--index", str(DWP_INDEX), "--binding-url", DWP_BINDING[0],
                            "--binding-sha256", DWP_BINDING[1], DWP_QUESTION], "okf ask DWP imprisonment")
            if full is not None:
                packages.append(("okf ask --index DWP imprisonment question", full))
            tiny = run_okf(["ask", "--index", str(DWP_INDEX), "--max-bytes", "8192", DWP_QUESTION],
                           "okf ask DWP --max-bytes 8192")
            if tiny is not None:
                if tiny["selected"] or tiny["missing_evidence"][:1] != [
                        {"code": "metadata_budget", "ids": [], "message": tiny["missing_evidence"][0]["message"]}]:
                    fail("--max-bytes 8192 (DWP)", "expected the metadata fallback")
                packages.append(("okf ask --index DWP --max-bytes 8192 (metadata fallback)", tiny))
        else:
            skip("DWP packages from our engine", f"{DWP_INDEX} not found")
        with tempfile.TemporaryDirectory() as tmp:
            index_path = Path(tmp) / "guarded-index.json"
            index_path.write_text(json.dumps(guarded_example_index()), encoding="utf-8")
            guarded = run_okf(["ask", "--index", str(index_path), questions[0]["question"]], "okf ask guarded example")
        if guarded is not None:
            rows = guarded.get("routing_guards", [])
            units = [s for s in guarded["selected"] if "evidence_unit" in s["record"]]
            if sorted(r["status"] for r in rows) != ["matched", "unmatched"] or not units:
                fail("guarded example", "expected one matched and one unmatched routing guard and an evidence unit")
            packages.append(("okf ask --index <example + guards, evidence unit, required path>", guarded))
        reviewed = reviewed_package()
        if reviewed is not None:
            review = reviewed["requirements"][0].get("review", {}) if reviewed.get("requirements") else {}
            if "review_basis" not in reviewed or review.get("state") != "refused" or not review.get("refusals"):
                fail("reviewed fixture", "expected review_basis and a refused requirement with its refusal")
            packages.append(("okf ask --regime-profile --index <review fixture built with its decisions>", reviewed))
        if not any(p["ambiguities"] for _, p in packages):
            fail("ambiguity coverage", "no CLI package had an ambiguity")

    references = [
        SHARED / "dwp" / "reference" / "imprisonment-package.json",
        SHARED / "dwp" / "reference" / "hospital-package.json",
        SHARED / "okf-explorer" / "fixtures" / "context-corpus-v1-74e29.json",
    ]
    for path in references:
        if path.is_file():
            packages.append((f"reference engine: {path.relative_to(SHARED)}", json.loads(path.read_text(encoding="utf-8"))))
        else:
            skip(f"reference {path.name}", "not found")

    for label, pkg in packages:
        expect_valid(pkg_v, pkg, label)

    # Negative controls, derived from a valid insufficient package with selections, relationships
    # and requirements (so that each mutation breaks exactly the rule it is named after).
    # Without the CLI, a reference package without requirements will do (fewer controls apply).
    bases = sorted((p for _, p in packages if p["evidence_status"] == "insufficient"
                    and p["selected"] and p["relationships"]), key=lambda p: not p["requirements"])
    if bases:
        for label, where, broken in broken_variants(bases[0]):
            expect_invalid(pkg_v, broken, f"package: {label}", where)
    else:
        fail("negative package controls", "no insufficient package with selections and requirements to mutate")
    reviewed = next((p for label, p in packages if "review fixture" in label), None)
    if reviewed is not None:
        def broken(mutate):
            p = copy.deepcopy(reviewed)
            mutate(p)
            return p
        review = lambda p: p["requirements"][0]["review"]
        expect_invalid(pkg_v, broken(lambda p: review(p).update(state="partly")),
                       "package: unknown review state", "requirements/0/review/state")
        expect_invalid(pkg_v, broken(lambda p: review(p)["refusals"][0].update(reviewer_id="r-1")),
                       "package: extra key in a refusal", "requirements/0/review/refusals/0")
        expect_invalid(pkg_v, broken(lambda p: review(p)["refusals"][0].update(decision="approved")),
                       "package: an approval listed as a refusal", "requirements/0/review/refusals/0/decision")
        expect_invalid(pkg_v, broken(lambda p: p["review_basis"].pop("statement")),
                       "package: review_basis without its statement", "review_basis")
        expect_invalid(pkg_v, broken(lambda p: [p.pop(k) for k in ("profile", "declared_gaps", "guidance_regime", "status_basis")]),
                       "package: review_basis in a default package")

    # The explanation view of one record, straight from the CLI.
    if OKF.is_file():
        for label, pkg in packages:
            if not label.startswith("okf ask") or not pkg["selected"]:
                continue
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
                json.dump(pkg, f)
                name = f.name
            try:
                unknown = "https://example.invalid/not-in-the-package"
                proc = subprocess.run([str(OKF), "explain", name, "--record", unknown], capture_output=True, timeout=300)
                if proc.returncode != 2 or unknown not in proc.stderr.decode(errors="replace"):
                    fail(f"explain unknown record in [{label}]", f"expected exit 2 naming it, got {proc.returncode}")
                else:
                    ok(f"explain refuses an unknown record in [{label}]")
                ids = [pkg["selected"][-1]["record"]["id"]]
                ids += [i for issue in pkg["missing_evidence"] for i in issue["ids"]][:1]
                ids += [row["target"] for row in pkg.get("routing_guards", [])][:1]
                for rid in ids:
                    view = run_okf(["explain", name, "--record", rid], f"okf explain --record {rid}")
                    if view is None:
                        continue
                    if ("routing_guards" in pkg) != ("routing_guards" in view):
                        fail(f"explain {rid}", "routing_guards should appear exactly when the package has them")
                    expect_valid(exp_v, view, f"explain {rid} in [{label}]"
                                 + (f", {len(view['routing_guards'])} guard row(s)" if "routing_guards" in view else ""))
            finally:
                os.unlink(name)
        expect_invalid(exp_v, {"context_id": "urn:sha256:" + "0" * 64, "evidence_status": "sufficient",
                               "missing_evidence": []}, "explain view without item")


# ----------------------------------------------------------------------------- (d)
def check_api_documents(schemas):
    print("(d) HTTP API documents")
    ask = validator(schemas["ask-request.schema.json"])
    good = [
        {"bundle": "example", "question": "How do I borrow books?"},
        {"bundle": "dwp-dmg", "version": "2026-09.a", "question": "  padded question  ", "as_of": "2026-10-01",
         "budget": {"max_nodes": 200, "max_relationships": 1, "max_depth": 0, "max_bytes": 8192}},
        {"bundle": "0", "question": "x" * 4000, "budget": {}},
        {"bundle": "b", "question": "multi\nline\tquestion?"},
    ]
    bad = {
        "extra key": {"bundle": "example", "question": "q", "stream": True},
        "missing bundle": {"question": "q"},
        "missing question": {"bundle": "example"},
        "empty question": {"bundle": "example", "question": ""},
        "whitespace-only question": {"bundle": "example", "question": " \t\n "},
        "question over 4000 characters": {"bundle": "example", "question": "x" * 4001},
        "question not a string": {"bundle": "example", "question": 42},
        "bundle is a URL": {"bundle": "https://x", "question": "q"},
        "bundle in upper case": {"bundle": "Example", "question": "q"},
        "bundle of 65 characters": {"bundle": "a" * 65, "question": "q"},
        "version with a slash": {"bundle": "example", "version": "../v1", "question": "q"},
        "as_of not a date": {"bundle": "example", "question": "q", "as_of": "yesterday"},
        "as_of with time": {"bundle": "example", "question": "q", "as_of": "2026-10-01T00:00:00Z"},
        "as_of impossible date": {"bundle": "example", "question": "q", "as_of": "2026-02-31"},
        "budget max_bytes 42": {"bundle": "example", "question": "q", "budget": {"max_bytes": 42}},
        "budget max_nodes 0": {"bundle": "example", "question": "q", "budget": {"max_nodes": 0}},
        "budget max_depth 9": {"bundle": "example", "question": "q", "budget": {"max_depth": 9}},
        "budget max_relationships 1001": {"bundle": "example", "question": "q", "budget": {"max_relationships": 1001}},
        "budget value not an integer": {"bundle": "example", "question": "q", "budget": {"max_nodes": 3.5}},
        "budget unknown key": {"bundle": "example", "question": "q", "budget": {"max_tokens": 10}},
        "budget not an object": {"bundle": "example", "question": "q", "budget": 64},
    }
    for i, doc in enumerate(good):
        expect_valid(ask, doc, f"ask request #{i + 1}")
    for label, doc in bad.items():
        expect_invalid(ask, doc, f"ask request: {label}")

    err = validator(schemas["error.schema.json"])
    expect_valid(err, {"error": {"code": "unknown_bundle", "message": "No bundle named x.", "field": "bundle"}}, "error with field")
    expect_valid(err, {"error": {"code": "internal", "message": "Something failed."}}, "error without field")
    expect_invalid(err, {"error": {"code": "x", "message": "m"}, "status": 400}, "error: extra top-level key")
    expect_invalid(err, {"error": {"message": "m"}}, "error: no code")
    expect_invalid(err, {"error": {"code": "x", "message": "m", "hint": "h"}}, "error: extra key")

    bun = validator(schemas["bundles.schema.json"])
    catalogue = {"bundles": [
        {"id": "example", "examples": ["How do I borrow books?"], "state": "ready", "default_version": "v1", "versions": [
            {"name": "v1", "snapshot": "okf-example-2026-11-29", "index_sha256": "7" * 64,
             "index_url": "https://example.org/okf-example/index.json", "published": "2026-11-29", "state": "ready"}]},
        {"id": "broken", "examples": [], "state": "refused", "default_version": None, "versions": [
            {"name": "v0", "snapshot": None, "index_sha256": "0" * 64, "index_url": "https://example.org/x.json",
             "state": "refused", "reason": "index digest does not match the registry"}]},
    ], "corpora": [
        {"id": "dwp-corpus", "state": "ready", "manifest_sha256": "a" * 64},
        {"id": "stale", "state": "refused", "manifest_sha256": "b" * 64, "reason": "manifest digest differs"},
    ]}
    expect_valid(bun, catalogue, "bundle catalogue")
    for label, mutate in [
        ("unknown state", lambda c: c["bundles"][0].update(state="loading")),
        ("digest not hex64", lambda c: c["bundles"][0]["versions"][0].update(index_sha256="abc")),
        ("published not a date", lambda c: c["bundles"][0]["versions"][0].update(published="soon")),
        ("extra key in version", lambda c: c["bundles"][0]["versions"][0].update(path="/srv/x")),
        ("missing default_version", lambda c: c["bundles"][0].pop("default_version")),
        ("six examples", lambda c: c["bundles"][0].update(examples=["q"] * 6)),
        ("extra key in corpus", lambda c: c["corpora"][0].update(path="/srv/corpus")),
        ("corpus digest not hex64", lambda c: c["corpora"][0].update(manifest_sha256="xyz")),
    ]:
        c = copy.deepcopy(catalogue)
        mutate(c)
        expect_invalid(bun, c, f"bundles: {label}")

    hea = validator(schemas["health.schema.json"])
    health = {"status": "ok", "engine": "ask-okf-engine/0.1.0",
              "bundles": [{"id": "example", "ready": True, "versions_ready": 1, "versions_refused": 0}]}
    expect_valid(hea, health, "health")
    for label, mutate in [
        ("unknown status", lambda h: h.update(status="down")),
        ("negative count", lambda h: h["bundles"][0].update(versions_refused=-1)),
        ("extra key", lambda h: h.update(uptime=3)),
    ]:
        h = copy.deepcopy(health)
        mutate(h)
        expect_invalid(hea, h, f"health: {label}")

# ----------------------------------------------------------------------------- (e)
def check_answer_reports(schemas):
    print("(e) answer-check reports")
    v = validator(schemas["answer-check.schema.json"])
    pkg = run_okf(["ask", "--json", "How do I borrow books?"], "example package for answer checks")
    if pkg is None:
        return
    text = {s["record"]["id"].rsplit("/", 1)[-1]: (s["record"]["id"], s["record"]["text"]) for s in pkg["selected"]}
    rules, rules_text = text["lending-rules"]
    card, card_text = text["card-eligibility"]
    first = lambda t: t.split(". ")[0] + "."

    def answer(citations):
        return {"schema": "okf-grounded-answer.v1", "context_id": pkg["context_id"],
                "evidence_status": pkg["evidence_status"],
                "claims": [{"id": f"c{i}", "text": "A claim.", "requirement": None, "citations": [c]}
                           for i, c in enumerate(citations)]}

    cases = [
        ("grounded", answer([{"record": rules, "quote": first(rules_text)},
                             {"record": card, "quote": first(card_text)}]), 0, None),
        ("a fragment", answer([{"record": rules, "quote": first(rules_text)[:50]}]), 1, "quote_not_whole_sentence"),
        ("another record's sentence", answer([{"record": rules, "quote": first(card_text)}]), 1, "quote_in_other_record"),
    ]
    reports = {}
    with tempfile.TemporaryDirectory() as tmp:
        package_path = Path(tmp) / "package.json"
        package_path.write_text(json.dumps(pkg), encoding="utf-8")
        for label, doc, code, error in cases:
            answer_path = Path(tmp) / "answer.json"
            answer_path.write_text(json.dumps(doc), encoding="utf-8")
            proc = subprocess.run([str(OKF), "check-answer", "--json", "--package", str(package_path), str(answer_path)],
                                  capture_output=True, timeout=300)
            if proc.returncode != code:
                fail(f"report: {label}", f"okf check-answer exited {proc.returncode}, expected {code}")
                continue
            report = json.loads(proc.stdout)
            if error is not None and error not in report["errors"]:
                fail(f"report: {label}", f"{error} not among {report['errors']}")
                continue
            reports[label] = report
            expect_valid(v, report, f"report: {label}")
    if "a fragment" in reports:
        r = reports["a fragment"]
        expect_invalid(v, dict(r, claims=[dict(r["claims"][0], citations=[dict(r["claims"][0]["citations"][0], sentences={"start": 0})])]),
                       "sentences without end and text", "claims/0/citations/0/sentences")
    if "another record's sentence" in reports:
        r = reports["another record's sentence"]
        c = r["claims"][0]["citations"][0]
        expect_invalid(v, dict(r, claims=[dict(r["claims"][0], citations=[dict(c, found_in=dict(c["found_in"], page=3))])]),
                       "found_in with an extra key", "claims/0/citations/0/found_in")
        expect_invalid(v, dict(r, errors=r["errors"] + ["quote_elsewhere"]), "an unknown error code", "errors")


# ----------------------------------------------------------------------------- (f)
REVIEW_FIXTURE = ROOT / "crates" / "okf-authoring" / "tests" / "fixtures" / "review-profile"


def check_review_decisions(schemas):
    print("(f) review decisions")
    v = validator(schemas["review-decision.schema.json"])
    files = sorted((REVIEW_FIXTURE / "reviews").glob("*.json"))
    if not files:
        fail("review fixture", f"no decision files under {REVIEW_FIXTURE / 'reviews'}")
        return
    for path in files:
        expect_valid(v, json.loads(path.read_text(encoding="utf-8")), f"decision {path.name}")
    d = json.loads(files[0].read_text(encoding="utf-8"))
    without = lambda key: {k: x for k, x in d.items() if k != key}
    expect_invalid(v, dict(d, decision="approve"), "an unknown decision value", "decision")
    expect_invalid(v, dict(d, date="2026-12-1"), "a date that is not YYYY-MM-DD", "date")
    expect_invalid(v, dict(d, date="2026-02-30"), "a day February does not have", "date")
    expect_invalid(v, without("reason"), "a missing reason")
    expect_invalid(v, dict(d, reason="  \n"), "a blank reason", "reason")
    expect_invalid(v, dict(d, item_sha256="ABC"), "an item_sha256 that is not a digest", "item_sha256")
    expect_invalid(v, dict(d, schema="okf-review-decision.v2"), "another schema", "schema")
    expect_invalid(v, dict(d, assertion_status="reviewed"), "an extra key (the object is closed)")
    expect_invalid(v, dict(d, reviewer=dict(d["reviewer"], name="A. Person")), "personal data in reviewer", "reviewer")
    expect_invalid(v, dict(d, reviewer={"role": "Specialist"}), "a reviewer without id", "reviewer")


# ----------------------------------------------------------------------------- (g)
CASE_SCHEMA = "okf-context-evaluation-case.v1"
# The DWP cases, read where they are (never copied into the project).
SHARED_CASES = [
    SHARED / "dwp" / "evaluation" / "context-assembly" / "imprisonment-case.json",
    SHARED / "dwp" / "evaluation" / "remote-mcp" / "hospital-case.json",
]


def repository_cases():
    """Every JSON file in the repository (build output and dependencies aside) that says it is an
    evaluation case."""
    found = []
    for path in sorted(ROOT.rglob("*.json")):
        parts = set(path.relative_to(ROOT).parts)
        if parts & {"target", "node_modules", ".git"}:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(doc, dict) and doc.get("schema") == CASE_SCHEMA:
            found.append((path.relative_to(ROOT), doc))
    return found


def check_evaluation_cases(schemas):
    print("(g) evaluation cases")
    v = validator(schemas["evaluation-case.schema.json"])
    cases = repository_cases()
    if len(cases) < 2:
        fail("repository cases", f"found {len(cases)} evaluation case file(s); expected the example's and the DWP profile's")
    for rel, doc in cases:
        expect_valid(v, doc, f"case {rel}")
    for path in SHARED_CASES:
        if not path.is_file():
            fail(f"case {path.name}", f"{path} is missing (../shared/dwp is needed)")
            continue
        expect_valid(v, json.loads(path.read_text(encoding="utf-8")), f"case ../shared/dwp/{path.relative_to(SHARED / 'dwp')}")
    if not cases:
        return
    base = next((doc for rel, doc in cases if doc["expected"]["sources"] and doc["expected"]["boundaries"]), cases[0][1])

    def broken(mutate):
        doc = copy.deepcopy(base)
        mutate(doc)
        return doc

    expected = lambda d: d["expected"]
    expect_invalid(v, broken(lambda d: d.update(schema="okf-context-evaluation-case.v2")), "case: another schema", "schema")
    expect_invalid(v, broken(lambda d: d.update(notes="x")), "case: an extra key (the case is closed)")
    expect_invalid(v, broken(lambda d: expected(d).update(evidence_status="maybe")),
                   "case: an unknown evidence_status", "expected/evidence_status")
    expect_invalid(v, broken(lambda d: expected(d).pop("forbidden_records")),
                   "case: expected without forbidden_records", "expected")
    expect_invalid(v, broken(lambda d: d.update(question="")), "case: an empty question", "question")
    if base["expected"]["sources"]:
        expect_invalid(v, broken(lambda d: expected(d)["sources"][0].update(source_sha256="ABC")),
                       "case: a source digest that is not 64 hex", "expected/sources/0/source_sha256")
        expect_invalid(v, broken(lambda d: expected(d)["sources"][0].update(page=3)),
                       "case: an extra key in a source", "expected/sources/0")
    if base["expected"]["boundaries"]:
        expect_invalid(v, broken(lambda d: expected(d)["boundaries"][0].update(access="internal")),
                       "case: an unknown boundary access", "expected/boundaries/0/access")
    expect_invalid(v, broken(lambda d: expected(d).update(paths=[{"seed": "a", "assertions": [], "records": ["a"], "length": 0}])),
                   "case: an extra key in a path", "expected/paths/0")


def main():
    schemas = load_schemas()
    check_schema_documents(schemas)
    if failures:
        print(f"FAILED: {len(failures)} schema document failure(s); not validating instances")
        return 1
    check_packages(schemas)
    check_api_documents(schemas)
    check_answer_reports(schemas)
    check_review_decisions(schemas)
    check_evaluation_cases(schemas)
    summary = f"{passed} checks passed, {len(failures)} failed, {len(skipped)} skipped"
    if failures:
        print("FAILED: " + summary)
        for f in failures:
            print("  - " + f)
        return 1
    print("OK: " + summary + (" (" + "; ".join(skipped) + ")" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
