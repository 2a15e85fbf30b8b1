import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@inkwell/logging';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgApp } from './eg.types.js';
import { createFinalHandler, installFinalHandler } from './final-handler.js';

let server: Server;
let origin: string;

beforeAll(async () => {
  const app = express();
  installFinalHandler(app as unknown as EgApp, createFinalHandler(createLogger('final-handler-test')));
  app.get('/boom', () => {
    throw new Error('secret stack details');
  });
  app.get('/param/:value', (_req, res) => res.end('decoded'));
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', resolve);
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string) {
  const response = await fetch(origin + path);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('final handler on the express app', () => {
  it('answers requests nobody handled with a JSON:API 404', async () => {
    const answer = await get('/nowhere');
    expect(answer).toMatchObject({ status: 404, type: 'application/vnd.api+json' });
    expect(JSON.parse(answer.text).errors[0].code).toBe('not_found');
  });

  it('answers express client errors (an undecodable parameter) with a JSON:API 400', async () => {
    const answer = await get('/param/%E0%A4%A');
    expect(answer).toMatchObject({ status: 400, type: 'application/vnd.api+json' });
    expect(JSON.parse(answer.text).errors[0].code).toBe('invalid_parameter');
  });

  it('answers thrown errors with a JSON:API 500 and no stack trace', async () => {
    const answer = await get('/boom');
    expect(answer).toMatchObject({ status: 500, type: 'application/vnd.api+json' });
    expect(answer.text).not.toContain('secret');
    expect(answer.text).not.toContain('at ');
  });
});
