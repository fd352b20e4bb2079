// ESLint rule `orkestra/no-cross-package-relative`: a relative import must resolve inside the
// package that contains the importing file. Another package is reached through its name
// (`@orkestra/x`), whose `exports` are its public API.
import { existsSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

const rootCache = new Map();
function packageRoot(dir) {
  if (rootCache.has(dir)) return rootCache.get(dir);
  let d = dir;
  while (!existsSync(resolve(d, 'package.json'))) {
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  rootCache.set(dir, d);
  return d;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Relative imports must stay inside their package.' },
    schema: [],
    messages: {
      escape:
        "'{{source}}' leaves package {{from}}; import the other package by name (@orkestra/<name>) instead.",
    },
  },
  create(context) {
    const file = context.filename;
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const from = packageRoot(dirname(file));
      const target = resolve(dirname(file), source);
      if (target !== from && !target.startsWith(from + sep)) {
        context.report({ node: node.source, messageId: 'escape', data: { source, from } });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export const packageBoundaries = { rules: { 'no-cross-package-relative': rule } };
