// Unit test of the advisory check (node --test tools/deps; run by tools/test.sh).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findVulnerable } from './check-advisories.mjs';

const advisories = [
  { package: 'ejs', vulnerable: '<3.1.10', fixed: '3.1.10', advisory: 'GHSA-ghr5-ch3p-vcr6' },
  { package: 'ip', vulnerable: '*', fixed: 'none', advisory: 'GHSA-2p57-rm9w-gvfp' },
];

/** A package-lock.json (lockfileVersion 3) holding `packages` besides the root. */
function lockWith(packages) {
  return { lockfileVersion: 3, packages: { '': { name: 'fake' }, ...packages } };
}

describe('findVulnerable', () => {
  it('reports an installed version inside a vulnerable range, nested ones included', () => {
    const findings = findVulnerable(lockWith({ 'node_modules/ejs': { version: '3.1.10' }, 'node_modules/a/node_modules/ejs': { version: '2.7.4' } }), advisories);
    assert.deepEqual(findings.map((finding) => `${finding.path}@${finding.version} ${finding.advisory.advisory}`), ['node_modules/a/node_modules/ejs@2.7.4 GHSA-ghr5-ch3p-vcr6']);
  });

  it('passes a lock whose versions are all fixed, and one without the package', () => {
    assert.deepEqual(findVulnerable(lockWith({ 'node_modules/ejs': { version: '3.1.10' }, 'node_modules/ejs-lint': { version: '1.0.0' } }), advisories), []);
  });

  it('checks an aliased install under its real name and skips linked workspaces', () => {
    const findings = findVulnerable(lockWith({ 'node_modules/old-ip': { name: 'ip', version: '2.0.1' }, 'node_modules/ip': { link: true } }), advisories);
    assert.deepEqual(findings.map((finding) => `${finding.path} ${finding.package}`), ['node_modules/old-ip ip']);
  });

  it('refuses an advisory whose range does not parse, rather than matching nothing', () => {
    assert.throws(() => findVulnerable(lockWith({}), [{ package: 'ejs', vulnerable: 'before 3.1.10', fixed: '3.1.10', advisory: 'x' }]), /invalid range/);
  });
});
