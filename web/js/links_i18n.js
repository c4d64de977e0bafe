// Labels of the share-link and embed features, merged into i18n.js's dictionaries (kept in
// their own file so the features' strings travel together).

import { DICTIONARIES } from './i18n.js';

Object.assign(DICTIONARIES.en, {
  copyLink: 'Copy link',
  embed: 'Embed',
  shareUrl: 'Link to this configuration',
  linkCopied: 'Link copied to the clipboard.',
  linkSelect: 'Copy the selected link below.',
  embedSnippet: 'HTML to embed this configuration (iframe, and the optional script that lets it size itself)',
  linkBroken: 'This link could not be opened ({reason}); showing the default model instead.',
  linkNoDoc: 'it carries no model document',
  openInDlcost: 'Open in dlcost',
  embedTitle: 'dlcost: {name}',
  stepTime: 'Step time',
});

Object.assign(DICTIONARIES.zh, {
  copyLink: '复制链接',
  embed: '嵌入',
  shareUrl: '指向当前配置的链接',
  linkCopied: '链接已复制到剪贴板。',
  linkSelect: '请复制下方已选中的链接。',
  embedSnippet: '嵌入当前配置的 HTML（iframe，以及可选的自适应高度脚本）',
  linkBroken: '无法打开此链接（{reason}）；已改为显示默认模型。',
  linkNoDoc: '链接中没有模型文档',
  openInDlcost: '在 dlcost 中打开',
  embedTitle: 'dlcost：{name}',
  stepTime: '单步时间',
});
