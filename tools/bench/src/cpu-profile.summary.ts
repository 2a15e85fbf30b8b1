import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The parts of a V8 `.cpuprofile` (Chrome DevTools, `node --cpu-prof`, inspector `Profiler.stop`) that the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly CpuProfileNode[];
  /** Microseconds. */
  readonly startTime: number;
  readonly endTime: number;
  /** The node id of each sample. */
  readonly samples: readonly number[];
}

/** One call-tree node: a function called along one path from the root. */
export interface CpuProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

/** Options of {@link summariseProfile}. */
export interface SummaryOptions {
  /** Rows of the self-time and inclusive-time tables (default 25). */
  readonly top?: number;
  /** Flame-graph nodes under this share of all samples are left out (default 1 %). */
  readonly minPercent?: number;
  /** Deepest flame-graph level shown (default 40). */
  readonly maxDepth?: number;
}

/** `file:///…/gateway/src/x.ts` → `gateway/src/x.ts`, `…/node_modules/ioredis/built/x.js` → `ioredis/built/x.js`. */
export function shortUrl(url: string, root: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = path.lastIndexOf('/node_modules/');
  if (modules !== -1) return path.slice(modules + '/node_modules/'.length);
  return root !== '' && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

/** Where a frame's code lives: the repository folder (gateway, packages/grpc …), an npm package, `node:` internals or V8 itself. */
export function areaOf(frameUrl: string): string {
  if (frameUrl === '') return '(V8 / native)';
  if (frameUrl.startsWith('node:')) return 'node: internals';
  const parts = frameUrl.split('/');
  if (!frameUrl.startsWith('/') && parts.length > 1 && !['gateway', 'services', 'packages', 'tools', 'proto'].includes(parts[0] as string)) {
    return `npm ${(parts[0] as string).startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (parts[0] === 'services' || parts[0] === 'packages' || parts[0] === 'tools') return parts.slice(0, 2).join('/');
  return parts[0] as string;
}

/** A frame that hands at least this share of its time to its one shown callee joins it on one call-tree line. */
const CHAIN_SHARE = 0.95;

/**
 * A textual flame graph of one CPU profile: the time covered and the share spent idle, in GC and
 * in the program; self time by area (repository folder, npm package, node internals); the
 * functions with the most self time and the most inclusive time (each function counted once per
 * sample, so recursion does not inflate it); and the call tree from the root, each node with its
 * inclusive share and self share, children hottest first, pruned below `minPercent`, a chain of
 * frames that hand at least 95 % of their time to one callee printed as one line.
 * Times are sample counts scaled to the profile's duration.
 */
export function summariseProfile(profile: CpuProfile, options: SummaryOptions & { readonly root?: string } = {}): string[] {
  const top = options.top ?? 25;
  const minPercent = options.minPercent ?? 1;
  const maxDepth = options.maxDepth ?? 40;
  const root = options.root ?? '';
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfSamples = new Map<number, number>();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const msPerSample = total === 0 ? 0 : (profile.endTime - profile.startTime) / 1000 / total;
  const percent = (samples: number) => (total === 0 ? 0 : (100 * samples) / total);
  const describe = (node: CpuProfileNode) => {
    const url = shortUrl(node.callFrame.url, root);
    const name = node.callFrame.functionName || '(anonymous)';
    return url === "" ? name : node.callFrame.lineNumber > 0 ? `${name} ${url}:${node.callFrame.lineNumber + 1}` : `${name} ${url}`;
  };

  const inclusive = new Map<number, number>();
  const totalOf = (id: number): number => {
    const known = inclusive.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    let sum = selfSamples.get(id) ?? 0;
    for (const child of node?.children ?? []) sum += totalOf(child);
    inclusive.set(id, sum);
    return sum;
  };

  const selfByFunction = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const inclusiveByFunction = new Map<string, number>();
  for (const [id, samples] of selfSamples) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const key = describe(node);
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + samples);
    const area = areaOf(shortUrl(node.callFrame.url, root));
    const special = /^\((idle|garbage collector|program)\)$/.test(node.callFrame.functionName) ? node.callFrame.functionName : area;
    selfByArea.set(special, (selfByArea.get(special) ?? 0) + samples);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame === undefined || frame.callFrame.functionName === '(root)') continue;
      const name = describe(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusiveByFunction.set(name, (inclusiveByFunction.get(name) ?? 0) + samples);
    }
  }

  const busy = total - (selfByArea.get('(idle)') ?? 0);
  const row = (name: string, samples: number) => `${percent(samples).toFixed(1).padStart(5)} %  ${(samples * msPerSample).toFixed(0).padStart(6)} ms  ${name}`;
  const ranked = (map: Map<string, number>, limit: number) => [...map].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
  const lines = [
    `${total} samples over ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms; busy (not idle) ${percent(busy).toFixed(1)} %`,
    '',
    'Self time by area:',
    ...ranked(selfByArea, top).map(([name, samples]) => row(name, samples)),
    '',
    `Top ${top} functions by self time:`,
    ...ranked(selfByFunction, top).map(([name, samples]) => row(name, samples)),
    '',
    `Top ${top} functions by inclusive time (idle excluded):`,
    ...ranked(new Map([...inclusiveByFunction].filter(([name]) => !name.startsWith('(idle)'))), top).map(([name, samples]) => row(name, samples)),
    '',
    `Call tree (inclusive % / self %; nodes under ${minPercent} % left out):`,
  ];
  const shown = (id: number) => percent(totalOf(id)) >= minPercent;
  const walk = (id: number, depth: number) => {
    const node = byId.get(id);
    if (node === undefined || !shown(id) || depth > maxDepth) return;
    // A chain of frames without self time that pass (nearly) all their time to one callee prints as one line.
    const chain = [node];
    for (let last = node; ; ) {
      const children = (last.children ?? []).filter(shown);
      const only = children.length === 1 ? byId.get(children[0] as number) : undefined;
      if (only === undefined || (selfSamples.get(last.id) ?? 0) > 0 || totalOf(only.id) < CHAIN_SHARE * totalOf(last.id)) break;
      chain.push(only);
      last = only;
    }
    const end = chain[chain.length - 1] as CpuProfileNode;
    const names = chain.length <= 3 ? chain.map(describe).join(' › ') : `${describe(node)} › … ${chain.length - 2} frames … › ${describe(end)}`;
    lines.push(`${'  '.repeat(depth)}${percent(totalOf(id)).toFixed(1)} % / ${percent(selfSamples.get(end.id) ?? 0).toFixed(1)} %  ${names}`);
    for (const child of [...(end.children ?? [])].sort((a, b) => totalOf(b) - totalOf(a))) walk(child, depth + 1);
  };
  const rootNode = profile.nodes.find((node) => !parent.has(node.id));
  if (rootNode !== undefined) walk(rootNode.id, 0);
  return lines;
}

const HELP = `npm run profile:summary -w @inkwell/bench -- [options] <file.cpuprofile> ...

Prints a textual flame graph of each V8 CPU profile (node --cpu-prof, Chrome DevTools, or the
edge suite's profiled round: CPU_PROFILE_DIR=<dir> NODE_OPTIONS=--import=<repo>/tools/bench/src/cpu-profile.hook.mjs
npm run bench -- --suite edge): self time by area, the hottest functions by self and by inclusive
time, and the call tree.

  --top <n>          rows of each table (default 25)
  --min-percent <p>  leave call-tree nodes under p % of the samples out (default 1)
  --depth <n>        deepest call-tree level shown (default 40)
`;

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, 'min-percent': { type: 'string', default: '1' }, depth: { type: 'string', default: '40' }, help: { type: 'boolean', default: false } },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(HELP);
    return;
  }
  const root = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
  for (const file of positionals) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const lines = summariseProfile(profile, { top: Number(values.top), minPercent: Number(values['min-percent']), maxDepth: Number(values.depth), root });
    process.stdout.write(`== ${basename(file)}\n${lines.join('\n')}\n\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
