/**
 * A full garbage collection of a running Node.js process, asked through its inspector: SIGUSR1
 * opens the inspector on 127.0.0.1:9229 (Node's default), and `HeapProfiler.collectGarbage`
 * runs a major GC. The memory entry collects before it reads the resident memory of open
 * streams (bench/open-streams.ts), so what it reads is what they hold, not garbage waiting for a
 * collection. Nothing in the gateway is changed for it: any Node process accepts SIGUSR1.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';

const INSPECTOR = 'http://127.0.0.1:9229';
/** Under valgrind the inspector takes seconds to open. */
const OPEN_TIMEOUT_MS = 120_000;

export interface HeapCollector {
  collect(): Promise<void>;
  close(): void;
}

async function debuggerUrl(pid: number): Promise<string> {
  const deadline = Date.now() + OPEN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const answer = await request(`${INSPECTOR}/json/list`);
      const targets = (await answer.body.json()) as { webSocketDebuggerUrl?: string }[];
      const url = targets[0]?.webSocketDebuggerUrl;
      if (url !== undefined) return url;
    } catch {
      // Not listening yet.
    }
    await delay(200);
  }
  throw new Error(`pid ${pid} did not open its inspector on ${INSPECTOR} within ${OPEN_TIMEOUT_MS} ms`);
}

export async function openHeapCollector(pid: number): Promise<HeapCollector> {
  process.kill(pid, 'SIGUSR1');
  const socket = new WebSocket(await debuggerUrl(pid));
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`inspector of pid ${pid}: connection failed`)), {
      once: true,
    });
  });
  let nextId = 1;
  return {
    collect: () =>
      new Promise<void>((resolve) => {
        const id = nextId++;
        const onMessage = (event: MessageEvent) => {
          if ((JSON.parse(String(event.data)) as { id?: number }).id !== id) return;
          socket.removeEventListener('message', onMessage);
          resolve();
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      }),
    close: () => socket.close(),
  };
}
