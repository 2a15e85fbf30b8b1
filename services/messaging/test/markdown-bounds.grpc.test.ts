import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { HOSTILE_MARKDOWN, MARKDOWN_REFUSAL_DETAIL, whileHostileMarkdownRenders } from '@inkwell/testing';
import { as, startMessagingStack, type MessagingStack } from './harness.js';

describe('MessagingService over gRPC: message content that cannot be rendered within bounds (docs/api/foundation.md, "Markdown")', () => {
  let stack: MessagingStack;

  beforeAll(async () => {
    stack = await startMessagingStack('inkwell_test_messaging_markdown');
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses it at /data/attributes/content, sends nothing, and delivers another message meanwhile', async () => {
    const mallory = await stack.createUser('mallory-md');
    const ada = await stack.createUser('ada-md');
    const bob = await stack.createUser('bob-md');
    const { error, result, order } = await whileHostileMarkdownRenders(
      () => stack.client.sendPrivateMessage({ recipientId: bob, subject: 'hostile', content: HOSTILE_MARKDOWN }, as(mallory)),
      () => stack.client.sendPrivateMessage({ recipientId: bob, subject: 'hello', content: 'An *ordinary* message.' }, as(ada)),
    );
    expect(error).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/content', detail: expect.stringMatching(MARKDOWN_REFUSAL_DETAIL) }],
    });
    expect(result.privateMessage?.contentHtml).toBe('<p>An <em>ordinary</em> message.</p>');
    expect(order).toEqual(['ordinary', 'hostile']);
    const { privateMessages } = await stack.client.listPrivateMessages({ userId: bob }, as(bob));
    expect(privateMessages.map((message) => message.subject)).toEqual(['hello']);
  });
});
