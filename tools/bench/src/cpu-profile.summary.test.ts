import { describe, expect, it } from 'vitest';
import { areaOf, shortUrl, summariseProfile, type CpuProfile } from './cpu-profile.summary.js';

const ROOT = '/repo';
const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });

/**
 * root ─┬─ (idle)                          2 samples
 *       └─ handler gateway/src/h.ts ─┬─ parse gateway/src/p.ts   3 samples
 *          (1 sample)                └─ send ioredis/built/r.js  4 samples ── handler (recursion) 0
 * 10 samples over 10 ms.
 */
const PROFILE: CpuProfile = {
  startTime: 0,
  endTime: 10_000,
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('handler', 'file:///repo/gateway/src/h.ts', 9), children: [4, 5] },
    { id: 4, callFrame: frame('parse', 'file:///repo/gateway/src/p.ts', 0) },
    { id: 5, callFrame: frame('send', 'file:///repo/node_modules/ioredis/built/r.js', 41), children: [6] },
    { id: 6, callFrame: frame('handler', 'file:///repo/gateway/src/h.ts', 9) },
  ],
  samples: [2, 2, 3, 4, 4, 4, 5, 5, 5, 6],
};

describe('summariseProfile', () => {
  const summary = (top: number) => summariseProfile(PROFILE, { root: ROOT, top, minPercent: 15 });
  const lines = summary(3);
  const section = (title: string, top = 3) => {
    const lines = summary(top);
    const start = lines.findIndex((line) => line.startsWith(title));
    const end = lines.indexOf('', start);
    return lines.slice(start + 1, end === -1 ? undefined : end);
  };

  it('states the samples, the duration and the busy share', () => {
    expect(lines[0]).toBe('10 samples over 10 ms; busy (not idle) 80.0 %');
  });

  it('ranks self time by area and by function, in milliseconds scaled from the samples', () => {
    expect(section('Self time by area')).toEqual([' 50.0 %       5 ms  gateway', ' 30.0 %       3 ms  npm ioredis', ' 20.0 %       2 ms  (idle)']);
    // handler's two call paths add up (1 + 1 samples); ties are ranked by name.
    expect(section('Top 4 functions by self time', 4)).toEqual([
      ' 30.0 %       3 ms  parse gateway/src/p.ts',
      ' 30.0 %       3 ms  send ioredis/built/r.js:42',
      ' 20.0 %       2 ms  (idle)',
      ' 20.0 %       2 ms  handler gateway/src/h.ts:10',
    ]);
  });

  it('counts a recursive function once per sample in inclusive time and leaves idle out', () => {
    expect(section('Top 3 functions by inclusive time')).toEqual([
      ' 80.0 %       8 ms  handler gateway/src/h.ts:10',
      ' 40.0 %       4 ms  send ioredis/built/r.js:42',
      ' 30.0 %       3 ms  parse gateway/src/p.ts',
    ]);
  });

  it('draws the call tree hottest first and prunes nodes under the threshold', () => {
    expect(section('Call tree')).toEqual([
      '100.0 % / 0.0 %  (root)',
      '  80.0 % / 10.0 %  handler gateway/src/h.ts:10',
      '    40.0 % / 30.0 %  send ioredis/built/r.js:42',
      '    30.0 % / 30.0 %  parse gateway/src/p.ts',
      '  20.0 % / 20.0 %  (idle)',
    ]);
  });
});

describe('summariseProfile call tree', () => {
  it('prints a chain of frames that pass (nearly) all their time to one callee as one line', () => {
    const chain: CpuProfile = {
      startTime: 0,
      endTime: 100_000,
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2] },
        { id: 2, callFrame: frame('a', 'node:a', 0), children: [3] },
        { id: 3, callFrame: frame('b', 'node:b', 0), children: [4] },
        { id: 4, callFrame: frame('c', 'node:c', 0), children: [5, 6] },
        { id: 5, callFrame: frame('d', 'node:d', 0), children: [7] },
        { id: 6, callFrame: frame('e', 'node:e', 0) },
        { id: 7, callFrame: frame('f', 'node:f', 0) },
      ],
      samples: [...Array(96).fill(7), ...Array(4).fill(6)],
    };
    const tree = (minPercent: number) => {
      const lines = summariseProfile(chain, { minPercent });
      return lines.slice(lines.findIndex((line) => line.startsWith('Call tree')) + 1);
    };
    expect(tree(3)).toEqual(['100.0 % / 0.0 %  (root) › … 2 frames … › c node:c', '  96.0 % / 96.0 %  d node:d › f node:f', '  4.0 % / 4.0 %  e node:e']);
    // With e pruned, c hands everything shown to d: the whole path is one line.
    expect(tree(5)).toEqual(['100.0 % / 96.0 %  (root) › … 4 frames … › f node:f']);
  });
});

describe('shortUrl and areaOf', () => {
  it('name repository folders, npm packages and node internals', () => {
    expect(shortUrl('file:///repo/services/stories/src/a.ts', ROOT)).toBe('services/stories/src/a.ts');
    expect(shortUrl('file:///elsewhere/node_modules/@grpc/grpc-js/build/x.js', ROOT)).toBe('@grpc/grpc-js/build/x.js');
    expect(areaOf('services/stories/src/a.ts')).toBe('services/stories');
    expect(areaOf('@grpc/grpc-js/build/x.js')).toBe('npm @grpc/grpc-js');
    expect(areaOf('node:events')).toBe('node: internals');
    expect(areaOf('')).toBe('(V8 / native)');
  });
});
