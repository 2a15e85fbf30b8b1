-- GET /stories is answered from the search index (docs/api/stories.md, "Search"); Postgres
-- answers a list of a bookshelf (searched, filtered and ranked on the shelf copy of migrations
-- 0005/0006 and its GIN index) and an author's stories. Nothing reads these any more:
-- the bounded re-ranking's view-count tiers and their partial full-text indexes (0003), and the
-- full-text and tag indexes of all published stories (0001). The search_vector and tag_ids
-- columns stay: the shelf copy is made from them.
DROP INDEX IF EXISTS stories_search_tier0_idx;
DROP INDEX IF EXISTS stories_search_tier1_idx;
DROP INDEX IF EXISTS stories_search_tier2_idx;
DROP FUNCTION IF EXISTS search_tier(integer);
DROP INDEX IF EXISTS stories_search_idx;
DROP INDEX IF EXISTS stories_tag_ids_idx;
