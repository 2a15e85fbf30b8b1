import { describe, expect, it } from 'vitest';
import { generateNotifications, type GeneratorStory } from './notification.generator.js';

const users = Array.from({ length: 50 }, (_, i) => String(i + 1));
const stories: GeneratorStory[] = Array.from({ length: 30 }, (_, i) => ({ id: String(1000 + i), authorId: String((i % 50) + 1), chapterIds: [String(5000 + i * 3), String(5001 + i * 3), String(5002 + i * 3)] }));
const end = new Date('2026-11-26T12:00:00Z');

describe('generateNotifications', () => {
  const rows = [...generateNotifications({ count: 5000, userIds: users, stories, firstSyntheticId: 1e9, end, seed: 7 })];

  it('deals every user the same share, oldest first, inside the 90-day window', () => {
    expect(rows).toHaveLength(5000);
    const perUser = new Map<string, number>();
    for (const row of rows) perUser.set(String(row.userId), (perUser.get(String(row.userId)) ?? 0) + 1);
    expect(new Set(perUser.values())).toEqual(new Set([100]));
    const times = rows.map((row) => row.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(end.getTime() - times[0]!).toBeLessThan(90 * 24 * 3600 * 1000);
  });

  it('never repeats a subject of one kind in one inbox and never notifies users of what they did', () => {
    const keys = rows.map((row) => `${row.kind}/${row.subjectId}/${row.userId}`);
    expect(new Set(keys).size).toBe(rows.length);
    expect(rows.filter((row) => String(row.actorId) === String(row.userId))).toEqual([]);
  });

  it('holds every kind, chapters about their own stories, and recent ones unread', () => {
    expect(new Set(rows.map((row) => row.kind))).toEqual(new Set(['chapter_published', 'story_published', 'new_follower', 'story_comment', 'private_message', 'blog_post']));
    const chapterOf = new Map(stories.flatMap((story) => story.chapterIds.map((id) => [id, story.id] as const)));
    for (const row of rows.filter((r) => r.kind === 'chapter_published')) expect(chapterOf.get(String(row.chapterId))).toBe(row.storyId);
    const newest = rows.slice(-50);
    expect(newest.every((row) => !row.read)).toBe(true);
    expect(rows.slice(0, 2500).filter((row) => row.read).length).toBeGreaterThan(2300);
  });

  it('leaves out story kinds when there are too few stories for one inbox', () => {
    const few = [...generateNotifications({ count: 1000, userIds: users, stories: stories.slice(0, 2), firstSyntheticId: 1, end })];
    expect(few.some((row) => row.kind === 'story_published' || row.kind === 'chapter_published')).toBe(false);
    expect(new Set(few.map((row) => `${row.kind}/${row.subjectId}/${row.userId}`)).size).toBe(few.length);
  });
});
