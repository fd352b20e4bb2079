/**
 * The loader's optional template check (LoadKatalogOptions.checkTemplate) is installed here for the
 * duration of one synchronous parse, so template-bearing schemas can report compile errors with
 * the field's path. Outside a parse no check is installed.
 */
let active: ((source: string) => string | undefined) | undefined;

/** withTemplateCheck runs `run` with `check` installed as the template check. */
export function withTemplateCheck<T>(
  check: ((source: string) => string | undefined) | undefined,
  run: () => T,
): T {
  const previous = active;
  active = check;
  try {
    return run();
  } finally {
    active = previous;
  }
}

/** checkTemplateSource returns the installed check's message for a template string, if any. */
export function checkTemplateSource(source: string): string | undefined {
  if (active == null || !source.includes('{{')) return undefined;
  try {
    return active(source);
  } catch (error) {
    return `template check failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
