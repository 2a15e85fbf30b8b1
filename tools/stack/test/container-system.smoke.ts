import { eventually } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, dataId, expectApi } from '../../faults/src/api-client.js';
import type { FaultEnvironment } from '../../faults/src/fault-environment.js';
import { runFault, type FaultReport } from '../../faults/src/fault-run.js';
import { postgresCrash, serviceKill } from '../../faults/src/faults.js';
import { MixedLoad } from '../../faults/src/mixed-load.js';
import { createActors, WORDS, type Actor } from '../../faults/src/world.js';
import { containerFaultEnvironment } from '../src/containers/container-fault-environment.js';
import { up } from '../src/containers/container-system.js';

// The whole system as containers (`npm run containers -- smoke`, part of `npm run test:images`):
// the stores and every process on the network inkwell-system, configured from the dev overlay.
// The tests reach it only through the ports it publishes on loopback.

const OPTIONS = { requestsBefore: 40, requestsAfter: 40, recoveryTimeoutMs: 180_000, checkSearchIndex: true };

/** Nothing lost, applied twice or left disagreeing with a recount; no 5xx but 503 with Retry-After, no request failed beyond those in flight. */
function expectIntact(report: FaultReport): void {
  expect(report.convergeSeconds, JSON.stringify(report)).toBeDefined();
  expect({ lost: report.eventsLost, doubled: report.eventsDoubled, disagreeing: report.disagreeing, serverErrors: report.serverErrors, failed: report.failedBeyondInFlight }, JSON.stringify(report)).toEqual({
    lost: 0,
    doubled: 0,
    disagreeing: 0,
    serverErrors: 0,
    failed: 0,
  });
  expect(report.byStatus['503 (no Retry-After)'], JSON.stringify(report.byStatus)).toBeUndefined();
}

describe('the whole system as containers (smoke)', () => {
  let env: FaultEnvironment;
  let actors: Actor[];

  beforeAll(async () => {
    const tag = process.env.INKWELL_CONTAINERS_TAG;
    env = await containerFaultEnvironment(await up(tag ? { imageTag: tag } : {}));
    // Registered (as the gateway registers users), each with a story created and published through the API.
    actors = await createActors(env.system, 3);
  }, 900_000);

  afterAll(async () => {
    if (process.env.INKWELL_CONTAINERS_KEEP === 'true') await env?.pool.end();
    else await env?.stop();
  });

  it('a published story is found by search, its author followed and sent a private message', async () => {
    const [author, reader] = actors as [Actor, Actor];
    const api = env.system.apiUrl;
    const story = await expectApi(api, { method: 'GET', path: `/stories/${author.storyId}`, token: reader.token }, 200);
    const title = (story.json as { data: { attributes: { title: string } } }).data.attributes.title;
    const word = WORDS.find((candidate) => title.includes(candidate)) as string;
    await eventually(
      async () => {
        const found = await callApi(api, { method: 'GET', path: `/stories?query=${word}&page[size]=50`, token: reader.token });
        return ((found.json as { data?: { id: string }[] } | undefined)?.data ?? []).some((hit) => hit.id === author.storyId);
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `the search for "${word}" finds story ${author.storyId}` },
    );

    await expectApi(api, { method: 'POST', path: '/users/me/following', token: reader.token, body: { data: { type: 'follow', relationships: { followed: { data: { type: 'user', id: author.id } } } } } }, 201);
    await eventually(
      async () => {
        const user = await callApi(api, { method: 'GET', path: `/users/${author.id}`, token: reader.token });
        return (user.json as { data?: { attributes?: { num_followers?: number } } } | undefined)?.data?.attributes?.num_followers === 1;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the author counts one follower' },
    );

    const sent = await expectApi(api, { method: 'POST', path: `/users/${author.id}/private-messages`, token: reader.token, body: { data: { type: 'private_message', attributes: { subject: 'Hello', content: 'From a container.' } } } }, 201);
    const inbox = await expectApi(api, { method: 'GET', path: '/users/me/private-messages', token: author.token }, 200);
    expect(((inbox.json as { data: { id: string }[] }).data ?? []).map((message) => message.id)).toContain(dataId(sent));
  });

  it('the stories container killed (SIGKILL) for 5 s: its routes answer 503 with Retry-After meanwhile; nothing lost or applied twice', async () => {
    const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency: 2, seed: 7 });
    const report = await runFault(env, load, actors[0] as Actor, { ...serviceKill('stories'), downMs: 5_000 }, OPTIONS);
    expect(report.byStatus['503'], JSON.stringify(report.byStatus)).toBeGreaterThan(0);
    expectIntact(report);
  });

  it('the Postgres container killed (SIGKILL) and started again: nothing lost or applied twice, counts equal a recount', async () => {
    const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency: 2, seed: 11 });
    expectIntact(await runFault(env, load, actors[1] as Actor, postgresCrash(), OPTIONS));
  });
});
