import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PrivateMessageSchema } from '@inkwell/proto/messaging';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { toPrivateMessageResource } from './private-message.resource.js';

const links = createApiLinks('https://api.inkwell.example/');

describe('toPrivateMessageResource', () => {
  it('maps every field to the JSON:API private_message with sender and recipient linkage and its canonical link', () => {
    const message = create(PrivateMessageSchema, {
      id: '9',
      senderId: '1',
      recipientId: '2',
      subject: 'Lunch?',
      content: 'Are you *free*?',
      contentHtml: '<p>Are you <em>free</em>?</p>',
      dateSent: timestampFromDate(new Date('2026-03-01T12:30:00.250Z')),
      read: true,
    });
    expect(toPrivateMessageResource(message, links)).toEqual({
      id: '9',
      type: 'private_message',
      attributes: {
        subject: 'Lunch?',
        content: 'Are you *free*?',
        content_html: '<p>Are you <em>free</em>?</p>',
        date_sent: '2026-03-01T12:30:00.250Z',
        read: true,
      },
      relationships: {
        sender: { data: { type: 'user', id: '1' } },
        recipient: { data: { type: 'user', id: '2' } },
      },
      links: { self: 'https://api.inkwell.example/api/v1/private-messages/9' },
    });
  });
});
