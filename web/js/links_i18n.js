// Labels of the share-link and embed features, merged into i18n.js's dictionaries (kept in
// their own file so the features' strings travel together).
// @ts-check

import { DICTIONARIES } from './i18n.js';

Object.assign(DICTIONARIES.en, {
  copyLink: 'Copy link',
  embed: 'Embed',
  embedIframe: 'HTML to paste: the iframe (works on any page)',
  copyIframe: 'Copy iframe',
  embedScriptSummary: 'Optional: a script that lets the iframe size itself',
  embedScriptHint: 'Put it in your site\'s own script file (pages with a Content-Security-Policy refuse inline scripts). Without it the iframe keeps its height of 420 px.',
  embedScript: 'JavaScript for your page\'s script file',
  copyScript: 'Copy script',
  snippetCopied: 'Copied to the clipboard.',
  embedPreview: 'Preview',
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
  embedIframe: '要粘贴的 HTML：iframe（任何页面都可用）',
  copyIframe: '复制 iframe',
  embedScriptSummary: '可选：让 iframe 自动调整高度的脚本',
  embedScriptHint: '请放进你网站自己的脚本文件（带内容安全策略的页面会拒绝内联脚本）。没有它，iframe 保持 420 像素高。',
  embedScript: '放进页面脚本文件的 JavaScript',
  copyScript: '复制脚本',
  snippetCopied: '已复制到剪贴板。',
  embedPreview: '预览',
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
