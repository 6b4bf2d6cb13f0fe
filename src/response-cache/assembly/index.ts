/**
 * The JSON answer a plain call would have received, assembled from the events a streamed call sent
 * its client (DESIGN.md section 5, Response cache), so that a streamed answer can be stored too.
 *
 * The events come from the decoders (which validated the upstream's) or from the translators (which
 * built them), so each is read with cheap guards rather than a second zod check per event (that
 * check is a measurable share of a stream's CPU, docs/decisions/hot-path.md); what assembly cannot read
 * makes it give up. An answer that might be wrong is worse than none: it would be served again.
 *
 * This module picks the operation's assembler: chat-completion.ts, message.ts, response.ts, each a
 * StreamAssembler (stream-assembler.ts).
 */
import { ChatCompletionAssembler } from '../../formats/chat-completions/assembly.ts';
import { MessageAssembler } from '../../formats/messages/assembly.ts';
import { ResponseAssembler } from '../../formats/responses/assembly.ts';
import type { AnswerAssembler } from '../../formats/stream-assembler.ts';

export type { AnswerAssembler } from '../../formats/stream-assembler.ts';

/** null for an operation whose streams are not assembled. */
export function createAnswerAssembler(operation: string): AnswerAssembler | null {
  switch (operation) {
    case 'chat.completions':
      return new ChatCompletionAssembler();
    case 'messages':
      return new MessageAssembler();
    case 'responses':
      return new ResponseAssembler();
    default:
      return null;
  }
}
