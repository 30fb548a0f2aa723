//! The transaction protocol on real temporary directories: all-or-nothing writes, rollback,
//! refusals and modes.

use super::*;

fn fp(path: &Path) -> io::Result<Expect> {
    Ok(Expect::Unchanged(Fingerprint::of(&fs::symlink_metadata(
        path,
    )?)))
}

fn leftovers(dir: &Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.contains(".salve-") {
            names.push(name);
        }
    }
    Ok(names)
}

#[test]
fn writes_creates_and_deletes_together() -> io::Result<()> {
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("a.txt");
    let gone = dir.path().join("gone.txt");
    fs::write(&a, "old\n")?;
    fs::write(&gone, "bye\n")?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: a.clone(),
        content: b"new\n".to_vec().into(),
        mode: None,
        expect: fp(&a)?,
    });
    tx.push(Op::Write {
        path: dir.path().join("sub/deep/b.txt"),
        content: b"b\n".to_vec().into(),
        mode: None,
        expect: Expect::Absent,
    });
    tx.push(Op::Delete {
        path: gone.clone(),
        expect: fp(&gone)?,
    });
    let written = tx.commit().map_err(io::Error::other)?;
    assert_eq!(written.len(), 3);
    let nested = dir.path().join("x/y/z.txt");
    fs::create_dir_all(dir.path().join("x/y"))?;
    fs::write(&nested, "z")?;
    let mut tx = Transaction::within(dir.path());
    tx.push(Op::Delete {
        path: nested.clone(),
        expect: fp(&nested)?,
    });
    tx.commit().map_err(io::Error::other)?;
    assert!(
        !dir.path().join("x").exists(),
        "emptied directories are pruned"
    );
    assert!(dir.path().exists());
    assert_eq!(fs::read_to_string(&a)?, "new\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("sub/deep/b.txt"))?,
        "b\n"
    );
    assert!(!gone.exists());
    assert!(leftovers(dir.path())?.is_empty());
    Ok(())
}

#[test]
fn a_failing_step_rolls_back_the_others() -> io::Result<()> {
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("a.txt");
    fs::write(&a, "original\n")?;
    // Renaming a file over a non-empty directory fails at commit time, after `a.txt` was
    // already replaced.
    let blocker = dir.path().join("blocker");
    fs::create_dir(&blocker)?;
    fs::write(blocker.join("inner"), "x")?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: a.clone(),
        content: b"changed\n".to_vec().into(),
        mode: None,
        expect: fp(&a)?,
    });
    tx.push(Op::Write {
        path: dir.path().join("new.txt"),
        content: b"new\n".to_vec().into(),
        mode: None,
        expect: Expect::Absent,
    });
    tx.push(Op::Write {
        path: blocker.clone(),
        content: b"file\n".to_vec().into(),
        mode: None,
        expect: fp(&blocker)?,
    });
    let err = match tx.commit() {
        Ok(_) => return Err(io::Error::other("commit should fail")),
        Err(e) => e,
    };
    assert!(err.rolled_back);
    assert_eq!(err.path, blocker);
    assert_eq!(fs::read_to_string(&a)?, "original\n");
    assert!(!dir.path().join("new.txt").exists());
    assert!(leftovers(dir.path())?.is_empty());
    Ok(())
}

#[test]
fn a_concurrent_change_refuses_everything() -> io::Result<()> {
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("a.txt");
    fs::write(&a, "one\n")?;
    let expect = fp(&a)?;
    fs::write(&a, "someone else wrote this\n")?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: a.clone(),
        content: b"mine\n".to_vec().into(),
        mode: None,
        expect,
    });
    assert!(tx.commit().is_err());
    assert_eq!(fs::read_to_string(&a)?, "someone else wrote this\n");
    Ok(())
}

#[cfg(unix)]
#[test]
fn modes_are_applied() -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("run.sh");
    fs::write(&a, "echo\n")?;
    fs::set_permissions(&a, Permissions::from_mode(0o755))?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: a.clone(),
        content: b"echo hi\n".to_vec().into(),
        mode: Some(0o755),
        expect: fp(&a)?,
    });
    tx.commit().map_err(io::Error::other)?;
    assert_eq!(fs::metadata(&a)?.permissions().mode() & 0o777, 0o755);
    Ok(())
}

#[cfg(unix)]
#[test]
fn rollback_puts_back_contents_modes_links_and_deleted_files() -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let script = dir.path().join("run.sh");
    fs::write(&script, "echo old\n")?;
    fs::set_permissions(&script, Permissions::from_mode(0o751))?;
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("run.sh", &link)?;
    let gone = dir.path().join("gone.txt");
    fs::write(&gone, "still here\n")?;
    fs::set_permissions(&gone, Permissions::from_mode(0o640))?;
    // A directory cannot be deleted as a file: the last step fails after all the others.
    let blocker = dir.path().join("blocker");
    fs::create_dir(&blocker)?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: script.clone(),
        content: b"echo new\n".to_vec().into(),
        mode: Some(0o644),
        expect: fp(&script)?,
    });
    tx.push(Op::Write {
        path: link.clone(),
        content: b"now a file\n".to_vec().into(),
        mode: None,
        expect: fp(&link)?,
    });
    tx.push(Op::Delete {
        path: gone.clone(),
        expect: fp(&gone)?,
    });
    tx.push(Op::Delete {
        path: blocker.clone(),
        expect: fp(&blocker)?,
    });
    let err = match tx.commit() {
        Ok(_) => return Err(io::Error::other("commit should fail")),
        Err(e) => e,
    };
    assert!(err.rolled_back, "{err}");
    assert_eq!(err.path, blocker);
    assert_eq!(fs::read_to_string(&script)?, "echo old\n");
    assert_eq!(fs::metadata(&script)?.permissions().mode() & 0o777, 0o751);
    assert_eq!(fs::read_link(&link)?, PathBuf::from("run.sh"));
    assert_eq!(fs::read_to_string(&gone)?, "still here\n");
    assert_eq!(fs::metadata(&gone)?.permissions().mode() & 0o777, 0o640);
    assert!(blocker.is_dir());
    assert!(leftovers(dir.path())?.is_empty());
    Ok(())
}

#[cfg(target_os = "linux")]
#[test]
fn commit_clears_leftovers_of_dead_runs_only() -> io::Result<()> {
    let dir = tempfile::tempdir()?;
    let a = dir.path().join("a.txt");
    fs::write(&a, "old\n")?;
    let mut child = std::process::Command::new("true").spawn()?;
    let dead = child.id();
    child.wait()?;
    let stale = dir
        .path()
        .join(format!("{TEMP_PREFIX}{dead}-Zz09aa-a.txt.tmp"));
    let live = dir.path().join(format!("{TEMP_PREFIX}1-Zz09bb-a.txt.tmp"));
    fs::write(&stale, "half")?;
    fs::write(&live, "busy")?;
    let mut tx = Transaction::new();
    tx.push(Op::Write {
        path: a.clone(),
        content: b"new\n".to_vec().into(),
        mode: None,
        expect: fp(&a)?,
    });
    tx.commit().map_err(io::Error::other)?;
    assert_eq!(fs::read_to_string(&a)?, "new\n");
    assert!(!stale.exists(), "a dead run's leftover is cleared");
    assert!(
        live.exists(),
        "a live process's temporary file is left alone"
    );
    Ok(())
}
