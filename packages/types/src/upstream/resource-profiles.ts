/**
 * Upstream's `resources.profile` on a workload child (docs/reference/katalog.md §24, ADR 0094): a
 * named CPU/memory preset. A literal name becomes the preset's `requests` and `limits`; a template
 * (one action, the name chosen per CR) becomes `requests`/`limits` whose four quantities are
 * templates choosing by that name, so the preset is picked at render time as upstream picks it at
 * reconcile time. Names match case-insensitively, as upstream's. An unknown literal name, or a
 * profile beside `requests`/`limits`, is refused as upstream refuses it; an unknown name rendered
 * from a CR renders a value the renderer's quantity check refuses (Ready=False, TemplateError naming
 * it), so that CR's reconcile fails, as upstream's does.
 */
import { isScalar, Pair, YAMLMap } from 'yaml';
import { born, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

type Quantities = { readonly cpu: string; readonly memory: string };

/** RESOURCE_PROFILES are upstream's built-in presets: requests, then limits. */
const RESOURCE_PROFILES: Readonly<Record<string, readonly [Quantities, Quantities]>> = {
  tiny: [
    { cpu: '25m', memory: '64Mi' },
    { cpu: '100m', memory: '128Mi' },
  ],
  small: [
    { cpu: '100m', memory: '128Mi' },
    { cpu: '500m', memory: '512Mi' },
  ],
  medium: [
    { cpu: '250m', memory: '256Mi' },
    { cpu: '1', memory: '1Gi' },
  ],
  large: [
    { cpu: '500m', memory: '512Mi' },
    { cpu: '2', memory: '2Gi' },
  ],
  burst: [
    { cpu: '200m', memory: '256Mi' },
    { cpu: '2', memory: '2Gi' },
  ],
  steady: [
    { cpu: '300m', memory: '256Mi' },
    { cpu: '600m', memory: '512Mi' },
  ],
  'compute-heavy': [
    { cpu: '1', memory: '512Mi' },
    { cpu: '2', memory: '1Gi' },
  ],
  'memory-heavy': [
    { cpu: '250m', memory: '1Gi' },
    { cpu: '500m', memory: '2Gi' },
  ],
};

const NAMES = Object.keys(RESOURCE_PROFILES).join(', ');

/** ONE_ACTION matches a template that is a single `{{ … }}` action and nothing else. */
const ONE_ACTION = /^\s*\{\{-?\s*((?:(?!\{\{|\}\}).)+?)\s*-?\}\}\s*$/s;

/**
 * quantityTemplate is the template choosing one quantity (`side` 0 for requests, 1 for limits) by the
 * profile name `expression` renders.
 */
function quantityTemplate(expression: string, side: 0 | 1, resource: keyof Quantities): string {
  const name = `(lower (${expression}))`;
  const branches = Object.entries(RESOURCE_PROFILES).map(
    ([profile, presets], i) =>
      `{{ ${i === 0 ? 'if' : 'else if'} eq ${name} "${profile}" }}${presets[side][resource]}`,
  );
  return `${branches.join('')}{{ else }}unknown resources.profile "{{ ${expression} }}"{{ end }}`;
}

/** upgradeResourceProfile rewrites or refuses `resources.profile` of one child (holder is `resources`). */
export function upgradeResourceProfile(up: Upgrader, holder: YAMLMap, profile: Pair, path: Path): void {
  const at = [...path, 'resources', 'profile'];
  const manual = ['requests', 'limits'].filter((key) => pairOf(holder, key) != null);
  const written = isScalar(profile.value) ? scalarText(profile.value) : undefined;
  const refuse = (message: string) => {
    up.problem(at, profile.value ?? profile.key, message);
    takeOut(holder, profile);
  };
  if (manual.length > 0)
    return refuse(
      `resources.profile and explicit ${manual.join('/')} are mutually exclusive; use one or the other (upstream refuses both)`,
    );
  if (written == null || written.trim() === '')
    return refuse(`resources.profile must name a preset: ${NAMES}`);
  let quantities: (side: 0 | 1, resource: keyof Quantities) => string;
  if (written.includes('{{')) {
    const expression = ONE_ACTION.exec(written)?.[1];
    if (expression == null)
      return refuse(
        'a templated resources.profile must be one `{{ … }}` action that renders the preset name',
      );
    quantities = (side, resource) => quantityTemplate(expression, side, resource);
  } else {
    const preset = RESOURCE_PROFILES[written.toLowerCase()];
    if (preset == null)
      return refuse(
        `unknown resources.profile "${written}": allowed ${NAMES} (presets under upstream's profiles.resources are not read; write requests and limits)`,
      );
    quantities = (side, resource) => preset[side][resource];
  }
  takeOut(holder, profile);
  for (const [key, side] of [
    ['requests', 0],
    ['limits', 1],
  ] as const) {
    const block = born(new YAMLMap(), profile.value);
    for (const resource of ['cpu', 'memory'] as const)
      block.items.push(
        new Pair(scalar(resource, profile.key), scalar(quantities(side, resource), profile.value)),
      );
    holder.items.push(new Pair(scalar(key, profile.key), block));
  }
  up.change(
    at,
    profile.key,
    written.includes('{{')
      ? 'templated preset became requests/limits chosen per CR by the rendered name'
      : `preset ${written.toLowerCase()} became its requests/limits`,
  );
}
