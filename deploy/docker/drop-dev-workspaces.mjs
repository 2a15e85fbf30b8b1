// Deletes, from a pruned monorepo in the current folder, every workspace the process's workspace
// does not need at run time: only workspaces reachable through `dependencies` (never
// devDependencies) stay, so @inkwell/testing and other test helpers leave the image. Their links
// under node_modules go too. Run by deploy/docker/Dockerfile after `npm prune --omit=dev`:
//
//   node drop-dev-workspaces.mjs <workspace folder>        (e.g. services/users)
//
// With --dry-run it only prints what it would delete (deploy/test runs it that way).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const target = args.find((arg) => !arg.startsWith('--'));
if (target === undefined) {
  console.error('usage: node drop-dev-workspaces.mjs [--dry-run] <workspace folder>');
  process.exit(2);
}

const manifest = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
const folders = (manifest('.').workspaces ?? [])
  .flatMap((pattern) =>
    pattern.endsWith('/*') && existsSync(pattern.slice(0, -2))
      ? readdirSync(pattern.slice(0, -2), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  )
  .filter((folder) => existsSync(join(folder, 'package.json')));
const byName = new Map(folders.map((folder) => [manifest(folder).name, folder]));

const needed = new Set();
const queue = [target];
while (queue.length > 0) {
  const folder = queue.pop();
  if (needed.has(folder)) continue;
  needed.add(folder);
  for (const name of Object.keys(manifest(folder).dependencies ?? {})) if (byName.has(name)) queue.push(byName.get(name));
}

for (const [name, folder] of byName) {
  if (needed.has(folder)) continue;
  console.log(`${dryRun ? 'would drop' : 'dropped'} dev-only workspace ${name} (${folder})`);
  if (!dryRun) {
    rmSync(folder, { recursive: true, force: true });
    rmSync(join('node_modules', name), { recursive: true, force: true });
  }
}
