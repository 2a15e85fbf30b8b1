import { create } from '@bufbuild/protobuf';
import { AppError, ErrorCode } from '@inkwell/errors';
import { createRecordingLogger } from '@inkwell/logging';
import { ContractProbeService, SaveProbeRequestSchema } from '@inkwell/proto/testing';
import { UsersService } from '@inkwell/proto/users';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileContract, createRequestValidator } from '../src/contract.js';
import { AssertionVerifier, createGrpcClient, createGrpcServer, type CallerContext, type GrpcClient, type GrpcServer } from '../src/index.js';
import { GATEWAY_KEY, rejection, signerOf, trustedKeysOf } from './test-server.js';

let server: GrpcServer;
let client: GrpcClient<typeof ContractProbeService>;
/** The methods whose handler ran since the last test began. */
const handled: string[] = [];
/** The story ids the preflight of saveProbe saw since the last test began. */
const preflighted: string[] = [];

/** A signed-in user holding `scopes`. */
function user(...scopes: string[]): { caller: CallerContext } {
  return { caller: { requestId: 'req-contract', userId: '7', appId: '3', scopes } };
}

/** An app acting alone (client credentials) holding `scopes`. */
function appOnly(...scopes: string[]): { caller: CallerContext } {
  return { caller: { requestId: 'req-contract', appId: '3', scopes } };
}

beforeAll(async () => {
  const { logger } = createRecordingLogger('grpc-contract-test');
  const verifier = new AssertionVerifier({ audience: 'testing', trustedKeys: trustedKeysOf(GATEWAY_KEY) });
  server = createGrpcServer({ logger, verifier }).add(
    ContractProbeService,
    {
      saveProbe: async (request) => {
        handled.push('saveProbe');
        return { title: request.title };
      },
      readProbe: async () => {
        handled.push('readProbe');
        return {};
      },
      whoAmI: async () => {
        handled.push('whoAmI');
        return {};
      },
      listProbes: async (request) => {
        handled.push('listProbes');
        return { seen: request.filter?.authorIds ?? [] };
      },
    },
    {
      issuers: { saveProbe: ['gateway'], readProbe: ['gateway'], whoAmI: ['gateway'], listProbes: ['gateway'] },
      preflight: {
        // The story a probe is about: 404 unknown, 403 someone else's, 400 an id it cannot use.
        saveProbe: async (request, ctx) => {
          preflighted.push(request.storyId);
          if (request.storyId === '404') throw AppError.notFound('story');
          if (request.storyId === '403') throw new AppError(ErrorCode.PERMISSION_DENIED, `User ${ctx.caller.userId ?? '?'} may not edit story 403.`);
          if (request.storyId === '400') throw new AppError(ErrorCode.INVALID_ARGUMENT, 'That id is no use.');
        },
      },
    },
  );
  const port = await server.listen('127.0.0.1:0');
  client = createGrpcClient(ContractProbeService, `127.0.0.1:${port}`, { signer: signerOf(GATEWAY_KEY), audience: 'testing' });
});

afterAll(async () => {
  client.close();
  await server.shutdown(1000);
});

beforeEach(() => {
  handled.length = 0;
  preflighted.length = 0;
});

describe('access from (inkwell.api.v1.access)', () => {
  it('lets a caller with the scope and a user through to the handler', async () => {
    await expect(client.saveProbe({ title: 'Ok', storyId: '1', note: 'n' }, user('write_stories'))).resolves.toMatchObject({ title: 'Ok' });
    expect(handled).toEqual(['saveProbe']);
  });

  it('refuses a missing scope with insufficient_scope and the scope, before the user and the rules', async () => {
    const error = await rejection(client.saveProbe({ title: '' }, appOnly('read_stories')));

    expect(error.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(error.details).toEqual([{ reason: 'insufficient_scope', scope: 'write_stories' }]);
    expect(handled).toEqual([]);
  });

  it('refuses an app acting alone where a user is needed, before the rules', async () => {
    const error = await rejection(client.saveProbe({ title: '' }, appOnly('write_stories')));

    expect(error.code).toBe(ErrorCode.UNAUTHENTICATED);
    expect(error.details).toEqual([{ reason: 'invalid_token', detail: expect.stringContaining('signed-in user') }]);
    expect(handled).toEqual([]);
  });

  it('checks only what the option declares: a scope alone, or a user alone', async () => {
    await expect(client.readProbe({}, appOnly('read_pms'))).resolves.toBeDefined();
    expect((await rejection(client.readProbe({}, user()))).details).toEqual([{ reason: 'insufficient_scope', scope: 'read_pms' }]);
    await expect(client.whoAmI({}, user())).resolves.toBeDefined();
    expect((await rejection(client.whoAmI({}, appOnly('read_pms')))).code).toBe(ErrorCode.UNAUTHENTICATED);
    expect(handled).toEqual(['readProbe', 'whoAmI']);
  });

  it('lets any verified caller call an RPC without the option, internal calls included', async () => {
    await expect(client.listProbes({})).resolves.toBeDefined();
    expect(handled).toEqual(['listProbes']);
  });
});

describe('validation with buf.validate rules', () => {
  it('reports a field without an input option at /data/attributes/<field> with a generated sentence', async () => {
    const error = await rejection(client.saveProbe({ title: 'x'.repeat(21), storyId: '1', note: 'n' }, user('write_stories')));

    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/title', detail: 'title must be at most 20 characters.' }]);
    expect(handled).toEqual([]);
  });

  it('counts characters, not UTF-16 units or bytes', async () => {
    await expect(client.saveProbe({ title: '🐴'.repeat(20), storyId: '1', note: 'n' }, user('write_stories'))).resolves.toMatchObject({ title: '🐴'.repeat(20) });
  });

  it('lists every violation where the client sent it, an item sentence once for all bad items', async () => {
    const error = await rejection(client.saveProbe({ title: '', tagIds: ['x:1', 'y:2', 't:1', 't:2'], storyId: '-4', note: 'n', body: 'é'.repeat(1025) }, user('write_stories')));

    expect(error.details).toEqual([
      { reason: 'validation_failed', pointer: '/data/attributes/title', detail: 'title must be at least 1 characters.' },
      { reason: 'validation_failed', pointer: '/data/relationships/tags', detail: 'tags must have at most 3 items.' },
      { reason: 'validation_failed', pointer: '/data/relationships/tags', detail: 'Tags are t:<n>.' },
      { reason: 'validation_failed', pointer: '/data/attributes/story_id', detail: 'story_id must be greater than 0.' },
      { reason: 'validation_failed', pointer: '/data/attributes/body', detail: 'body must be at most 2048 bytes (2 KiB) of UTF-8.' },
    ]);
    expect(error.message).toBe('title must be at least 1 characters. tags must have at most 3 items. Tags are t:<n>. story_id must be greater than 0. body must be at most 2048 bytes (2 KiB) of UTF-8.');
  });

  it('applies our predefined rules: not blank, and lengths measured once trimmed', async () => {
    const save = (note: string) => client.saveProbe({ title: 'Ok', storyId: '1', note }, user('write_stories'));
    await expect(save(` ${'🐴'.repeat(10)}\n`)).resolves.toBeDefined();
    expect((await rejection(save(' \t '))).details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/note', detail: 'note must not be blank.' }]);
    expect((await rejection(save('x'.repeat(11)))).details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/note', detail: 'note must be at most 10 characters.' }]);

    await expect(client.listProbes({ query: `  ${'x'.repeat(10)}  ` })).resolves.toBeDefined();
    const tooLong = await rejection(client.listProbes({ query: 'x'.repeat(11) }));
    expect(tooLong.details).toEqual([{ reason: 'invalid_parameter', parameter: 'query', detail: 'The search text is longer than 10 characters.' }]);
  });

  it('sends the fixed sentence of an input option instead of the generated one', async () => {
    const error = await rejection(client.saveProbe({ title: 'Ok', storyId: '1', note: 'n', color: 'red' }, user('write_stories')));

    expect(error.details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/color', detail: 'A color is written #rrggbb.' }]);
  });

  it('reports a query parameter as invalid_parameter, nested fields with their own input', async () => {
    const error = await rejection(client.listProbes({ pageSize: 101, filter: { wordsMin: -1, authorIds: ['1', '2', '3'] } }));

    expect(error.details).toEqual([
      { reason: 'invalid_parameter', parameter: 'filter[words]', detail: 'filter[words] must be greater than or equal to 0.' },
      { reason: 'invalid_parameter', parameter: 'filter[author]', detail: 'filter[author] must have at most 2 items.' },
      { reason: 'invalid_parameter', parameter: 'page[size]', detail: 'page[size] must be greater than or equal to 0 and less than or equal to 100.' },
    ]);
  });

  it('reports a message rule at its rule input, with the rule’s own message', async () => {
    const error = await rejection(client.listProbes({ filter: { wordsMin: 10, wordsMax: 5 } }));

    expect(error.details).toEqual([{ reason: 'invalid_parameter', parameter: 'filter[words]', detail: 'filter[words] must not end below its start.' }]);
  });

  it('uses the reason of the input option where the API has its own code', async () => {
    const error = await rejection(client.listProbes({ after: 'c'.repeat(65) }));

    expect(error.details).toEqual([{ reason: 'invalid_cursor', parameter: 'page[cursor]', detail: 'page[cursor] must be at most 64 characters.' }]);
  });

  it('passes a valid request on unchanged', async () => {
    await expect(client.listProbes({ pageSize: 100, filter: { wordsMin: 5, wordsMax: 10, authorIds: ['1', '2'] } })).resolves.toEqual(expect.objectContaining({ seen: ['1', '2'] }));
  });
});

describe('preflight: who may write before what is written', () => {
  const invalid = { title: 'x'.repeat(21), note: 'n' };

  it('never runs for a valid request: the handler makes its own checks', async () => {
    await expect(client.saveProbe({ title: 'Ok', storyId: '403', note: 'n' }, user('write_stories'))).resolves.toMatchObject({ title: 'Ok' });
    expect(handled).toEqual(['saveProbe']);
    expect(preflighted).toEqual([]);
  });

  it('answers with its refusal when a request breaks its rules: unknown 404, someone else’s 403', async () => {
    const unknown = await rejection(client.saveProbe({ ...invalid, storyId: '404' }, user('write_stories')));
    const foreign = await rejection(client.saveProbe({ ...invalid, storyId: '403' }, user('write_stories')));

    expect(unknown.code).toBe(ErrorCode.NOT_FOUND);
    expect(foreign.code).toBe(ErrorCode.PERMISSION_DENIED);
    expect(foreign.message).toBe('User 7 may not edit story 403.');
    expect(preflighted).toEqual(['404', '403']);
    expect(handled).toEqual([]);
  });

  it('lets the violations answer when it finds nothing to refuse', async () => {
    const error = await rejection(client.saveProbe({ ...invalid, storyId: '1' }, user('write_stories')));

    expect(error.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error.details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/title', detail: 'title must be at most 20 characters.' }]);
    expect(preflighted).toEqual(['1']);
    expect(handled).toEqual([]);
  });

  it('yields to the violations when it cannot use a value (INVALID_ARGUMENT)', async () => {
    const error = await rejection(client.saveProbe({ ...invalid, storyId: '400' }, user('write_stories')));

    expect(error.details).toEqual([{ reason: 'validation_failed', pointer: '/data/attributes/title', detail: 'title must be at most 20 characters.' }]);
    expect(preflighted).toEqual(['400']);
  });

  it('comes after access: a caller without the scope learns nothing about the story', async () => {
    const error = await rejection(client.saveProbe({ ...invalid, storyId: '404' }, appOnly('read_stories')));

    expect(error.details).toEqual([{ reason: 'insufficient_scope', scope: 'write_stories' }]);
    expect(preflighted).toEqual([]);
  });

  it('must name a method of the service', () => {
    const { logger } = createRecordingLogger('grpc-contract-test');
    const verifier = new AssertionVerifier({ audience: 'testing', trustedKeys: trustedKeysOf(GATEWAY_KEY) });
    const noop = async () => ({});
    const impl = { saveProbe: noop, readProbe: noop, whoAmI: noop, listProbes: noop };
    const issuers = { saveProbe: [], readProbe: [], whoAmI: [], listProbes: [] };
    const preflight = { saveProbe: async () => {}, deleteProbe: async () => {} };

    expect(() => createGrpcServer({ logger, verifier }).add(ContractProbeService, impl, { issuers, preflight })).toThrow(/Preflight for no method of inkwell\.testing\.v1\.ContractProbeService: deleteProbe/);
  });
});

describe('compileContract', () => {
  it('validates a typical request in microseconds', () => {
    const contract = compileContract(ContractProbeService.method.saveProbe, createRequestValidator());
    const request = create(SaveProbeRequestSchema, { title: 'A typical title', tagIds: ['t:1', 't:22', 't:333'], storyId: '42', note: 'A note' });
    const caller = user('write_stories').caller;
    const check = () => contract.refuseCaller(caller) ?? contract.refuseRequest(request);
    for (let i = 0; i < 2000; i++) expect(check()).toBeUndefined();

    // The best of five batches: other work on the machine slows a batch, never speeds one up.
    const calls = 1000;
    const batches = Array.from({ length: 5 }, () => {
      const started = performance.now();
      for (let i = 0; i < calls; i++) check();
      return ((performance.now() - started) * 1000) / calls;
    });
    const microsPerCall = Math.min(...batches);

    // A generous ceiling: about 10 µs on a laptop; milliseconds would mean recompiling per call.
    expect(microsPerCall).toBeLessThan(200);
  });
});

describe('first_party access', () => {
  // A real RPC that declares it: only the user themself may list the apps they authorized.
  const contract = compileContract(UsersService.method.listAuthorizations, createRequestValidator());
  const refusal = (caller: CallerContext) => {
    const refused = contract.refuseCaller(caller);
    return refused && { code: refused.code, reason: refused.details[0]?.reason };
  };

  it('refuses every caller with an app as forbidden, whatever its scopes, and lets the user themself through', () => {
    expect(refusal(user('read_user').caller)).toEqual({ code: ErrorCode.PERMISSION_DENIED, reason: 'forbidden' });
    expect(refusal(user().caller)).toEqual({ code: ErrorCode.PERMISSION_DENIED, reason: 'forbidden' });
    expect(refusal(appOnly('read_user').caller)).toEqual({ code: ErrorCode.PERMISSION_DENIED, reason: 'forbidden' });
    // A personal token or a signed-in page: a user and no app.
    expect(refusal({ requestId: 'r', userId: '7', scopes: ['read_user'] })).toBeUndefined();
    expect(refusal({ requestId: 'r', userId: '7', scopes: [] })).toEqual({ code: ErrorCode.PERMISSION_DENIED, reason: 'insufficient_scope' });
    expect(refusal({ requestId: 'r', scopes: ['read_user'] })).toEqual({ code: ErrorCode.UNAUTHENTICATED, reason: 'invalid_token' });
  });
});
