import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, ServerBinary } from './find-binary.js';
import type { FindBinaryOptions } from './find-binary.js';
import { freePort } from './free-port.js';
import { httpRequest } from './http-request.js';
import { startServerProcess } from './server-process.js';

/** PrometheusServerOptions configures {@link startPrometheus}. */
export interface PrometheusServerOptions extends FindBinaryOptions {
  /** Time Prometheus may take to be ready. Default 60 000 ms. */
  readonly startTimeoutMs?: number;
}

/** PrometheusServer is a running Prometheus on loopback that scrapes itself every second. */
export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** stop terminates Prometheus and removes its data. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startPrometheus starts Prometheus with its storage in a temporary directory and one scrape job
 * (`prometheus`, itself, every second), resolving once `/-/ready` answers 200. Series such as
 * `up` and `prometheus_build_info` appear after the first scrape.
 *
 * @example
 * const prom = await startPrometheus();
 * await fetch(`${prom.url}/api/v1/query?query=up`);
 */
export async function startPrometheus(options: PrometheusServerOptions = {}): Promise<PrometheusServer> {
  const bin = findBinary(ServerBinary.Prometheus, options).path;
  return await startServerProcess('orkestra-prometheus-', async (dir) => {
    const port = await freePort();
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      `global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: prometheus\n    static_configs: [{targets: ['127.0.0.1:${port}']}]\n`,
    );
    const url = `http://127.0.0.1:${port}`;
    return {
      server: {
        name: 'prometheus',
        command: bin,
        args: [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        timeoutMs: options.startTimeoutMs ?? 60_000,
        isReady: async () => (await httpRequest(`${url}/-/ready`, { timeoutMs: 1000 })).status === 200,
      },
      value: () => ({ url, port }),
    };
  });
}
