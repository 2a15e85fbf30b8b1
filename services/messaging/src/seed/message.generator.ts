import { escapeHtml, prng, Zipf } from '@inkwell/datagen';

/** One generated message, with its id and HTML ready for COPY. */
export interface GeneratedMessage {
  id: number;
  senderId: string;
  recipientId: string;
  subject: string;
  content: string;
  contentHtml: string;
  dateSent: Date;
  read: boolean;
}

/** What to generate. */
export interface MessageGeneratorOptions {
  /** How many messages. */
  count: number;
  /** The users who write to each other (ids of existing users); the first ones are the most active. */
  userIds: readonly string[];
  /** Id of the first message; the rest follow in date order. */
  firstId: number;
  /** Messages are spread evenly over [start, end), in id order. */
  start: Date;
  end: Date;
  /** Same seed, same data. */
  seed?: number;
}

/** People write mostly to a few correspondents: each user has this many, the first ones favoured. */
const CONTACTS_PER_USER = 24;
/** Share of messages that answer the other way round, so that conversations go both ways. */
const REPLY_SHARE = 0.4;
/** Share of notes to oneself. */
const SELF_SHARE = 0.002;
/** Messages older than this before `end` are nearly all read; newer ones about half. */
const RECENT_MS = 30 * 24 * 3600 * 1000;

const TOPICS = [
  'chapter', 'draft', 'story', 'review', 'feedback', 'edit', 'cover', 'plot', 'ending', 'prologue', 'epilogue', 'character', 'villain',
  'outline', 'deadline', 'contest', 'prompt', 'sequel', 'collab', 'beta read', 'typo', 'title', 'summary', 'tag', 'bookshelf', 'fanfic',
  'worldbuilding', 'dialogue', 'pacing', 'romance', 'mystery', 'poem', 'series', 'update', 'hiatus', 'commission', 'interview', 'event',
];
const OPENERS = ['Question about', 'Thoughts on', 'About your', 'Feedback on', 'Help with', 'Quick note on', 'Idea for', 'Your', 'Thanks for the', 'Re:'];
const WORDS = [
  'the', 'a', 'I', 'you', 'and', 'to', 'of', 'it', 'was', 'really', 'loved', 'read', 'your', 'latest', 'chapter', 'story', 'think', 'maybe',
  'could', 'would', 'scene', 'ending', 'character', 'pacing', 'dialogue', 'next', 'week', 'draft', 'send', 'notes', 'tonight', 'tomorrow',
  'thanks', 'again', 'great', 'idea', 'plot', 'twist', 'favourite', 'part', 'when', 'she', 'he', 'they', 'finally', 'meet', 'letter',
  'garden', 'storm', 'ship', 'castle', 'dragon', 'detective', 'mystery', 'quite', 'sure', 'about', 'middle', 'section', 'feels', 'slow',
  'fast', 'perfect', 'cover', 'art', 'title', 'change', 'suggest', 'happy', 'help', 'beta', 'reading', 'contest', 'deadline', 'prompt',
];

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

/**
 * Paragraphs of plain text (with `*emphasis*` only) → the HTML @inkwell/markdown renders for them,
 * without running the renderer a million times (a unit test checks the two agree).
 */
export function paragraphsToHtml(paragraphs: readonly string[]): string {
  return paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\*([^*]+)\*/g, '<em>$1</em>')}</p>`).join('\n');
}

function sentence(random: () => number): string {
  const length = 5 + Math.floor(random() * 12);
  const words: string[] = [];
  for (let i = 0; i < length; i++) words.push(pick(WORDS, random));
  if (random() < 0.15) {
    const at = Math.floor(random() * words.length);
    words[at] = `*${words[at]!}*`;
  }
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}${random() < 0.2 ? '?' : '.'}`;
}

/**
 * Generates realistic private messages lazily (a million never sit in memory), in date and id
 * order. Senders are Zipf-distributed over `userIds` (the first users write most); each sender
 * writes mostly to the first few of their own 24 correspondents, who are themselves drawn with
 * a Zipf bias, so popular users get big inboxes; 40% of messages go the other way round (replies),
 * making two-way conversations; a few are notes to oneself. Subjects come from a few hundred
 * topic phrases ("Feedback on chapter 12", "Re: …"), contents are one to four short paragraphs.
 * Old messages are nearly all read, the last month's about half.
 */
export function* generateMessages(options: MessageGeneratorOptions): Generator<GeneratedMessage> {
  const random = prng(options.seed ?? 20261121);
  const users = options.userIds;
  if (users.length === 0) throw new Error('generateMessages needs users');
  const senderZipf = new Zipf(users.length, 0.7);
  const popularity = new Zipf(users.length, 0.5);
  const contactZipf = new Zipf(CONTACTS_PER_USER, 1.1);
  const contacts = new Int32Array(users.length * CONTACTS_PER_USER);
  for (let user = 0; user < users.length; user++) {
    for (let k = 0; k < CONTACTS_PER_USER; k++) contacts[user * CONTACTS_PER_USER + k] = popularity.pick(random);
  }
  const start = options.start.getTime();
  const span = options.end.getTime() - start;
  const recentFrom = options.end.getTime() - RECENT_MS;

  for (let i = 0; i < options.count; i++) {
    let sender = senderZipf.pick(random);
    let recipient = random() < SELF_SHARE ? sender : contacts[sender * CONTACTS_PER_USER + contactZipf.pick(random)]!;
    if (random() < REPLY_SHARE) [sender, recipient] = [recipient, sender];
    const dateSent = new Date(Math.floor(start + (span * i) / options.count));

    const topic = `${pick(TOPICS, random)}${random() < 0.3 ? ` ${1 + Math.floor(random() * 40)}` : ''}`;
    const opener = pick(OPENERS, random);
    const subject = opener === 'Re:' ? `Re: ${pick(OPENERS.slice(0, -1), random)} ${topic}` : `${opener} ${topic}`;
    const paragraphs: string[] = [];
    const paragraphCount = 1 + Math.floor(random() * 4);
    for (let p = 0; p < paragraphCount; p++) {
      const sentences: string[] = [];
      const sentenceCount = 1 + Math.floor(random() * 3);
      for (let s = 0; s < sentenceCount; s++) sentences.push(sentence(random));
      paragraphs.push(sentences.join(' '));
    }

    yield {
      id: options.firstId + i,
      senderId: users[sender]!,
      recipientId: users[recipient]!,
      subject,
      content: paragraphs.join('\n\n'),
      contentHtml: paragraphsToHtml(paragraphs),
      dateSent,
      read: random() < (dateSent.getTime() < recentFrom ? 0.95 : 0.5),
    };
  }
}
