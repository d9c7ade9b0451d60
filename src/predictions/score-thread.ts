import { Worker } from 'node:worker_threads';
import { engineProcessOptions } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import type { ScoreRequest, ScoreResponse } from './score.worker';

const SCRIPT = workerScript(__dirname, __filename, 'score.worker');

interface Waiting {
  resolve: (answer: ScoreResponse) => void;
  reject: (error: Error) => void;
}

/**
 * The thread that scores rows within a request: one long-lived worker thread of this process, started when first
 * needed and kept, so that a call costs its rows and not a thread's or an engine process's start and the engine's
 * modules loaded again (0.3 to 0.6 s a call measured, most of a 20-row call). Its work is bounded (SCORE_MAX_ROWS rows
 * of a JSON body of at most MAX_JSON_BODY_BYTES) and it runs beside the event loop, never on it; calls wait their
 * turn. A thread that dies (out of memory) fails the calls it held, and the next call starts another.
 */
export class ScoreThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;

  private start(): Worker {
    const { maxMemoryMb } = engineProcessOptions();
    const worker = new Worker(SCRIPT, { resourceLimits: maxMemoryMb > 0 ? { maxOldGenerationSizeMb: maxMemoryMb } : undefined });
    // an idle thread keeps nothing alive
    worker.unref();
    worker.on('message', ({ id, answer }: { id: number; answer: ScoreResponse }) => {
      const w = this.waiting.get(id);
      this.waiting.delete(id);
      if (this.waiting.size === 0) worker.unref();
      w?.resolve(answer);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the scoring thread exited with code ${code}`)));
    return worker;
  }

  run(request: ScoreRequest): Promise<ScoreResponse> {
    const worker = (this.worker ??= this.start());
    const id = this.next++;
    return new Promise<ScoreResponse>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // held while it owes an answer
      worker.ref();
      worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
