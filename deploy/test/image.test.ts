import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOYED_PROCESSES, REPO_ROOT } from './process.catalog.js';

const DOCKERFILE = readFileSync(join(REPO_ROOT, 'deploy/docker/Dockerfile'), 'utf8');

/** The image of every FROM line, with `${ARG}` replaced by the ARG's default; stage names (FROM base) are left out. */
function baseImages(dockerfile: string): string[] {
  const args = new Map([...dockerfile.matchAll(/^ARG (\w+)=(\S+)$/gm)].map((match) => [match[1] as string, match[2] as string]));
  const stages = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gim)].map((match) => match[1] as string));
  return [...dockerfile.matchAll(/^FROM (?:--platform=\S+ )?(\S+)/gm)]
    .map((match) => (match[1] as string).replace(/\$\{(\w+)\}/g, (_, name: string) => args.get(name) ?? `\${${name}}`))
    .filter((image) => !stages.has(image) && image !== 'scratch');
}

describe('deploy/docker/Dockerfile', () => {
  it('pins every base image by digest, on a Node.js LTS line (22 or 24)', () => {
    const images = baseImages(DOCKERFILE);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      expect(image, 'FROM <image>@sha256:<digest> (deploy/README.md says how to refresh it)').toMatch(/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
      expect(image).toMatch(/^node:(22|24)-/);
    }
  });

  it('removes npm from the runtime stage and installs only what the lock file pins', () => {
    const runtime = DOCKERFILE.slice(DOCKERFILE.search(/^FROM \S+ AS runtime$/m));
    // The runtime is built from nothing: the base without npm (one layer, so npm is in none) and the app.
    expect(runtime).toMatch(/^FROM scratch AS runtime\nCOPY --from=node-without-npm \/ \/\n/);
    expect([...runtime.matchAll(/^(?:FROM |COPY --from=)(\S+)/gm)].map((match) => match[1])).toEqual(['scratch', 'node-without-npm', 'build']);
    const withoutNpm = DOCKERFILE.slice(DOCKERFILE.search(/^FROM \S+ AS node-without-npm$/m), DOCKERFILE.search(/^FROM \S+ AS runtime$/m));
    expect(withoutNpm).toMatch(/^FROM \$\{NODE_IMAGE\} AS node-without-npm$/m);
    expect(withoutNpm).toMatch(/rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx/);
    expect(runtime).not.toMatch(/npm (install|ci)/);
    expect(DOCKERFILE).toMatch(/locked-versions\.mjs record (\S+) \\\n && npm install [^\n]*\\\n && node \S*locked-versions\.mjs verify \1\n/);
    expect(DOCKERFILE).toMatch(/npm prune --omit=dev/);
  });

  it('fails the build when npm installs a package version the lock file does not pin (locked-versions.mjs)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'inkwell-lock-'));
    const script = join(REPO_ROOT, 'deploy/docker/locked-versions.mjs');
    const writeLock = (packages: Record<string, object>) => writeFileSync(join(folder, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { name: 'inkwell' }, 'node_modules/@inkwell/users': { link: true }, ...packages } }));
    const verify = () => spawnSync(process.execPath, [script, 'verify', 'locked.json'], { cwd: folder, encoding: 'utf8' });
    try {
      writeLock({ 'node_modules/pg': { version: '8.23.1', integrity: 'sha512-a' } });
      execFileSync(process.execPath, [script, 'record', 'locked.json'], { cwd: folder });
      // npm reorders the file and adds another platform's optional binary: accepted.
      writeLock({ 'node_modules/turbo-linux-arm64': { version: '2.11.11', optional: true }, 'node_modules/pg': { version: '8.23.1', integrity: 'sha512-a' } });
      expect(verify().status).toBe(0);
      writeLock({ 'node_modules/pg': { version: '8.24.0', integrity: 'sha512-b' } });
      expect(verify()).toMatchObject({ status: 1, stderr: expect.stringContaining('node_modules/pg: locked 8.23.1, installed 8.24.0') });
      writeLock({ 'node_modules/pg': { version: '8.23.1', integrity: 'sha512-a' }, 'node_modules/left-pad': { version: '1.3.0' } });
      expect(verify()).toMatchObject({ status: 1, stderr: expect.stringContaining('node_modules/left-pad: 1.3.0 is not in the lock file') });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('drops every installed package the workspace cannot load, and what only the names it never loads need (drop-unused-packages.mjs)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'inkwell-unused-'));
    const write = (path: string, manifest: object) => {
      mkdirSync(join(folder, path), { recursive: true });
      writeFileSync(join(folder, path, 'package.json'), JSON.stringify(manifest));
    };
    try {
      write('app', { name: 'app', dependencies: { a: '1' }, inkwell: { notLoadedAtRunTime: { generator: 'the CLI only' } } });
      // a needs b (its own nested copy) and the generator, which needs c; z is nobody's.
      write('node_modules/a', { name: 'a', dependencies: { b: '2', generator: '1' } });
      write('node_modules/a/node_modules/b', { name: 'b', version: '2' });
      write('node_modules/b', { name: 'b', version: '1' });
      write('node_modules/generator', { name: 'generator', dependencies: { c: '1' } });
      write('node_modules/c', { name: 'c' });
      write('node_modules/z', { name: 'z' });
      execFileSync(process.execPath, [join(REPO_ROOT, 'deploy/docker/drop-unused-packages.mjs'), 'app'], { cwd: folder, encoding: 'utf8' });
      const left = (path: string) => existsSync(join(folder, path));
      expect(['node_modules/a', 'node_modules/a/node_modules/b'].filter(left)).toEqual(['node_modules/a', 'node_modules/a/node_modules/b']);
      expect(['node_modules/b', 'node_modules/generator', 'node_modules/c', 'node_modules/z'].filter(left)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.each(DEPLOYED_PROCESSES)('leaves the test helpers out of the $name image and keeps its run-time workspaces', (deployed) => {
    const output = execFileSync(process.execPath, [join(REPO_ROOT, 'deploy/docker/drop-dev-workspaces.mjs'), '--dry-run', deployed.workspace], { cwd: REPO_ROOT, encoding: 'utf8' });
    const dropped = [...output.matchAll(/would drop dev-only workspace (\S+)/g)].map((match) => match[1]);
    expect(dropped).toContain('@inkwell/testing');
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, deployed.workspace, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@inkwell/'))) expect(dropped).not.toContain(dependency);
    expect(dropped).not.toContain(manifest.name);
  });
});
