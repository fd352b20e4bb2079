import { describe, expect, it } from 'vitest';
import { KeepAliveAgents } from './keep-alive-agent.js';

describe('KeepAliveAgents', () => {
  it('hands out one keep-alive agent per set of credentials and protocol', () => {
    const agents = new KeepAliveAgents();
    const creds = (cert: string) => ({
      ca: Buffer.from('ca'),
      cert: Buffer.from(cert),
      key: Buffer.from('k'),
    });
    const a = agents.agentFor(creds('one'), 'https:');
    // Equal credentials in new buffers (client-node makes them per request) share the agent.
    expect(agents.agentFor(creds('one'), 'https:')).toBe(a);
    expect(agents.agentFor(creds('two'), 'https:')).not.toBe(a);
    expect(agents.agentFor(creds('one'), 'http:')).not.toBe(a);
    expect((a as unknown as { keepAlive: boolean }).keepAlive).toBe(true);
    agents.destroy();
  });
});
