/** z of the two-sided 95% normal interval. */
const Z = 1.959963984540054;

/**
 * A story's rating (docs/api/stories.md, "Counts, rating and hotness"): the lower bound of the 95% Wilson score interval of the
 * share of likes among likes + dislikes, scaled to 0–100 and rounded; null while nobody voted.
 * The lower bound rewards certainty: 10 likes of 10 votes rate below 100 likes of 100.
 */
export function wilsonRating(likes: number, dislikes: number): number | null {
  const votes = likes + dislikes;
  if (votes <= 0) return null;
  const share = likes / votes;
  const z2 = Z * Z;
  const centre = share + z2 / (2 * votes);
  const margin = Z * Math.sqrt((share * (1 - share) + z2 / (4 * votes)) / votes);
  const lower = (centre - margin) / (1 + z2 / votes);
  return Math.min(100, Math.max(0, Math.round(lower * 100)));
}
