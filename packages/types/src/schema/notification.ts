/**
 * Team notifications (docs/reference/katalog.md §15.4, ADR 0060): `spec.notification` names teams
 * and their channels (SMTP email, Slack-compatible webhooks) and the interval gate; `notify:` on a
 * condition names the teams told when it passes. Credentials only through Secret refs.
 */
import { z } from 'zod';
import { Duration } from '../duration.js';
import { DnsLabel, Literal, LiteralNamespace, Tpl, isTemplate } from './primitives.js';
import { checkTemplateSource } from './template-check.js';

/** NOTIFY_DEFAULT_INTERVAL is the interval gate when neither the team nor `defaults` sets one (upstream's 15m). */
export const NOTIFY_DEFAULT_INTERVAL = '15m';

const TeamName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, {
  error: 'expected a team name (letters, digits, `_`, `.`, `-`)',
});

/** A Secret of a literal namespace: a notification is Katalog-wide, so no CR picks the credential. */
const NotifySecretRef = z.strictObject({
  name: DnsLabel,
  key: Literal,
  namespace: LiteralNamespace,
});

/** A ConfigMap key of a literal namespace (a CA bundle, as trust distributors publish it): the shape of NotifySecretRef. */
const NotifyConfigMapRef = z.strictObject({
  name: DnsLabel,
  key: Literal,
  namespace: LiteralNamespace,
});

const MessageTemplate = Tpl.superRefine((source, ctx) => {
  if (!isTemplate(source)) return;
  const problem = checkTemplateSource(source);
  if (problem != null) ctx.addIssue({ code: 'custom', message: `template error: ${problem}`, input: source });
});

const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;

const NotificationTeamSchema = z.strictObject({
  /** Email recipients (sent through `notification.smtp`). */
  email: z.array(z.string().regex(EMAIL, { error: 'expected an email address' })).optional(),
  /** Slack channel names, informational in the payload; the webhook decides where it lands. */
  slack: z.array(Literal).optional(),
  /** This team's webhook (a Slack-compatible incoming webhook URL in a Secret); default `notification.slack.webhook`. */
  webhook: z.strictObject({ secretRef: NotifySecretRef }).optional(),
  /** At most one message per condition and team per interval; default `defaults.interval`, then 15m. */
  interval: Duration.optional(),
  /** The team's message template; a condition's `notify.message` wins. */
  message: MessageTemplate.optional(),
});

// Upstream reads SMTP and the webhook from the environment, so its Katalogs list email recipients
// and Slack channels without them: a channel without its server is skipped at run time with a
// warning (docs/reference/katalog.md §15.4), not refused here.
const NotificationSchema = z.strictObject({
  defaults: z.strictObject({ interval: Duration.optional() }).optional(),
  /** The message when neither the condition nor the team sets one. */
  message: MessageTemplate.optional(),
  /** The SMTP server of email channels. */
  smtp: z
    .strictObject({
      host: Literal.min(1),
      port: z.int().min(1).max(65_535).default(587),
      from: z.string().regex(EMAIL, { error: 'expected an email address' }),
      /** `true`: TLS from the first byte (port 465); `false`: STARTTLS when offered. */
      secure: z.boolean().default(false),
      /** With `secure: false`: a server that does not offer STARTTLS is refused, not spoken to in plain text. */
      requireTLS: z.boolean().default(false),
      /** PEM CA certificates the server's certificate must chain to, from a Secret; default Node's built-in roots. */
      ca: NotifySecretRef.optional(),
      /** The same PEM CA certificates from a ConfigMap (a CA is not secret); exclusive with `ca`. */
      caConfigMap: NotifyConfigMapRef.optional(),
      /** Default 10s for connecting and for each reply. */
      timeout: Duration.default('10s'),
      auth: z.strictObject({ user: NotifySecretRef, password: NotifySecretRef }).optional(),
    })
    .superRefine((smtp, ctx) => {
      if (smtp.ca !== undefined && smtp.caConfigMap !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: '`ca` (a Secret) and `caConfigMap` are exclusive: name the CA once',
          path: ['caConfigMap'],
          input: smtp.caConfigMap,
        });
    })
    .optional(),
  /** The default webhook of every team. */
  slack: z.strictObject({ webhook: z.strictObject({ secretRef: NotifySecretRef }) }).optional(),
  /** Default 5s per webhook post. */
  timeout: Duration.default('5s'),
  teams: z.record(TeamName, NotificationTeamSchema).default({}),
});
/** Notification is `spec.notification`. */
export type Notification = z.output<typeof NotificationSchema>;
/** Notification is `spec.notification` (docs/reference/katalog.md §15.4). */
export const Notification: z.ZodType<
  Notification,
  z.input<typeof NotificationSchema>
> = NotificationSchema.meta({ id: 'Notification' });

/** Notify is a condition's `notify:` after normalization: the teams and an optional message. */
export interface Notify {
  readonly teams: readonly string[];
  readonly message?: string | undefined;
}

/** NotifyInput accepts upstream's two spellings: `notify: [ops]` and `notify: {teams: [ops], message}`. */
export const NotifyInput = z
  .union([
    z.array(TeamName).min(1),
    z.strictObject({ teams: z.array(TeamName).min(1), message: MessageTemplate.optional() }),
  ])
  .transform((value): Notify => (Array.isArray(value) ? { teams: value } : value));

/** ROLLOUT_OUTCOMES are the rollout outcomes `spec.rollout.notify.on` may name (docs/reference/katalog.md §2.3). */
export const ROLLOUT_OUTCOMES = ['step', 'complete', 'gateFailed', 'rolledBack'] as const;
/** RolloutOutcome is one of ROLLOUT_OUTCOMES. */
export type RolloutOutcome = (typeof ROLLOUT_OUTCOMES)[number];

/** RolloutNotify is `spec.rollout.notify` after normalization: the teams, the outcomes, an optional message. */
export interface RolloutNotify {
  readonly teams: readonly string[];
  readonly on: readonly RolloutOutcome[];
  readonly message?: string | undefined;
}

/** The outcomes told when `on` is not given: the ones a person has to act on, or wait for. */
const DEFAULT_ROLLOUT_OUTCOMES: readonly RolloutOutcome[] = ['complete', 'gateFailed'];

/**
 * RolloutNotifyInput is `spec.rollout.notify` (ADR 0066): `notify:`'s two spellings, as on a
 * condition, plus `on:` (the outcomes told; default `complete` and `gateFailed`).
 */
export const RolloutNotifyInput = z
  .union([
    z.array(TeamName).min(1),
    z.strictObject({
      teams: z.array(TeamName).min(1),
      message: MessageTemplate.optional(),
      on: z.array(z.enum(ROLLOUT_OUTCOMES)).min(1).optional(),
    }),
  ])
  .transform((value): RolloutNotify =>
    Array.isArray(value)
      ? { teams: value, on: DEFAULT_ROLLOUT_OUTCOMES }
      : { ...value, on: value.on ?? DEFAULT_ROLLOUT_OUTCOMES },
  );
