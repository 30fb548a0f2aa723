//! The raw form's fingerprint pass fused with the split ([`FileIndex::parse_primed`]) against
//! the pass after the split.

use super::prefilter::{candidates, key_filter};
use super::{long_keys, FileIndex};
use crate::text::{hash_form, Doc, Form};

/// The fused pass finds the lines, with the hashes, that the raw table's own pass finds
/// after the split, and the split is the same: seeded random texts of every line ending,
/// with and without a byte-order mark and a final newline, two of them large enough to be
/// split in two halves on two threads, with keys drawn from their lines and elsewhere.
#[test]
fn fused_pass_finds_what_the_pass_after_the_split_finds() {
    let seed = 1313u64;
    eprintln!("seed {seed}");
    let mut rng = crate::test_rng::SeededRng::new(seed);
    let mut next = move |n: usize| rng.below(n);
    let pieces = [
        "x",
        "ab",
        "return rc;",
        "\u{e9}t\u{e9}",
        " ",
        "\t",
        "\r",
        "}",
        "12345678",
    ];
    for case in 0..400 {
        let lines = if case < 2 { 160_000 } else { next(80) };
        let mut text = String::new();
        if next(5) == 0 {
            text.push('\u{feff}');
        }
        for _ in 0..lines {
            for _ in 0..next(7) {
                text.push_str(pieces[next(pieces.len())]);
            }
            text.push_str(["\n", "\n", "\r\n", "\r\r\n"][next(4)]);
        }
        if next(2) == 0 {
            text.push_str(pieces[next(pieces.len())]);
        }
        // The first two are split in two halves (see `text::split`).
        assert!(case >= 2 || text.len() > 1 << 20, "{}", text.len());
        let plain = Doc::parse(&text);
        let mut keys: Vec<String> = plain
            .lines()
            .filter(|_| next(3) == 0)
            .take(2_000)
            .map(str::to_owned)
            .collect();
        keys.extend((0..next(20)).map(|_| pieces[next(pieces.len())].repeat(next(4))));
        // Where a large text is cut in two: the lines around its middle.
        let middle = Doc::body_of(&text).len() / 2;
        keys.extend(
            (0..plain.len())
                .filter(|&i| plain.offset(i).abs_diff(middle) < 300)
                .map(|i| plain.line(i).to_owned()),
        );
        let (doc, found) = FileIndex::parse_primed(&text, &keys);
        let same: Vec<&str> = (0..doc.len()).map(|i| doc.line_with_eol(i)).collect();
        let want: Vec<&str> = (0..plain.len()).map(|i| plain.line_with_eol(i)).collect();
        assert!(same == want, "seed {seed} case {case}: the split differs");
        let (long, _) = long_keys(&keys, Form::Raw);
        let filter = key_filter(Form::Raw, &long);
        let after: Vec<(usize, u64)> = candidates(&doc, Form::Raw, &filter).collect();
        let fused: Vec<(usize, u64)> = match found {
            Some((lower, upper)) => lower.into_iter().chain(upper).collect(),
            None => {
                assert!(keys.is_empty() || doc.is_empty(), "seed {seed} case {case}");
                continue;
            }
        };
        assert!(fused == after, "seed {seed} case {case} {text:?}");
        // And the table built from them answers as the one built by its own pass.
        let primed = FileIndex::with_keys(&doc, keys.clone()).with_found(Some((fused, vec![])));
        let own = FileIndex::with_keys(&doc, keys.clone());
        for k in keys.iter().take(50) {
            let h = hash_form(Form::Raw, k);
            let (a, b) = (primed.form(Form::Raw), own.form(Form::Raw));
            assert_eq!(
                a.count(h, 99),
                b.count(h, 99),
                "seed {seed} case {case} {k:?}"
            );
            assert!(a.lines(h).eq(b.lines(h)), "seed {seed} case {case} {k:?}");
        }
    }
}
