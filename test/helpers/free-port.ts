import net from 'node:net';

/** The first port of Linux's ephemeral range, where the kernel picks the local port of every outgoing connection. */
const EPHEMERAL_FROM = 32_768;

/**
 * A port free now, and free of the ports `alsoFree` after it, chosen below the ephemeral range: a
 * port there that is free when checked can be taken by any outgoing connection of the tests
 * running alongside before the child process binds it. For processes that must be told their
 * port (a cluster node and its bus port, a primary that forks workers on one port).
 */
export async function freePortBelowEphemeral(alsoFree: readonly number[] = []): Promise<number> {
  const highest = Math.max(0, ...alsoFree);
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (EPHEMERAL_FROM - 10_000 - highest));
    if (await allFree([port, ...alsoFree.map((offset) => port + offset)])) return port;
  }
}

async function allFree(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) if (!(await isFree(port))) return false;
  return true;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
