// Share links and the embed snippet: "Copy link" writes the whole state (document, units,
// language) into the URL fragment — never the query, so nothing reaches a server — and a
// #d1. fragment at load or on hashchange reopens it. A link that cannot be read shows why
// (as text) and the page falls back to the default model; nothing from a link is ever
// inserted as HTML or evaluated: it is decoded by the engine and only read as JSON values.
// @ts-check

import dlcost, { DlcostError } from './dlcost.js';
import { byId } from './dom.js';
import { engineText, t } from './i18n.js';
import './links_i18n.js';

/** A share link's state: the document and how the page shows it. */
/** @typedef {{doc: any, ui: {units?: string, lang?: string}}} LinkState */

/** The page state as a share-link state: {doc, ui: {units, lang}}.
 *  @param {unknown} doc @param {{units: string, lang: string}} s @returns {LinkState} */
export function linkState(doc, s) {
  return { doc, ui: { units: s.units === 'GB' ? 'decimal' : 'binary', lang: s.lang } };
}

/** Whether a fragment is meant as a link (not an in-page anchor such as #results).
 *  @param {string} hash */
function isLinkFragment(hash) {
  if (!hash || hash === '#') return false;
  const id = hash.slice(1);
  return !(/^[\w-]+$/.test(id) && document.getElementById(id));
}

/** @param {unknown} v */
const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The iframe for a host page, as plain text: works alone, under any host CSP.
 *  @param {string} embedUrl @param {string} title */
export function embedIframe(embedUrl, title) {
  return `<iframe class="dlcost-embed" src="${attr(embedUrl)}" title="${attr(title)}" width="100%" height="420" loading="lazy"></iframe>`;
}

/** The optional resize listener, as JavaScript for the host's own script file (not HTML:
 *  pasted into a page's HTML a script shows as text, or its CSP refuses it).
 *  @param {string} embedUrl */
export function embedScript(embedUrl) {
  const origin = new URL(embedUrl).origin;
  return `// dlcost embed (optional): the widget posts its height, this sets the iframe's.
addEventListener('message', (e) => {
  if (e.origin !== '${origin}' || !e.data || e.data.type !== 'dlcost:height') return;
  const height = Math.min(Math.max(Number(e.data.height) || 0, 50), 5000);
  for (const f of document.querySelectorAll('iframe.dlcost-embed')) {
    if (f.contentWindow === e.source) f.style.height = \`\${Math.ceil(height)}px\`;
  }
});
`;
}

/** Both, the iframe then the script, as one text. @param {string} embedUrl @param {string} title */
export function embedSnippet(embedUrl, title) {
  return `${embedIframe(embedUrl, title)}\n\n${embedScript(embedUrl)}`;
}

/** @typedef {{currentState: () => LinkState, open: (state: LinkState) => void, openDefault: () => void,
 *   modelName: () => string}} ShareHandlers */

/** The share panel's elements and the fragment this page wrote itself (not to be reopened).
 *  @typedef {{
 *    handlers: ShareHandlers, panel: HTMLElement, urlField: HTMLInputElement, snippet: HTMLTextAreaElement,
 *    script: HTMLTextAreaElement, status: HTMLElement, linkError: HTMLElement, written: string | null,
 *  }} Share */

/** @param {Share} share */
function currentFragment(share) {
  const fragment = dlcost.encodeLink(share.handlers.currentState());
  share.written = fragment;
  // replaceState: no hashchange event, no new history entry per copy.
  history.replaceState(null, '', `${location.pathname}${location.search}${fragment}`);
  return fragment;
}

/** "Copy link": the link into the clipboard, or selected for the user to copy. @param {Share} share */
async function copyLink(share) {
  const { urlField } = share;
  const url = new URL(currentFragment(share), location.href).href;
  share.panel.hidden = false;
  urlField.value = url;
  byId('embed-box').hidden = true;
  let copied = false;
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(url);
      copied = true;
    }
  } catch {
    // Permission refused or no secure context: the selected field is the fallback.
  }
  share.status.textContent = copied ? t('linkCopied') : t('linkSelect');
  if (!copied) {
    urlField.focus();
    urlField.select();
  }
}

/** "Embed": the snippets and a live preview. @param {Share} share */
function showEmbed(share) {
  const { snippet } = share;
  const fragment = currentFragment(share);
  const embedUrl = new URL(`embed.html${fragment}`, location.href).href;
  share.panel.hidden = false;
  share.urlField.value = new URL(fragment, location.href).href;
  share.status.textContent = '';
  byId('embed-box').hidden = false;
  const title = t('embedTitle', { name: share.handlers.modelName() });
  snippet.value = embedIframe(embedUrl, title);
  share.script.value = embedScript(embedUrl);
  // The live preview: the widget itself (the page's CSP allows frames of its own origin).
  const frame = document.createElement('iframe');
  frame.className = 'dlcost-embed';
  frame.src = embedUrl;
  frame.title = title;
  frame.width = '100%';
  frame.height = '420';
  byId('embed-preview').replaceChildren(frame);
  byId('embed-status').textContent = '';
  snippet.focus();
  snippet.select();
}

/** Copies a read-only field's text, or selects it for the user to copy.
 *  @param {HTMLInputElement | HTMLTextAreaElement} field */
async function copyField(field) {
  let copied = false;
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(field.value);
      copied = true;
    }
  } catch {
    // Permission refused or no secure context: the selected field is the fallback.
  }
  byId('embed-status').textContent = copied ? t('snippetCopied') : t('linkSelect');
  if (!copied) {
    field.focus();
    field.select();
  }
}

/** `onHashChange`: a link followed from the open page; when it cannot be read the page keeps
 *  the user's model and shows why (only a first visit falls back to the default).
 *  @param {Share} share */
function openFromHash(share, onHashChange = false) {
  const hash = location.hash;
  if (!isLinkFragment(hash)) return false;
  if (hash === share.written) return true;
  share.linkError.textContent = '';
  try {
    const { state, has_document: hasDocument } = dlcost.readLink(hash);
    if (!hasDocument) {
      throw new DlcostError({ code: 'value', path: '', message: t('linkNoDoc') });
    }
    share.written = hash;
    share.handlers.open(state);
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    share.linkError.textContent = t('linkBroken', { reason: engineText(e.message, e.message_zh) });
    if (!onHashChange) share.handlers.openDefault();
  }
  return true;
}

/**
 * @param {ShareHandlers} handlers
 * @returns {{openFromHash: (onHashChange?: boolean) => boolean}} openFromHash: whether a link
 *   was opened (or failed: the default is then open)
 */
export function createShareLinks(handlers) {
  /** @type {Share} */
  const share = {
    handlers,
    panel: byId('share-panel'),
    urlField: /** @type {HTMLInputElement} */ (byId('share-url')),
    snippet: /** @type {HTMLTextAreaElement} */ (byId('embed-snippet')),
    script: /** @type {HTMLTextAreaElement} */ (byId('embed-script')),
    status: byId('share-status'),
    linkError: byId('link-error'),
    written: null,
  };
  byId('copy-link').addEventListener('click', () => copyLink(share));
  byId('embed').addEventListener('click', () => showEmbed(share));
  byId('copy-iframe').addEventListener('click', () => copyField(share.snippet));
  byId('copy-script').addEventListener('click', () => copyField(share.script));

  addEventListener('hashchange', () => openFromHash(share, true));
  // The message about a broken link stays until the user changes something.
  for (const type of ['input', 'change']) {
    document.querySelector('main').addEventListener(type, () => { share.linkError.textContent = ''; });
  }
  return { openFromHash: (onHashChange = false) => openFromHash(share, onHashChange) };
}
