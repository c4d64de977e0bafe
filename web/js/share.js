// Share links and the embed snippet: "Copy link" writes the whole state (document, units,
// language) into the URL fragment — never the query, so nothing reaches a server — and a
// #d1. fragment at load or on hashchange reopens it. A link that cannot be read shows why
// (as text) and the page falls back to the default model; nothing from a link is ever
// inserted as HTML or evaluated: it is decoded by the engine and only read as JSON values.

import dlcost, { DlcostError } from './dlcost.js';
import { byId } from './dom.js';
import { t } from './i18n.js';
import './links_i18n.js';

/** The page state as a share-link state: {doc, ui: {units, lang}}. */
export function linkState(doc, s) {
  return { doc, ui: { units: s.units === 'GB' ? 'decimal' : 'binary', lang: s.lang } };
}

/** Whether a fragment is meant as a link (not an in-page anchor such as #results). */
function isLinkFragment(hash) {
  if (!hash || hash === '#') return false;
  const id = hash.slice(1);
  return !(/^[\w-]+$/.test(id) && document.getElementById(id));
}

/** The iframe snippet and the resize listener for a host page, as plain text. */
export function embedSnippet(embedUrl, title) {
  const origin = new URL(embedUrl).origin;
  const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<iframe class="dlcost-embed" src="${attr(embedUrl)}" title="${attr(title)}" width="100%" height="420" loading="lazy"></iframe>

// Optional, in your page's own script file: the widget posts its height, this sets it.
addEventListener('message', (e) => {
  if (e.origin !== '${origin}' || !e.data || e.data.type !== 'dlcost:height') return;
  const height = Math.min(Math.max(Number(e.data.height) || 0, 50), 5000);
  for (const f of document.querySelectorAll('iframe.dlcost-embed')) {
    if (f.contentWindow === e.source) f.style.height = \`\${Math.ceil(height)}px\`;
  }
});
`;
}

/**
 * @param handlers {currentState() -> {doc, ui}, open(state), openDefault(), modelName() -> text}
 * @returns {openFromHash() -> whether a link was opened (or failed: the default is then open)}
 */
export function createShareLinks(handlers) {
  const panel = byId('share-panel');
  const urlField = byId('share-url');
  const snippet = byId('embed-snippet');
  const status = byId('share-status');
  const linkError = byId('link-error');
  let written = null;  // the fragment this page wrote itself, not to be reopened

  function currentFragment() {
    const fragment = dlcost.encodeLink(handlers.currentState());
    written = fragment;
    // replaceState: no hashchange event, no new history entry per copy.
    history.replaceState(null, '', `${location.pathname}${location.search}${fragment}`);
    return fragment;
  }

  byId('copy-link').addEventListener('click', async () => {
    const url = new URL(currentFragment(), location.href).href;
    panel.hidden = false;
    urlField.value = url;
    snippet.hidden = true;
    byId('embed-snippet-label').hidden = true;
    let copied = false;
    try {
      if (navigator.clipboard?.writeText) {
        await navigator.clipboard.writeText(url);
        copied = true;
      }
    } catch {
      // Permission refused or no secure context: the selected field is the fallback.
    }
    status.textContent = copied ? t('linkCopied') : t('linkSelect');
    if (!copied) {
      urlField.focus();
      urlField.select();
    }
  });

  byId('embed').addEventListener('click', () => {
    const fragment = currentFragment();
    const embedUrl = new URL(`embed.html${fragment}`, location.href).href;
    panel.hidden = false;
    urlField.value = new URL(fragment, location.href).href;
    status.textContent = '';
    snippet.hidden = false;
    byId('embed-snippet-label').hidden = false;
    snippet.value = embedSnippet(embedUrl, t('embedTitle', { name: handlers.modelName() }));
    snippet.focus();
    snippet.select();
  });

  function openFromHash() {
    const hash = location.hash;
    if (!isLinkFragment(hash)) return false;
    if (hash === written) return true;
    linkError.textContent = '';
    try {
      const { state, has_document: hasDocument } = dlcost.readLink(hash);
      if (!hasDocument) {
        throw new DlcostError({ code: 'value', path: '', message: t('linkNoDoc') });
      }
      written = hash;
      handlers.open(state);
    } catch (e) {
      if (!(e instanceof DlcostError)) throw e;
      linkError.textContent = t('linkBroken', { reason: e.message });
      handlers.openDefault();
    }
    return true;
  }

  addEventListener('hashchange', () => openFromHash());
  // The message about a broken link stays until the user changes something.
  for (const type of ['input', 'change']) {
    document.querySelector('main').addEventListener(type, () => { linkError.textContent = ''; });
  }
  return { openFromHash };
}
