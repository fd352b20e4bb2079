/**
 * redisAdmin sends inline commands to a test's Redis as its admin (the `redis` protocol itself only
 * reads) and resolves with the raw replies once every command has answered.
 */
import { connect } from 'node:net';
import type { RedisServer } from '@orkestra/testenv';

export function redisAdmin(
  server: Pick<RedisServer, 'port' | 'password'>,
  ...commands: string[]
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.split('\r\n').length > commands.length + 1) socket.end();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write([`AUTH ${server.password}`, ...commands].map((c) => `${c}\r\n`).join(''));
  });
}
