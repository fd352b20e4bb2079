/**
 * Shared by the upstream dialect tests: a Katalog header in an upstream apiVersion, and the loader
 * called the way `ork validate` calls it. Every fixture built on it is written in the tests from
 * upstream's documentation and type definitions (pkg/types of orkspace/orkestra and
 * inrundev/inrun), not copied from upstream files.
 */
import { loadKatalog } from '../load-katalog.js';
import type { LoadKatalogResult } from '../load-katalog.js';

/** head is a Katalog with one entry, `website`, up to its `apiTypes`; the test writes the rest. */
export const head = (apiVersion = 'orkestra.orkspace.io/v1'): string => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: demo
spec:
  crds:
    website:
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Website
        plural: websites
`;

/** GADGET_ENTRY is `spec.crds` with one entry, `gadget` (demo.example.io/v1 Gadget), up to its `apiTypes`. */
export const GADGET_ENTRY = `spec:
  crds:
    gadget:
      apiTypes:
        group: demo.example.io
        version: v1
        kind: Gadget
        plural: gadgets
`;

/** gadgetHead is a Katalog named `name` with the `gadget` entry up to its `apiTypes`. */
export const gadgetHead = (
  name: string,
  apiVersion = 'orkestra.orkspace.io/v1',
): string => `apiVersion: ${apiVersion}
kind: Katalog
metadata:
  name: ${name}
${GADGET_ENTRY}`;

/** ok returns a loaded result, or throws with every error positioned. */
export function ok(result: LoadKatalogResult) {
  if (!result.ok)
    throw new Error(result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n'));
  return result;
}

/** load loads Katalog text as `katalog.yaml`, reading neighbouring files from `baseDir` when given. */
export const load = (text: string, baseDir?: string) =>
  loadKatalog({ text, file: 'katalog.yaml' }, baseDir === undefined ? {} : { baseDir });
