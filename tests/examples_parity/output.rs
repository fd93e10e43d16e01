//! The programs' outputs: the normalisation rules (the parent module's documentation lists them)
//! and the line diff that shows where two normalised outputs part.

/// Rule 1's numbering, the one place to switch it: `true`, each side's addresses are numbered by
/// first appearance in its output (`0xPTR#1`, `0xPTR#2`, ...), so that a port printing another
/// object than its twin prints differs; `false`, every address is `0xPTR`, whichever object it is.
const NUMBER_ADDRESSES: bool = true;

/// The normalised lines of an output (see the parent module's documentation for the rules).
pub fn normalise(stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut addresses = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some((consumed, line)) = check_driver_report(&lines[i..]) {
            out.push(line);
            i += consumed;
            continue;
        }
        let line = normalise_pointers(lines[i], &mut addresses);
        let line = normalise_wall_time(&line);
        out.push(normalise_compile_time(&line));
        i += 1;
    }
    out
}

/// Whether the normalised line `line` is a `check_driver` report (rule 2).
pub fn is_report(line: &str) -> bool {
    line.starts_with("<file>:<line>  ") && line.ends_with(FAILED)
}

/// The end of a `check_driver` report's first line.
const FAILED: &str = " failed. ";

/// Rule 2: a report `<file>.{cpp,h,rs}:<line>  <expression> failed. ` (the expression perhaps over
/// several lines) as `<file>:<line>  <callee>(…) failed. `, and how many lines it took.
fn check_driver_report(lines: &[&str]) -> Option<(usize, String)> {
    let first = lines[0];
    let (location, rest) = first.split_once("  ")?;
    let (file, line) = location.rsplit_once(':')?;
    let file_ok = !file.is_empty()
        && !file.contains(char::is_whitespace)
        && [".cpp", ".h", ".rs"].iter().any(|ext| file.ends_with(ext));
    if !file_ok || line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The expression ends on the first line that ends with " failed. " (at most a few lines on).
    let mut expression = String::from(rest);
    let mut consumed = 1;
    while !expression.ends_with(FAILED) {
        if consumed == lines.len() || consumed > 8 {
            return None;
        }
        expression.push(' ');
        expression.push_str(lines[consumed]);
        consumed += 1;
    }
    let expression = &expression[..expression.len() - FAILED.len()];
    let callee = expression.split('(').next().unwrap_or("").trim();
    Some((consumed, format!("<file>:<line>  {callee}(…){FAILED}")))
}

/// Before the rules, on Windows, the C twin's `%p` as glibc prints it: mingw-w64's C libraries
/// print a pointer as 16 hex digits without `0x` (msvcrt's upper-case, mingw-w64's own stdio
/// lower-case), null as zeros; glibc, `0x` and the digits, null as `(nil)`, which the Rust
/// examples print on every target.
pub fn msvcrt_pointers(stdout: &str) -> String {
    let is_digit = |b: u8| b.is_ascii_hexdigit();
    let mut out = String::with_capacity(stdout.len());
    let mut rest = stdout;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric()) {
        let end = rest[start..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(rest.len(), |e| start + e);
        let word = &rest[start..end];
        out.push_str(&rest[..start]);
        if word.len() == 16 && word.bytes().all(is_digit) {
            if word.bytes().all(|b| b == b'0') {
                out.push_str("(nil)");
            } else {
                out.push_str("0x");
                out.push_str(&word.to_ascii_lowercase());
            }
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out + rest
}

/// Rule 1: an address, `0x` and lower-case hex digits whose value is in [2^32, 2^48) (9 to 12
/// significant digits), as `0xPTR#<n>`, `n` its place among the distinct `addresses` of the output
/// so far (those of this line added), or as `0xPTR` where [`NUMBER_ADDRESSES`] is off; every other
/// hex number as it is.
fn normalise_pointers(line: &str, addresses: &mut Vec<u64>) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"0x") && bytes.get(i + 2).is_some_and(|b| is_lower_hex(*b)) {
            let mut j = i + 2;
            while j < bytes.len() && is_lower_hex(bytes[j]) {
                j += 1;
            }
            let significant = line[i + 2..j].trim_start_matches('0').len();
            if (9..=12).contains(&significant) {
                out.push_str("0xPTR");
                if NUMBER_ADDRESSES {
                    // At most 12 significant digits: it fits.
                    let value = u64::from_str_radix(&line[i + 2..j], 16).unwrap_or(u64::MAX);
                    let n = match addresses.iter().position(|a| *a == value) {
                        Some(k) => k + 1,
                        None => {
                            addresses.push(value);
                            addresses.len()
                        }
                    };
                    out.push_str(&format!("#{n}"));
                }
            } else {
                out.push_str(&line[i..j]);
            }
            i = j;
        } else {
            let c = line[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// Rule 3: `Link completed in <t>ms. Linker Output:` as `Link completed in <T>ms. Linker Output:`.
fn normalise_wall_time(line: &str) -> String {
    const HEAD: &str = "Link completed in ";
    const TAIL: &str = "ms. Linker Output:";
    if let Some(number) = line.strip_prefix(HEAD).and_then(|r| r.strip_suffix(TAIL)) {
        if number.parse::<f64>().is_ok() {
            return format!("{HEAD}<T>{TAIL}");
        }
    }
    line.to_string()
}

/// Rule 4: `Compile time = <t> ms` as `Compile time = <T> ms`.
fn normalise_compile_time(line: &str) -> String {
    const HEAD: &str = "Compile time = ";
    const TAIL: &str = " ms";
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(HEAD) {
        let after = &rest[at + HEAD.len()..];
        match after.find(TAIL) {
            Some(end) if after[..end].parse::<f64>().is_ok() => {
                out.push_str(&rest[..at]);
                out.push_str(HEAD);
                out.push_str("<T>");
                rest = &after[end..];
            }
            _ => {
                out.push_str(&rest[..at + HEAD.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A line diff of `c` (`-`) and `rust` (`+`) by longest common subsequence, the differing lines
/// with two lines of context, at most `limit` lines.
pub fn diff(c: &[String], rust: &[String], limit: usize) -> String {
    let (n, m) = (c.len(), rust.len());
    // lcs[i][j]: the LCS length of c[i..] and rust[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if c[i] == rust[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', line number in its file, text).
    let mut script: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && c[i] == rust[j] {
            script.push((' ', i + 1, &c[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', i + 1, &c[i]));
            i += 1;
        } else {
            script.push(('+', j + 1, &rust[j]));
            j += 1;
        }
    }
    let changed: Vec<bool> = script.iter().map(|(k, _, _)| *k != ' ').collect();
    let near_change = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 2).min(script.len() - 1);
        changed[lo..=hi].iter().any(|&c| c)
    };
    let mut out = String::new();
    let mut printed = 0;
    let mut skipped = false;
    for (k, (kind, line, text)) in script.iter().enumerate() {
        if !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  ...\n");
            skipped = false;
        }
        if printed == limit {
            out.push_str("  ... (more differences)\n");
            break;
        }
        out.push_str(&format!("{kind} {line:>4} | {text}\n"));
        printed += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn msvcrt_pointers_read_as_glibc_prints_them() {
        let c = "ctx = 0000000000000000, ptr = 00000000DEADBEEF, 0000000233831cf9; id \
                 0000000000000001X, 1234\r\n";
        assert_eq!(
            msvcrt_pointers(c),
            "ctx = (nil), ptr = 0x00000000deadbeef, 0x0000000233831cf9; id 0000000000000001X, \
             1234\r\n"
        );
    }

    #[test]
    fn check_driver_reports() {
        let c = "/w/examples/context_stack.cpp:32  cuCtxCreate(&ctxA, CU_CTX_SCHED_AUTO, device) failed. \n  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error\n";
        let rust = "examples/context_stack.rs:28  cuCtxCreate(&mut ctxA,\nCU_CTX_SCHED_AUTO.0, device) failed. \n  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error\n";
        let want = owned(&[
            "<file>:<line>  cuCtxCreate(…) failed. ",
            "  code = CUDA_ERROR_NOT_INITIALIZED, message = initialization error",
        ]);
        assert_eq!(normalise(c), want);
        assert_eq!(normalise(rust), want);
        // A helper of common.h that checks its own call.
        let helper = c.replace(
            "/w/examples/context_stack.cpp:32",
            "/w/examples/groups/common.h:71",
        );
        assert_eq!(normalise(&helper), want);
        // Not a report: no .cpp/.h/.rs location, or no " failed. " end.
        assert_eq!(normalise("a:1  b failed. "), owned(&["a:1  b failed. "]));
        assert_eq!(normalise("x.rs:1  f(a)\n"), owned(&["x.rs:1  f(a)"]));
    }

    /// The `n`-th distinct address of an output, normalised.
    fn address(n: usize) -> String {
        match NUMBER_ADDRESSES {
            true => format!("0xPTR#{n}"),
            false => "0xPTR".to_string(),
        }
    }

    #[test]
    fn pointers_and_times() {
        assert_eq!(
            normalise(
                "ctxA = 0x55d0c0ffee00, ctxB = (nil)\npfn = 0x7f53a52d5660\nat 0x302000000; \
                 0x00000000deadbeef"
            ),
            [
                format!("ctxA = {}, ctxB = (nil)", address(1)),
                format!("pfn = {}", address(2)),
                format!("at {}; 0x00000000deadbeef", address(3)),
            ]
        );
        assert_eq!(
            normalise(
                "Link completed in 12.345678ms. Linker Output:\ninfo    : Compile time = 0.042 ms"
            ),
            owned(&[
                "Link completed in <T>ms. Linker Output:",
                "info    : Compile time = <T> ms"
            ])
        );
    }

    /// Flags and values printed in hex are compared; addresses are not.
    #[test]
    fn hex_values_are_compared_and_addresses_are_not() {
        let same = |c: &str, rust: &str| normalise(c) == normalise(rust);
        // contexts, coredump_logs, graph_nodes: 32-bit flags with `0x%x`.
        assert!(!same("context flags: 0x1", "context flags: 0x9"));
        assert!(!same(
            "primary context: flags 0x0, active 1",
            "primary context: flags 0x4, active 1"
        ));
        assert!(!same(
            "  generation flags: 0xffffffff",
            "  generation flags: 0xfffffffe"
        ));
        // stream_memops: a 64-bit word.
        assert!(!same(
            "the kernel saw 0x1122334455667788",
            "the kernel saw 0x1122334455667789"
        ));
        // Host heap, libraries' mappings, device memory: different on every run.
        assert!(same("ctx = 0x55d0c0ffee00", "ctx = 0x5612aa0b3c40"));
        assert!(same("pfn = 0x7f53a52d5660", "pfn = 0x7fd0011f2a10"));
        assert!(same(
            "reserved 2097152 bytes at 0x302000000",
            "reserved 2097152 bytes at 0x7f2c4e000000"
        ));
        // Null is `(nil)`, not an address.
        assert!(!same("ctx = (nil)", "ctx = 0x55d0c0ffee00"));
    }

    #[test]
    fn diff_shows_the_differing_lines() {
        let d = diff(&owned(&["a", "b", "c"]), &owned(&["a", "x", "c"]), 10);
        assert!(d.contains("-    2 | b") && d.contains("+    2 | x"), "{d}");
    }

    /// Numbered by first appearance, a printed address says which object it is: a port printing
    /// one context where its twin prints the other differs; the values themselves do not count.
    #[test]
    fn printed_addresses_are_compared_by_object() {
        let same = |c: &str, rust: &str| normalise(c) == normalise(rust);
        let c = "ctxA = 0x55d0c0ffee00\nctxB = 0x55d0c0ffef00\ncurrent: 0x55d0c0ffee00";
        let rust = "ctxA = 0x5612aa0b3c40\nctxB = 0x5612aa0b3d40\ncurrent: 0x5612aa0b3c40";
        assert!(same(c, rust));
        // The same digits with leading zeros are the same address.
        assert!(same(c, &c.replace("current: 0x", "current: 0x0000")));
        let other = "ctxA = 0x5612aa0b3c40\nctxB = 0x5612aa0b3d40\ncurrent: 0x5612aa0b3d40";
        assert_eq!(same(c, other), !NUMBER_ADDRESSES);
        assert_eq!(
            normalise(other)[2],
            format!("current: {}", address(if NUMBER_ADDRESSES { 2 } else { 1 }))
        );
    }
}
