//! A token issuer whose key server is down, slow or broken costs no one else anything: forged
//! tokens naming it start at most a handful of key fetches (one in flight per issuer, failures
//! backed off), the wait for a fetch holds no thread, and asks from other clients are answered
//! throughout. A registry whose key server cannot be read is refused at start-up, naming the
//! issuer, unless it opts in to fetching keys on demand.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::{Server, okf, request_from, stderr, temp_dir};
use crate::restricted_bundles::{KEY_A, RESOURCE, claims, jwks, raw_token, token};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How a fake key server answers.
#[derive(Clone, Copy)]
enum Answer {
    /// Reads the request and never answers (the connection is held until the test ends).
    Never,
    /// 500 at once.
    Error,
    /// The key set, after six seconds.
    Slow,
    /// The key set at once.
    Good,
}

/// A loopback key server answering as `answer`; counts connections (one per fetch).
struct KeyServer {
    url: String,
    fetches: Arc<AtomicUsize>,
}

fn key_server(answer: Answer) -> KeyServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    let fetches = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&fetches);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || serve_one(stream, answer));
        }
    });
    KeyServer { url, fetches }
}

fn serve_one(stream: TcpStream, answer: Answer) {
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let body = jwks();
    let mut stream = &stream;
    let reply = |status: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    match answer {
        Answer::Never => std::thread::sleep(Duration::from_secs(60)),
        Answer::Error => {
            let _ = stream.write_all(reply("500 Internal Server Error", "{}").as_bytes());
        }
        Answer::Slow => {
            std::thread::sleep(Duration::from_secs(6));
            let _ = stream.write_all(reply("200 OK", &body).as_bytes());
        }
        Answer::Good => {
            let _ = stream.write_all(reply("200 OK", &body).as_bytes());
        }
    }
}

/// A registry with the example bundle restricted to tokens of `issuers` (id, iss, jwks_uri).
fn registry(name: &str, issuers: &[(&str, &str, &str)], on_demand: bool) -> String {
    let dir = temp_dir(name);
    let example = crate::common::example("index.json");
    let example_sha = okf_engine::canonical::sha256_hex(&std::fs::read(&example).unwrap());
    let mut text = format!("[auth]\nresource = \"{RESOURCE}\"\njwks_on_demand = {on_demand}\n");
    for (id, iss, uri) in issuers {
        text.push_str(&format!(
            "\n[[auth.issuer]]\nid = \"{id}\"\nissuer = \"{iss}\"\njwks_uri = \"{uri}\"\n"
        ));
    }
    let ids: Vec<String> = issuers.iter().map(|(id, _, _)| format!("{id:?}")).collect();
    text.push_str(&format!(
        "\n[[bundle]]\nid = \"example\"\nindex = {example:?}\nsha256 = \"{example_sha}\"\nindex_url = \"https://example.invalid/example.json\"\n\n\
         [[bundle]]\nid = \"staff\"\nindex = {example:?}\nsha256 = \"{example_sha}\"\nindex_url = \"https://example.invalid/staff.json\"\n\
         access = {{ issuers = [{}], scopes = [\"okf.staff\"] }}\n",
        ids.join(", ")
    ));
    let path = dir.join("registry.toml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn forged_tokens_for_a_broken_key_server_start_few_fetches_and_never_stall_other_clients() {
    let never = key_server(Answer::Never);
    let error = key_server(Answer::Error);
    let slow = key_server(Answer::Slow);
    let good = key_server(Answer::Good);
    let issuers = [
        ("never", "https://never.example", never.url.as_str()),
        ("error", "https://error.example", error.url.as_str()),
        ("slow", "https://slow.example", slow.url.as_str()),
        ("good", "https://good.example", good.url.as_str()),
    ];
    let server = Server::start(&["--registry", &registry("key-server-faults", &issuers, true)]);
    let addr = server.addr.clone();
    // Forged tokens need no key: any signature, naming the broken issuers in turn.
    let forged: Vec<String> = [
        "https://never.example",
        "https://error.example",
        "https://slow.example",
    ]
    .iter()
    .map(|iss| {
        raw_token(
            &json!({"alg": "EdDSA", "kid": "a", "typ": "JWT"}),
            &claims(iss),
            "c2lnbmF0dXJl",
        )
    })
    .collect();
    let ask = json!({"bundle": "example", "question": "How do I borrow books?"}).to_string();

    // Another client asks the public bundle throughout, and for three seconds after.
    let attack_over = Arc::new(AtomicBool::new(false));
    let victim = {
        let (addr, ask, attack_over) = (addr.clone(), ask.clone(), Arc::clone(&attack_over));
        std::thread::spawn(move || {
            let mut statuses = Vec::new();
            let mut after: Option<Instant> = None;
            loop {
                if attack_over.load(Ordering::SeqCst) {
                    let since = *after.get_or_insert_with(Instant::now);
                    if since.elapsed() > Duration::from_secs(3) {
                        break;
                    }
                }
                let response = request_from(
                    [127, 0, 0, 1],
                    &addr,
                    "POST",
                    "/api/ask",
                    &[("Content-Type", "application/json")],
                    ask.as_bytes(),
                );
                statuses.push(response.status);
                std::thread::sleep(Duration::from_millis(50));
            }
            statuses
        })
    };

    // Six attackers from another address send 1,000 forged tokens within ten seconds.
    let sent = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let attackers: Vec<_> = (0..6)
        .map(|_| {
            let (addr, ask, sent, forged) =
                (addr.clone(), ask.clone(), Arc::clone(&sent), forged.clone());
            std::thread::spawn(move || {
                let mut refused = 0;
                while started.elapsed() < Duration::from_secs(10) {
                    let n = sent.fetch_add(1, Ordering::SeqCst);
                    if n >= 1000 {
                        break;
                    }
                    let bearer = format!("Bearer {}", forged[n % forged.len()]);
                    let body = ask.replace("\"example\"", "\"staff\"");
                    let response = request_from(
                        [127, 0, 0, 2],
                        &addr,
                        "POST",
                        "/api/ask",
                        &[
                            ("Content-Type", "application/json"),
                            ("Authorization", &bearer),
                        ],
                        body.as_bytes(),
                    );
                    if response.status != 200 {
                        refused += 1;
                    }
                }
                refused
            })
        })
        .collect();
    let refused: usize = attackers.into_iter().map(|a| a.join().unwrap()).sum();
    attack_over.store(true, Ordering::SeqCst);
    let statuses = victim.join().unwrap();

    let fetches = [
        ("never", never.fetches.load(Ordering::SeqCst)),
        ("error", error.fetches.load(Ordering::SeqCst)),
        ("slow", slow.fetches.load(Ordering::SeqCst)),
    ];
    let attacks = sent.load(Ordering::SeqCst).min(1000);
    eprintln!(
        "{attacks} forged tokens in {:?}; key fetches {fetches:?}; the other client's asks: {} ({} answered)",
        started.elapsed(),
        statuses.len(),
        statuses.iter().filter(|s| **s == 200).count()
    );
    assert!(attacks >= 300, "the attack sent {attacks} forged tokens");
    assert_eq!(refused, attacks, "no forged token was accepted");
    for (issuer, n) in fetches {
        assert!(
            (1..=5).contains(&n),
            "{n} key fetches from the {issuer:?} issuer for {attacks} forged tokens: at most a handful"
        );
    }
    let answered = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(
        answered,
        statuses.len(),
        "every ask of the other client was answered: {statuses:?}"
    );
    assert!(
        answered >= 20,
        "the other client kept asking throughout ({answered} answers)"
    );
    // A good issuer's token still works, with one fetch of its keys.
    let good_token = token(
        KEY_A,
        "a",
        &json!({"iss": "https://good.example", "aud": RESOURCE, "exp": crate::restricted_bundles::now() + 300, "scope": "okf.staff"}),
    );
    let response = request_from(
        [127, 0, 0, 1],
        &addr,
        "POST",
        "/api/ask",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &format!("Bearer {good_token}")),
        ],
        ask.replace("\"example\"", "\"staff\"").as_bytes(),
    );
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(good.fetches.load(Ordering::SeqCst), 1);
    // One log line per issuer that became unavailable, not one per token.
    let log = server.stop();
    let lines = log.matches("issuer signing keys unavailable").count();
    assert_eq!(lines, 3, "one line per broken issuer:\n{log}");
}

#[test]
fn a_registry_whose_key_server_cannot_be_read_is_refused_at_start_naming_the_issuer() {
    let error = key_server(Answer::Error);
    let issuers = [("staff-idp", "https://idp.example", error.url.as_str())];
    let output = okf(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--registry",
        &registry("key-server-refused", &issuers, false),
    ]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("auth.issuer \"staff-idp\"")
            && message.contains("500")
            && message.contains("jwks_on_demand"),
        "{message}"
    );
    assert_eq!(error.fetches.load(Ordering::SeqCst), 1);
}
