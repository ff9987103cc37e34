#!/usr/bin/env node
// Entry point of the `twinworld` binary: hands argv and the process streams to the dispatcher
// (src/cli/run.ts) and turns its answer into the exit code.
import { runCli } from './run.js';
import { outputClosed } from './signals.js';

// `twinworld export x | head` closes stdout early: that is the reader's choice, not a failure. A
// command that waits for it (`listen`, which must disable its endpoint) ends by itself instead.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') {
    if (!outputClosed()) process.exit(0);
    return;
  }
  throw error;
});

const io = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: {
    stdin: process.stdin.isTTY === true,
    stdout: process.stdout.isTTY === true,
    stderr: process.stderr.isTTY === true,
  },
};

// exitCode rather than exit(): pending stdout writes to a pipe still get flushed.
process.exitCode = await runCli(process.argv.slice(2), io);
