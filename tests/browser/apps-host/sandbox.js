// The sandbox proxy (MCP Apps "Sandbox proxy"), on an origin other than the host's, served
// with the CSP the host built from the resource's _meta.ui.csp. It loads the view's HTML into
// an inner iframe (srcdoc, which inherits this document's CSP) and relays every message that
// is not ui/notifications/sandbox-*.
const hostOrigin = new URL(document.referrer).origin;
let inner = null;
window.addEventListener('message', (event) => {
  const data = event.data;
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (data?.method === 'ui/notifications/sandbox-resource-ready') {
      inner = document.createElement('iframe');
      inner.setAttribute('sandbox', data.params?.sandbox ?? 'allow-scripts');
      inner.title = 'Ask OKF view';
      inner.srcdoc = String(data.params?.html ?? '');
      document.body.append(inner);
    } else if (inner?.contentWindow) {
      inner.contentWindow.postMessage(data, '*');
    }
  } else if (inner && event.source === inner.contentWindow) {
    window.parent.postMessage(data, hostOrigin);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
