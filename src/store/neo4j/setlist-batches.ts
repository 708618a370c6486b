/**
 * Group commit for setlist writes. While one setlist transaction of this process is on its way,
 * the writes that arrive wait, and the next transaction takes them all (up to `maxBatch`): one
 * lock of each service and song, one statement per step, one commit for all of them, and the
 * deltas of writes to the same songs summed before they are sent. A lone write goes at once, so
 * one writer waits for nothing; eight writers on the same popular songs stop queueing on each
 * other's song locks and share the cost of a transaction instead.
 *
 * Each write still gets its own answer, worked out in arrival order against the setlist as the
 * writes before it in the batch left it. A batch that fails (a song gone: 'no-song', a deadlock
 * past the driver's retries, anything) has written nothing, and each of its writes runs again on
 * its own, so one bad write answers for itself and never for its neighbours.
 */
export class Batches<W, R> {
  private readonly waiting: { write: W; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private busy = false;

  constructor(
    /** Writes these in one transaction; throws (having written nothing) if any of them fails. */
    private readonly together: (writes: W[]) => Promise<R[]>,
    /** Writes one on its own, answering its failures as a lone write does. */
    private readonly alone: (write: W) => Promise<R>,
    /** A failure every write would meet alone too (the store unreachable): answered to all of them. */
    private readonly sharedFailure: (err: unknown) => boolean = () => false,
    readonly maxBatch = 64,
  ) {}

  submit(write: W): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
      // Started on the next turn of the event loop, not now: writes submitted in this turn (the
      // writers a batch just answered, coming back) go together instead of one alone first.
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain() {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        if (batch.length === 1) {
          await this.alone(batch[0].write).then(batch[0].resolve, batch[0].reject);
          continue;
        }
        let answers: R[];
        try {
          answers = await this.together(batch.map((b) => b.write));
        } catch (err) {
          if (this.sharedFailure(err)) {
            for (const b of batch) b.reject(err);
            continue;
          }
          // Written nothing: each write on its own says what went wrong with it.
          for (const b of batch) await this.alone(b.write).then(b.resolve, b.reject);
          continue;
        }
        batch.forEach((b, i) => b.resolve(answers[i]));
      }
    } finally {
      this.busy = false;
    }
  }
}
