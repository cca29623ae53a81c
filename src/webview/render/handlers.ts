import { SAFE_LINK } from './markdown';

/** What a rendered answer asks the host to do (a subset of the protocol's `PageToHost`). */
export type ContentMessage =
  | { readonly type: 'openLink'; readonly href: string }
  | { readonly type: 'copy'; readonly text: string }
  | { readonly type: 'insertCode'; readonly code: string }
  | { readonly type: 'openCode'; readonly code: string; readonly language?: string };

const COPIED_FEEDBACK_MS = 1500;

/** The raw code of a rendered code block (the text, not the highlighted markup). */
export function codeOf(block: Element): string {
  const code = block.querySelector('pre > code')?.textContent ?? '';
  // The fence's own last line break is not part of the code.
  return code.endsWith('\n') ? code.slice(0, -1) : code;
}

/**
 * One delegated click handler for rendered answers under `root`: http(s)/mailto links are opened
 * through the host, every other link does nothing, code block buttons copy/insert/open the code.
 */
export function attachContentHandlers(root: HTMLElement, post: (message: ContentMessage) => void): void {
  // A middle click must not open anything either.
  root.addEventListener('auxclick', (event) => {
    if (event.target instanceof Element && event.target.closest('a') !== null) {
      event.preventDefault();
    }
  });
  root.addEventListener('click', (event) => {
    const target = event.target;
    if (!(target instanceof Element)) {
      return;
    }
    const button = target.closest('.aq-code-actions button[data-action]');
    if (button instanceof HTMLElement && root.contains(button)) {
      const block = button.closest('.aq-code');
      if (block !== null) {
        event.preventDefault();
        runCodeAction(button, block, post);
      }
      return;
    }
    const link = target.closest('a');
    if (link !== null && root.contains(link)) {
      // Never navigate the webview itself.
      event.preventDefault();
      const href = link.getAttribute('href');
      if (href !== null && SAFE_LINK.test(href)) {
        post({ type: 'openLink', href });
      }
    }
  });
}

function runCodeAction(button: HTMLElement, block: Element, post: (message: ContentMessage) => void): void {
  const code = codeOf(block);
  switch (button.dataset.action) {
    case 'copy':
      post({ type: 'copy', text: code });
      showCopied(button);
      break;
    case 'insert':
      post({ type: 'insertCode', code });
      break;
    case 'open': {
      const language = block.getAttribute('data-lang') ?? undefined;
      post(language === undefined ? { type: 'openCode', code } : { type: 'openCode', code, language });
      break;
    }
    default:
      break;
  }
}

/** Briefly swaps a copy button's icon for a check mark. */
export function showCopied(button: HTMLElement): void {
  const icon = button.querySelector('.codicon');
  if (icon === null || icon.classList.contains('codicon-check')) {
    return;
  }
  icon.classList.replace('codicon-copy', 'codicon-check');
  setTimeout(() => icon.classList.replace('codicon-check', 'codicon-copy'), COPIED_FEEDBACK_MS);
}
