import { HpaEntry } from '../schema/resources.js';
import { defineResourceKind } from './resource-kind.js';

/** hpa is the `hpa` list: HorizontalPodAutoscaler children (autoscaling/v2). */
export const hpa = defineResourceKind({
  listKey: 'hpa',
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  childrenKeys: { singular: 'hpa', plural: 'hpas' },
  namespaced: true,
  defaultNameSuffix: '-hpa',
  wave: 5,
  entry: HpaEntry,
});
