/**
 * `POST /v1/responses/compact` (variant B; DESIGN.md section 5): the conversation a request stands
 * for (its `previous_response_id`, then its `input`, capsules opened), sealed into one `compaction`
 * item the client sends back in a later `input`. No model runs and nothing is stored: the capsule
 * holds the conversation itself, so `usage` counts its estimated input tokens and no output.
 */
import type { Principal } from '../auth/principal.ts';
import { estimateInputTokens } from '../formats/estimate-tokens.ts';
import type { ResponsesUsageWire } from '../providers/translate/responses-via-chat/envelope.ts';
import type { CapsuleSealer } from './capsules.ts';
import { newItemId, newResponseId } from './conversation.ts';
import type { ConversationExpander, ConversationRequest } from './conversation-expander.ts';

export interface CompactedResponse {
  id: string;
  object: 'response.compaction';
  created_at: number;
  output: [{ type: 'compaction'; id: string; encrypted_content: string }];
  usage: ResponsesUsageWire;
}

export class Compactor {
  readonly #expander: ConversationExpander;
  readonly #capsules: CapsuleSealer;

  constructor(expander: ConversationExpander, capsules: CapsuleSealer) {
    this.#expander = expander;
    this.#capsules = capsules;
  }

  async compact(request: ConversationRequest, principal: Principal): Promise<CompactedResponse> {
    const items = await this.#expander.expand(request, principal);
    const inputTokens = estimateInputTokens('responses', { input: items });
    return {
      id: newResponseId(),
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output: [
        {
          type: 'compaction',
          id: newItemId('cmp'),
          encrypted_content: this.#capsules.seal(items, principal),
        },
      ],
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 0,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens,
      },
    };
  }
}
