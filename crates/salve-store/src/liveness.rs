//! Is the process that started a run still alive? A run whose process is gone without finishing
//! it was interrupted (killed, crashed, machine restarted).
//!
//! A run records its pid and, on Linux, the process start time from `/proc/<pid>/stat`, so a
//! recycled pid is not mistaken for the original process. Elsewhere on Unix `kill -0` answers;
//! where neither works the process is assumed alive, which errs on the side of `running`.

/// The identity of a process: pid and, where known, its start time in clock ticks since boot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessId {
    pub pid: u32,
    pub start: Option<i64>,
}

impl ProcessId {
    /// This process.
    pub fn current() -> ProcessId {
        let pid = std::process::id();
        ProcessId {
            pid,
            start: start_time(pid),
        }
    }

    /// Whether the process is still running.
    pub fn is_alive(self) -> bool {
        if cfg!(target_os = "linux") {
            // A zombie has exited; its run will not be finished.
            return match stat_fields(self.pid) {
                Some((state, start)) => {
                    state != 'Z' && state != 'X' && self.start.is_none_or(|s| s == start)
                }
                None => false,
            };
        }
        if cfg!(unix) {
            return std::process::Command::new("kill")
                .args(["-0", &self.pid.to_string()])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(true);
        }
        true
    }
}

fn start_time(pid: u32) -> Option<i64> {
    stat_fields(pid).map(|(_, start)| start)
}

/// The state letter and the start time of a Linux process.
fn stat_fields(pid: u32) -> Option<(char, i64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 22 overall; the state was field 3.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_dead_child_is_not() {
        assert!(ProcessId::current().is_alive());
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let id = ProcessId {
            pid: child.id(),
            start: start_time(child.id()),
        };
        child.wait().unwrap();
        assert!(!id.is_alive());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_recycled_pid_is_not_the_same_process() {
        let me = ProcessId::current();
        assert!(me.start.is_some());
        let other = ProcessId {
            pid: me.pid,
            start: me.start.map(|s| s + 1),
        };
        assert!(!other.is_alive());
    }
}
