import * as aws from '@orkestra/provider-aws';
import * as mongodb from '@orkestra/provider-mongodb';
import { useMongo, useS3 } from '@orkestra/testenv/vitest';
import { MongoClient } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  katalogFrom,
  quietLogger,
  readConfigMap,
  syncedOf,
  useRuntimeTest,
  waitFor,
} from './runtime-helpers.js';

const { env, group, crs, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'e2e',
  kind: 'Shop',
  plural: 'shops',
});
const s3 = useS3();
const mongo = useMongo();

let mongoClient: MongoClient;

function configMap(name: string): Promise<Record<string, string> | undefined> {
  return readConfigMap(env.kubeConfig, env.namespace, name);
}

/** bucketExists asks moto with an unsigned HEAD (moto accepts any credentials, and none). */
async function bucketExists(bucket: string): Promise<boolean> {
  const response = await fetch(`${s3().endpoint}/${bucket}`, { method: 'HEAD' });
  return response.status === 200;
}

async function databaseNames(): Promise<string[]> {
  const result = await mongoClient.db(mongo().database).admin().listDatabases({ nameOnly: true });
  return result.databases.map((d) => d.name);
}

beforeAll(async () => {
  const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: shop-e2e}
spec:
  providers:
    - {name: aws, package: "@orkestra/provider-aws", config: {region: us-east-1}}
    - {name: mongodb, package: "@orkestra/provider-mongodb", config: {uri: "mongodb://localhost"}}
  crds:
    shop:
      apiTypes: {group: ${group}, version: v1, kind: Shop, plural: shops}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data:
                ASSETS_BUCKET: "{{ providers.aws.assets.bucket }}"
                DATABASE: "{{ providers.mongodb.appdb.database }}"
        providers:
          aws:
            - name: assets
              s3: {bucket: "{{ metadata.namespace }}-{{ metadata.name }}-assets"}
          mongodb:
            - name: appdb
              database: {name: "{{ metadata.name }}db"}
        status:
          fields:
            - {path: bucketArn, value: "{{ providers.aws.assets.arn }}"}
`);
  const init = { logger: quietLogger(), signal: new AbortController().signal };
  const awsProvider = await aws.createProvider({
    ...init,
    name: 'aws',
    config: aws.configSchema.parse({
      region: s3().region,
      endpoint: s3().endpoint,
      forcePathStyle: true,
      accessKeyId: s3().credentials.accessKeyId,
      secretAccessKey: s3().credentials.secretAccessKey,
    }),
  });
  const mongoProvider = await mongodb.createProvider({
    ...init,
    name: 'mongodb',
    config: mongodb.configSchema.parse({ uri: mongo().uri }),
  });
  onCleanup(async () => {
    await awsProvider.close?.();
    await mongoProvider.close?.();
  });
  mongoClient = await MongoClient.connect(mongo().uri);
  onCleanup(() => mongoClient.close());
  await startRuntime({
    katalog,
    providers: new Map([
      ['aws', awsProvider],
      ['mongodb', mongoProvider],
    ]),
    options: { namespace: env.namespace },
  });
});

describe('providers end to end (moto S3, FerretDB)', () => {
  it('creates a bucket and a database, records outputs in status and renders them into a ConfigMap', async () => {
    const bucket = `${env.namespace}-web-assets`;
    await crs.create(env.namespace, 'web', {});
    await waitFor(
      'config map with provider outputs',
      async () => {
        const data = await configMap('web-config');
        return data?.['ASSETS_BUCKET'] === bucket && data['DATABASE'] === 'webdb';
      },
      60_000,
      200,
    );
    const cr = await crs.get(env.namespace, 'web');
    expect(syncedOf(cr)?.reason).toBe('ReconcileSucceeded');
    expect(cr.status?.['bucketArn']).toBe(`arn:aws:s3:::${bucket}`);
    expect(cr.status?.['providers']).toMatchObject({
      aws: { assets: { kind: 's3', ready: true, outputs: { bucket } } },
      mongodb: { appdb: { kind: 'database', ready: true, outputs: { database: 'webdb' } } },
    });
    expect(await bucketExists(bucket)).toBe(true);
    expect(await databaseNames()).toContain('webdb');
  });

  it('deletes the bucket and the database when the CR is deleted', async () => {
    const bucket = `${env.namespace}-web-assets`;
    await crs.remove(env.namespace, 'web');
    await waitFor('CR gone', async () => !(await crs.exists(env.namespace, 'web')), 60_000, 200);
    expect(await bucketExists(bucket)).toBe(false);
    expect(await databaseNames()).not.toContain('webdb');
  });
});
