/**
 * @orkestra/testenv starts real test servers on loopback, from binaries built by
 * `tools/testenv/build.sh` (or found through `TEST_ASSET_*` / `KUBEBUILDER_ASSETS`): etcd +
 * kube-apiserver + kube-controller-manager, moto for S3, FerretDB for MongoDB and verdaccio for
 * npm. For tests and `ork dev`; never for production. Vitest helpers live in
 * `@orkestra/testenv/vitest`.
 *
 * Main exports: startControlPlane, startS3, startMongo, startPostgres, startPrometheus, startRedis, startKafka, startMailpit (SMTP), startNpmRegistry (verdaccio),
 * connectControlPlane, sumMetric,
 * startFreezableProxy (a TCP proxy whose open connections can be made to go silent),
 * installCrd / crClient / createNamespace (custom resources for tests), findBinary, TestenvError.
 *
 * @example
 * import { CoreV1Api } from '@kubernetes/client-node';
 * import { startControlPlane } from '@orkestra/testenv';
 *
 * const cp = await startControlPlane();
 * await cp.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
 * await cp.stop();
 */
export { startControlPlane } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions, ControlPlaneTimings, ServerInfo } from './control-plane.js';
export { connectControlPlane } from './control-plane-client.js';
export type { ControlPlaneClient, ControlPlaneConnection } from './control-plane-client.js';
export { startS3 } from './s3-server.js';
export type { S3Server, S3ServerOptions } from './s3-server.js';
export { startMongo } from './mongo-server.js';
export { startNpmRegistry } from './npm-registry.js';
export type { NpmRegistry, NpmRegistryOptions } from './npm-registry.js';
export type { MongoServer, MongoServerOptions } from './mongo-server.js';
export { startPostgres } from './postgres-server.js';
export type { PostgresServer, PostgresServerOptions } from './postgres-server.js';
export { startPrometheus } from './prometheus-server.js';
export type { PrometheusServer, PrometheusServerOptions } from './prometheus-server.js';
export { startRedis } from './redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis-server.js';
export { startKafka } from './kafka-server.js';
export type { KafkaServer, KafkaServerOptions } from './kafka-server.js';
export { startMailpit } from './mailpit-server.js';
export type { MailpitMessage, MailpitServer, MailpitServerOptions } from './mailpit-server.js';
export { sumMetric } from './sum-metric.js';
export { startFreezableProxy } from './freezable-proxy.js';
export type { FreezableProxy, FreezableProxyOptions } from './freezable-proxy.js';
export { proxiedKubeConfig } from './proxied-kube-config.js';
export { deleteCrd, installCrd } from './install-crd.js';
export { pauseProcess } from './pause-process.js';
export type { CustomResourceType, InstallCrdOptions } from './install-crd.js';
export { crClient } from './cr-client.js';
export type { CrClient, CustomObject, CustomObjectCondition } from './cr-client.js';
export { createNamespace } from './create-namespace.js';
export { assetVariable, defaultCacheRoot, findBinary, ServerBinary } from './find-binary.js';
export type { FindBinaryOptions, FoundBinary } from './find-binary.js';
export { readVersions } from './versions.js';
export type { TestenvVersions } from './versions.js';
export { isCi } from './is-ci.js';
export { isTestenvError, TestenvError, TestenvErrorCode } from './testenv-error.js';
export type { TestenvErrorOptions } from './testenv-error.js';
export { fakeNode } from './workloads.js';
