import * as vscode from 'vscode';
import type { ModelJudge } from '../../client/queryFiles/checks';

/** How much of a model's answer is kept (a verdict is a line or a small JSON object). */
const MODEL_ANSWER_CHARS = 64 * 1024;

/**
 * `judged by model <name or id>` in the editor: one of VS Code's language models (Copilot's or
 * another extension's), found by id, else by name or family, asked with the consent VS Code asks
 * the user for; the run's stop cancels the request.
 */
export const vscodeModelJudge: ModelJudge = async (name, prompt, signal) => {
  // A VS Code without the language model API: the expectation is not run, as on the command line.
  if (typeof vscode.lm?.selectChatModels !== 'function') return { error: 'this VS Code has no language models to ask.', notRun: true };
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = (): void => cancel.cancel();
  signal.addEventListener('abort', onAbort);
  try {
    const lower = name.toLowerCase();
    const byId = await vscode.lm.selectChatModels({ id: name });
    const model = byId[0] ?? (await vscode.lm.selectChatModels()).find((m) => m.name.toLowerCase() === lower || m.family.toLowerCase() === lower);
    if (model === undefined) return { error: `no language model "${name}" is available in VS Code (models come from Copilot or other extensions).` };
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], { justification: 'Application Query asks a model to grade an answer for a "judged by model" expectation of a query file.' }, cancel.token);
    let text = '';
    for await (const part of response.text) {
      text += part;
      if (text.length > MODEL_ANSWER_CHARS) break;
    }
    return { text };
  } catch (error) {
    if (signal.aborted) return { error: `the model ${name} was stopped.` };
    return { error: `the model ${name} could not be asked: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    signal.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
};
