import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
    .filter((image) => !stages.has(image));
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
    expect(runtime).toMatch(/rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx/);
    expect(runtime).not.toMatch(/npm (install|ci)/);
    expect(DOCKERFILE).toMatch(/sha256sum -c \/tmp\/lock\.sha256/);
    expect(DOCKERFILE).toMatch(/npm prune --omit=dev/);
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
