import { AppError } from '@inkwell/errors';
import { renderMarkdown } from '@inkwell/markdown';
import { buildMailboxQuery, type MailboxRequest } from '../domain/mailbox-query.js';
import { isParty, isStorageId, normaliseSubject, type Draft, type PrivateMessage } from '../domain/private-message.js';
import type { PrivateMessageRepository } from '../repositories/private-message.repository.js';
import type { UserDirectoryRepository } from '../repositories/user-directory.repository.js';
import type { UserRelationsRepository } from '../repositories/user-relations.repository.js';

/** What the message rules read and write of messages: PrivateMessageRepository, or a memory store in unit tests. */
export type MessageStore = Pick<PrivateMessageRepository, 'findById' | 'create' | 'setRead' | 'listPage'>;

/** Whether a user exists, asked of the users service (UserDirectoryRepository). */
export type UserDirectory = Pick<UserDirectoryRepository, 'exists'>;

/** Blocks between users, asked of the users service (UserRelationsRepository). */
export type UserRelations = Pick<UserRelationsRepository, 'blockedEitherWay' | 'relationsOf'>;

/** Who is asking, as far as the messaging rules care (the gRPC caller context fits). */
export interface Caller {
  requestId: string;
  userId?: string;
  appId?: string;
  scopes: readonly string[];
}

/** One page of a mailbox and the number of matching messages over all pages. */
export interface MailboxListing {
  messages: PrivateMessage[];
  total: number;
}

/** What the recipient may change on a message. */
export interface MessageChanges {
  read?: boolean;
}

/**
 * The rules of private messages (docs/api/messages.md, "Who sees what"; docs/api/messages.md, "Endpoints"): a
 * caller only ever sees messages they sent or received; everything else is NOT_FOUND, as if it
 * did not exist. Every method acts for a signed-in user: the access options of MessagingService
 * admit no other caller, and the request rules have checked ids, drafts and list parameters.
 * Blocks (docs/api/safety.md, "Blocking"): a message between two users one of whom blocks the
 * other is refused exactly as a message to nobody (NOT_FOUND user), so the sender learns nothing;
 * and messages from the users the caller blocks are left out of every read, so that one sent
 * while the block was being made is never shown to the blocker.
 */
export class PrivateMessageService {
  constructor(
    private readonly messages: MessageStore,
    private readonly users: UserDirectory,
    private readonly relations: UserRelations,
  ) {}

  /** Message `id` if the caller sent or received it; NOT_FOUND otherwise. */
  async get(id: string, caller: Caller): Promise<PrivateMessage> {
    const userId = signedInUser(caller);
    const message = isStorageId(id) ? await this.messages.findById(id) : undefined;
    if (message === undefined || !isParty(message, userId)) throw AppError.notFound('private message');
    if (message.senderId !== userId && (await this.blockedSenders(userId, caller)).includes(message.senderId)) throw AppError.notFound('private message');
    return message;
  }

  /**
   * One page of the caller's mailbox (`request.userId` is the caller) or of the conversation
   * with `request.userId`, with the total over all pages. A conversation with nobody in it is NOT_FOUND when
   * the other user does not exist (asked only then: a conversation with messages proves them).
   * A page whose text is over the response budget is INVALID_ARGUMENT on page[size].
   */
  async list(request: MailboxRequest, caller: Caller): Promise<MailboxListing> {
    const userId = signedInUser(caller);
    if (!isStorageId(request.userId)) throw AppError.notFound('user');
    const query = { ...buildMailboxQuery(userId, request), hiddenSenderIds: await this.blockedSenders(userId, caller) };

    const page = await this.messages.listPage(query);
    if (page.total === 0 && query.otherId !== undefined && !(await this.users.exists(query.otherId, caller))) {
      throw AppError.notFound('user');
    }
    if (page.overBudget) {
      throw AppError.badParameter(
        'page[size]',
        'The messages of this page hold more text than one response may carry (16 MiB); ask for a smaller page[size], or leave content out with fields[private_message].',
      );
    }
    return { messages: page.messages, total: page.total };
  }

  /**
   * Sends a message from the caller to `recipientId` (the caller themself allowed; NOT_FOUND when
   * the path names nobody). The subject is stored trimmed, the content as written, with its HTML
   * rendered once here, after the recipient is known. Nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async send(recipientId: string, draft: Draft, caller: Caller, signal?: AbortSignal): Promise<PrivateMessage> {
    const senderId = signedInUser(caller);
    if (!isStorageId(recipientId)) throw AppError.notFound('user');
    const [exists, blocked] = await Promise.all([
      this.users.exists(recipientId, caller),
      recipientId === senderId ? false : this.relations.blockedEitherWay(senderId, recipientId, caller),
    ]);
    if (!exists || blocked) throw AppError.notFound('user');
    const contentHtml = await renderMarkdown(draft.content, { pointer: '/data/attributes/content', caller, signal });
    return this.messages.create({
      senderId,
      recipientId,
      subject: normaliseSubject(draft.subject),
      content: draft.content,
      contentHtml,
    }, signal);
  }

  /** The users `userId` blocks: their messages are hidden from `userId`. */
  private async blockedSenders(userId: string, caller: Caller): Promise<string[]> {
    return (await this.relations.relationsOf(userId, caller)).blockedUserIds;
  }

  /**
   * Applies the recipient's changes (only `read`) to message `id`. A message the caller neither
   * sent nor received is NOT_FOUND; the sender (of a message to someone else) is
   * PERMISSION_DENIED (forbidden). No change leaves the message as it is.
   */
  async update(id: string, changes: MessageChanges, caller: Caller): Promise<PrivateMessage> {
    const message = await this.get(id, caller);
    if (message.recipientId !== caller.userId) throw AppError.forbidden('Only the recipient of a message can mark it read or unread.');
    if (changes.read === undefined || changes.read === message.read) return message;
    const updated = await this.messages.setRead(id, changes.read);
    if (updated === undefined) throw AppError.notFound('private message');
    return updated;
  }
}

/** The caller's user id, which every RPC of the service requires (its access option). */
function signedInUser(caller: Caller): string {
  if (caller.userId === undefined) throw new Error('Private messages are read and written only for a signed-in user.');
  return caller.userId;
}
