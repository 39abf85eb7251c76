import * as vscode from 'vscode';

/**
 * Asks, in a modal, whether a provider's key may go to an origin it was not entered for (see
 * `releaseApiKey`). Resolves true (send), false (don't send) or undefined (dismissed: ask again later).
 */
export async function askToSendKey(providerLabel: string, origin: string): Promise<boolean | undefined> {
  const send = vscode.l10n.t('Send Key');
  const dontSend = vscode.l10n.t("Don't Send");
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('Send your {0} key to {1}?', providerLabel, origin),
    {
      modal: true,
      detail: vscode.l10n.t(
        'Your {0} API key was stored for another server, and headroom.baseUrl now points to {1}. Send the key there only if you trust that server. Headroom remembers your answer for it.',
        providerLabel,
        origin,
      ),
    },
    send,
    dontSend,
  );
  if (answer === send) return true;
  if (answer === dontSend) return false;
  return undefined;
}
