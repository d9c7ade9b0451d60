import * as net from 'node:net';

/** Ports handed out by this process so far (each once). */
let handedOut = 0;

/** Whether `port` can be listened on at 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on the loopback interface right now, for servers the tests start. Each jest worker draws from
 * its own range below Linux's ephemeral ports (32768 and up), never handing out a port twice: a port picked by
 * the kernel (listen on 0) and released could be picked again by a test file running beside it before its
 * server bound it (a test then reached another file's server). A port busy for another reason is skipped.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  // worker 0 is the global set-up; a second jest run on the same machine is told apart by its process id
  const range = 10_000 + (((worker % 16) * 7 + (process.pid % 7)) % 112) * 200;
  while (handedOut < 200) {
    const port = range + handedOut++;
    if (await canListen(port)) return port;
  }
  throw new Error("no free port left in this test worker's range");
}
