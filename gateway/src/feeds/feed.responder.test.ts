import { describe, expect, it } from 'vitest';
import type { GatewayRequest } from '../http/request-state.js';
import { notModified, rendered } from './feed.responder.js';

const FEED = rendered('<feed/>', new Date('2026-03-01T10:00:00.750Z'));
const request = (headers: Record<string, string>) => ({ headers }) as unknown as GatewayRequest;

describe('rendered', () => {
  it('has a strong validator of its bytes and Last-Modified in whole seconds', () => {
    expect(FEED.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(rendered('<feed/>', new Date(0)).etag).toBe(FEED.etag);
    expect(rendered('<feed></feed>', new Date(0)).etag).not.toBe(FEED.etag);
    expect(FEED.lastModified).toBe('Sun, 01 Mar 2026 10:00:00 GMT');
  });
});

describe('notModified', () => {
  it('follows If-None-Match when it is sent, whatever If-Modified-Since says', () => {
    expect(notModified(request({ 'if-none-match': FEED.etag }), FEED)).toBe(true);
    expect(notModified(request({ 'if-none-match': `"other", W/${FEED.etag}` }), FEED)).toBe(true);
    expect(notModified(request({ 'if-none-match': '*' }), FEED)).toBe(true);
    expect(notModified(request({ 'if-none-match': '"other"', 'if-modified-since': FEED.lastModified }), FEED)).toBe(false);
  });

  it('otherwise compares If-Modified-Since with Last-Modified, ignoring a date it cannot read', () => {
    expect(notModified(request({ 'if-modified-since': FEED.lastModified }), FEED)).toBe(true);
    expect(notModified(request({ 'if-modified-since': 'Sun, 01 Mar 2026 11:00:00 GMT' }), FEED)).toBe(true);
    expect(notModified(request({ 'if-modified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' }), FEED)).toBe(false);
    expect(notModified(request({ 'if-modified-since': 'yesterday' }), FEED)).toBe(false);
    expect(notModified(request({}), FEED)).toBe(false);
  });
});
