import { channel } from 'node:diagnostics_channel';

/** CAUGHT_ERROR_CHANNEL is the diagnostics channel on which `ork` publishes every error it caught and turned into a message. */
export const CAUGHT_ERROR_CHANNEL = 'orkestra:ork:caught-error';

/** CaughtError is one message of {@link CAUGHT_ERROR_CHANNEL}: the error as thrown, and the catch site. */
export interface CaughtError {
  readonly error: unknown;
  /** The catch site, e.g. `render: cr`, `main`. */
  readonly where: string;
}

const caught = channel(CAUGHT_ERROR_CHANNEL);

/**
 * reportCaughtError publishes an error a command caught and printed as a message, so a fuzzer or
 * a debugger can see its class and stack (the CLI prints only `error.message`). Free when nothing
 * subscribes.
 */
export function reportCaughtError(error: unknown, where: string): void {
  if (caught.hasSubscribers) caught.publish({ error, where } satisfies CaughtError);
}
