/**
 * Hotness (docs/api/stories.md, "Counts, rating and hotness"): exponentially decayed engagement, so a story rises with recent
 * views, likes and comments and sinks as they age.
 *
 *   hotness = log2( Σ weight(e) · 2^((time(e) − EPOCH) / HALF_LIFE) )
 *
 * over the story's events e: its first publication (weight 20) and every counted view (1),
 * like (5) and comment (3). At any moment `now`, 2^(hotness − (now − EPOCH)/HALF_LIFE) is the
 * engagement of the story with every event's weight halved for each HALF_LIFE that passed since:
 * the same common factor for every story, so sorting by the stored value is sorting by today's
 * decayed engagement. That is why the value never needs a periodic refresh: time passing changes
 * every story's decayed engagement by the same factor and no ranking. An event adds to the value
 * (`addHeat`), so it is updated only by events. The number itself grows by 1 per half-life of
 * calendar time; only comparisons are meaningful. Dislikes and withdrawn votes do not change it
 * (heat measures attention; rating measures approval).
 */
export const HOTNESS_EPOCH = Date.UTC(2020, 0, 1);

/** Engagement halves in weight every 36 hours. */
export const HOTNESS_HALF_LIFE_MS = 36 * 60 * 60 * 1000;

/** Weight of each kind of event. */
export const HEAT_WEIGHTS = {
  published: 20,
  view: 1,
  like: 5,
  comment: 3,
} as const;

/** log2 of one event of `weight` at `at`. */
export function heatOf(weight: number, at: Date): number {
  return Math.log2(weight) + (at.getTime() - HOTNESS_EPOCH) / HOTNESS_HALF_LIFE_MS;
}

/**
 * The hotness after an event of `weight` (> 0) at `at`: log2(2^current + weight·2^t), computed
 * without overflow. `current` null means the story had no heat yet (never published).
 */
export function addHeat(current: number | null, weight: number, at: Date): number {
  if (!(weight > 0)) return current ?? 0;
  const added = heatOf(weight, at);
  if (current === null) return added;
  const high = Math.max(current, added);
  const low = Math.min(current, added);
  return high + Math.log2(1 + 2 ** (low - high));
}

/** The hotness of a story at its first publication. */
export function publicationHeat(datePublished: Date): number {
  return heatOf(HEAT_WEIGHTS.published, datePublished);
}

/**
 * The hotness of a story whose engagement is known only as totals (the data generator): its
 * publication plus all views, likes and comments as if they happened at `lastActivity`.
 */
export function hotnessFromTotals(totals: { datePublished: Date; lastActivity: Date; views: number; likes: number; comments: number }): number {
  const weight = totals.views * HEAT_WEIGHTS.view + totals.likes * HEAT_WEIGHTS.like + totals.comments * HEAT_WEIGHTS.comment;
  return addHeat(publicationHeat(totals.datePublished), weight, totals.lastActivity);
}
