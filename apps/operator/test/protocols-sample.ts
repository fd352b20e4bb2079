/**
 * The protocols sample (docs/reference/katalog.md §15.1.1): a Katalog whose one entry reads a
 * PostgreSQL count (`spec.owner` a bind parameter), a Redis `LLEN` (`spec.queue` the key) and
 * Prometheus' own `up` (`promValue`, `promAboveThreshold`), and renders a ConfigMap child and its
 * status from the answers. Run in this process (`protocols-sample.integration.test.ts`) and under
 * the `ork dev` binary (`e2e/dev-protocols.integration.test.ts`) against the same real servers.
 */
import { connect } from 'node:net';
import type { usePostgres, usePrometheus, useRedis } from '@orkestra/testenv/vitest';

/** SampleServers are the test's servers, read once they have started. */
export interface SampleServers {
  readonly postgres: ReturnType<typeof usePostgres>;
  readonly prometheus: ReturnType<typeof usePrometheus>;
  readonly redis: ReturnType<typeof useRedis>;
}

/** SAMPLE_ANSWERS is what the sample's CR `web` (owner `web`, queue `orders`) renders. */
export const SAMPLE_ANSWERS = {
  status: { pending: '2', backlog: '5', up: '1', scraping: 'true' },
  configMap: { PENDING: '2', BACKLOG: '5', UP: '1' },
} as const;

/** seedSample fills Redis' `orders` list (5 items) and waits for Prometheus' first scrape of itself. */
export async function seedSample(
  servers: SampleServers,
  waitFor: <T>(what: string, check: () => Promise<T | undefined>) => Promise<T>,
): Promise<void> {
  await redisWrite(servers.redis, 'RPUSH orders a b c d e');
  await waitFor('Prometheus to have scraped itself', async () => {
    const answer = await fetch(
      `${servers.prometheus().url}/api/v1/query?query=${encodeURIComponent('up{job="prometheus"}')}`,
    );
    const body = (await answer.json()) as { data: { result: unknown[] } };
    return body.data.result.length > 0 ? true : undefined;
  });
}

/** redisWrite sends inline commands to the test's Redis as its admin (the protocol only reads). */
function redisWrite(redis: SampleServers['redis'], ...commands: string[]): Promise<string> {
  const { port, password } = redis();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.split('\r\n').length > commands.length + 1) socket.end();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write([`AUTH ${password}`, ...commands].map((c) => `${c}\r\n`).join(''));
  });
}

/** sampleKatalog is the sample for the CRD group `group`: three protocols, a ConfigMap child and status fields from their answers. */
export function sampleKatalog(servers: SampleServers, group: string): string {
  const db = servers.postgres();
  const { prometheus, redis } = servers;
  return `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: protocols-sample}
spec:
  crds:
    queue:
      apiTypes: {group: ${group}, version: v1, kind: Queue, plural: queues}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                owner: {type: string}
                queue: {type: string}
            status:
              type: object
              x-kubernetes-preserve-unknown-fields: true
      operatorBox:
        external:
          - name: jobs
            protocol: postgres
            url: postgres://${db.user}@127.0.0.1:${db.port}/${db.database}
            query: SELECT count(*) AS pending FROM (VALUES ('web', 'pending'), ('web', 'pending'), ('web', 'done'), ('api', 'pending')) AS jobs(owner, state) WHERE owner = $1 AND state = $2
            params: ["{{ spec.owner }}", pending]
            auth: {secretRef: {name: pg-reader, key: password}}
            timeout: 5s
          - name: backlog
            protocol: redis
            url: redis://127.0.0.1:${redis().port}/0
            query: 'LLEN "{{ spec.queue }}"'
            auth: {secretRef: {name: redis-reader, key: password}}
            timeout: 5s
          - name: up
            protocol: prometheus
            url: ${prometheus().url}
            query: 'up{job="prometheus"}'
            timeout: 5s
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-answers"
              data:
                PENDING: "{{ external.jobs.rows.0.pending }}"
                BACKLOG: "{{ external.backlog.result }}"
                UP: "{{ promValue external.up }}"
        status:
          fields:
            - {path: pending, value: "{{ external.jobs.result }}"}
            - {path: backlog, value: "{{ external.backlog.result }}"}
            - {path: up, value: "{{ promValue external.up }}"}
            - {path: scraping, value: "{{ promAboveThreshold external.up 0 }}"}
`;
}
