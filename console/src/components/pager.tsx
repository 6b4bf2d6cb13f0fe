/** Cursor paging of a list the API answers newest first: back to the first page, or on to the next. */
export function Pager({
  cursor,
  nextCursor,
  onPage,
}: {
  cursor: string | null;
  nextCursor: string | null | undefined;
  onPage(cursor: string | null): void;
}) {
  return (
    <div class="buttons">
      {cursor !== null && (
        <button type="button" onClick={() => onPage(null)}>
          First page
        </button>
      )}
      {nextCursor && (
        <button type="button" onClick={() => onPage(nextCursor)}>
          Next page
        </button>
      )}
    </div>
  );
}
