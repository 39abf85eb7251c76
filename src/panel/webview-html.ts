import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The panel's HTML shell: strict CSP (`default-src 'none'`; scripts only with this render's nonce;
 * styles, fonts and images only from the extension's media folder), VS Code theme variables only.
 */
export function renderWebviewHtml(webview: vscode.Webview, mediaUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(mediaUri, 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(mediaUri, 'webview.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style.toString()}" rel="stylesheet">
<title>Headroom</title>
</head>
<body>
<div id="app"></div>
<noscript>Headroom needs scripts enabled in its webview.</noscript>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
