/**
 * Adds a turn to a conversation for an upstream that wants user and model turns to alternate:
 * consecutive turns of one role (a tool result followed by a user message, parallel tool results)
 * merge into one. A turn without items adds nothing. `items` names the turn's list field.
 */
export function appendMergedTurn<
  Items extends string,
  Turn extends { role: string } & Record<Items, unknown[]>,
>(turns: Turn[], items: Items, next: Turn): void {
  if (next[items].length === 0) return;
  const last = turns.at(-1);
  if (last?.role === next.role) last[items].push(...next[items]);
  else turns.push(next);
}
