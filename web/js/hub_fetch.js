// "Fetch from the Hugging Face Hub": the one place the page goes to the network, and only when
// the user clicks. It asks huggingface.co for the model's config.json and for the model API's
// safetensors parameter total (shown beside the engine's count as a cross-check; a mismatch
// is flagged). The CSP's connect-src allows that origin and no other. Gated or private
// repositories, a missing id, no network and a non-JSON answer each get their own message and
// point back to paste/drop. Text from the Hub only ever becomes text nodes.
// @ts-check

import { h } from './dom.js';
import { DICTIONARIES, t } from './i18n.js';
import { groupDigits } from './units.js';

export const HUB = 'https://huggingface.co';

Object.assign(DICTIONARIES.en, {
  hub_label: 'Hugging Face model id',
  hub_fetch: 'Fetch from the Hub',
  hub_privacy: 'Only this button contacts huggingface.co; nothing else leaves the page.',
  hub_bad_id: 'A model id is ORG/NAME, e.g. Qwen/Qwen3-8B.',
  hub_fetching: 'Fetching {id}/config.json from huggingface.co…',
  hub_loaded: 'Loaded {id}/config.json.',
  hub_gated:
    '{id} is gated or private: the Hub wants a signed-in account. Download its config.json on the Hub and paste or drop it here.',
  hub_missing: 'The Hub has no model {id} (or no config.json in it). Check the id, or paste or drop a config.json.',
  hub_offline: 'The Hub could not be reached (offline or blocked). Paste or drop the config.json instead.',
  hub_not_json: 'The Hub\u2019s answer for {id} is not a JSON config.json. Paste or drop the config.json instead.',
  hub_status: 'The Hub answered {status} for {id}. Paste or drop the config.json instead.',
  hub_total_match: 'The Hub\u2019s safetensors total, {hub} parameters, equals the engine\u2019s count.',
  hub_total_differ: 'Mismatch: the Hub\u2019s safetensors total is {hub} parameters, the engine counts {engine}.',
  hub_total_none: 'The Hub gives no safetensors parameter total for {id}.',
});

Object.assign(DICTIONARIES.zh, {
  hub_label: 'Hugging Face 模型 ID',
  hub_fetch: '从 Hub 获取',
  hub_privacy: '只有这个按钮会访问 huggingface.co；页面不向别处发送任何内容。',
  hub_bad_id: '模型 ID 形如 ORG/NAME，例如 Qwen/Qwen3-8B。',
  hub_fetching: '正在从 huggingface.co 获取 {id}/config.json…',
  hub_loaded: '已载入 {id}/config.json。',
  hub_gated: '{id} 需要授权或为私有：Hub 要求登录账户。请在 Hub 上下载其 config.json 后粘贴或拖入此处。',
  hub_missing: 'Hub 上没有模型 {id}（或其中没有 config.json）。请检查 ID，或粘贴、拖入 config.json。',
  hub_offline: '无法连接 Hub（离线或被拦截）。请改为粘贴或拖入 config.json。',
  hub_not_json: 'Hub 为 {id} 返回的不是 JSON 格式的 config.json。请改为粘贴或拖入 config.json。',
  hub_status: 'Hub 对 {id} 返回了 {status}。请改为粘贴或拖入 config.json。',
  hub_total_match: 'Hub 的 safetensors 参数总数 {hub} 与引擎的计数一致。',
  hub_total_differ: '不一致：Hub 的 safetensors 参数总数为 {hub}，引擎计得 {engine}。',
  hub_total_none: 'Hub 未给出 {id} 的 safetensors 参数总数。',
});

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export class HubError extends Error {
  constructor(key, vars) {
    super(t(key, vars));
    this.key = key;
  }
}

async function getJson(url, id, fetchImpl) {
  let res;
  try {
    res = await fetchImpl(url, { credentials: 'omit', redirect: 'follow' });
  } catch {
    throw new HubError('hub_offline', { id });
  }
  if (res.status === 401 || res.status === 403) throw new HubError('hub_gated', { id });
  if (res.status === 404) throw new HubError('hub_missing', { id });
  if (!res.ok) throw new HubError('hub_status', { id, status: res.status });
  try {
    return JSON.parse(await res.text());
  } catch {
    throw new HubError('hub_not_json', { id });
  }
}

/**
 * The model's config.json and the Hub's safetensors parameter total (null when the API gives
 * none or cannot be read: the config alone still estimates).
 * Rejects with HubError (its `key` says which case).
 */
export async function fetchHubModel(id, fetchImpl = globalThis.fetch.bind(globalThis)) {
  if (!MODEL_ID.test(id) || id.includes('..')) throw new HubError('hub_bad_id', { id });
  const config = await getJson(`${HUB}/${id}/resolve/main/config.json`, id, fetchImpl);
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new HubError('hub_not_json', { id });
  let total = null;
  try {
    const info = await getJson(`${HUB}/api/models/${id}`, id, fetchImpl);
    if (Number.isSafeInteger(info?.safetensors?.total)) total = info.safetensors.total;
  } catch {
    // The cross-check is optional: a config without it is still a model.
  }
  return { config, total };
}

/** The cross-check line: the Hub's total beside the engine's count, a mismatch flagged. */
export function totalCheck(id, hubTotal, engineTotal) {
  if (hubTotal === null) return h('p', { class: 'hint', text: t('hub_total_none', { id }) });
  const same = hubTotal === engineTotal;
  return h('p', {
    class: same ? 'hint' : 'field-error',
    dataset: { hubTotal: String(hubTotal), match: String(same) },
    text: t(same ? 'hub_total_match' : 'hub_total_differ', {
      hub: groupDigits(hubTotal),
      engine: groupDigits(engineTotal),
    }),
  });
}

/**
 * Adds the id field, the button and a status line after `anchor`. On a click: fetches, then
 * `onDocument({model: {hf_config, name}})`; `engineTotal()` gives the engine's count of the
 * model just loaded (or null) for the cross-check.
 */
export function mountHubFetch(anchor, onDocument, engineTotal, fetchImpl) {
  const input = h('input', {
    id: 'hub-id',
    type: 'text',
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'Qwen/Qwen3-8B',
  });
  // data-i18n: the page's language switch (applyI18n) rewrites them.
  const button = h('button', { id: 'hub-fetch', type: 'button', 'data-i18n': 'hub_fetch' }, t('hub_fetch'));
  const status = h('div', { id: 'hub-status', role: 'status' });
  const row = h(
    'div',
    { class: 'hub-fetch' },
    h('label', { for: 'hub-id', 'data-i18n': 'hub_label' }, t('hub_label')),
    input,
    button,
    h('p', { class: 'hint', 'data-i18n': 'hub_privacy' }, t('hub_privacy')),
    status,
  );
  anchor.after(row);
  button.addEventListener('click', async () => {
    const id = input.value.trim();
    status.replaceChildren(h('p', { class: 'hint', text: t('hub_fetching', { id }) }));
    button.disabled = true;
    try {
      const { config, total } = await fetchHubModel(id, fetchImpl);
      await onDocument({ model: { hf_config: config, name: id } });
      status.replaceChildren(h('p', { class: 'hint', text: t('hub_loaded', { id }) }));
      const engine = engineTotal();
      if (engine !== null) status.append(totalCheck(id, total, engine));
    } catch (e) {
      const err = /** @type {{key?: string, message: string}} */ (e); // a HubError, or fetch's TypeError
      status.replaceChildren(
        h('p', { class: 'field-error', role: 'alert', dataset: { error: err.key ?? 'other' }, text: err.message }),
      );
    } finally {
      button.disabled = false;
    }
  });
  return row;
}
