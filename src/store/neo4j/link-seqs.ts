/**
 * Link seqs (the PERFORMED_IN order: unique in the store, never reused) handed out from blocks
 * that this process reserves from the PERFORMED_IN sequence, each reservation a transaction of
 * its own (reserveLinkSeqs). So no writer holds the sequence's lock, which every new link would
 * otherwise queue on until its writer commits; a reservation is one short statement per
 * `block` links.
 *
 * Seqs stay unique across processes (each block is the sequence's to give once) and grow within
 * a process; a block left unused when the process stops is a gap, as a deleted link is. Across
 * replicas seqs are not in the order links were made: nothing reads them as time (positions order
 * a setlist; seqs only break ties that positions 1..n never leave).
 */
export class LinkSeqs {
  private next = 1;
  private end = 0;
  private reserving: Promise<void> = Promise.resolve();

  constructor(
    /** Move the sequence by `count` in a transaction of its own; its new value. */
    private readonly reserve: (count: number) => Promise<number>,
    private readonly block = 1000,
  ) {}

  /** `count` new seqs, ascending. */
  async take(count: number): Promise<number[]> {
    if (count === 0) return [];
    // One reservation at a time: concurrent writers wait for it rather than each reserving a block.
    const turn = this.reserving.then(async () => {
      if (this.end - this.next + 1 < count) {
        const size = Math.max(this.block, count);
        const high = await this.reserve(size);
        [this.next, this.end] = [high - size + 1, high];
      }
      const seqs = Array.from({ length: count }, (_, i) => this.next + i);
      this.next += count;
      return seqs;
    });
    this.reserving = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** Forget the block held (after an import raised the sequence past it). */
  discard(): void {
    this.reserving = this.reserving.then(() => {
      [this.next, this.end] = [1, 0];
    });
  }
}
