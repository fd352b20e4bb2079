import { loadKatalog } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { strictCheck } from './strict-check.js';

/** The order strict validation knows external calls in (docs/reference/katalog.md §12, §15.1, §17.2). */
const text = (rule: string, firstCall: string, boxCall: string) => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: quota}
spec:
  crds:
    quota:
      apiTypes: {group: demo.example.com, version: v1, kind: Quota, plural: quotas}
      validation:
        external:
          - {name: first, url: "${firstCall}"}
          - {name: second, url: "http://q/{{ external.first.json.id }}"}
        rules:
          - {field: "${rule}", equals: "true", message: over quota}
      operatorBox:
        external:
          - {name: later, url: "${boxCall}"}
`;

function messages(katalogText: string): string[] {
  const loaded = loadKatalog({ text: katalogText, file: 'k.yaml' });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  return strictCheck('k.yaml', katalogText, loaded.katalog).errors.map((e) => `${e.path}: ${e.message}`);
}

describe('strict check: validation.external', () => {
  it('lets the rules read every validation call, and a later operatorBox call read them too', () => {
    expect(
      messages(
        text('{{ external.second.json.allowed }}', 'http://q', 'http://q/{{ external.second.status }}'),
      ),
    ).toEqual([]);
  });

  it('names a validation call that reads a call made after it', () => {
    const found = messages(
      text('{{ external.first.ok }}', 'http://q/{{ external.later.status }}', 'http://q'),
    );
    expect(found).toEqual([
      expect.stringMatching(/validation\.external\[0\]\.url: .*external call `later` runs after this one/),
    ]);
    const rule = messages(text('{{ external.later.ok }}', 'http://q', 'http://q'));
    expect(rule).toEqual([
      expect.stringMatching(/validation\.rules\[0\]\.field: .*external call `later` runs after this one/),
    ]);
  });
});

describe('strict check: module hooks', () => {
  it('accepts hooks.<name>.<any field> of a declared hook and names an unknown one', () => {
    const katalog = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: hooks}
spec:
  crds:
    site:
      apiTypes: {group: demo.example.com, version: v1, kind: Site, plural: sites}
      operatorBox:
        hooks:
          - {module: "@acme/dns-hooks", function: ensureDns}
        status:
          fields:
            - {path: a, value: "{{ hooks.ensureDns.record }}"}
            - {path: b, value: "{{ hooks.ensureDnz.record }}"}
`;
    expect(messages(katalog)).toEqual([
      expect.stringMatching(
        /fields\[1\]\.value: .*no module hook is named `ensureDnz`; did you mean `ensureDns`\?/,
      ),
    ]);
  });
});
