// The service worker: after one visit the page works with no network. scripts/build-web writes
// the cache name (a hash of dist/) and the list of every file of the build into dist/sw.js.
// Cache first, so the page opens at once; a new build changes this file, the browser installs
// the new worker, which caches the new files and deletes the old cache.

const CACHE = '__DLCOST_CACHE__';
const FILES = [__DLCOST_FILES__];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith('dlcost-') && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // A folder URL is its index.html; the query (none is used) and the fragment (the share link)
  // never select a different file.
  const url = new URL(request.url);
  const key = url.pathname.endsWith('/') ? new URL('index.html', url).href : url.href;
  event.respondWith(caches.open(CACHE)
    .then((cache) => cache.match(key, { ignoreSearch: true }))
    .then((hit) => hit || fetch(request)));
});
