import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Variant } from '../config.ts';
import type { ReadinessProbe } from '../diagnostics/readiness-probe.ts';
import type { OpenApiRegistry } from './openapi.ts';
import { checkReadiness } from './readiness.ts';

const READY_RETRY_AFTER_SECONDS = '5';

const liveSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });
const readySchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'failed'])),
  })
  .meta({ id: 'Readiness' });

export interface HealthOptions {
  variant: Variant;
  probes: readonly ReadinessProbe[];
  timeoutMs: number;
}

export function registerHealthRoutes(
  app: FastifyInstance,
  docs: OpenApiRegistry,
  options: HealthOptions,
): void {
  // Never touches the database or the cache store: liveness is "the process answers".
  app.get('/health/live', async () => ({ status: 'ok' }));

  const ready = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    const report = await checkReadiness(options.probes, options.timeoutMs);
    if (!report.ready) reply.code(503).header('retry-after', READY_RETRY_AFTER_SECONDS);
    return { status: report.ready ? 'ok' : 'unavailable', checks: report.checks };
  };
  app.get('/health/ready', ready);
  if (options.variant === 'a') app.get('/health', ready);

  docs.add({
    method: 'get',
    path: '/health/live',
    operation: {
      summary: 'Liveness: 200 while the process responds',
      tags: ['health'],
      responses: { 200: { description: 'Alive', content: { 'application/json': { schema: liveSchema } } } },
    },
  });
  const readyDoc = {
    summary: 'Readiness: database, cache store and extension runtime',
    tags: ['health'],
    responses: {
      200: { description: 'Ready', content: { 'application/json': { schema: readySchema } } },
      503: {
        description: 'A dependency is unhealthy; `checks` names it. Carries Retry-After.',
        content: { 'application/json': { schema: readySchema } },
      },
    },
  };
  docs.add({ method: 'get', path: '/health/ready', operation: readyDoc });
  if (options.variant === 'a') {
    docs.add({
      method: 'get',
      path: '/health',
      operation: { ...readyDoc, summary: 'Alias of /health/ready (variant A)' },
    });
  }
}
