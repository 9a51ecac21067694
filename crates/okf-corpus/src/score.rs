//! Integer scoring (spec §3.12, W11). The reference computes these with IEEE doubles; here
//! every step is integer or fixed-point arithmetic, so results are the same on every
//! platform. `DEVIATIONS.md` records where that can differ from the float formula.

/// Fraction bits of the fixed-point logarithm.
const LOG_FRACTION_BITS: u32 = 40;
/// Working precision of the squaring method.
const WORK_BITS: u32 = 62;
/// ln 2 in Q32, rounded to nearest.
const LN2_Q32: u128 = 2_977_044_472;

/// log2(num / den) in fixed point with 40 fraction bits, for `num >= den > 0`.
fn log2_q40(num: u128, den: u128) -> u128 {
    let mut int = 0u32;
    while (den << (int + 1)) <= num {
        int += 1;
    }
    // y = num / (den · 2^int) in [1, 2), Q62.
    let mut y: u128 = (num << WORK_BITS) / (den << int);
    let mut frac: u128 = 0;
    for _ in 0..LOG_FRACTION_BITS {
        y = (y * y) >> WORK_BITS;
        frac <<= 1;
        if y >= 2u128 << WORK_BITS {
            y >>= 1;
            frac |= 1;
        }
    }
    (u128::from(int) << LOG_FRACTION_BITS) | frac
}

/// The v1/v2 token score: `1 + floor(1000 × log2(1 + N / max(1, posting_length)))`.
pub fn idf_points(records: u64, posting_length: u64) -> u64 {
    let len = u128::from(posting_length.max(1));
    let l = log2_q40(len + u128::from(records), len);
    let milli = (l * 1000) >> LOG_FRACTION_BITS;
    1 + u64::try_from(milli).unwrap_or(u64::MAX)
}

/// One BM25 field contribution, scaled by 10^6 and rounded half up (k1 = 1.2, b = 0.75):
/// `idf × tf × 2.2 / (tf + 1.2 × (0.25 + 0.75 × len / (total / N)))` with
/// `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`.
pub fn bm25(records: u64, df: u64, tf: u64, len: u64, total: u64) -> u64 {
    if tf == 0 || records == 0 || total == 0 {
        return 0;
    }
    let n = u128::from(records);
    let df = u128::from(df.min(records));
    // 1 + (N − df + 0.5)/(df + 0.5) = (2N + 2)/(2df + 1)
    let idf_q32 = (log2_q40(2 * n + 2, 2 * df + 1) * LN2_Q32) >> LOG_FRACTION_BITS;
    let (tf, len, total) = (u128::from(tf), u128::from(len), u128::from(total));
    // tf·2.2 / (tf + 0.3 + 0.9·len·N/total) = 22·tf·total / (10·tf·total + 3·total + 9·len·N)
    let num = 1_000_000 * idf_q32 * 22 * tf * total;
    let den = (10 * tf * total + 3 * total + 9 * len * n) << 32;
    u64::try_from((2 * num + den) / (2 * den)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_0_2_v1_score_vector() {
        assert_eq!(idf_points(2, 1), 1585);
    }

    #[test]
    fn spec_3_12_bm25_vector() {
        assert_eq!(bm25(10, 2, 1, 20, 200), 1_481_605);
    }

    #[test]
    fn idf_points_equal_the_float_formula_away_from_rounding_edges() {
        for n in 1..=600u64 {
            for len in 1..=n {
                let f = 1000.0 * (1.0 + n as f64 / len as f64).log2();
                let ours = idf_points(n, len);
                // Exact powers of two are exact in both; elsewhere the float is only trusted
                // when it is not within 1e-6 of an integer.
                if (f - f.round()).abs() > 1e-6 || (n % len == 0 && (n / len + 1).is_power_of_two())
                {
                    assert_eq!(ours, 1 + f.floor() as u64, "n={n} len={len}");
                }
            }
        }
    }

    #[test]
    fn bm25_is_within_one_unit_of_the_float_formula_and_monotonic() {
        for &(n, total) in &[(10u64, 200u64), (1000, 50_000), (100_000, 3_000_000)] {
            for df in [1, 2, n / 3 + 1, n] {
                let mut last_tf = 0;
                for tf in 1..=8u64 {
                    let len = 20;
                    let ours = bm25(n, df, tf, len, total);
                    let idf = (1.0 + (n as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln();
                    let f = 1e6 * idf * tf as f64 * 2.2
                        / (tf as f64
                            + 1.2 * (0.25 + 0.75 * len as f64 / (total as f64 / n as f64)));
                    assert!(
                        (ours as f64 - f.round()).abs() <= 1.0,
                        "{n} {df} {tf}: {ours} vs {f}"
                    );
                    assert!(ours >= last_tf);
                    last_tf = ours;
                }
                let short = bm25(n, df, 2, 10, total);
                let long = bm25(n, df, 2, 40, total);
                assert!(short > long);
            }
        }
    }
}
