//! Merging the sequences of items of two versions, in the order of both (a longest common
//! subsequence of their keys).

use std::collections::BTreeSet;

pub(super) struct Entry<T> {
    pub(super) key: String,
    /// The inputs it is in: version indices (and, in a file with Windows inputs, those of the
    /// Windows outputs after them: `variants.rs`).
    pub(super) versions: BTreeSet<usize>,
    pub(super) value: T,
}

/// Merges version `v`'s sequence `next` into `merged`, keeping the order of every version: the
/// elements of a longest common subsequence of keys join their entries (`combine` merging their
/// contents); every other element of `next` is inserted where its neighbours put it.
pub(super) fn merge_seq<T>(
    merged: Vec<Entry<T>>,
    next: Vec<(String, T)>,
    v: usize,
    combine: &mut impl FnMut(&mut T, T, usize),
) -> Vec<Entry<T>> {
    let a: Vec<&str> = merged.iter().map(|e| e.key.as_str()).collect();
    let b: Vec<&str> = next.iter().map(|(k, _)| k.as_str()).collect();
    let targets = lcs_targets(&a, &b);
    // In a gap between two joined entries, the old ones come first (an item that changed reads
    // as its old text, then its new one).
    let mut gap_end = vec![merged.len(); targets.len()];
    let mut end = merged.len();
    for (k, t) in targets.iter().enumerate().rev() {
        if let Some(j) = t {
            end = *j;
        }
        gap_end[k] = end;
    }
    let mut old: Vec<Option<Entry<T>>> = merged.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(old.len() + next.len());
    let mut taken = 0;
    for (((key, value), target), gap_end) in next.into_iter().zip(targets).zip(gap_end) {
        for slot in old.iter_mut().take(gap_end).skip(taken) {
            out.extend(slot.take());
        }
        taken = taken.max(gap_end);
        match target {
            Some(j) => {
                let mut e = old[j].take().expect("each entry is joined once");
                e.versions.insert(v);
                combine(&mut e.value, value, v);
                out.push(e);
                taken = j + 1;
            }
            None => out.push(Entry {
                key,
                versions: BTreeSet::from([v]),
                value,
            }),
        }
    }
    for slot in old.iter_mut().skip(taken) {
        out.extend(slot.take());
    }
    out
}

/// For each element of `b`, the index in `a` it is matched to by a longest common subsequence
/// (common prefix and suffix first, dynamic programming on the rest).
fn lcs_targets(a: &[&str], b: &[&str]) -> Vec<Option<usize>> {
    let mut targets = vec![None; b.len()];
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    for (i, t) in targets.iter_mut().enumerate().take(prefix) {
        *t = Some(i);
    }
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    for k in 0..suffix {
        targets[b.len() - 1 - k] = Some(a.len() - 1 - k);
    }
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (n, m) = (a_mid.len(), b_mid.len());
    if n == 0 || m == 0 {
        return targets;
    }
    // len[i][j]: the LCS length of a_mid[i..] and b_mid[j..].
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] = if a_mid[i] == b_mid[j] {
                len[at(i + 1, j + 1)] + 1
            } else {
                len[at(i + 1, j)].max(len[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a_mid[i] == b_mid[j] {
            targets[prefix + j] = Some(prefix + i);
            i += 1;
            j += 1;
        } else if len[at(i + 1, j)] >= len[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    targets
}
