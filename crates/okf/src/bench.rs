//! `okf bench`: in-process timing for publishers sizing their indexes.
//!
//! Timing lives here, in the binary, because the engine crate has no clock.

use crate::{BenchArgs, CliError, print};
use okf_engine::assemble;
use std::time::Instant;

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Loads once, warms up, then times `n` assemblies and prints min/median/p95.
pub(crate) fn run(args: &BenchArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let index = args.source.load()?;
    let load_us = micros(started.elapsed());
    let budget = args.source.budget()?;
    let binding = args.source.binding();
    let mut context_id = String::new();
    for _ in 0..args.warmup {
        assemble(&index, &args.question, &budget, binding.as_ref())?;
    }
    let n = args.n.max(1);
    let mut samples = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = Instant::now();
        let package = assemble(&index, &args.question, &budget, binding.as_ref())?;
        samples.push(micros(t.elapsed()));
        context_id = package.context_id;
    }
    samples.sort_unstable();
    let at = |q_num: usize, q_den: usize| samples[((samples.len() - 1) * q_num).div_ceil(q_den)];
    let (min, median, p95) = (samples[0], at(1, 2), at(95, 100));
    if args.json {
        print(&format!(
            "{{\"load_us\":{load_us},\"n\":{n},\"min_us\":{min},\"median_us\":{median},\"p95_us\":{p95},\"context_id\":\"{context_id}\"}}"
        ))
    } else {
        print(&format!(
            "load+validate {load_us} us\nassemble x{n}: min {min} us, median {median} us, p95 {p95} us\ncontext_id {context_id}"
        ))
    }
}
