/**
 * Team notifications on the local control plane (docs/reference/katalog.md §15.4, ADR 0060): an
 * SMTP server (written with node:net here) and a Slack-compatible webhook receiver (node:http) run
 * in this test. A condition that starts to pass sends one email and one webhook post; passing again
 * inside the interval sends nothing; with the SMTP server down the CR still reconciles and stays
 * Ready, and the failure is only counted.
 */
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { katalogFrom, readyOf, sleep, useRuntimeTest, waitFor, waitForReady } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'nt', kind: 'Site', plural: 'sites' });

interface Mail {
  readonly to: string[];
  data: string;
}
const mails: Mail[] = [];
const posts: Record<string, unknown>[] = [];
const counted: string[] = [];
const sockets = new Set<Socket>();
let smtp: TcpServer;
let webhook: HttpServer;

/** smtpServer answers just enough SMTP for one client: EHLO (no STARTTLS), MAIL, RCPT, DATA, QUIT. */
function smtpServer(): TcpServer {
  return createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let current: Mail | undefined;
    let inData = false;
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            if (current != null) mails.push(current);
            current = undefined;
            socket.write('250 queued\r\n');
          } else if (current != null) current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-test\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO' || verb === 'NOOP' || verb === 'RSET') socket.write('250 ok\r\n');
        else if (verb === 'MAIL') {
          current = { to: [], data: '' };
          socket.write('250 ok\r\n');
        } else if (verb === 'RCPT') {
          current?.to.push(/<([^>]*)>/.exec(line)?.[1] ?? line);
          socket.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('502 not here\r\n');
      }
    });
  });
}

beforeAll(async () => {
  smtp = smtpServer();
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  webhook = createHttpServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      posts.push({ path: request.url, ...(JSON.parse(text) as Record<string, unknown>) });
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/services/T000/B000/secret-token`;
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'notify' }, stringData: { webhook: hookUrl } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: notifications}
spec:
  notification:
    defaults: {interval: 1h}
    smtp: {host: 127.0.0.1, port: ${(smtp.address() as AddressInfo).port}, from: ork@example.com, timeout: 2s}
    slack:
      webhook: {secretRef: {name: notify, key: webhook, namespace: ${env.namespace}}}
    teams:
      ops: {email: [ops@example.com, oncall@example.com], slack: ['#ops']}
      night: {email: [night@example.com]}
  crds:
    site:
      apiTypes: {group: ${group}, version: v1, kind: Site, plural: sites}
      operatorBox:
        status:
          fields:
            - path: alarm
              value: "true"
              when:
                - field: spec.state
                  equals: down
                  notify: {teams: [ops], message: "{{ .metadata.name }} is down"}
            - path: warning
              value: "true"
              when:
                - field: spec.state
                  equals: degraded
                  notify: [night]
`),
    // The test's servers are on loopback, which the address guard allows only explicitly.
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
    observer: { notification: (channel, result) => counted.push(`${channel} ${result}`) },
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => smtp.close(resolve));
  webhook.closeAllConnections();
  await new Promise((resolve) => webhook.close(resolve));
});

describe('team notifications', () => {
  it('a condition that starts to pass sends one email per recipient and one webhook post', async () => {
    await crs.create(env.namespace, 'web', { state: 'up' });
    await waitForReady(crs, env.namespace, 'web');
    await sleep(300);
    expect(mails).toEqual([]);
    expect(posts).toEqual([]);

    await crs.patchSpec(env.namespace, 'web', { state: 'down' });
    await waitFor('the email and the post', async () => mails.length >= 2 && posts.length >= 1);
    await sleep(300);
    expect(mails.map((m) => m.to)).toEqual([['ops@example.com'], ['oncall@example.com']]);
    expect(mails[0]?.data).toMatch(/^Subject: \[orkestra\] spec\.state condition triggered$/m);
    expect(mails[0]?.data).toMatch(/^X-Orkestra-Team: ops$/m);
    expect(mails[0]?.data).toContain('web is down');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      path: '/services/T000/B000/secret-token',
      text: 'web is down',
      attachments: [
        {
          color: 'warning',
          fields: expect.arrayContaining([
            { title: 'Team', value: 'ops', short: true },
            { title: 'Channels', value: '#ops', short: true },
          ]) as unknown,
        },
      ],
    });
    expect(counted).toEqual(['email sent', 'webhook sent']);
  });

  it('a second change inside the interval sends nothing', async () => {
    await crs.patchSpec(env.namespace, 'web', { state: 'up' });
    await waitForReady(crs, env.namespace, 'web');
    await crs.patchSpec(env.namespace, 'web', { state: 'down' });
    await waitForReady(crs, env.namespace, 'web');
    await sleep(1000);
    expect(mails).toHaveLength(2);
    expect(posts).toHaveLength(1);
  });

  it('a down SMTP server leaves the CR reconciled and Ready; the failure is counted, not in status', async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => smtp.close(resolve));
    await crs.patchSpec(env.namespace, 'web', { state: 'degraded' });
    await waitForReady(crs, env.namespace, 'web');
    await waitFor('the failed email counted', async () => counted.includes('email failed'));
    const cr = await crs.get(env.namespace, 'web');
    expect(readyOf(cr)).toMatchObject({ status: 'True', reason: 'ReconcileSucceeded' });
    expect(cr.status).toMatchObject({ warning: 'true' });
    expect(JSON.stringify(cr.status)).not.toMatch(/smtp|notif|ECONNREFUSED/i);
    expect(mails).toHaveLength(2);
  });
});
