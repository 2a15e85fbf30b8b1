#!/usr/bin/env node
// Fails when package-lock.json installs a package version that a listed advisory covers (the npm
// audit endpoint is not reachable from CI). The list is tools/deps/advisories.json; how to add an
// entry is in tools/deps/README.md. Usage: node tools/deps/check-advisories.mjs [lock] [advisories]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * @typedef {{ package: string, vulnerable: string, fixed: string, advisory: string, summary?: string }} Advisory
 * @typedef {{ path: string, package: string, version: string, advisory: Advisory }} Finding
 */

/**
 * Every installed package in `lock` (package-lock.json, lockfileVersion 2 or 3) whose version lies
 * inside the vulnerable range of an advisory for that package name. Linked workspaces (no version)
 * are skipped; an entry installed under an alias (`"name"` differs from its folder) is checked
 * under its real name. Throws on an advisory whose range semver cannot parse, so a typo in the
 * list cannot silently match nothing.
 * @param {{ packages?: Record<string, { version?: string, name?: string, link?: boolean }> }} lock
 * @param {Advisory[]} advisories
 * @returns {Finding[]}
 */
export function findVulnerable(lock, advisories) {
  for (const advisory of advisories) {
    if (semver.validRange(advisory.vulnerable) === null) throw new Error(`advisories: ${advisory.package} has an invalid range ${JSON.stringify(advisory.vulnerable)}`);
  }
  if (lock.packages === undefined) throw new Error('package-lock.json has no "packages" (lockfileVersion 2 or 3 expected)');
  /** @type {Finding[]} */
  const findings = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link || entry.version === undefined) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    for (const advisory of advisories) {
      if (advisory.package === name && semver.satisfies(entry.version, advisory.vulnerable, { includePrerelease: true })) {
        findings.push({ path, package: name, version: entry.version, advisory });
      }
    }
  }
  return findings;
}

function main() {
  const lockPath = resolve(process.argv[2] ?? join(here, '../../package-lock.json'));
  const listPath = resolve(process.argv[3] ?? join(here, 'advisories.json'));
  const { advisories } = JSON.parse(readFileSync(listPath, 'utf8'));
  const findings = findVulnerable(JSON.parse(readFileSync(lockPath, 'utf8')), advisories);
  if (findings.length === 0) {
    console.log(`advisories: none of the ${advisories.length} listed advisories matches ${lockPath}`);
    return;
  }
  for (const { path, version, advisory } of findings) {
    console.error(`${path}@${version}: ${advisory.advisory} (vulnerable ${advisory.vulnerable}, fixed in ${advisory.fixed}): ${advisory.summary ?? ''}`);
  }
  console.error(`advisories: ${findings.length} installed version(s) with a listed advisory; raise them through "overrides" in the root package.json (tools/deps/README.md)`);
  process.exitCode = 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
