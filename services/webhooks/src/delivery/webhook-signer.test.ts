import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, SecretBox } from '../secrets/secret-box.js';
import { signatureHeaders } from './webhook-signer.js';

describe('signatureHeaders (docs/api/webhooks.md, "Signatures")', () => {
  const body = JSON.stringify({ id: 'e1', type: 'story.published' });

  it('is verified by the standardwebhooks library, unmodified', () => {
    const secret = newSigningSecret();
    const headers = signatureHeaders([secret], '0b4f6f3e-5f7a-4f55-9d4c-1e7a5d6b2c10', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('during a rotation, verifies with the old and the new secret alike', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const headers = signatureHeaders([current, previous], 'id-2', new Date(), body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });
});

describe('SecretBox', () => {
  it('opens what it sealed, and refuses another key', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sealed = new SecretBox(Buffer.alloc(32, 7)).seal(secret);
    expect(sealed.toString('utf8')).not.toContain(secret.slice(6));
    expect(new SecretBox(Buffer.alloc(32, 7)).open(sealed)).toBe(secret);
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
  });
});
