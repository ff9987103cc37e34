// Child process for the connection-cap test: opens `count` TCP connections to 127.0.0.1:<port>
// (at most 256 connecting at once), sends nothing on them, reports what happened, and holds what
// stays open until told to stop — or until its own deadline, so it never outlives a failed test.
import net from 'node:net';

const [portText, countText, deadlineText] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
setTimeout(() => process.exit(0), Number(deadlineText ?? 120) * 1000);

const sockets = new Set<net.Socket>();
let connected = 0;
let closedByServer = 0;
let failed = 0;
let started = 0;
let settled = 0;

function next(): void {
  if (started >= count) return;
  started++;
  const socket = net.connect({ port, host: '127.0.0.1' });
  let wasConnected = false;
  socket.on('connect', () => {
    wasConnected = true;
    connected++;
    sockets.add(socket);
    settled++;
    done();
    next();
  });
  socket.on('error', () => {});
  // Reading, so that a connection the server closes is seen closed and its descriptor freed.
  socket.resume();
  socket.on('close', () => {
    sockets.delete(socket);
    if (wasConnected) closedByServer++;
    else {
      failed++;
      settled++;
      done();
      next();
    }
  });
}

function done(): void {
  if (settled === count) process.send!({ connected, failed, closedByServer, open: sockets.size });
}

process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'report')
    process.send!({ connected, failed, closedByServer, open: sockets.size });
  if (message.cmd === 'stop') {
    for (const s of sockets) s.destroy();
    process.exit(0);
  }
});

for (let i = 0; i < 256; i++) next();
