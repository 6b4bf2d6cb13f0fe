import type {
  OperationTranslator,
  StreamEvent,
  StreamTranslatorContext,
  TranslationTarget,
} from '../types.ts';

/**
 * Two translators in a row: serves `outer.from` through `inner.to` by way of `outer.to`
 * (= `inner.from`), e.g. responses -> chat.completions -> messages for an upstream that speaks
 * neither Responses nor Chat. Streams stay incremental: each upstream event goes through the
 * inner translator, and each event that yields through the outer one.
 */
export function composeTranslators(
  outer: OperationTranslator,
  inner: OperationTranslator,
): OperationTranslator {
  if (outer.to !== inner.from)
    throw new Error(`cannot compose ${outer.from}->${outer.to} with ${inner.from}->${inner.to}`);
  return Object.freeze({
    from: outer.from,
    to: inner.to,
    request: (body: unknown, target?: TranslationTarget) =>
      inner.request(outer.request(body, target), target),
    response: (answer: unknown, request: unknown) =>
      outer.response(inner.response(answer, outer.request(request)), request),
    createStreamTranslator(request: unknown, known?: StreamTranslatorContext) {
      const innerStream = inner.createStreamTranslator(outer.request(request), known);
      const outerStream = outer.createStreamTranslator(request, known);
      const through = (events: StreamEvent[]) => events.flatMap((event) => outerStream.push(event));
      return {
        push: (event: StreamEvent) => through(innerStream.push(event)),
        finish: () => [...through(innerStream.finish()), ...outerStream.finish()],
      };
    },
  });
}
