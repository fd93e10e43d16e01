//! The median of a sample, and a distribution-free interval for the population's.

/// The median of `values`: the middle one, or the mean of the two middle ones.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n % 2 {
        1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A distribution-free interval of at least 95% for the median of the population `values` were
/// drawn from: the order statistics k and n+1-k (1-based) for the largest k with
/// P(Binomial(n, 1/2) < k) <= 2.5%.
pub fn median_interval(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mut k = 1;
    let mut below = 0.0; // P(X <= j)
    let mut term = 0.5f64.powi(n as i32); // P(X = 0)
    for j in 0..n {
        below += term;
        if below > 0.025 {
            break;
        }
        k = j + 1;
        term *= (n - j) as f64 / (j + 1) as f64;
    }
    let k = k.min(n.div_ceil(2));
    (sorted[k - 1], sorted[n - k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn the_interval_widens_for_small_samples() {
        let values: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_interval(&values), (2.0, 9.0));
        assert_eq!(median_interval(&[5.0, 1.0, 3.0]), (1.0, 5.0));
    }
}
