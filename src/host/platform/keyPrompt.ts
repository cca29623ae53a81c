import * as vscode from 'vscode';
import { validateApiKey } from '../../shared/apiKey';
import { plain } from '../../shared/plainText';

/**
 * Asks for an API key in a password box. The key is refused at entry if it holds whitespace or
 * control characters (it would break the Authorization header). Returns undefined if cancelled.
 */
export async function promptForApiKey(applicationLabel: string, service: string, reason?: string): Promise<string | undefined> {
  const key = await vscode.window.showInputBox({
    title: plain`API Key for ${applicationLabel}`,
    prompt: plain`${reason ?? ''}${reason ? ' ' : ''}Paste the key generated in the service's dashboard (Applications → ${applicationLabel} → API Keys). It is stored in VS Code's secret storage for ${service} only.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'API key',
    validateInput: (value) => (value.length === 0 ? undefined : validateApiKey(value)),
  });
  if (key === undefined || key.length === 0) {
    return undefined;
  }
  return validateApiKey(key) ? undefined : key;
}
