/** A private message as the messaging service knows it. */
export interface PrivateMessage {
  id: string;
  senderId: string;
  recipientId: string;
  subject: string;
  /** Markdown as the sender wrote it. */
  content: string;
  /** `content` rendered to sanitised HTML when the message was sent. */
  contentHtml: string;
  dateSent: Date;
  /** Set by the recipient; false when sent. */
  read: boolean;
}

/**
 * What a sender writes. Its limits are the rules of SendPrivateMessageRequest, checked before the
 * service runs (docs/api/messages.md, "The private_message resource").
 */
export interface Draft {
  subject: string;
  content: string;
}

/** The subject as stored: without leading and trailing whitespace. */
export function normaliseSubject(subject: string): string {
  return subject.trim();
}

/** True when `id` is a positive integer that fits a Postgres bigint (anything else names nothing). */
export function isStorageId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}

/** Whether `userId` sent or received `message`: only they may know it exists. */
export function isParty(message: Pick<PrivateMessage, 'senderId' | 'recipientId'>, userId: string): boolean {
  return message.senderId === userId || message.recipientId === userId;
}
