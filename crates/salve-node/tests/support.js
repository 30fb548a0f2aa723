// Real git work trees in temp folders, each with its own HOME so no user configuration leaks in.
"use strict";

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// The repository this package was built from: the tests read its examples and README.
const REPO = process.env.SALVE_REPO ?? path.resolve(__dirname, "..", "..", "..");

const home = fs.mkdtempSync(path.join(os.tmpdir(), "salve-node-home-"));
process.env.HOME = home;
process.env.GIT_CONFIG_NOSYSTEM = "1";
process.env.GIT_CONFIG_GLOBAL = os.devnull;
for (const v of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) {
  delete process.env[v];
}

function git(root, ...args) {
  return execFileSync(
    "git",
    ["-c", "user.name=salve tests", "-c", "user.email=tests@salve.invalid", ...args],
    { cwd: root, encoding: "utf8" },
  );
}

/** The README's quick-start project as a git work tree with one commit. */
function invoice() {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "salve-node-")), "invoice");
  fs.cpSync(path.join(REPO, "examples", "invoice"), root, { recursive: true });
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "start");
  return root;
}

/** Every file of the tree but .git, by relative path. */
function snapshot(root) {
  const files = {};
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name === ".git" || entry.name === "__pycache__") continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full)] = fs.readFileSync(full, "utf8");
    }
  };
  walk(root);
  return files;
}

const reply = () => fs.readFileSync(path.join(REPO, "examples", "invoice", "reply.md"), "utf8");

// A SEARCH block that quotes the line with a typo: refused, with the real line as candidate.
const NEAR_MISS = `invoice/money.py
\`\`\`python
<<<<<<< SEARCH
    euros, rest = divmod(cent, 100)
    return f"{currency} {euros}.{rest:02d}"
=======
    euros, rest = divmod(abs(cents), 100)
    return f"{currency} {euros}.{rest:02d}"
>>>>>>> REPLACE
\`\`\`
`;
const CORRECTED = NEAR_MISS.replace("divmod(cent, 100)", "divmod(cents, 100)");

module.exports = { REPO, git, invoice, snapshot, reply, NEAR_MISS, CORRECTED };
