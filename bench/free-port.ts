import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

/** A port nobody listens on right now (the kernel's choice for port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
