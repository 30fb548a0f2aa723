//! Property test: the byte pre-test of the reply's syntax lines turns away no line that
//! [`path_candidate`] reads as a strict path. Seeded; the seed is printed.

use super::{may_name_strict_path, path_candidate, KNOWN_NAMES};

#[test]
fn strict_path_lines_pass_the_pre_test() {
    for name in KNOWN_NAMES {
        assert!(may_name_strict_path(name), "{name}");
    }
    let pieces = [
        "src", "/", ".", "rs", "lib", "Makefile", "LICENSE", "COPYING", "Gemfile", "justfile", "`",
        "**", "\"", "'", "<path>", "</path>", ":", "File:", "path: ", "# ", "### ", "- ", "* ",
        " ", "\t", "x_y", "-v", "@@", "int", "rc", ";", "(", ")", "{", "}", "ile", "README", "a1",
        "é", "..", "./", "\\",
    ];
    let seed = 25_121u64;
    eprintln!("strict path pre-test seed {seed}");
    let mut state = seed;
    let mut strict = 0;
    for case in 0..300_000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut bits = state >> 4;
        let n = 1 + (bits % 7) as usize;
        let mut line = String::new();
        for _ in 0..n {
            bits /= 7;
            if bits < 64 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                bits = state >> 4;
            }
            line.push_str(pieces[(bits % pieces.len() as u64) as usize]);
            bits /= pieces.len() as u64;
        }
        if path_candidate(&line).is_some_and(|p| p.strict) {
            strict += 1;
            assert!(
                may_name_strict_path(line.trim()),
                "seed {seed} case {case}: {line:?}"
            );
        }
    }
    // The generator must reach strict paths often for the test to mean something.
    assert!(strict > 10_000, "{strict}");
}
