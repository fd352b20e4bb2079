import { ConditionReason, OrkestraError } from '@orkestra/types';

/**
 * DuplicateChildError reports two forEach copies of one entry that render to the same child name.
 * It is an `OrkestraError` with code `DuplicateChild` (terminal until the CR changes).
 */
export class DuplicateChildError extends OrkestraError {
  override readonly name: string = 'DuplicateChildError';
  /** The rendered name both copies share. */
  readonly childName: string;
  /** The forEach positions of the two copies. */
  readonly indexes: readonly [number, number];

  constructor(options: {
    readonly katalogPath?: string | undefined;
    readonly childName: string;
    readonly first: { readonly index: number; readonly item: unknown };
    readonly second: { readonly index: number; readonly item: unknown };
  }) {
    const describe = (copy: { readonly index: number; readonly item: unknown }): string =>
      `${copy.index} (${JSON.stringify(copy.item) ?? 'null'})`;
    const prefix =
      options.katalogPath != null && options.katalogPath !== '' ? `${options.katalogPath}: ` : '';
    super(
      `${prefix}forEach items ${describe(options.first)} and ${describe(options.second)} both render the name "${options.childName}"`,
      {
        code: ConditionReason.DuplicateChild,
        ...(options.katalogPath == null || options.katalogPath === ''
          ? {}
          : { katalogPath: options.katalogPath }),
      },
    );
    this.childName = options.childName;
    this.indexes = [options.first.index, options.second.index];
  }
}
