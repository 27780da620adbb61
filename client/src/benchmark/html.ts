// Builds the benchmark webview's HTML: a static shell with a strict CSP, one stylesheet
// and one nonce'd script. Data never goes into the HTML; it arrives by postMessage.
// No `vscode` import: the panel test builds its page with this same function.

export interface PanelHtmlArgs {
  /** URI of dist/media/panel.js as the webview sees it. */
  scriptUri: string;
  /** URI of media/panel.css as the webview sees it. */
  styleUri: string;
  /** `webview.cspSource`. */
  cspSource: string;
  /** Base64 nonce from `crypto.randomBytes(16)`. */
  nonce: string;
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Content-Security-Policy of the panel. */
export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

/** The webview HTML. */
export function buildPanelHtml(args: PanelHtmlArgs): string {
  if (!/^[A-Za-z0-9+/=]+$/.test(args.nonce)) throw new Error('nonce must be base64');
  const csp = escapeAttr(panelCsp(args.cspSource, args.nonce));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(args.styleUri)}">
<title>Shardlens Benchmark</title>
</head>
<body>
<main id="app" aria-live="polite"><p class="muted">Loading…</p></main>
<script nonce="${args.nonce}" src="${escapeAttr(args.scriptUri)}"></script>
</body>
</html>
`;
}
