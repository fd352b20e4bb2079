import { loadKatalogOrThrow } from '@orkestra/types';
import type { CrdEntry } from '@orkestra/types';

/**
 * A three-version Database kind: v1alpha1 ↔ v1 (storage) and v1 ↔ v2 by declarative rules, each
 * rule kind used at least once (docs/reference/katalog.md §3.4). List items are named by `name`:
 * through the forEach `key` (v1alpha1 ↔ v1) and the schemas' `x-kubernetes-list-map-keys` (v1 ↔ v2).
 */
export const VERSIONED_KATALOG = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata:
  name: versioned
spec:
  crds:
    database:
      apiTypes: { group: demo.example.io, version: v1, kind: Database, plural: databases }
      versions:
        - name: v1alpha1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    size: { type: integer }
                    databaseEngine: { type: string }
                    legacyFlag: { type: boolean }
                    image: { type: string }
                    nested: { type: object, properties: { port: { type: integer } } }
                    backup: { type: string }
                    ports:
                      type: array
                      items:
                        type: object
                        properties:
                          name: { type: string }
                          port: { type: integer }
                          legacy: { type: boolean }
                          scheme: { type: string }
                          tls: { type: object, properties: { cert: { type: string } } }
        - name: v1
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    replicas: { type: integer }
                    engine: { type: string }
                    tier: { type: string }
                    apiLevel: { type: integer }
                    image: { type: string }
                    network: { type: object, properties: { port: { type: integer } } }
                    backup: { type: object, properties: { schedule: { type: string } } }
                    ports:
                      type: array
                      x-kubernetes-list-type: map
                      x-kubernetes-list-map-keys: [name]
                      items:
                        type: object
                        required: [name]
                        properties:
                          name: { type: string }
                          containerPort: { type: integer }
                          protocol: { type: string }
                          scheme: { type: string }
                          cert: { type: string }
        - name: v2
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    count: { type: integer }
                    engine: { type: string }
                    tier: { type: string }
                    paused: { type: boolean }
                    container: { type: object, properties: { image: { type: string } } }
                    network: { type: object, properties: { port: { type: integer } } }
                    backup: { type: string }
                    endpoints:
                      type: array
                      x-kubernetes-list-type: map
                      x-kubernetes-list-map-keys: [name]
                      items:
                        type: object
                        required: [name]
                        properties:
                          name: { type: string }
                          containerPort: { type: object, properties: { number: { type: integer } } }
                          protocol: { type: string }
                          level: { type: integer }
                          scheme: { type: string }
                          cert: { type: string }
      validation:
        rules:
          - { field: spec.size, lte: 100, version: v1alpha1, message: v1alpha1 allows at most 100 }
      conversion:
        storageVersion: v1
        paths:
          - from: v1alpha1
            to: v1
            rules:
              - rename: { from: spec.size, to: spec.replicas }
              - rename: { from: spec.databaseEngine, to: spec.engine }
              - move: { from: spec.nested.port, to: spec.network.port }
              - default: { field: spec.tier, value: standard }
              - constant: { field: spec.apiLevel, value: 1 }
              - drop: { field: spec.legacyFlag }
              - enum: { field: spec.databaseEngine, map: { postgres: pg, postgresql: pg, mysql: my }, back: { pg: postgres } }
              - wrap: { field: spec.backup, key: schedule }
              - forEach:
                  field: spec.ports
                  key: name
                  rules:
                    - rename: { from: port, to: containerPort }
                    - move: { from: tls.cert, to: cert }
                    - drop: { field: legacy }
                    - default: { field: protocol, value: TCP }
                    - enum: { field: scheme, map: { http: HTTP, https: HTTPS } }
          - from: v1
            to: v2
            rules:
              - rename: { from: spec.replicas, to: spec.count }
              - move: { from: spec.image, to: spec.container.image }
              - drop: { field: spec.apiLevel }
              - default: { field: spec.paused, value: false }
              - unwrap: { field: spec.backup, key: schedule }
              - move: { from: spec.ports, to: spec.endpoints }
              - forEach:
                  field: spec.ports
                  rules:
                    - wrap: { field: containerPort, key: number }
                    - constant: { field: level, value: 2 }
`;

/** versionedEntry loads the fixture's entry. */
export function versionedEntry(): CrdEntry {
  const katalog = loadKatalogOrThrow({ text: VERSIONED_KATALOG, file: 'versioned.yaml' });
  const entry = katalog.spec.crds['database'];
  if (entry == null) throw new Error('fixture entry missing');
  return entry;
}

/** Each version's spec fields, for generators. */
export const SPEC_FIELDS: Record<string, readonly string[]> = {
  v1alpha1: ['size', 'databaseEngine', 'legacyFlag', 'image', 'nested.port', 'backup'],
  v1: ['replicas', 'engine', 'tier', 'apiLevel', 'image', 'network.port', 'backup'],
  v2: ['count', 'engine', 'tier', 'paused', 'container.image', 'network.port', 'backup'],
};

/** Each version's list field and the fields of its items, for generators. */
export const SPEC_LISTS: Record<string, { list: string; fields: readonly string[] }> = {
  v1alpha1: { list: 'ports', fields: ['name', 'port', 'legacy', 'scheme', 'tls.cert'] },
  v1: { list: 'ports', fields: ['name', 'containerPort', 'protocol', 'scheme', 'cert'] },
  v2: { list: 'endpoints', fields: ['name', 'containerPort', 'protocol', 'level', 'scheme', 'cert'] },
};

/** Values the fixture's enum, wrap and constant rules act on, mixed into generated values. */
export const RULE_WORDS: readonly unknown[] = [
  'postgres',
  'postgresql',
  'pg',
  'mysql',
  'my',
  'http',
  'https',
  'HTTP',
  'HTTPS',
  'TCP',
  2,
  'standard',
  1,
  false,
  { schedule: 'daily' },
  { schedule: 'daily', extra: 1 },
  { number: 80 },
  { number: 80, name: 'x' },
  {},
];
