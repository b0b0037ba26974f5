import type { FaultKind, FaultRecord } from '../history';

// Every fault the run injected, when it was injected (not when it was planned): a provider fault
// once the fake answered with it, a client's hang-up once it hung up, a kill once the process died.

export type Clock = () => number;

export class FaultLog {
  readonly records: FaultRecord[] = [];
  constructor(private readonly clock: Clock) {}

  note(kind: FaultKind, callId?: string, detail?: string): FaultRecord {
    const record: FaultRecord = { kind, at: this.clock(), ...(callId ? { callId } : {}), ...(detail ? { detail } : {}) };
    this.records.push(record);
    return record;
  }

  /** Marks a kill or restart as over. */
  recovered(record: FaultRecord): void {
    record.until = this.clock();
  }
}
