-- Relevance search ranks a bounded set of candidates (docs/api/stories.md, "Search"): matches are
-- taken tier by tier, most-viewed stories first, each tier from its own partial full-text index,
-- so finding 1000 candidates never visits more than 1000 rows however common the words are.
-- The tier is a function of the view count rather than a plain range on num_views, so that the
-- planner cannot walk the num_views index instead (for rare words that would visit a whole tier).
CREATE FUNCTION search_tier(num_views integer) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN num_views >= 5000 THEN 0 WHEN num_views >= 1000 THEN 1 ELSE 2 END::smallint
$$;

CREATE INDEX stories_search_tier0_idx ON stories USING gin (search_vector) WHERE published AND search_tier(num_views) = 0;
CREATE INDEX stories_search_tier1_idx ON stories USING gin (search_vector) WHERE published AND search_tier(num_views) = 1;
CREATE INDEX stories_search_tier2_idx ON stories USING gin (search_vector) WHERE published AND search_tier(num_views) = 2;

-- filter[author] under the default sort: an ordered walk instead of sorting a prolific author's stories.
CREATE INDEX stories_author_published_idx ON stories (author_id, date_published, id) WHERE published;
