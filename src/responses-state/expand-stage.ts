import type { CallContext } from '../pipeline/call-context.ts';
import { CONTINUE, type Stage, type StageOutcome } from '../pipeline/stage.ts';
import { withEncryptedReasoning } from '../providers/openai/stateless-responses.ts';
import { RESPONSE_CALL_STATE } from './call-state.ts';
import { newResponseId } from './conversation.ts';
import type { ConversationExpander, ConversationRequest } from './conversation-expander.ts';

interface ResponsesBody extends ConversationRequest {
  store?: boolean | null;
  reasoning?: unknown;
  include?: unknown;
}

/**
 * The stage that makes a Responses call stateless before anything reads its body: it decides
 * whether the answer is stored (`store`, absent meaning RESPONSES_STORE_DEFAULT) and replaces
 * `previous_response_id` and `compaction` items by the conversation they stand for, so the checks,
 * the limits' estimate, the cache key and every provider see the whole conversation. Runs first
 * for each model of a call; a fallback model finds the work done (the call state is set).
 */
export function expandConversationStage(expander: ConversationExpander, storeDefault: boolean): Stage {
  return {
    name: 'responses-state.expand',
    operations: ['responses'],
    run: (ctx) => {
      if (RESPONSE_CALL_STATE.get(ctx) !== undefined) return CONTINUE;
      const body = ctx.body as ResponsesBody;
      const previous = body.previous_response_id;
      const store = body.store ?? storeDefault;
      // Made explicit, so a translated answer echoes what the call does (the upstream is told false).
      body.store = store;
      const storeAs = store ? newResponseId() : null;
      RESPONSE_CALL_STATE.set(ctx, {
        storeAs,
        previousResponseId: typeof previous === 'string' ? previous : null,
      });
      if (storeAs !== null && body.reasoning != null) keepReasoning(body);
      return expander.refersToState(body) ? inline(ctx, expander, body) : CONTINUE;
    },
  };
}

async function inline(
  ctx: CallContext,
  expander: ConversationExpander,
  body: ResponsesBody,
): Promise<StageOutcome> {
  body.input = await expander.expand(body, ctx.principal);
  delete body.previous_response_id;
  // An estimate made of the body before it grew would under-count the call.
  ctx.estimatedInputTokens = undefined;
  return CONTINUE;
}

/**
 * A stored answer keeps its reasoning whole for the next turn: reasoning items with their
 * `encrypted_content` (OpenAI's, or Claude's signed thinking blocks, which the translation carries
 * only when asked), or the next turn could not hand them back.
 */
function keepReasoning(body: ResponsesBody): void {
  body.include = withEncryptedReasoning(body.include);
}
