import type { UpstreamErrorMessages } from '../../errors/render-error.ts';
import type { KeyInfoReader } from '../../keys/key-info.ts';
import type { InferencePipeline } from '../../pipeline/pipeline.ts';
import type { CountTokensDeps } from '../../router/count-tokens.ts';
import type { RouteModule } from '../../server/app.ts';
import { registerCountTokensRoute } from './count-tokens.ts';
import { ENDPOINTS } from './endpoints.ts';
import { registerInferenceRoute } from './inference-route.ts';
import { registerKeyRoute } from './key-route.ts';
import { type ModelSource, registerModelsRoute } from './models-route.ts';
import { bodyTooLarge } from './multipart-upload.ts';
import { type ResponsesRoutesDeps, registerResponsesRoutes } from './responses-routes.ts';

export interface V1Deps {
  pipeline: InferencePipeline;
  directory: ModelSource & CountTokensDeps['directory'];
  /** `GET /v1/key`. */
  keyInfo: KeyInfoReader;
  /** The bound of a request body (BODY_LIMIT_BYTES); multipart uploads too. */
  bodyLimitBytes: number;
  /** What `POST /v1/messages/count_tokens` needs to reach a provider's own count. */
  countTokens: Omit<CountTokensDeps, 'directory'>;
  upstreamErrorMessages: UpstreamErrorMessages;
  /** Stored responses and (variant B) compaction. */
  responses: Omit<ResponsesRoutesDeps, 'directory'>;
}

/**
 * The /v1 surface: every inference endpoint on the one generic handler, `GET /v1/models`,
 * `GET /v1/key`, and the stored responses (`/v1/responses/{id}`, `/v1/responses/compact`).
 * multipart/form-data is not parsed here: its parser hands the raw request stream to the handler,
 * which reads the text fields and streams the upload on (multipart-fields.ts). Registered on the
 * v1 scope only, so the admin surface never accepts multipart.
 */
export function v1Module(deps: V1Deps): RouteModule {
  const options = {
    multipart: { maxLookaheadBytes: deps.bodyLimitBytes, maxBodyBytes: deps.bodyLimitBytes },
    upstreamErrorMessages: deps.upstreamErrorMessages,
  };
  return {
    surface: 'v1',
    register: (scope, docs) => {
      scope.addContentTypeParser('multipart/form-data', (request, payload, done) => {
        // A body that declares more than the bound is refused before a byte of it is read, as
        // fastify refuses a JSON one: streamed on, it would reach the bound only at its end.
        if (Number(request.headers['content-length'] ?? 0) > deps.bodyLimitBytes) return done(bodyTooLarge());
        done(null, payload);
      });
      for (const endpoint of ENDPOINTS) registerInferenceRoute(scope, docs, endpoint, deps.pipeline, options);
      registerModelsRoute(scope, docs, deps.directory);
      registerCountTokensRoute(scope, docs, { ...deps.countTokens, directory: deps.directory });
      registerKeyRoute(scope, docs, deps.keyInfo);
      registerResponsesRoutes(scope, docs, { ...deps.responses, directory: deps.directory });
    },
  };
}
