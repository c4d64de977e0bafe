// Registers the service worker (sw.js at the site root, written by scripts/build-web), so that
// after one visit the page opens and computes with no network. Where service workers are not
// available (file:, an old browser, a private window that refuses them) the page works as before.
// @ts-check

export function registerOffline() {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('sw.js').catch(() => {});
}
