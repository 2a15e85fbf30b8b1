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

/** Longest subject, in characters (Unicode code points) as sent (docs/api/messages.md, "The private_message resource"). */
export const SUBJECT_MAX_CHARS = 200;

/** Largest content, in bytes of UTF-8 (1 MiB, docs/api/messages.md, "The private_message resource"). */
export const CONTENT_MAX_BYTES = 1024 * 1024;

/** What a sender writes. */
export interface Draft {
  subject: string;
  content: string;
}

/** One thing wrong with a draft: which attribute, and why (client-safe). */
export interface DraftProblem {
  attribute: 'subject' | 'content';
  detail: string;
}

/**
 * Checks a draft against docs/api/messages.md, "The private_message resource": subject and content are required and non-empty after
 * trimming; the subject has at most 200 characters and the content at most 1 MiB of UTF-8,
 * both counted as sent (the gateway counts the same way). Returns
 * every problem, in attribute order; empty when the draft may be sent.
 */
export function draftProblems(draft: Draft): DraftProblem[] {
  const problems: DraftProblem[] = [];
  const subject = normaliseSubject(draft.subject);
  if (subject === '') problems.push({ attribute: 'subject', detail: 'subject is required and must not be blank.' });
  else if (codePoints(draft.subject) > SUBJECT_MAX_CHARS) problems.push({ attribute: 'subject', detail: `subject must be at most ${SUBJECT_MAX_CHARS} characters.` });
  if (draft.content.trim() === '') problems.push({ attribute: 'content', detail: 'content is required and must not be blank.' });
  else if (utf8Bytes(draft.content) > CONTENT_MAX_BYTES) problems.push({ attribute: 'content', detail: `content must be at most ${CONTENT_MAX_BYTES} bytes (1 MiB) of UTF-8.` });
  return problems;
}

/** The subject as stored: without leading and trailing whitespace. */
export function normaliseSubject(subject: string): string {
  return subject.trim();
}

/** Whether `userId` sent or received `message`: only they may know it exists. */
export function isParty(message: Pick<PrivateMessage, 'senderId' | 'recipientId'>, userId: string): boolean {
  return message.senderId === userId || message.recipientId === userId;
}

/** True when `id` is a positive integer that fits a Postgres bigint (anything else names nothing). */
export function isStorageId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function utf8Bytes(text: string): number {
  // Counts without encoding: checking 1 MiB must not allocate another megabyte.
  return Buffer.byteLength(text, 'utf8');
}
