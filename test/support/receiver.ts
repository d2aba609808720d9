import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it: raw body bytes (as text) and lower-cased headers. */
export interface ReceivedRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
  at: number;
}

/** How to answer one request: status (default 200), headers, a delay, or hang without answering. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
  hang?: boolean;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Replies for the next requests to `path`, in order; once used up, `fallback` answers. */
  queue(path: string, ...replies: Reply[]): void;
  fallback: Reply;
  /** Resolves once `count` requests (optionally matching) have arrived. */
  waitFor(count: number, match?: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const pending = new Map<string, Reply[]>();
  const receiver = { requests, fallback: { status: 200 } as Reply } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      requests.push({ path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8'), headers, at: Date.now() });
      const reply = pending.get(req.url ?? '/')?.shift() ?? receiver.fallback;
      if (reply.hang) return;
      setTimeout(() => {
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end('ok');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.queue = (path, ...replies) => void pending.set(path, [...(pending.get(path) ?? []), ...replies]);
  receiver.waitFor = async (count, match = () => true, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = requests.filter(match);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline)
        throw new Error(`receiver: timed out waiting for ${count} request(s), got ${matching.length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
