// A loopback webhook receiver in its own process for the delivery benchmark: answers 200 and
// remembers when each message arrived (wall clock, comparable across processes on one machine).
// BENCH_LATENCY_MS=n: each answer waits n ms first, as a real endpoint's would, so what bounds
// the rate is the sends in flight, not the queue's own work.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);
if (!Number.isFinite(LATENCY_MS) || LATENCY_MS < 0)
  throw new Error(
    `BENCH_LATENCY_MS must be a number of milliseconds, 0 or more, got "${process.env.BENCH_LATENCY_MS}"`,
  );
const arrivals = new Map<string, number>();
const server = http.createServer((req, res) => {
  const id = String(req.headers['webhook-id'] ?? req.headers['x-bench-id'] ?? '');
  req.resume();
  req.on('end', () => {
    arrivals.set(id, performance.timeOrigin + performance.now());
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
    };
    if (LATENCY_MS > 0) setTimeout(answer, LATENCY_MS);
    else answer();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});
process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'dump') {
    process.send!({ arrivals: Object.fromEntries(arrivals) });
    arrivals.clear();
  } else if (message.cmd === 'count') {
    process.send!({ count: arrivals.size });
  } else if (message.cmd === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
