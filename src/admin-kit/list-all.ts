import { MAX_PAGE_LIMIT, type PageRequest } from './pagination.ts';

/** Every row of a paged list, page after page in id order (the CLI's lists and `export`). */
export async function listAll<Row extends { id: string }>(
  list: (page: PageRequest) => Promise<Row[]>,
): Promise<Row[]> {
  const rows: Row[] = [];
  let afterId: string | null = null;
  for (;;) {
    // Repositories return up to limit + 1 rows: the extra one says another page exists.
    const page = await list({ limit: MAX_PAGE_LIMIT, afterId });
    rows.push(...page.slice(0, MAX_PAGE_LIMIT));
    if (page.length <= MAX_PAGE_LIMIT) return rows;
    afterId = page[MAX_PAGE_LIMIT - 1].id;
  }
}
