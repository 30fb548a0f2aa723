//! The phases `ask` and `fix` report while they work reach the caller's observer, in order,
//! with each provider call and failure: what a front end's progress display is drawn from.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use salve_engine::{ask, fix};
use salve_llm::ChainEvent;

mod support;
use support::repo;

const REPLY: &str = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn one() -> u32 {\n-    1\n+    2\n }\n```\nConfidence: 0.9\n";

/// A trust store of this test process's own, so trusting the test's `salve.toml` never touches
/// the user's.
fn private_trust_store() {
    static STORE: OnceLock<PathBuf> = OnceLock::new();
    STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        std::env::set_var("XDG_DATA_HOME", &dir);
        dir
    });
}

/// A chain of a provider that fails and one that answers with `REPLY`, in `salve.toml`, trusted.
fn configure(dir: &Path, scripts: &Path) {
    private_trust_store();
    let good = scripts.join("good.sh");
    std::fs::write(&good, format!("cat >/dev/null\ncat <<'EOF'\n{REPLY}EOF\n")).unwrap();
    let good = good.to_string_lossy();
    std::fs::write(
        dir.join("salve.toml"),
        format!(
            "[providers.broken]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", \"echo down >&2; exit 3\"]\n\n\
             [providers.good]\nkind = \"command\"\ncommand = [\"sh\", \"{good}\"]\n\n\
             [chains]\ndefault = [\"broken\", \"good\"]\nquality = [\"broken\", \"good\"]\n"
        ),
    )
    .unwrap();
    let trusted = salve_engine::trust::trust(&salve_engine::trust::Options {
        dir: dir.to_path_buf(),
        action: salve_engine::trust::Action::Trust,
    })
    .unwrap();
    assert_eq!(trusted.newly_trusted, 2);
}

fn calling(provider: &str) -> ChainEvent {
    ChainEvent::Calling {
        provider: provider.to_owned(),
        call: 1,
    }
}

#[test]
fn ask_reports_the_chain_each_call_each_failure_and_the_apply() {
    let dir = repo();
    let scripts = tempfile::tempdir().unwrap();
    configure(dir.path(), scripts.path());
    let mut events = Vec::new();
    let outcome = ask::ask(
        &ask::Options::new(dir.path(), "return 2"),
        &mut |e: &ask::Event| events.push(e.clone()),
    )
    .unwrap();
    assert_eq!(outcome.status, ask::Status::Applied);
    let [ask::Event::Asking(asking), ask::Event::Provider(first), ask::Event::Provider(failed), ask::Event::Provider(second), ask::Event::Applying { follow_up: false }] =
        events.as_slice()
    else {
        panic!("unexpected events: {events:?}");
    };
    assert_eq!(asking.providers, ["broken", "good"]);
    assert_eq!(*first, calling("broken"));
    assert!(
        matches!(failed, ChainEvent::Failed { provider, reason }
            if provider == "broken" && reason.contains("down")),
        "{failed:?}"
    );
    assert_eq!(*second, calling("good"));
}

#[test]
fn fix_reports_the_check_the_repair_its_provider_calls_and_the_apply() {
    let dir = repo();
    let scripts = tempfile::tempdir().unwrap();
    configure(dir.path(), scripts.path());
    // The check lives outside the tree, so the guard does not see the repair edit it.
    let check = scripts.path().join("check.sh");
    std::fs::write(
        &check,
        "grep -q 'fn one.*' src/lib.rs && grep -q '^    2$' src/lib.rs\n",
    )
    .unwrap();
    let command = vec!["sh".to_owned(), check.to_string_lossy().into_owned()];
    let mut options = fix::Options::new(dir.path(), command);
    options.commit = Some(false);
    let mut events = Vec::new();
    let outcome = fix::fix(&options, &mut |e: &fix::Event| events.push(e.clone())).unwrap();
    assert!(
        outcome.green,
        "{}",
        serde_json::to_string(&outcome).unwrap()
    );
    let phases: Vec<String> = events
        .iter()
        .map(|e| match e {
            fix::Event::Check { run } => format!("check {run}"),
            fix::Event::Repair { attempt, .. } => format!("repair {attempt}"),
            fix::Event::Applying { attempt } => format!("applying {attempt}"),
            fix::Event::Provider(ChainEvent::Calling { provider, .. }) => {
                format!("calling {provider}")
            }
            fix::Event::Provider(ChainEvent::Failed { provider, .. }) => {
                format!("failed {provider}")
            }
            fix::Event::Provider(other) => format!("{other:?}"),
            fix::Event::Untrusted(note) => format!("untrusted {note}"),
        })
        .collect();
    assert_eq!(
        phases,
        [
            "check 1",
            "repair 1",
            "calling broken",
            "failed broken",
            "calling good",
            "applying 1",
            "check 2",
        ],
        "{events:?}"
    );
}
