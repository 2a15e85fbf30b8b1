/** How a budgeted page measures and orders its rows (see {@link budgetedPageSql}). */
export interface BudgetedPageShape {
  /** SQL of one row's size in bytes, over the page query's output columns (e.g. `octet_length(body) + 512`). */
  readonly bytes: string;
  /** The page's order over its output columns, unqualified (e.g. `position, id`). */
  readonly order: string;
  /** The parameter holding the budget in bytes (e.g. `$5`). */
  readonly budgetParam: string;
}

/**
 * Wraps the SQL of one keyset page (ordered, `LIMIT size + 1`) so that Postgres returns only the
 * rows within a byte budget (docs/api/foundation.md, "Byte budgets"): a row is kept while the
 * running total of `bytes`, its own included, stays within the budget, and the first row always
 * (an item larger than the budget travels alone, so every item stays reachable). Each row carries
 * `page_fetched`, the number of rows the page query produced. Sizes come from `octet_length`,
 * which reads a stored text's header, so rows past the budget are never read out or sent.
 */
export function budgetedPageSql(pageSql: string, { bytes, order, budgetParam }: BudgetedPageShape): string {
  return `SELECT * FROM (
      SELECT p.*, count(*) OVER () AS page_fetched, row_number() OVER by_order AS page_nth,
             sum(${bytes}) OVER by_order AS page_running_bytes
        FROM (${pageSql}) p
      WINDOW by_order AS (ORDER BY ${order} ROWS UNBOUNDED PRECEDING)
    ) sized
    WHERE page_nth = 1 OR page_running_bytes <= ${budgetParam}
    ORDER BY ${order}`;
}

/** What every row of {@link budgetedPageSql} carries besides the page's own columns. */
export interface BudgetedRow {
  page_fetched: string | number;
}

/**
 * The rows of a budgeted page, at most `limit`, and whether more follow: the page query read a
 * row past `limit`, or the budget cut the page short. The next page starts after the last row.
 */
export function budgetedPage<R extends BudgetedRow>(rows: readonly R[], limit: number): { rows: R[]; more: boolean } {
  const fetched = Number(rows[0]?.page_fetched ?? 0);
  const kept = rows.slice(0, limit);
  return { rows: kept, more: fetched > kept.length };
}
