// A test MCP Apps host: the official TypeScript client (@modelcontextprotocol/client) talks
// to `okf serve` from Node, as a desktop or server-side AI host does, declaring the
// io.modelcontextprotocol/ui extension; @modelcontextprotocol/ext-apps's AppBridge speaks the
// extension to the view. The view itself runs in Chromium in the double iframe the extension
// asks of web hosts: a host page (127.0.0.1) holding a sandbox proxy on another origin
// (localhost), served with the CSP the host builds from the resource's _meta.ui.csp, which
// loads the view's HTML into its own sandboxed iframe. Messages between the host page and
// AppBridge cross a Playwright binding.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, RESOURCE_MIME_TYPE, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const here = path.dirname(fileURLToPath(import.meta.url));
const FILES = {
  '/host.html': 'text/html', '/host.js': 'text/javascript', '/host.css': 'text/css',
  '/sandbox.html': 'text/html', '/sandbox.js': 'text/javascript', '/sandbox.css': 'text/css',
};
export const UI_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const INFO = { name: 'okf-apps-test-host', version: '1.0.0' };

/** The host's CSP for a view, from its resource's _meta.ui.csp (the extension's formula). */
export function sandboxCsp(csp = {}) {
  const res = (csp.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${(csp.connectDomains ?? []).join(' ')}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `frame-src ${(csp.frameDomains ?? []).join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp.baseUriDomains ?? []).join(' ') || "'self'"}`,
  ].join('; ');
}

/** Serves the host page and the sandbox proxy; the proxy's CSP comes from its ?csp= parameter. */
export async function startHostServer() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const type = FILES[url.pathname];
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (!type) {
      res.writeHead(404).end();
      return;
    }
    const headers = { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store' };
    if (url.pathname === '/sandbox.html') headers['Content-Security-Policy'] = sandboxCsp(JSON.parse(url.searchParams.get('csp') || '{}'));
    res.writeHead(200, headers).end(readFileSync(path.join(here, 'apps-host', url.pathname.slice(1))));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    hostUrl: (sandbox) => `http://127.0.0.1:${port}/host.html?sandbox=${encodeURIComponent(sandbox)}`,
    sandboxUrl: (csp) => `http://localhost:${port}/sandbox.html?csp=${encodeURIComponent(JSON.stringify(csp ?? {}))}`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The official client, on the 2026-07-28 revision (capabilities ride in every request), or
 * with `versionNegotiation` `{ mode: 'legacy' }` on 2025-11-25 (declared once, at initialize). */
export async function connect(base, capabilities = UI_CAPABILITIES, versionNegotiation = { mode: 'auto' }) {
  const client = new Client(INFO, { capabilities, versionNegotiation });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

/** AppBridge's transport: the host page's postMessage channel, through Playwright. */
class PageTransport {
  constructor(page) {
    this.page = page;
  }
  async start() {}
  async send(message) {
    await this.page.evaluate((m) => window.__toView(m), message);
  }
  async close() {
    this.onclose?.();
  }
}

/**
 * Calls `name` with `args` as a host does for a tool with a view: reads the view's resource,
 * renders it in the double iframe on `page`, and pushes the input and the result into it.
 * Returns {result, html, frame, bridge, opened (links the view asked to open), calls (tools the view called)}.
 */
export async function showTool({ client, page, hostServer, name, args, theme = 'light' }) {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${name} has no view`);
  const resource = await client.readResource({ uri });
  const content = resource.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`unexpected MIME type ${content.mimeType}`);
  const csp = content._meta?.ui?.csp;
  const opened = [];
  const calls = [];
  const bridge = new AppBridge(client, INFO, { openLinks: {}, serverTools: {}, serverResources: {} }, {
    hostContext: { theme, displayMode: 'inline', platform: 'web', toolInfo: { tool } },
  });
  bridge.onopenlink = async ({ url }) => {
    opened.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) page.evaluate((h) => window.__resize(h), height).catch(() => {});
  };
  const transport = new PageTransport(page);
  await page.exposeBinding('__fromView', (_source, data) => transport.onmessage?.(data));
  const ready = new Promise((resolve) => bridge.addEventListener('sandboxready', resolve));
  const initialized = new Promise((resolve) => bridge.addEventListener('initialized', resolve));
  await bridge.connect(transport);
  // After connect, which registers the bridge's own forwarding to the client.
  const proxied = bridge.oncalltool;
  bridge.oncalltool = async (params, extra) => {
    calls.push(params);
    const target = tools.find((t) => t.name === params.name);
    const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!visibility.includes('app')) throw new Error(`${params.name} is not callable by the view`);
    return proxied ? proxied(params, extra) : client.callTool(params);
  };
  await page.goto(hostServer.hostUrl(hostServer.sandboxUrl(csp)));
  await ready;
  await bridge.sendSandboxResourceReady({ html: content.text, csp });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name, arguments: args });
  await bridge.sendToolResult(result);
  const frame = page.frameLocator('#proxy').frameLocator('iframe');
  return { result, html: content.text, csp, frame, bridge, opened, calls, tools };
}

/** The view's Frame object (for evaluate), once its document has loaded. */
export async function viewFrame(page) {
  for (let i = 0; i < 100; i++) {
    const frame = page.frames().find((f) => f.parentFrame()?.parentFrame() === page.mainFrame());
    if (frame) return frame;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the view frame did not appear');
}
