import { describe, expect, it } from 'vitest';
import { parseConnectionString, publicConnectionString, withoutCredentials } from './connection-string.js';

describe('connection strings', () => {
  it('parses credentials, hosts, database and options', () => {
    expect(
      parseConnectionString(
        'mongodb://ad%40min:p%3Ass@h1:27017,h2:27018/admin?replicaSet=rs0&authSource=admin',
      ),
    ).toEqual({
      scheme: 'mongodb',
      hosts: 'h1:27017,h2:27018',
      username: 'ad@min',
      password: 'p:ss',
      database: 'admin',
      options: [
        ['replicaSet', 'rs0'],
        ['authSource', 'admin'],
      ],
    });
    expect(parseConnectionString('postgres://x')).toBeUndefined();
  });

  it('writes a public connection string without password or authSource', () => {
    const base = parseConnectionString(
      'mongodb+srv://admin:secret@cluster.example.com/admin?authSource=admin&tls=true',
    );
    if (base == null) throw new Error('unparsed');
    expect(publicConnectionString(base, { database: 'shop' })).toBe(
      'mongodb+srv://cluster.example.com/shop?tls=true',
    );
    expect(publicConnectionString(base, { database: 'shop', username: 'app user' })).toBe(
      'mongodb+srv://app%20user@cluster.example.com/shop?tls=true',
    );
    expect(withoutCredentials(base)).toBe(
      'mongodb+srv://cluster.example.com/admin?authSource=admin&tls=true',
    );
  });

  it('keeps only an allow-list of options in the public string: no admin tokens or key passwords', () => {
    const base = parseConnectionString(
      'mongodb://admin:pw@db:27017/admin?tls=true&authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:IQoJSECRET&tlsCertificateKeyFilePassword=p4ss&tlsCertificateKeyFile=/k.pem&replicaSet=rs0&readPreference=secondary',
    );
    if (base == null) throw new Error('not parsed');
    const shown = publicConnectionString(base, { database: 'shop', username: 'app' });
    expect(shown).toBe('mongodb://app@db:27017/shop?tls=true&replicaSet=rs0&readPreference=secondary');
    expect(shown).not.toMatch(/SECRET|p4ss|k\.pem|authMechanism/);
  });

  it('handles a URI without path or options', () => {
    const base = parseConnectionString('mongodb://db:27017');
    expect(base).toEqual({ scheme: 'mongodb', hosts: 'db:27017', database: '', options: [] });
    if (base != null) expect(publicConnectionString(base, { database: 'x' })).toBe('mongodb://db:27017/x');
  });
});
