import { isMap, isPair, isScalar, parseDocument, Scalar } from 'yaml';

/**
 * Upstream Orkestra deploys a Katalog as a ConfigMap (`kind: ConfigMap`, the Katalog in one `data`
 * key as a `|` block), and users keep those manifests (ADR 0027). katalogInConfigMap finds the
 * Katalog in such a file and returns the file's text with everything but that block blanked to
 * spaces: every offset, line and column stays what it is in the file, so errors point at the
 * user's file:line:col without any mapping, and the loader reads the block as the document.
 */
export type ConfigMapKatalog =
  | {
      readonly ok: true;
      /** The file's text with everything outside the Katalog block replaced by spaces. */
      readonly text: string;
      /** The ConfigMap's name and the data key holding the Katalog. */
      readonly configMap: string;
      readonly key: string;
      /** Offset of the key, for the note. */
      readonly offset: number;
    }
  | { readonly ok: false; readonly message: string; readonly offset: number };

// Upstream Orkestra's `Katalog`, or Inrun's `Catalog` (docs/reference/katalog.md §24, ADR 0081).
const KIND_LINE = /^[ \t]*kind:[ \t]*["']?[KC]atalog["']?[ \t]*(?:#.*)?$/m;

/**
 * katalogInConfigMap returns the Katalog held by a ConfigMap manifest, an error when the ConfigMap
 * holds more than one, or undefined when the text is not a ConfigMap (or holds no Katalog): the
 * loader then reads the text as it is.
 *
 * @example
 * const found = katalogInConfigMap(text);
 * if (found?.ok) loadKatalog({ text: found.text, file });
 */
export function katalogInConfigMap(text: string): ConfigMapKatalog | undefined {
  if (!/^kind:[ \t]*["']?ConfigMap/m.test(text)) return undefined;
  const doc = parseDocument(text, { keepSourceTokens: true });
  const root = doc.contents;
  if (doc.errors.length > 0 || !isMap(root) || (root.get('kind') as unknown) !== 'ConfigMap')
    return undefined;
  const data = root.get('data', true);
  if (!isMap(data)) return undefined;
  const blocks = data.items.filter(
    (pair) =>
      isPair(pair) &&
      isScalar(pair.value) &&
      (pair.value.type === Scalar.BLOCK_LITERAL || pair.value.type === Scalar.BLOCK_FOLDED) &&
      typeof pair.value.value === 'string' &&
      // A folded block has joined its lines, so `kind:` is no longer at a line start.
      (pair.value.type === Scalar.BLOCK_FOLDED ? /\bkind:\s*["']?[KC]atalog\b/ : KIND_LINE).test(
        pair.value.value,
      ),
  );
  const first = blocks[0];
  if (first == null) return undefined;
  const keyOffset = (first.key as Scalar | null)?.range?.[0] ?? 0;
  if (blocks.length > 1)
    return {
      ok: false,
      offset: (blocks[1]?.key as Scalar | null)?.range?.[0] ?? 0,
      message: `this ConfigMap holds ${blocks.length} Katalogs (data keys ${blocks
        .map((pair) => String((pair.key as Scalar).value))
        .join(', ')}); a Katalog file holds one: keep one per ConfigMap`,
    };
  const block = first.value as Scalar;
  const [start = 0, end = 0] = block.range ?? [];
  if (block.type === Scalar.BLOCK_FOLDED)
    return {
      ok: false,
      offset: start,
      message:
        'the Katalog is a folded block (`>`), which joins its lines; write it as a literal block (`|`)',
    };
  // The block's content starts on the line after its header (`|`, `|-`, a comment).
  const contentStart = text.indexOf('\n', start) + 1;
  const blank = (from: number, to: number) => text.slice(from, to).replace(/[^\n]/g, ' ');
  const metadata = root.get('metadata');
  const name = isMap(metadata) ? String(metadata.get('name') ?? '') : '';
  return {
    ok: true,
    text: blank(0, contentStart) + text.slice(contentStart, end) + blank(end, text.length),
    configMap: name,
    key: String((first.key as Scalar).value),
    offset: keyOffset,
  };
}
