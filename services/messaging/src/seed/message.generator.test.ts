import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '@inkwell/markdown';
import { generateMessages, type MessageGeneratorOptions } from './message.generator.js';

const users = Array.from({ length: 200 }, (_, i) => String(i + 1));
const options: MessageGeneratorOptions = { count: 5000, userIds: users, firstId: 101, start: new Date('2025-01-01T00:00:00Z'), end: new Date('2026-01-01T00:00:00Z'), seed: 7 };

describe('generateMessages', () => {
  const messages = [...generateMessages(options)];

  it('generates the asked number of messages with consecutive ids in date order inside the span', () => {
    expect(messages).toHaveLength(5000);
    messages.forEach((message, index) => {
      expect(message.id).toBe(101 + index);
      if (index > 0) expect(message.dateSent.getTime()).toBeGreaterThanOrEqual(messages[index - 1]!.dateSent.getTime());
    });
    expect(messages[0]!.dateSent.getTime()).toBeGreaterThanOrEqual(options.start.getTime());
    expect(messages.at(-1)!.dateSent.getTime()).toBeLessThan(options.end.getTime());
  });

  it('is deterministic for a seed', () => {
    const first = (seed: number) => {
      const taken = [];
      for (const message of generateMessages({ ...options, seed })) {
        if (taken.push(message) === 50) break;
      }
      return taken;
    };
    expect(first(7)).toEqual(messages.slice(0, 50));
    expect(first(8)).not.toEqual(messages.slice(0, 50));
  });

  it('renders the same HTML as @inkwell/markdown', async () => {
    for (const message of messages.slice(0, 300)) expect(message.contentHtml).toBe(await renderMarkdown(message.content, { pointer: '/data/attributes/content' }));
  });

  it('keeps subjects and contents within the API limits', () => {
    for (const message of messages) {
      expect(message.subject.trim().length).toBeGreaterThan(0);
      expect([...message.subject].length).toBeLessThanOrEqual(200);
      expect(message.content.trim().length).toBeGreaterThan(0);
    }
  });

  it('makes skewed mailboxes and two-way conversations, like real users', () => {
    const inbox = new Map<string, number>();
    const pairs = new Set<string>();
    for (const message of messages) {
      inbox.set(message.recipientId, (inbox.get(message.recipientId) ?? 0) + 1);
      pairs.add(`${message.senderId}>${message.recipientId}`);
    }
    const sizes = [...inbox.values()].sort((a, b) => b - a);
    // The busiest inbox holds many times the median one.
    expect(sizes[0]!).toBeGreaterThan(5 * sizes[Math.floor(sizes.length / 2)]!);
    const twoWay = [...pairs].filter((pair) => {
      const [from, to] = pair.split('>');
      return from !== to && pairs.has(`${to}>${from}`);
    });
    expect(twoWay.length).toBeGreaterThan(pairs.size / 4);
    expect(messages.some((message) => message.senderId === message.recipientId)).toBe(true);
  });
});
