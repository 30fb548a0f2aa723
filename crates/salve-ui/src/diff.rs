//! A unified diff as an HTML table: old and new line numbers beside each line, added and
//! removed lines coloured, file headers and hunk headers set apart. Every line is escaped.

use crate::html::esc;

/// Render `diff` (unified format, any number of files).
pub fn render(diff: &str) -> String {
    let mut out = String::from("<table class=\"diff\"><tbody>");
    let (mut old, mut new) = (0u64, 0u64);
    // Between a file's `diff` line and its first hunk: git's extended header lines (`new file
    // mode`, `index`, `rename from`, ...), which are not lines of the file.
    let mut header = false;
    for line in diff.lines() {
        if header
            && !line.starts_with("--- ")
            && !line.starts_with("+++ ")
            && !line.starts_with("@@")
        {
            out.push_str(&format!(
                "<tr class=\"meta\"><td></td><td></td><td class=\"meta\">{}</td></tr>",
                esc(line)
            ));
            continue;
        }
        if line.starts_with("diff ") {
            header = true;
        }
        if line.starts_with("--- ") || line.starts_with("+++ ") || line.starts_with("diff ") {
            if let Some(path) = line.strip_prefix("+++ ") {
                let path = path.trim_start_matches("b/");
                out.push_str(&format!(
                    "<tr class=\"file\"><td colspan=\"3\">{}</td></tr>",
                    esc(path)
                ));
            }
            continue;
        }
        if let Some((o, n)) = hunk_start(line) {
            header = false;
            (old, new) = (o, n);
            out.push_str(&format!(
                "<tr class=\"hunk\"><td></td><td></td><td>{}</td></tr>",
                esc(line)
            ));
            continue;
        }
        let (class, o, n) = match line.as_bytes().first() {
            Some(b'+') => {
                new += 1;
                ("add", String::new(), new.to_string())
            }
            Some(b'-') => {
                old += 1;
                ("del", old.to_string(), String::new())
            }
            Some(b'\\') => ("meta", String::new(), String::new()),
            _ => {
                old += 1;
                new += 1;
                ("ctx", old.to_string(), new.to_string())
            }
        };
        out.push_str(&format!(
            "<tr class=\"{class}\"><td class=\"ln\">{o}</td><td class=\"ln\">{n}</td>\
             <td class=\"code\">{}</td></tr>",
            esc(line)
        ));
    }
    out.push_str("</tbody></table>");
    out
}

/// The first old and new line numbers of a hunk header, minus one (the next line adds one).
fn hunk_start(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let first = |range: &str| -> Option<u64> { range.split(',').next()?.parse::<u64>().ok() };
    Some((first(old)?.saturating_sub(1), first(new)?.saturating_sub(1)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_colours_lines() {
        let html = render("--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n keep\n-old <b>\n+new\n");
        assert!(
            html.contains("<td class=\"ln\">3</td><td class=\"ln\">3</td><td class=\"code\"> keep")
        );
        assert!(html.contains("<tr class=\"del\"><td class=\"ln\">4</td><td class=\"ln\"></td><td class=\"code\">-old &lt;b&gt;"));
        assert!(html.contains("<tr class=\"add\"><td class=\"ln\"></td><td class=\"ln\">4</td>"));
        assert!(html.contains("<tr class=\"file\"><td colspan=\"3\">f.txt</td>"));
    }

    #[test]
    fn extended_header_lines_are_not_code_lines() {
        let html = render(
            "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..1111111\n\
             --- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n",
        );
        assert!(
            html.contains("<td class=\"meta\">new file mode 100644</td>"),
            "{html}"
        );
        assert!(!html.contains("<td class=\"code\">new file mode"));
        assert!(
            html.contains("<td class=\"ln\"></td><td class=\"ln\">1</td><td class=\"code\">+new")
        );
    }
}
