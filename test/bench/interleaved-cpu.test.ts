import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { interleavedCpu } from '../../bench/interleaved-cpu.ts';

/**
 * The scale entry's CPU comparison is fair only if every gateway is served in turns, the order
 * reversed every other round, after its own warm-up: a gateway always served first (or served
 * all at once) would take the machine's drift, or the compiler's work, as its own.
 */
describe('interleaved CPU rounds of the scale entry', () => {
  const arrivals: string[] = [];
  const servers: Server[] = [];
  const origins: string[] = [];

  before(async () => {
    for (const id of ['small', 'large']) {
      const server = createServer((request, response) => {
        arrivals.push(`${id}${request.url}`);
        request.resume();
        request.on('end', () => response.end('{}'));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });

  after(() => {
    for (const server of servers) server.close();
  });

  it('warms each up, then serves blocks in turns, the order reversed every other round', async () => {
    const targets = ['small', 'large'].map((id, index) => ({
      id,
      origin: origins[index],
      workerPid: process.pid,
      call: { method: 'POST' as const, path: `/${id}`, headers: {}, body: '{}' },
    }));
    const figures = await interleavedCpu(targets, { warmupCalls: 1, rounds: 3, callsPerRound: 2 });

    const blocks = arrivals.map((arrival) => arrival.split('/')[0]);
    assert.deepEqual(blocks, [
      'small',
      'large',
      ...['small', 'small', 'large', 'large'],
      ...['large', 'large', 'small', 'small'],
      ...['small', 'small', 'large', 'large'],
    ]);
    assert.deepEqual(
      figures.map((figure) => [figure.id, figure.rounds.length]),
      [
        ['small', 3],
        ['large', 3],
      ],
    );
    for (const figure of figures) assert.ok(figure.usPerCall >= 0 && Number.isFinite(figure.usPerCall));
  });
});
