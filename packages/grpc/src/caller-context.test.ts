import { Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { callerFromMetadata, callerToMetadata, type CallerContext } from './caller-context.js';

describe('caller metadata', () => {
  it('round-trips a full caller through the documented keys', () => {
    const caller: CallerContext = { requestId: 'req-1', userId: '42', appId: '7', scopes: ['read_stories', 'write_user'] };
    const metadata = callerToMetadata(caller);

    expect(metadata.get('x-request-id')).toEqual(['req-1']);
    expect(metadata.get('x-inkwell-user-id')).toEqual(['42']);
    expect(metadata.get('x-inkwell-app-id')).toEqual(['7']);
    expect(metadata.get('x-inkwell-scopes')).toEqual(['read_stories write_user']);
    expect(callerFromMetadata(metadata)).toEqual(caller);
  });

  it('leaves out absent ids and empty scopes, and reads them back as absent', () => {
    const metadata = callerToMetadata({ requestId: 'req-2', scopes: [] });

    expect(metadata.get('x-inkwell-user-id')).toEqual([]);
    expect(metadata.get('x-inkwell-scopes')).toEqual([]);
    expect(callerFromMetadata(metadata)).toEqual({ requestId: 'req-2', scopes: [] });
  });

  it('overwrites the caller keys of existing metadata and keeps other keys', () => {
    const metadata = new Metadata();
    metadata.set('x-other', 'kept');
    callerToMetadata({ requestId: 'old', userId: '1', scopes: ['a'] }, metadata);
    const returned = callerToMetadata({ requestId: 'new', scopes: ['b'] }, metadata);

    expect(returned).toBe(metadata);
    expect(metadata.get('x-other')).toEqual(['kept']);
    expect(callerFromMetadata(metadata)).toEqual({ requestId: 'new', scopes: ['b'] });
  });

  it('generates a UUID request id when none or a blank one arrives', () => {
    const blank = new Metadata();
    blank.set('x-request-id', '  ');
    const first = callerFromMetadata(new Metadata()).requestId;
    const second = callerFromMetadata(blank).requestId;

    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe(first);
  });

  it('splits scopes on any whitespace and drops empty entries', () => {
    const metadata = new Metadata();
    metadata.set('x-request-id', 'r');
    metadata.set('x-inkwell-scopes', '  read_pms   write_pms ');

    expect(callerFromMetadata(metadata).scopes).toEqual(['read_pms', 'write_pms']);
  });
});
