/**
 * TEMPLATE_TOOL_VERSIONS pins the tools a scaffolded provider builds and tests with. They match
 * the workspace's own (a unit test checks), so a new project uses what Orkestra is tested with.
 */
export const TEMPLATE_TOOL_VERSIONS = {
  typescript: '6.0.3',
  vitest: '4.1.12',
  zod: '4.6.7',
  '@types/node': '20.19.43',
} as const;
