import { describe, expect, it } from 'vitest';
import {
  MAX_MESSAGE_LENGTH,
  formatChildRef,
  formatReasonMessage,
  truncateMessage,
} from './reason-message.js';

const path = 'shop.operatorBox.onReconcile.deployments[0]';

describe('formatReasonMessage', () => {
  it('puts the Katalog path first, then the child, then the detail', () => {
    expect(
      formatReasonMessage(path, 'spec.template.spec.containers[0].image: Required value', {
        kind: 'Deployment',
        namespace: 'shop',
        name: 'shop-web',
      }),
    ).toBe(
      'shop.operatorBox.onReconcile.deployments[0] (Deployment shop/shop-web): spec.template.spec.containers[0].image: Required value',
    );
  });

  it('leaves out the child when none is given', () => {
    expect(formatReasonMessage(path, 'boom')).toBe(`${path}: boom`);
  });

  it('names cluster-scoped children without a namespace', () => {
    expect(
      formatReasonMessage('a.operatorBox.onReconcile.namespaces[0]', 'forbidden', {
        kind: 'Namespace',
        name: 'team-a',
      }),
    ).toBe('a.operatorBox.onReconcile.namespaces[0] (Namespace team-a): forbidden');
  });

  it('does not repeat a path the detail already starts with', () => {
    expect(formatReasonMessage(path, `${path}.replicas: expected an integer, got "three"`)).toBe(
      `${path}.replicas: expected an integer, got "three"`,
    );
    expect(
      formatReasonMessage(path, `${path}.replicas: expected an integer`, {
        kind: 'Deployment',
        namespace: 'shop',
        name: 'web',
      }),
    ).toBe(`${path}.replicas (Deployment shop/web): expected an integer`);
    expect(formatReasonMessage(path, `${path}: boom`)).toBe(`${path}: boom`);
  });

  it('prepends the path to a detail that merely shares its prefix', () => {
    expect(formatReasonMessage('a.b', 'a.bc: x')).toBe('a.b: a.bc: x');
  });

  it('handles an empty Katalog path', () => {
    expect(formatReasonMessage('', 'boom')).toBe('boom');
    expect(formatReasonMessage('', 'boom', { kind: 'Secret', namespace: 'ns', name: 's' })).toBe(
      '(Secret ns/s): boom',
    );
  });

  it('cuts long messages to 1024 characters ending in …', () => {
    const message = formatReasonMessage(path, 'x'.repeat(5000));
    expect(Array.from(message)).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(message.endsWith('…')).toBe(true);
    expect(message.startsWith(`${path}: xxx`)).toBe(true);
  });
});

describe('truncateMessage', () => {
  it('keeps messages of exactly the limit', () => {
    const text = 'y'.repeat(MAX_MESSAGE_LENGTH);
    expect(truncateMessage(text)).toBe(text);
  });

  it('counts code points and never splits a surrogate pair', () => {
    const text = '😀'.repeat(MAX_MESSAGE_LENGTH); // 2048 UTF-16 units, 1024 code points
    expect(truncateMessage(text)).toBe(text);
    const cut = truncateMessage('😀'.repeat(MAX_MESSAGE_LENGTH + 1));
    expect(Array.from(cut)).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(cut.endsWith('😀…')).toBe(true);
  });

  it('accepts a custom limit', () => {
    expect(truncateMessage('abcdef', 4)).toBe('abc…');
  });
});

describe('formatChildRef', () => {
  it('treats an empty namespace as cluster-scoped', () => {
    expect(formatChildRef({ kind: 'ClusterRole', namespace: '', name: 'r' })).toBe('ClusterRole r');
  });
});
