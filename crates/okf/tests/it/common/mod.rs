//! Helpers for tests that run the real `okf` binary and talk HTTP to `okf serve`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod pdf;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

/// Runs `okf` with arguments.
pub fn okf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_okf"))
        .args(args)
        .output()
        .expect("okf runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A file of the embedded example bundle's directory (`crates/okf/example/`).
pub fn example(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("example")
        .join(file)
        .to_string_lossy()
        .into_owned()
}

/// A path under `../shared`.
pub fn shared(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(rel)
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// A fresh temporary directory for this test process.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("okf-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `okf serve`, killed on drop.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// Reads the log as it is written, so a long run never blocks the server on a full pipe.
    stderr: Option<JoinHandle<String>>,
}

impl Server {
    /// Starts `okf serve --listen 127.0.0.1:0 <extra args>` and waits for its listening line.
    pub fn start(extra: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_okf"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra);
        Server::spawn(command)
    }

    /// Starts a prepared `okf serve` command and waits for its listening line.
    pub fn spawn(command: Command) -> Server {
        Server::spawn_logging_to(command, Stdio::piped())
    }

    /// [`Server::spawn`] with the server's standard error going to `log` (read by the test
    /// only when it is a pipe).
    pub fn spawn_logging_to(mut command: Command, log: Stdio) -> Server {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("okf serve starts");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        let stderr = child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut log = String::new();
                let _ = e.read_to_string(&mut log);
                log
            })
        });
        Server {
            child,
            addr,
            stderr,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal (`HUP`, `TERM`, `KILL`) to the server.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args(["-s", name, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -s {name}");
    }

    /// Waits (at most `bound`) for the server to exit; returns its status and its log.
    pub fn wait_exit(mut self, bound: Duration) -> (std::process::ExitStatus, String) {
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < bound,
                "server still running after {bound:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let log = self
            .stderr
            .take()
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default();
        (status, log)
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// Stops the server as an operator would (SIGTERM: it drains and writes its last log
    /// lines; SIGKILL after 5 s) and returns everything it logged.
    pub fn stop(mut self) -> String {
        let _ = Command::new("kill")
            .args(["-s", "TERM", &self.child.id().to_string()])
            .status();
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr
            .take()
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default()
    }

    /// Sends one request and reads the whole response.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        request_to(&self.addr, method, path, headers, body)
    }

    /// `POST /api/ask` with a JSON body.
    pub fn ask(&self, body: &serde_json::Value) -> Response {
        self.request(
            "POST",
            "/api/ask",
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }

    /// A JSON-RPC call on `/mcp` (legacy protocol header unless `extra` overrides it).
    pub fn mcp(&self, body: &serde_json::Value, extra: &[(&str, &str)]) -> Response {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if !extra
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
        {
            headers.push(("MCP-Protocol-Version", "2025-11-25"));
        }
        headers.extend_from_slice(extra);
        self.request("POST", "/mcp", &headers, body.to_string().as_bytes())
    }

    /// Opens a connection and sends only the headers of a POST with a body that never comes.
    pub fn stalled_post(&self, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{",
            self.addr
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// Body bytes (de-chunked).
    pub body: Vec<u8>,
}

impl Response {
    /// A header value by (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Sends one request to `addr` (`Connection: close`, Host defaults to `addr`) and reads the
/// whole response.
pub fn request_to(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    request_over(
        TcpStream::connect(addr).unwrap(),
        addr,
        method,
        path,
        headers,
        body,
    )
}

/// [`request_to`] from the loopback address `source` (the server's per-client budgets tell
/// clients apart by address).
pub fn request_from(
    source: [u8; 4],
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    request_over(
        connect_from(addr, source).unwrap(),
        addr,
        method,
        path,
        headers,
        body,
    )
}

/// Sends one request on `stream` and reads the whole response.
fn request_over(
    mut stream: TcpStream,
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    read_response(&mut stream)
}

/// Reads a complete HTTP/1.1 response from a stream that the server closes.
pub fn read_response(stream: &mut TcpStream) -> Response {
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            l.split_once(':')
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        })
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
    out
}

/// The DWP registry of the issue, written to a temporary file (absolute index path).
pub fn dwp_registry(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("registry.toml");
    let text = format!(
        r#"[[bundle]]
id = "okf-dwp"
index = "{index}"
sha256 = "{DWP_SHA}"
index_url = "{DWP_URL}"
{extra}
"#,
        index = shared("dwp/full-dmg/context/assembly-index.json"),
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The DWP index file's SHA-256.
pub const DWP_SHA: &str = "38159445a60d4bcabc23cb2cf728e14cbd0a4b55013276c291356e7a1452ff54";
/// The DWP index URL recorded in bindings.
pub const DWP_URL: &str = "https://raw.githubusercontent.com/chris-page-gov/okf-dwp/efb05c66616a9cd4328a86cf412780fe7bc7cf0b/full-dmg/context/assembly-index.json";

/// The DWP imprisonment question.
pub fn imprisonment_question() -> String {
    let case: serde_json::Value = serde_json::from_slice(
        &std::fs::read(shared(
            "dwp/evaluation/context-assembly/imprisonment-case.json",
        ))
        .unwrap(),
    )
    .unwrap();
    case["question"].as_str().unwrap().to_owned()
}

/// Builds a workbench over the embedded example bundle with `okf workbench build`, one case
/// per question, into `dir/wb`; returns its manifest path.
pub fn example_workbench(dir: &Path, questions: &[&str]) -> PathBuf {
    let file = dir.join("questions.json");
    let list: Vec<serde_json::Value> = questions
        .iter()
        .enumerate()
        .map(|(n, q)| serde_json::json!({"id": format!("q{n}"), "label": format!("Question {n}"), "question": q}))
        .collect();
    std::fs::write(&file, serde_json::json!({"questions": list}).to_string()).unwrap();
    let out = dir.join("wb");
    let _ = std::fs::remove_dir_all(&out);
    let built = okf(&[
        "workbench",
        "build",
        "--index",
        &example("index.json"),
        "--questions",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    out.join("manifest.json")
}

/// The registry entry serving the workbench `manifest` as `wb`.
pub fn workbench_entry(manifest: &Path) -> String {
    format!("\n[[workbench]]\nid = \"wb\"\nmanifest = {manifest:?}\n")
}

/// A registry serving only a workbench `wb` built by [`example_workbench`] over `questions`;
/// returns the registry's and the manifest's paths.
pub fn example_workbench_registry(dir: &Path, questions: &[&str]) -> (PathBuf, PathBuf) {
    let manifest = example_workbench(dir, questions);
    let registry = dir.join("registry.toml");
    std::fs::write(&registry, workbench_entry(&manifest)).unwrap();
    (registry, manifest)
}

/// Runs `tests/external/<script>` with the Python named by `python_var` (a venv scripts/test
/// installs) and `args`; fails unless it exits 0 and reports no failed check. Its report.
pub fn external_python_report(python_var: &str, script: &str, args: &[String]) -> String {
    let python = std::env::var(python_var)
        .unwrap_or_else(|_| panic!("{python_var} names the venv python; run scripts/test"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/external")
        .join(script);
    let out = Command::new(python)
        .args(["-W", "ignore"])
        .arg(script)
        .args(args)
        .output()
        .expect("python runs");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("checks failed: 0"), "{report}");
    report
}

/// A connection to `addr` from `source`, another loopback address than the normal client's
/// (Linux routes all of 127.0.0.0/8 to `lo`): the server's budgets are per client address.
pub fn connect_from(addr: &str, source: [u8; 4]) -> std::io::Result<TcpStream> {
    let addr: std::net::SocketAddr = addr.parse().map_err(std::io::Error::other)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(std::net::SocketAddr::from((source, 0)))?;
        let stream = socket.connect(addr).await?.into_std()?;
        stream.set_nonblocking(false)?;
        Ok(stream)
    })
}

/// The evidence brief of a package (its JSON text) at the default budget: what every adapter
/// hands a model as text.
pub fn brief_of(package_json: &str) -> String {
    okf_brief::render(package_json, &okf_brief::BriefOptions::default())
        .unwrap()
        .text
}
