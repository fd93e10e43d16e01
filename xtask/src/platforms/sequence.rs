//! The differing parts of two sequences of lines, found as Python's `difflib.SequenceMatcher`
//! (without junk heuristics) finds them: the longest matching block first, then the same on each
//! side of it. Its count of parts is what the Windows bindings comparison reports.

use std::collections::HashMap;

/// A part where `a[a_start..a_end]` and `b[b_start..b_end]` differ (one side may be empty).
#[derive(Debug, PartialEq)]
pub struct Change {
    pub a_start: usize,
    pub a_end: usize,
    pub b_start: usize,
    pub b_end: usize,
}

/// The parts where `a` and `b` differ, in order.
pub fn changes<T: AsRef<str>>(a: &[T], b: &[T]) -> Vec<Change> {
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, line) in b.iter().enumerate() {
        positions.entry(line.as_ref()).or_default().push(j);
    }
    let mut blocks = Vec::new();
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, &positions, alo, ahi, blo, bhi);
        if k > 0 {
            blocks.push((i, j, k));
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    blocks.sort_unstable();
    blocks.push((a.len(), b.len(), 0));
    let (mut i, mut j) = (0, 0);
    let mut changes = Vec::new();
    for (ai, bj, size) in blocks {
        if i < ai || j < bj {
            changes.push(Change {
                a_start: i,
                a_end: ai,
                b_start: j,
                b_end: bj,
            });
        }
        (i, j) = (ai + size, bj + size);
    }
    changes
}

/// The longest block `a[i..i+k] == b[j..j+k]` within the bounds, the earliest in `a` (then in
/// `b`) among the longest.
fn longest_match<T: AsRef<str>>(
    a: &[T],
    positions: &HashMap<&str, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best) = (alo, blo, 0);
    let mut lengths: HashMap<usize, usize> = HashMap::new();
    for (i, line) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next = HashMap::new();
        for &j in positions.get(line.as_ref()).into_iter().flatten() {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = j.checked_sub(1).and_then(|p| lengths.get(&p)).unwrap_or(&0) + 1;
            next.insert(j, k);
            if k > best {
                (best_i, best_j, best) = (i + 1 - k, j + 1 - k, k);
            }
        }
        lengths = next;
    }
    (best_i, best_j, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_as_difflib_finds_them() {
        // difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), the non-equal ones:
        // [('replace', 1, 2, 1, 2), ('replace', 4, 5, 4, 6)]
        let a = ["x", "a", "y", "z", "w"];
        let b = ["x", "b", "y", "z", "p", "q"];
        let found = changes(&a, &b);
        let spans: Vec<_> = found
            .iter()
            .map(|c| (c.a_start, c.a_end, c.b_start, c.b_end))
            .collect();
        assert_eq!(spans, [(1, 2, 1, 2), (4, 5, 4, 6)]);
        assert!(changes(&a, &a).is_empty());
        assert_eq!(changes(&a, &b[..0]).len(), 1);
    }
}
