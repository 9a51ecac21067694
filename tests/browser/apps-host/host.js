// The web host's side of the double iframe: messages from the sandbox proxy go to the test
// (window.__fromView, a Playwright binding, where AppBridge runs); window.__toView posts the
// bridge's messages to the proxy, addressed to its origin only.
const proxy = document.getElementById('proxy');
const params = new URLSearchParams(location.search);
const sandboxUrl = new URL(params.get('sandbox'));
window.addEventListener('message', (event) => {
  if (event.source !== proxy.contentWindow || event.origin !== sandboxUrl.origin) return;
  window.__fromView(event.data);
});
window.__toView = (message) => proxy.contentWindow.postMessage(message, sandboxUrl.origin);
window.__resize = (height) => { proxy.style.height = `${Math.max(200, Math.ceil(height) + 4)}px`; };
proxy.src = sandboxUrl.href;
