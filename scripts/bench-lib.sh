# Sourced by the bench-*.sh scripts (not run on its own): the repository root, the salve binary
# to time, and a git environment that the user's configuration cannot skew.
#
#   SALVE=path/to/salve   time this binary instead of a fresh release build
#
# Sets `root` (the repository) and `salve` (an absolute path to the binary).

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
salve="${SALVE:-}"
if [ -z "$salve" ]; then
  (cd "$root" && cargo build --release -q -p salve)
  salve="$root/target/release/salve"
fi
salve="$(cd "$(dirname "$salve")" && pwd)/$(basename "$salve")"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
