// Restricted bundles end to end with a real authorization server: the `oidc-provider` package
// (an OpenID Certified implementation) runs on loopback as the issuer, `okf serve` trusts it in
// its registry, and the official TypeScript (1.x and 2.x) and Python MCP clients complete the
// MCP authorization flow (a 401 naming the protected-resource metadata, discovery of the
// authorization server, a client-credentials token for this server's resource) and then call
// the restricted bundle. Without a token the bundle does not exist for them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import Provider from 'oidc-provider';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider as CredentialsV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as CredentialsV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';

import { DWP_INDEX, DWP_SHA, DWP_URL, dwpQuestion, startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SCOPE = 'okf.staff';
const CLIENT = { id: 'okf-test-client', secret: 'a-test-secret-for-loopback-only-0123456789' };

/** A free loopback port (bound, read, released). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let issuer;
let idp;
let okf;
let resource;

before(async () => {
  const idpPort = await freePort();
  const okfPort = await freePort();
  issuer = `http://127.0.0.1:${idpPort}`;
  resource = `http://127.0.0.1:${okfPort}/mcp`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPE,
      },
    ],
    scopes: [SCOPE],
    ttl: { ClientCredentials: 300 },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', use: 'sig', alg: 'RS256' }] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        // Access tokens for this server are JWTs (RFC 9068) with this server as audience.
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return { scope: SCOPE, audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
  });
  await new Promise((resolve) => {
    idp = provider.listen(idpPort, '127.0.0.1', resolve);
  });

  const dir = mkdtempSync(join(tmpdir(), 'okf-oauth-'));
  const registry = join(dir, 'registry.toml');
  writeFileSync(
    registry,
    `[auth]\nresource = "${resource}"\nmcp_requires_token = true\n\n` +
      `[[auth.issuer]]\nid = "test-idp"\nissuer = "${issuer}"\njwks_uri = "${issuer}/jwks"\n\n` +
      `[[bundle]]\nid = "okf-dwp"\nindex = ${JSON.stringify(DWP_INDEX)}\nsha256 = "${DWP_SHA}"\nindex_url = "${DWP_URL}"\n` +
      `access = { issuers = ["test-idp"], scopes = ["${SCOPE}"] }\n`,
  );
  okf = await startServer(['--registry', registry], { listen: `127.0.0.1:${okfPort}` });
});

after(async () => {
  await okf?.stop();
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve()));
});

/** The restricted bundle's package over the HTTP API with a token, for comparison. */
async function packageWith(token) {
  const res = await fetch(`${okf.url}/api/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ bundle: 'okf-dwp', question: dwpQuestion() }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

for (const [name, Client, Transport, Credentials] of [
  ['TypeScript SDK 1.x', ClientV1, TransportV1, CredentialsV1],
  ['TypeScript client 2.x', ClientV2, TransportV2, CredentialsV2],
]) {
  test(`${name}: completes the authorization flow and asks the restricted bundle`, async () => {
    const authProvider = new Credentials({ clientId: CLIENT.id, clientSecret: CLIENT.secret, scope: SCOPE, expectedIssuer: issuer });
    const client = new Client({ name: 'okf-oauth-test', version: '0.0.0' });
    await client.connect(new Transport(new URL(resource), { authProvider }));
    const { tools } = await client.listTools();
    const ask = tools.find((t) => t.name === 'ask_okf');
    assert.ok(ask.inputSchema.properties.bundle.enum.includes('okf-dwp'), JSON.stringify(ask.inputSchema.properties.bundle));
    assert.deepEqual(ask._meta.securitySchemes, [{ type: 'noauth' }, { type: 'oauth2', scopes: [SCOPE] }]);
    const result = await client.callTool({ name: 'ask_okf', arguments: { bundle: 'okf-dwp', question: dwpQuestion() } });
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.evidence_status, 'sufficient');
    const token = (await authProvider.tokens()).access_token;
    assert.deepEqual(result.structuredContent, await packageWith(token));
    await client.close();
  });
}

test('Python SDK: completes the authorization flow and asks the restricted bundle', async () => {
  const python = process.env.OKF_MCP_CLIENT_PYTHON;
  assert.ok(python, 'OKF_MCP_CLIENT_PYTHON names the Python with the pinned mcp SDK (scripts/test sets it)');
  const report = await new Promise((resolve, reject) => {
    execFile(
      python,
      [join(here, 'mcp_python_oauth.py'), resource, issuer, CLIENT.id, CLIENT.secret, SCOPE, dwpQuestion()],
      { timeout: 120000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
  assert.match(report, /^ok: listed tools name okf-dwp$/m, report);
  assert.match(report, /^ok: ask_okf on okf-dwp is sufficient$/m, report);
});

test('without a token the endpoint answers 401 naming the resource metadata, which names the issuer', async () => {
  const res = await fetch(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(res.status, 401);
  const challenge = res.headers.get('www-authenticate');
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)[1];
  const metadata = await (await fetch(metadataUrl)).json();
  assert.equal(metadata.resource, resource);
  assert.deepEqual(metadata.authorization_servers, [issuer]);
  // Anonymous HTTP callers see no restricted bundle.
  const bundles = await (await fetch(`${okf.url}/api/bundles`)).text();
  assert.ok(!bundles.includes('okf-dwp'), bundles);
  // The server's log never holds a credential.
  assert.ok(!okf.log().includes(CLIENT.secret));
  assert.ok(!/Bearer|eyJ[A-Za-z0-9_-]{20,}/.test(okf.log()), 'no token in the log');
});
