/**
 * The protocol table (docs/adr/0053-external-protocols-are-units.md): every protocol an external
 * call speaks, one line each. The names are `EXTERNAL_PROTOCOLS` of @orkestra/types (the schema
 * checks them at load); the type below makes a name without a line, or a line without a name, a
 * compile error.
 */
import type { ExternalProtocolName } from '@orkestra/types';
import { httpProtocol } from './http/index.js';
import { kafkaProtocol } from './kafka/index.js';
import { mongoProtocol } from './mongo/index.js';
import { postgresProtocol } from './postgres/index.js';
import { prometheusProtocol } from './prometheus/index.js';
import { redisProtocol } from './redis/index.js';
import type { ProtocolUnit } from './protocol-unit.js';

export const PROTOCOL_TABLE: { readonly [N in ExternalProtocolName]: ProtocolUnit & { readonly name: N } } = {
  http: httpProtocol as ProtocolUnit & { readonly name: 'http' },
  prometheus: prometheusProtocol as ProtocolUnit & { readonly name: 'prometheus' },
  postgres: postgresProtocol as ProtocolUnit & { readonly name: 'postgres' },
  redis: redisProtocol as ProtocolUnit & { readonly name: 'redis' },
  mongo: mongoProtocol as ProtocolUnit & { readonly name: 'mongo' },
  kafka: kafkaProtocol as ProtocolUnit & { readonly name: 'kafka' },
};
