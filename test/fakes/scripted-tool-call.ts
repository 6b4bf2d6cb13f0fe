/**
 * A tool call a test writes into its prompt, for clients whose tools need real arguments (the
 * coding-agent CLIs of test/agents/): `call <name> <JSON object>` anywhere in the last user text
 * makes every fake call that tool, when it is offered, with that input. The fakes' other rule
 * (the word "tool" calls the first tool with `{"echo": ...}`) would fail such a tool's schema.
 */
export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

export function scriptedToolCall(text: string, offered: readonly string[]): ScriptedToolCall | null {
  const match = /\bcall ([\w.-]+) (\{.*\})/s.exec(text);
  if (match === null || !offered.includes(match[1])) return null;
  try {
    const input: unknown = JSON.parse(match[2]);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
    return { name: match[1], input: input as Record<string, unknown> };
  } catch {
    return null;
  }
}
