import { readFileSync } from 'node:fs';

/**
 * TestenvVersions lists the server versions `tools/testenv/build.sh` builds and this package
 * looks for in the cache. The single source is `packages/testenv/versions.json`.
 */
export interface TestenvVersions {
  /** Kubernetes (kube-apiserver, kube-controller-manager), e.g. `v1.34.4`. */
  readonly kubernetes: string;
  /** etcd, e.g. `v3.6.16`. */
  readonly etcd: string;
  /** FerretDB, e.g. `v1.24.2`. */
  readonly ferretdb: string;
  /** moto (PyPI), e.g. `5.2.5`. */
  readonly moto: string;
  /** verdaccio (npm), the registry of the publishing tests, e.g. `6.8.0`. */
  readonly verdaccio: string;
  /** kwok (sigs.k8s.io/kwok), e.g. `v0.7.0`. */
  readonly kwok: string;
  /** Debian's prometheus package version, e.g. `2.42.0+ds-5+deb12u1`. */
  readonly prometheus: string;
  /** PostgreSQL's major version (Debian's `postgresql-<major>`), e.g. `15`. */
  readonly postgresql: string;
  /** Debian's redis-tools package version, e.g. `5:7.0.15-1~deb12u10`. */
  readonly redis: string;
  /** Kafka (Maven Central `org.apache.kafka:kafka_2.13`), run in KRaft mode, e.g. `3.9.1`. */
  readonly kafka: string;
  /** Mailpit (github.com/axllent/mailpit, Go module proxy), the SMTP server of the notification tests, e.g. `v1.33.1`. */
  readonly mailpit: string;
}

const overrides = {
  kubernetes: 'ORKESTRA_K8S_VERSION',
  etcd: 'ORKESTRA_ETCD_VERSION',
  ferretdb: 'ORKESTRA_FERRETDB_VERSION',
  moto: 'ORKESTRA_MOTO_VERSION',
  verdaccio: 'ORKESTRA_VERDACCIO_VERSION',
  kwok: 'ORKESTRA_KWOK_VERSION',
  prometheus: 'ORKESTRA_PROMETHEUS_VERSION',
  postgresql: 'ORKESTRA_POSTGRESQL_VERSION',
  redis: 'ORKESTRA_REDIS_VERSION',
  kafka: 'ORKESTRA_KAFKA_VERSION',
  mailpit: 'ORKESTRA_MAILPIT_VERSION',
} as const satisfies Record<keyof TestenvVersions, string>;

/**
 * readVersions returns the pinned versions from `versions.json`, each overridable by the same
 * environment variable `build.sh` honours (`ORKESTRA_K8S_VERSION`, `ORKESTRA_ETCD_VERSION`,
 * `ORKESTRA_FERRETDB_VERSION`, `ORKESTRA_MOTO_VERSION`, `ORKESTRA_VERDACCIO_VERSION`).
 */
export function readVersions(env: NodeJS.ProcessEnv = process.env): TestenvVersions {
  const raw: unknown = JSON.parse(readFileSync(new URL('../versions.json', import.meta.url), 'utf8'));
  const pick = (key: keyof TestenvVersions): string => {
    const fromEnv = env[overrides[key]];
    if (fromEnv != null && fromEnv !== '') return fromEnv;
    const value = typeof raw === 'object' && raw != null ? (raw as Record<string, unknown>)[key] : undefined;
    if (typeof value !== 'string') throw new Error(`versions.json has no string "${key}"`);
    return value;
  };
  return {
    kubernetes: pick('kubernetes'),
    etcd: pick('etcd'),
    ferretdb: pick('ferretdb'),
    moto: pick('moto'),
    verdaccio: pick('verdaccio'),
    kwok: pick('kwok'),
    prometheus: pick('prometheus'),
    postgresql: pick('postgresql'),
    redis: pick('redis'),
    kafka: pick('kafka'),
    mailpit: pick('mailpit'),
  };
}
