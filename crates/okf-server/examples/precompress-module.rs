//! Writes `web/okf.wasm.br` and `web/okf.wasm.gz`, the page module's best brotli and gzip
//! forms, which `okf serve` sends as they are (compressing 1.2 MB at brotli 11 takes seconds,
//! too long for a first request). `scripts/build-wasm` runs this after each build; the server's
//! tests decompress both and fail unless they give back `web/okf.wasm` exactly.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("precompress-module: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> std::io::Result<()> {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let module = std::fs::read(web.join("okf.wasm"))?;
    let mut br = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 24,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &module[..], &mut br, &params)?;
    // No name and no time in the gzip header, so the bytes depend only on the module.
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gz.write_all(&module)?;
    let gz = gz.finish()?;
    for (name, bytes) in [("okf.wasm.br", &br), ("okf.wasm.gz", &gz)] {
        let path = web.join(name);
        let partial = path.with_extension("partial");
        std::fs::write(&partial, bytes)?;
        std::fs::rename(&partial, &path)?;
        println!("wrote web/{name} ({} bytes)", bytes.len());
    }
    Ok(())
}
