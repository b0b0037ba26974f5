// Group commit for the paid path's statements: a call that finds no batch of its kind being
// written is written at once, alone; calls that arrive while one is being written wait for it and
// go together in the next (at most `maxBatch`). A call alone is never held back for a window, and
// under load one round trip and one commit serve many calls. Nothing outlives the batch in flight.

export interface GroupCommitOptions<Call, Answer> {
  /** Writes a batch (two or more calls); one answer per call, in the calls' order. */
  writeBatch(calls: Call[]): Promise<Answer[]>;
  /** Writes one call on its own: a lone call, and each call of a batch the database refused. */
  writeOne(call: Call): Promise<Answer>;
  /** Whether a batch's error left nothing written (the database refused it and rolled it back). */
  rolledBack(error: unknown): boolean;
  maxBatch: number;
  /** Told each batch's size as it is written. */
  onBatch?(size: number): void;
}

interface Waiting<Call, Answer> {
  call: Call;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

export class GroupCommit<Call, Answer> {
  private readonly waiting: Waiting<Call, Answer>[] = [];
  private writing = false;

  constructor(private readonly options: GroupCommitOptions<Call, Answer>) {}

  submit(call: Call): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ call, resolve, reject });
      if (!this.writing) void this.writeWaiting();
    });
  }

  private async writeWaiting(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.options.onBatch?.(batch.length);
      await (batch.length === 1 ? this.writeAlone(batch[0]!) : this.writeTogether(batch));
    }
    this.writing = false;
  }

  private async writeAlone(waiting: Waiting<Call, Answer>): Promise<void> {
    try {
      waiting.resolve(await this.options.writeOne(waiting.call));
    } catch (error) {
      waiting.reject(error);
    }
  }

  /**
   * A batch the database refused as a whole (a deadlock with another instance's batch, a
   * constraint) wrote nothing, so each call is written again on its own and gets its own answer;
   * any other failure (the connection, a timeout: whether it committed is unknown) is every call's.
   */
  private async writeTogether(batch: Waiting<Call, Answer>[]): Promise<void> {
    let answers: Answer[];
    try {
      answers = await this.options.writeBatch(batch.map((waiting) => waiting.call));
    } catch (error) {
      if (!this.options.rolledBack(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => this.writeAlone(waiting)));
      return;
    }
    batch.forEach((waiting, index) => waiting.resolve(answers[index]!));
  }
}
