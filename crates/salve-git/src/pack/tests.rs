#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::odb::{commit_content, tree_content, Odb, TreeEntry};
use crate::repo::Repo;

fn git_in(root: &Path, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write as _;
    let mut child = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn new_repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    git_in(&root, &["init", "-q"], None);
    (tmp, root)
}

/// A small xorshift generator: the property test logs its seed and replays from it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn bytes(&mut self, len: usize, text: bool) -> Vec<u8> {
        (0..len)
            .map(|_| {
                if text {
                    b"abc def\n{}()"[self.below(12) as usize]
                } else {
                    self.next() as u8
                }
            })
            .collect()
    }
}

/// A random set of objects: blobs of many sizes (empty, past one stored block, text that
/// compresses, noise that does not), trees naming them and each other, commits of the trees.
fn random_objects(rng: &mut Rng, odb: &Odb) -> Vec<(Kind, String, Vec<u8>)> {
    let mut written = Vec::new();
    let mut blobs = Vec::new();
    for _ in 0..1 + rng.below(12) {
        let len = match rng.below(6) {
            0 => 0,
            1 => 1 + rng.below(20) as usize,
            2 => 65_530 + rng.below(20) as usize,
            3 => 70_000 + rng.below(200_000) as usize,
            _ => rng.below(4_000) as usize,
        };
        let text = rng.below(2) == 0;
        let content = rng.bytes(len, text);
        let id = odb.write(Kind::Blob, &content).unwrap();
        blobs.push(id.clone());
        written.push((Kind::Blob, id, content));
    }
    let mut trees = Vec::new();
    for t in 0..1 + rng.below(4) {
        let mut entries: Vec<TreeEntry> = blobs
            .iter()
            .enumerate()
            .filter(|_| rng.below(2) == 0)
            .map(|(i, id)| TreeEntry {
                mode: if i % 3 == 0 { "100755" } else { "100644" },
                name: format!("f{i}-{t}.txt").into_bytes(),
                id: id.clone(),
            })
            .collect();
        if let Some(sub) = trees.last() {
            entries.push(TreeEntry {
                mode: "40000",
                name: b"sub".to_vec(),
                id: String::clone(sub),
            });
        }
        let content = tree_content(&mut entries).unwrap();
        let id = odb.write(Kind::Tree, &content).unwrap();
        trees.push(id.clone());
        written.push((Kind::Tree, id, content));
    }
    let mut parent: Option<String> = None;
    for (n, tree) in trees.iter().enumerate() {
        let parents: Vec<&str> = parent.iter().map(String::as_str).collect();
        let content = commit_content(tree, &parents, 1_700_000_000 + n as i64, "random\n");
        let id = odb.write(Kind::Commit, &content).unwrap();
        parent = Some(id.clone());
        written.push((Kind::Commit, id, content));
    }
    let mut seen = std::collections::HashSet::new();
    written.retain(|o| seen.insert(o.1.clone()));
    written
}

fn pack_files(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(".git/objects/pack"))
        .map(|l| l.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

fn only_pack(root: &Path) -> PathBuf {
    let packs: Vec<PathBuf> = pack_files(root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .collect();
    assert_eq!(packs.len(), 1, "{packs:?}");
    packs[0].clone()
}

/// git's checks of a pack salve wrote, and every object read back by git and by salve.
fn check_pack(root: &Path, objects: &[(Kind, String, Vec<u8>)]) {
    let pack = only_pack(root);
    let pack = pack.to_str().unwrap();
    let listed = String::from_utf8(git_in(root, &["verify-pack", "-v", pack], None)).unwrap();
    assert!(
        listed.contains(&format!("non delta: {} objects", objects.len())),
        "{listed}"
    );
    git_in(root, &["index-pack", "--verify", pack], None);
    git_in(root, &["fsck", "--strict", "--no-dangling"], None);
    let count = String::from_utf8(git_in(root, &["count-objects", "-v"], None)).unwrap();
    assert!(count.contains("garbage: 0"), "{count}");
    let odb = Odb::open(&Repo {
        root: root.to_path_buf(),
    })
    .unwrap();
    for (kind, id, content) in objects {
        let name = match kind {
            Kind::Blob => "blob",
            Kind::Tree => "tree",
            Kind::Commit => "commit",
        };
        assert_eq!(
            git_in(root, &["cat-file", name, id], None),
            *content,
            "{id}"
        );
        assert_eq!(
            odb.read(id),
            Some((name.to_owned(), content.clone())),
            "{id}"
        );
    }
}

#[test]
fn a_pack_passes_gits_checks_and_reads_back_as_the_loose_objects_did() {
    let (_packed_dir, packed) = new_repo();
    let (_loose_dir, loose) = new_repo();
    let mut rng = Rng(0x5eed_0001);
    let batch = Odb::batch(
        &Repo {
            root: packed.clone(),
        },
        Vec::new(),
    )
    .unwrap();
    let objects = random_objects(&mut rng, &batch);
    // Nothing on disk until the flush.
    assert!(pack_files(&packed).is_empty());
    batch.flush().unwrap();
    let files = pack_files(&packed);
    assert_eq!(files.len(), 2, "a pack and its index only: {files:?}");
    check_pack(&packed, &objects);
    // The same objects written loose give the same ids and, through git, the same bytes.
    let loose_odb = Odb::open(&Repo {
        root: loose.clone(),
    })
    .unwrap();
    for (kind, id, content) in &objects {
        assert_eq!(&loose_odb.write(*kind, content).unwrap(), id);
        let name = kind_name(*kind);
        assert_eq!(
            git_in(&loose, &["cat-file", name, id], None),
            git_in(&packed, &["cat-file", name, id], None)
        );
    }
    // A second batch of the same objects queues nothing: the store holds them already.
    let again = Odb::batch(
        &Repo {
            root: packed.clone(),
        },
        Vec::new(),
    )
    .unwrap();
    for (kind, _, content) in &objects {
        again.write(*kind, content).unwrap();
    }
    assert!(again.take_pending().is_empty());
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Blob => "blob",
        Kind::Tree => "tree",
        Kind::Commit => "commit",
    }
}

/// Random object sets as salve's packs, against git's own pack of the same objects (made by
/// `git pack-objects` and indexed by `git index-pack` in another repository): the same ids,
/// kinds and contents. Seed from `SALVE_PACK_SEED`, else a fixed one; the seed is printed.
#[test]
fn random_object_sets_pack_as_git_packs_them() {
    let seed: u64 = std::env::var("SALVE_PACK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_127);
    let rounds: u64 = std::env::var("SALVE_PACK_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    println!("pack property test: seed {seed}, {rounds} rounds");
    let mut rng = Rng(seed | 1);
    for round in 0..rounds {
        let (_a, ours) = new_repo();
        let batch = Odb::batch(&Repo { root: ours.clone() }, Vec::new()).unwrap();
        let objects = random_objects(&mut rng, &batch);
        batch.flush().unwrap();
        check_pack(&ours, &objects);
        let ids: String = objects.iter().map(|(_, id, _)| format!("{id}\n")).collect();
        let gits_pack = git_in(&ours, &["pack-objects", "--stdout"], Some(ids.as_bytes()));
        let (_b, theirs) = new_repo();
        git_in(&theirs, &["index-pack", "--stdin"], Some(&gits_pack));
        let verify = |root: &Path| {
            let pack = only_pack(root);
            let out = git_in(root, &["verify-pack", "-v", pack.to_str().unwrap()], None);
            let mut rows: Vec<(String, String)> = String::from_utf8(out)
                .unwrap()
                .lines()
                .filter_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f.len() >= 3 && f[0].len() == 40).then(|| (f[0].to_owned(), f[1].to_owned()))
                })
                .collect();
            rows.sort();
            rows
        };
        assert_eq!(verify(&ours), verify(&theirs), "seed {seed} round {round}");
        for (kind, id, _) in &objects {
            let args = ["cat-file", kind_name(*kind), id.as_str()];
            assert_eq!(
                git_in(&ours, &args, None),
                git_in(&theirs, &args, None),
                "seed {seed} round {round} object {id}"
            );
        }
    }
}

#[test]
fn entry_headers_encode_sizes_as_git_does() {
    assert_eq!(entry_header(3, 0), vec![0x30]);
    assert_eq!(entry_header(3, 15), vec![0x3f]);
    assert_eq!(entry_header(3, 16), vec![0xb0, 0x01]);
    assert_eq!(entry_header(1, 300), vec![0x9c, 0x12]);
    for size in [
        0u64,
        1,
        15,
        16,
        127,
        128,
        65_535,
        1 << 20,
        u64::from(u32::MAX) + 7,
    ] {
        let bytes = entry_header(2, size);
        assert_eq!(index::parse_header(&bytes), Some((2, size, bytes.len())));
    }
}

/// Offsets past 2 GiB go to the index's table of large offsets, and read back from it.
#[test]
fn large_offsets_read_back_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let ids: Vec<Vec<u8>> = (0u8..4).map(|b| vec![b * 60; 20]).collect();
    let offsets = [12u64, 0x7fff_fff0, 0x8000_0000, 0x1_2345_6789];
    let placed: Vec<(&[u8], u32, u64)> = ids
        .iter()
        .zip(offsets)
        .map(|(id, at)| (id.as_slice(), 7u32, at))
        .collect();
    let idx = index_bytes(&placed, &[9u8; 20]);
    let path = tmp.path().join("pack-x.idx");
    std::fs::write(&path, idx).unwrap();
    let index = PackIndex::open(&path).unwrap();
    assert_eq!(index.count(), 4);
    for (id, at) in ids.iter().zip(offsets) {
        assert_eq!(index.find(id), Some(at));
    }
    assert_eq!(index.find(&[1u8; 20]), None);
    assert_eq!(index.pack_checksum(), Some(vec![9u8; 20]));
}

#[test]
fn the_geometric_rule_keeps_large_packs_and_merges_at_least_two() {
    assert_eq!(merge::kept(&[120, 40, 7, 7]), 2);
    assert_eq!(merge::kept(&[100, 40, 7, 7]), 0);
    assert_eq!(merge::kept(&[7, 7, 7, 7]), 0);
    assert_eq!(merge::kept(&[2000, 400, 100, 20, 7, 7]), 3);
    // Already geometric: still two merged, so the count goes down.
    assert_eq!(merge::kept(&[81, 27, 9, 3]), 2);
    assert_eq!(merge::kept(&[5, 5]), 0);
}

/// Many small packs are merged into few; every object stays readable by git and by salve, and
/// git's `gc --auto` finds nothing to do.
#[test]
fn salves_packs_stay_few_and_every_object_stays() {
    let (_tmp, root) = new_repo();
    let repo = Repo { root: root.clone() };
    let mut rng = Rng(77);
    let mut all = Vec::new();
    for _ in 0..40 {
        let batch = Odb::batch(&repo, Vec::new()).unwrap();
        all.extend(random_objects(&mut rng, &batch));
        batch.flush().unwrap();
        batch.consolidate(&|_| std::collections::HashSet::new());
        let salve = merge::salve_packs(&root.join(".git/objects/pack"));
        assert!(salve.len() < merge::MOST, "{} packs", salve.len());
    }
    git_in(&root, &["fsck", "--strict", "--no-dangling"], None);
    let odb = Odb::open(&repo).unwrap();
    for (kind, id, content) in &all {
        assert_eq!(
            git_in(&root, &["cat-file", kind_name(*kind), id], None),
            *content
        );
        assert_eq!(odb.read(id).map(|r| r.1).as_ref(), Some(content));
    }
    let count = String::from_utf8(git_in(&root, &["count-objects", "-v"], None)).unwrap();
    assert!(count.contains("garbage: 0"), "{count}");
    let before = pack_files(&root);
    git_in(&root, &["-c", "gc.autoDetach=false", "gc", "--auto"], None);
    assert_eq!(
        pack_files(&root),
        before,
        "gc --auto must not repack salve's packs"
    );
}

/// A writer killed between the pack's rename and the index's leaves a pack with no index,
/// which `git count-objects` calls garbage; the next merge removes it once it is old, and a
/// fresh one (a writer at work) is left alone.
#[test]
fn a_pack_left_without_its_index_is_removed_once_old() {
    let (_tmp, root) = new_repo();
    let batch = Odb::batch(&Repo { root: root.clone() }, Vec::new()).unwrap();
    batch.write(Kind::Blob, b"kept until the index\n").unwrap();
    batch.flush().unwrap();
    let pack_dir = root.join(".git/objects/pack");
    let idx = pack_files(&root)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    std::fs::remove_file(&idx).unwrap();
    let temp = pack_dir.join("tmp_idx_salve_1_1");
    std::fs::write(&temp, b"half").unwrap();
    // A git pack without its index is not salve's: never touched.
    let foreign = pack_dir.join(format!("pack-{}.pack", "1".repeat(40)));
    std::fs::write(
        &foreign,
        b"PACK not salve's, and long enough to have a trailer",
    )
    .unwrap();
    merge::consolidate(&pack_dir, &|_| std::collections::HashSet::new()).unwrap();
    assert_eq!(pack_files(&root).len(), 3, "fresh leftovers stay");
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for file in pack_files(&root) {
        std::fs::File::open(&file)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    merge::consolidate(&pack_dir, &|_| std::collections::HashSet::new()).unwrap();
    assert_eq!(pack_files(&root), vec![foreign.clone()]);
    std::fs::remove_file(&foreign).unwrap();
    let count = String::from_utf8(git_in(&root, &["count-objects", "-v"], None)).unwrap();
    assert!(count.contains("garbage: 0"), "{count}");
    git_in(&root, &["fsck", "--strict"], None);
}

/// A merge leaves out exactly what the garbage selector picks among the merged commits, and
/// is shown every commit of the packs merged.
#[test]
fn a_merge_leaves_out_what_the_selector_picks() {
    let (_tmp, root) = new_repo();
    let repo = Repo { root: root.clone() };
    let tree = {
        let odb = Odb::open(&repo).unwrap();
        odb.write(Kind::Tree, &[]).unwrap()
    };
    let mut commits = Vec::new();
    for n in 0..merge::MOST {
        let batch = Odb::batch(&repo, Vec::new()).unwrap();
        let message = if n % 2 == 0 { "drop me\n" } else { "keep me\n" };
        let content = commit_content(&tree, &[], 1_700_000_000 + n as i64, message);
        commits.push((batch.write(Kind::Commit, &content).unwrap(), n % 2 == 0));
        batch.flush().unwrap();
    }
    let shown = std::sync::Mutex::new(0usize);
    let pick = |found: &[(Vec<u8>, Vec<u8>)]| {
        *shown.lock().unwrap() = found.len();
        found
            .iter()
            .filter(|(_, content)| content.ends_with(b"drop me\n"))
            .map(|(id, _)| id.clone())
            .collect()
    };
    let merged = merge::consolidate(&root.join(".git/objects/pack"), &pick).unwrap();
    assert_eq!(merged.replaced, merge::MOST);
    assert_eq!(*shown.lock().unwrap(), merge::MOST);
    for (id, dropped) in &commits {
        let out = Command::new("git")
            .args(["cat-file", "-e", id])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(out.status.success(), !dropped, "{id}");
    }
    git_in(&root, &["fsck", "--strict", "--no-dangling"], None);
}

/// A pack the user marked `.keep`, and every pack while a multi-pack index exists, are left
/// as they are.
#[test]
fn kept_packs_and_a_multi_pack_index_stop_a_merge() {
    let (_tmp, root) = new_repo();
    let repo = Repo { root: root.clone() };
    let pack_dir = root.join(".git/objects/pack");
    for n in 0..merge::MOST {
        let batch = Odb::batch(&repo, Vec::new()).unwrap();
        batch
            .write(Kind::Blob, format!("blob {n}\n").as_bytes())
            .unwrap();
        batch.flush().unwrap();
    }
    let none = |_: &[(Vec<u8>, Vec<u8>)]| std::collections::HashSet::new();
    let kept = pack_files(&root)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap()
        .with_extension("keep");
    std::fs::write(&kept, b"").unwrap();
    // Nine mergeable packs: under the limit, nothing merged.
    assert_eq!(merge::consolidate(&pack_dir, &none).unwrap().replaced, 0);
    std::fs::remove_file(&kept).unwrap();
    git_in(&root, &["multi-pack-index", "write"], None);
    assert_eq!(merge::consolidate(&pack_dir, &none).unwrap().replaced, 0);
    std::fs::remove_file(pack_dir.join("multi-pack-index")).unwrap();
    assert_eq!(
        merge::consolidate(&pack_dir, &none).unwrap().replaced,
        merge::MOST
    );
    git_in(&root, &["fsck", "--strict", "--no-dangling"], None);
}
