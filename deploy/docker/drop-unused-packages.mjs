// Deletes, from the installed node_modules of a pruned monorepo in the current folder, every
// package the process's workspace cannot load at run time: only packages reachable from the
// workspace through `dependencies`, `optionalDependencies` and `peerDependencies` (resolved as
// node resolves them, nested folders included) stay. A workspace may name dependencies of its
// dependencies that it never loads, with the reason, under `inkwell.notLoadedAtRunTime` in its
// package.json (e.g. the gateway: express-gateway's command-line generator); the walk does not
// follow them, so what only they need goes too. Run by deploy/docker/Dockerfile after
// drop-dev-workspaces.mjs:
//
//   node drop-unused-packages.mjs <workspace folder>        (e.g. gateway)
//
// With --dry-run it only prints what it would delete.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const target = args.find((arg) => !arg.startsWith('--'));
if (target === undefined) {
  console.error('usage: node drop-unused-packages.mjs [--dry-run] <workspace folder>');
  process.exit(2);
}

const manifestOf = (folder) => {
  try {
    return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
};
const notLoaded = new Set(Object.keys(manifestOf(target)?.inkwell?.notLoadedAtRunTime ?? {}));

/** The folder node would load `name` from when required in `folder`, or undefined. */
function resolvePackage(folder, name) {
  for (let dir = folder; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

// Every package folder reachable from the workspace, without following the names it never loads.
const reachable = new Set();
const queue = [realpathSync(resolve(target))];
while (queue.length > 0) {
  const folder = queue.pop();
  if (reachable.has(folder)) continue;
  reachable.add(folder);
  const manifest = manifestOf(folder) ?? {};
  const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
  for (const name of names) {
    if (notLoaded.has(name)) continue;
    const found = resolvePackage(folder, name);
    if (found !== undefined) queue.push(found);
  }
}

/** Installed package folders under `folder`'s node_modules (scoped ones included), depth first. */
function* installed(folder) {
  const modules = join(folder, 'node_modules');
  if (!existsSync(modules)) return;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((scoped) => join(entry, scoped)) : [entry];
    for (const name of names) {
      const path = join(modules, name);
      // Workspace links: their targets are kept or dropped by drop-dev-workspaces.mjs.
      if (lstatSync(path).isSymbolicLink()) continue;
      yield path;
      yield* installed(path);
    }
  }
}

let dropped = 0;
for (const path of [...installed('.')]) {
  if (!existsSync(path) || reachable.has(realpathSync(path))) continue;
  dropped++;
  if (dryRun) console.log(`would drop ${path}`);
  else rmSync(path, { recursive: true, force: true });
}
console.log(`${dryRun ? 'would drop' : 'dropped'} ${dropped} packages that ${target} cannot load at run time`);
