/**
 * KatalogSource says where a loaded Katalog node was declared. The loader attaches one to every CRD
 * entry, operatorBox, group, resource entry, external call, cross read, hook, provider declaration,
 * status field, mutation and validation rule; read it with katalogSourceOf.
 */
export interface KatalogSource {
  /** The CRD entry name. */
  readonly crd: string;
  /** The Katalog path from the CRD entry, as runtime messages name it: `website.operatorBox.onReconcile.deployments[0]`. */
  readonly katalogPath: string;
  /** The path from the document root as written (aliases and list forms kept), e.g. `spec.crds.website.operatorBox.onReconcile.pvcs[0]`. */
  readonly documentPath: string;
  readonly file: string;
  /** 1-based line and column of the node in the file. */
  readonly line: number;
  readonly column: number;
}

const SOURCE = Symbol.for('@orkestra/types.katalog-source');

/** attachSource records a node's source as a non-enumerable property (invisible to JSON, equality and spreading). */
export function attachSource(node: object, source: KatalogSource): void {
  Object.defineProperty(node, SOURCE, {
    value: Object.freeze(source),
    enumerable: false,
    configurable: false,
    writable: false,
  });
}

/** katalogSourceOf returns where a node of a loaded Katalog was declared, or undefined for nodes the loader does not tag (and for copies). */
export function katalogSourceOf(node: object): KatalogSource | undefined {
  return (node as { [SOURCE]?: KatalogSource })[SOURCE];
}

/** katalogPathOf returns the Katalog path of a loaded node (`website.operatorBox.onReconcile.deployments[0]`), or undefined. */
export function katalogPathOf(node: object): string | undefined {
  return katalogSourceOf(node)?.katalogPath;
}
