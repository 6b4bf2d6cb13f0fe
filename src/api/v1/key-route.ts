import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../auth/principal.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { KeyInfo, KeyInfoReader } from '../../keys/key-info.ts';
import { BUDGET_PERIODS } from '../../limits/budget-period.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';

/** What a key and its team each show: limits, budget, spend and what remains. */
const holderLimitFields = {
  rpmLimit: z.number().int().nullable(),
  tpmLimit: z.number().int().nullable(),
  budgetCents: z.number().nullable(),
  budgetPeriod: z
    .enum(BUDGET_PERIODS)
    .nullable()
    .meta({ description: 'Calendar period of the budget in UTC; null: a lifetime budget.' }),
  spendCents: z.number().meta({ description: 'Settled spend, cumulative.' }),
  periodSpendCents: z.number().meta({
    description:
      'Settled spend in the budget period under way (for a lifetime budget never reset, `spendCents`).',
  }),
  remainingCents: z
    .number()
    .nullable()
    .meta({ description: '`budgetCents` minus `periodSpendCents`, never below 0; null without a budget.' }),
  budgetResetsAt: z
    .string()
    .nullable()
    .meta({ description: 'When the budget period ends (ISO 8601); null: a lifetime budget never resets.' }),
};

const keyInfoSchema = z
  .object({
    id: z.string().meta({ example: 'key_0m5x2k1a09f3c2b1a0e4d5c6' }),
    name: z.string(),
    teamId: z.string().nullable().meta({ description: "The key's team; null without one." }),
    allowedModels: z.array(z.string()).meta({
      description:
        'Public model names the key may call; `"*"` allows every model. For a key in a team, the scope in force: the models both the key and its team allow.',
    }),
    tags: z.array(z.string()).meta({ description: "Default tags of the key's calls." }),
    ...holderLimitFields,
    expiresAt: z.string().nullable(),
    team: z
      .object({ id: z.string(), name: z.string(), ...holderLimitFields })
      .nullable()
      .meta({
        description:
          "The key's team: its limits and budget apply to the key's calls too (a call is refused when either refuses it). Null without a team.",
      }),
  })
  .meta({
    id: 'KeyInfo',
    description: 'The calling virtual key, as it sees itself: never its secret, never another key.',
  }) satisfies z.ZodType<KeyInfo>;

/** Only a virtual key has something to describe; the master key is told where to look instead. */
function keyIdOf(principal: Principal): string {
  if (principal.kind === 'virtual') return principal.key.id;
  throw new GatewayError('invalid_request', {
    message:
      'GET /v1/key describes the calling virtual key; the master key is not one (see GET /admin/keys).',
  });
}

/** `GET /v1/key` (DESIGN.md section 5, Governance): the calling key's own limits, budget and spend, and its team's. */
export function registerKeyRoute(scope: FastifyInstance, docs: OpenApiRegistry, reader: KeyInfoReader): void {
  scope.get('/key', async (request) => {
    const info = await reader.read(keyIdOf(request.principal));
    // Deleted since it was authenticated: refused like any other deleted key.
    if (info === undefined) throw new GatewayError('invalid_api_key');
    return info;
  });
  docs.add({
    method: 'get',
    path: '/v1/key',
    operation: {
      summary: 'The calling virtual key: limits, budget, spend and what remains',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      responses: {
        200: { description: 'The key.', content: { 'application/json': { schema: keyInfoSchema } } },
        400: { description: '`invalid_request`: called with the master key, which is not a virtual key.' },
        401: { description: '`invalid_api_key`: no key, or an unknown, disabled or expired one.' },
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
}
