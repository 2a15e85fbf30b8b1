import { describe, expect, it } from 'vitest';
import { newClientId, redirectUriProblem } from './oauth.js';

describe('redirectUriProblem', () => {
  it('accepts https anywhere, http on loopback hosts, and private-use schemes', () => {
    for (const uri of ['https://app.example.org/cb?x=1', 'http://127.0.0.1:8080/oauth/debug-callback', 'http://localhost:3000/callback', 'http://[::1]/cb', 'com.example.app:/oauth']) {
      expect(redirectUriProblem(uri), uri).toBeUndefined();
    }
  });

  it('rejects relative URIs, fragments, credentials, plain http elsewhere and dangerous schemes', () => {
    for (const uri of ['', '/cb', 'app.example.org/cb', 'https://app.example.org/cb#x', 'https://u:p@app.example.org/', 'http://app.example.org/cb', 'javascript:alert(1)', 'data:text/html,x', 'https://a.example.org/ cb', 'ftp://a.example.org/', `https://a.example.org/${'x'.repeat(2000)}`]) {
      expect(redirectUriProblem(uri), uri).toBeDefined();
    }
  });
});

describe('newClientId', () => {
  it('is 22 random base64url characters', () => {
    const ids = new Set(Array.from({ length: 100 }, newClientId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
