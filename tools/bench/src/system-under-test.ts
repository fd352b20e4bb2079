/**
 * The contract every benchmarked operator implements (Orkestra in a child process, kro as a Go
 * binary), so one measurement routine drives both the same way.
 */
import type { StepTotal } from './child-protocol.js';
import type { CrResource } from './workload.js';

/** MemorySample is one reading of an operator process's memory, in bytes. */
export interface MemorySample {
  readonly rssBytes: number;
  /** Heap in use: V8's heapUsed after a full GC (Orkestra), Go's heap_alloc as reported (kro). */
  readonly heapUsedBytes?: number;
  /** How it was taken, e.g. `after global.gc(), process.memoryUsage()`. */
  readonly method: string;
}

/** SystemUnderTest is one operator, started and idle, ready for CRs in `namespace`. */
export interface SystemUnderTest {
  /** Display name, e.g. `orkestra` or `kro v0.9.4`. */
  readonly name: string;
  /** Its User-Agent product in the API server's audit log (`orkestra-operator`), when it sends one of its own. */
  readonly client?: string;
  /** The CR type it reconciles. */
  readonly resource: CrResource;
  /** Namespace its CRs and children live in. */
  readonly namespace: string;
  /** OS process id of the operator (for RSS). */
  readonly pid: number;
  /** memory reads the operator process's memory now. */
  memory(): Promise<MemorySample>;
  /** reconciles returns the operator's cumulative count of finished reconciles, when it exposes one. */
  reconciles(): Promise<number | null>;
  /** cpuMs returns the operator process's CPU time so far (user + system), ms, when it can be read. */
  cpuMs(): Promise<number | null>;
  /** resyncsAdded returns how many keys the operator's resync has queued so far, when it says. */
  resyncsAdded?(): Promise<number | null>;
  /** reconcileSteps returns the summed time and count of each reconcile step so far, when it says (Orkestra). */
  reconcileSteps?(): Promise<Readonly<Record<string, StepTotal>> | null>;
  /** stop terminates the operator. Idempotent. */
  stop(): Promise<void>;
}
