import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from '@orkestra/template';
import { Queue } from '@orkestra/types';
import type { QueueBehaviour } from '@orkestra/types';
import { ManualClock } from '../clock.js';
import { WorkQueue } from '../work-queue.js';
import { conditionsOptions } from './conditions.js';
import { queueDropPolicy } from './queue-behaviour.js';

const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z')); // a Monday, 10:00 UTC
const conditions = conditionsOptions(createTemplateEngine({ clock }), clock);
const behaviourOf = (queue: unknown): QueueBehaviour => Queue.parse(queue).behaviour as QueueBehaviour;

describe('queue.behaviour (docs/reference/katalog.md §20.7)', () => {
  it('onThreshold drops from value% of maxDepth only while its gate passes', () => {
    const outside = queueDropPolicy(
      behaviourOf({
        maxDepth: 10,
        behaviour: { onThreshold: { value: 80, when: [{ time: { after: '18:00', before: '23:00' } }] } },
      }),
      conditions,
    );
    const always = queueDropPolicy(
      behaviourOf({ maxDepth: 10, behaviour: { onThreshold: { value: 80 } } }),
      conditions,
    );
    expect(always(7, 10)).toBe(false);
    expect(always(8, 10)).toBe(true);
    expect(outside(8, 10)).toBe(false); // 10:00 is not in 18:00–23:00
    expect(outside(10, 10)).toBe(true); // no onLimit: the limit drops as always
  });

  it('onLimit decides at maxDepth: drop false (or a failing gate) accepts the key', () => {
    const keep = queueDropPolicy(
      behaviourOf({ maxDepth: 5, behaviour: { onLimit: { drop: false } } }),
      conditions,
    );
    expect(keep(5, 5)).toBe(false);
    const gated = queueDropPolicy(
      behaviourOf({
        maxDepth: 5,
        behaviour: { onLimit: { or: [{ field: '{{ .queue.percent }}', greaterThan: '150' }] } },
      }),
      conditions,
    );
    expect(gated(5, 5)).toBe(false);
    expect(gated(8, 5)).toBe(true);
  });

  it('drives the WorkQueue: keys beyond the limit are accepted or dropped as the policy says', () => {
    const dropped: string[] = [];
    const queue = new WorkQueue({
      clock,
      maxDepth: 2,
      dropPolicy: queueDropPolicy(
        behaviourOf({ maxDepth: 2, behaviour: { onLimit: { drop: false } } }),
        conditions,
      ),
      onDrop: (key) => dropped.push(key),
    });
    for (const key of ['a', 'b', 'c']) queue.add(key);
    expect(queue.stats().dirty).toBe(3);
    expect(dropped).toEqual([]);
    queue.shutDown();
  });

  it('is refused without a maxDepth, and a threshold outside 1–99 is refused at the key', () => {
    expect(Queue.safeParse({ behaviour: { onLimit: { drop: true } } }).error?.issues[0]?.message).toBe(
      'queue.behaviour needs a maxDepth above 0',
    );
    expect(
      Queue.safeParse({ maxDepth: 5, behaviour: { onThreshold: { value: 120 } } }).error?.issues[0]?.path,
    ).toEqual(['behaviour', 'onThreshold', 'value']);
  });
});
