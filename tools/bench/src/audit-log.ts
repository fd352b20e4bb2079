/**
 * Attributing API requests to their client from kube-apiserver's audit log (JSON lines, one event
 * per request stage): the idle-cost study counts every request each operator made, relists and
 * re-opened watches included, by user agent.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** AuditEvent is the part of an audit.k8s.io/v1 Event the study reads. */
export interface AuditEvent {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly userAgent?: string;
  readonly objectRef?: {
    readonly resource?: string;
    readonly apiGroup?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  readonly requestURI?: string;
}

/** ClientRequests counts one client's requests by `verb group/resource[/subresource]`. */
export interface ClientRequests {
  readonly client: string;
  readonly total: number;
  readonly byRequest: Readonly<Record<string, number>>;
}

/**
 * clientOf names the client of a user agent: the product before the first `/` (`kro`,
 * `node-fetch`, `kube-apiserver`), or the whole agent when it has none.
 */
export function clientOf(userAgent: string | undefined): string {
  if (userAgent == null || userAgent === '') return 'unknown';
  const product = userAgent.split(' ')[0] ?? userAgent;
  const slash = product.indexOf('/');
  return slash > 0 ? product.slice(0, slash) : product;
}

/**
 * countByClient counts each request once (by audit ID, whatever stages it logged) from the
 * JSON-lines `text`, grouped by clientOf(userAgent); malformed lines are skipped.
 */
export function countByClient(text: string): ClientRequests[] {
  const seen = new Set<string>();
  const byClient = new Map<string, Map<string, number>>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: AuditEvent;
    try {
      event = JSON.parse(line) as AuditEvent;
    } catch {
      continue;
    }
    if (event.auditID == null || seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    const ref = event.objectRef;
    const resource =
      ref?.resource == null
        ? (event.requestURI?.split('?')[0] ?? '?')
        : `${ref.apiGroup ?? ''}/${ref.resource}${ref.subresource == null ? '' : `/${ref.subresource}`}`;
    const key = `${event.verb.toUpperCase()} ${resource}`;
    const client = clientOf(event.userAgent);
    const counts = byClient.get(client) ?? new Map<string, number>();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    byClient.set(client, counts);
  }
  return [...byClient.entries()]
    .map(([client, counts]) => ({
      client,
      total: [...counts.values()].reduce((a, b) => a + b, 0),
      byRequest: Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b))),
    }))
    .sort((a, b) => b.total - a.total);
}

/** ClientWindow is one client's requests in a window, leases and watches apart. */
export interface ClientWindow {
  /** Requests other than watches and Lease requests: what an idle operator should not make. */
  readonly requests: number;
  /** Lease requests (leader election), reported on their own. */
  readonly leases: number;
  readonly watches: number;
  /** The `requests`, by `verb group/resource`. */
  readonly byRequest: Readonly<Record<string, number>>;
}

/** clientWindow splits one client's counts (from countByClient) into requests, Lease requests and watches. */
export function clientWindow(clients: readonly ClientRequests[], client: string): ClientWindow {
  const counts = clients.find((c) => c.client === client)?.byRequest ?? {};
  let requests = 0;
  let leases = 0;
  let watches = 0;
  const byRequest: Record<string, number> = {};
  for (const [key, n] of Object.entries(counts)) {
    if (key.startsWith('WATCH ')) watches += n;
    else if (key.includes('coordination.k8s.io/leases')) leases += n;
    else {
      requests += n;
      byRequest[key] = n;
    }
  }
  return { requests, leases, watches, byRequest };
}

/** auditLogArgs are the kube-apiserver flags that write every request to `auditLog` under AUDIT_POLICY in `policyFile`. */
export function auditLogArgs(policyFile: string, auditLog: string): string[] {
  return [
    `--audit-policy-file=${policyFile}`,
    `--audit-log-path=${auditLog}`,
    '--audit-log-format=json',
    '--audit-log-mode=blocking',
  ];
}

/** AUDIT_POLICY logs every request at Metadata level, from the stage its response started. */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

/** readFrom reads a file from byte `offset` to its end (the audit log written since a window began). */
export function readFrom(path: string, offset: number): string {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** SHARD_AGENT finds the shard of a sharded operator's User-Agent (`…; shard <id>)`, ADR 0045). */
const SHARD_AGENT = /; shard ([^)\s]+)\)/;

/** ShardWriters is which shards wrote each object, from an audit log. */
export interface ShardWriters {
  /** Objects written (create, update, patch, delete) by a sharded operator. */
  readonly objects: number;
  /** `resource namespace/name` of each object written by two shards or more. */
  readonly doubles: readonly string[];
}

/**
 * shardWriters reads which shards wrote each object of `resources` (plurals) from the JSON-lines
 * audit `text`: with stable membership every object is written by one shard only, so an object
 * written by two shards' identities is a double reconcile. Each request counts once (by audit ID).
 */
export function shardWriters(text: string, resources: readonly string[]): ShardWriters {
  const seen = new Set<string>();
  const writers = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: AuditEvent;
    try {
      event = JSON.parse(line) as AuditEvent;
    } catch {
      continue;
    }
    if (seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    const ref = event.objectRef;
    if (ref?.resource == null || !resources.includes(ref.resource) || ref.name == null) continue;
    if (!['create', 'update', 'patch', 'delete'].includes(event.verb)) continue;
    const shard = SHARD_AGENT.exec(event.userAgent ?? '')?.[1];
    if (shard == null) continue;
    const key = `${ref.resource} ${ref.namespace ?? ''}/${ref.name}`;
    const set = writers.get(key) ?? new Set<string>();
    set.add(shard);
    writers.set(key, set);
  }
  return {
    objects: writers.size,
    doubles: [...writers].filter(([, shards]) => shards.size > 1).map(([key]) => key),
  };
}
