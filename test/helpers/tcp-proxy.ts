import { once } from 'node:events';
import net from 'node:net';

/** A TCP proxy in front of a real server whose network can be broken and mended from a test. */
export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Breaks the network: resets every live connection and resets new ones until `restore()`. */
  cut(): void;
  /**
   * Hangs the network: live and new connections stay open but nothing is forwarded in either
   * direction until `restore()` (bytes are held, not dropped, as TCP would).
   */
  stall(): void;
  /**
   * Drops the network silently: live and new connections stay open, and every byte sent either
   * way is read and thrown away until `restore()` (a peer sees no error, no reset, no answer).
   */
  blackhole(): void;
  /** Mends the network after `cut()`, `stall()` or `blackhole()`; held bytes then flow, dropped ones are gone. */
  restore(): void;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  targetHost: string;
  targetPort: number;
  /** Each new connection is forwarded only after this long: a slow network or a busy server. */
  connectDelayMs?: number;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket;
}

type ProxyMode = 'open' | 'cut' | 'stalled' | 'blackholed';

export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const links = new Set<Link>();
  let mode: ProxyMode = 'open';

  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect({ host: options.targetHost, port: options.targetPort });
    const link: Link = { client, upstream };
    links.add(link);
    const drop = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (mode === 'open') connectAfter(link, options.connectDelayMs ?? 0);
    if (mode === 'blackholed') discard(link);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;

  /** Forwards a new link after `delayMs`, unless the network was broken or the link closed meanwhile. */
  const connectAfter = (link: Link, delayMs: number) => {
    if (delayMs === 0) return connect(link);
    setTimeout(() => {
      if (mode === 'open' && links.has(link)) connect(link);
    }, delayMs);
  };

  const resetAll = () => {
    for (const link of links) {
      link.client.resetAndDestroy();
      link.upstream.destroy();
    }
    links.clear();
  };

  return {
    port,
    cut() {
      mode = 'cut';
      resetAll();
    },
    stall() {
      mode = 'stalled';
      for (const link of links) disconnect(link);
    },
    blackhole() {
      mode = 'blackholed';
      for (const link of links) {
        disconnect(link);
        discard(link);
      }
    },
    restore() {
      if (mode === 'stalled' || mode === 'blackholed') for (const link of links) connect(link);
      mode = 'open';
    },
    async close() {
      mode = 'cut';
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function connect(link: Link): void {
  link.client.off('data', dropBytes);
  link.upstream.off('data', dropBytes);
  link.client.pipe(link.upstream);
  link.upstream.pipe(link.client);
}

/** Stops forwarding; a readable with no pipe and no 'data' listener stays paused and keeps its bytes. */
function disconnect(link: Link): void {
  link.client.unpipe(link.upstream);
  link.upstream.unpipe(link.client);
  link.client.pause();
  link.upstream.pause();
}

function dropBytes(): void {}

/** Reads and forgets whatever arrives on either side. */
function discard(link: Link): void {
  link.client.on('data', dropBytes).resume();
  link.upstream.on('data', dropBytes).resume();
}
