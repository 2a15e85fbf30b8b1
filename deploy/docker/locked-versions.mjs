// Proves that `npm install` in deploy/docker/Dockerfile installed what the lock file pins and
// nothing else. `turbo prune` writes the pruned package-lock.json in its own layout, which npm
// rewrites (order, workspace list) without changing a version, so the files cannot be compared
// byte for byte; the packages they pin can:
//
//   node locked-versions.mjs record <file>   writes every locked package (path, version, integrity)
//   node locked-versions.mjs verify <file>   after `npm install`: fails, naming them, when a recorded
//                                            package changed or a package was added that is not an
//                                            optional one (another platform's binary, which npm 11
//                                            leaves out of lock files and resolves at install)
import { readFileSync, writeFileSync } from 'node:fs';

const [command, file] = process.argv.slice(2);
if ((command !== 'record' && command !== 'verify') || file === undefined) {
  console.error('usage: node locked-versions.mjs record|verify <file>');
  process.exit(2);
}

/** The registry packages of ./package-lock.json by path: workspace links and the root left out. */
function lockedPackages() {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  const packages = {};
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path.includes('node_modules/') || entry.link === true) continue;
    packages[path] = { version: entry.version, integrity: entry.integrity, optional: entry.optional === true };
  }
  return packages;
}

if (command === 'record') {
  writeFileSync(file, JSON.stringify(lockedPackages()));
} else {
  const recorded = JSON.parse(readFileSync(file, 'utf8'));
  const installed = lockedPackages();
  const problems = [];
  for (const [path, locked] of Object.entries(recorded)) {
    const now = installed[path];
    if (now === undefined) continue; // npm drops entries no workspace of the pruned tree needs
    if (now.version !== locked.version || (locked.integrity && now.integrity && now.integrity !== locked.integrity)) {
      problems.push(`${path}: locked ${locked.version}, installed ${now.version}`);
    }
  }
  for (const [path, now] of Object.entries(installed)) {
    if (recorded[path] === undefined && !now.optional) problems.push(`${path}: ${now.version} is not in the lock file`);
  }
  if (problems.length > 0) {
    console.error(`package-lock.json is out of sync with the manifests (run npm install and commit the lock file):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}
