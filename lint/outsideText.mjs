// Lint rule `aq/outside-text`: every value that reaches a sink VS Code may render as a link, a
// command, an icon or Markdown (notifications, progress messages, input boxes, quick picks, the
// status bar, tree items, hovers, dialogs, VS Code's Chat, the Testing view's items, messages and
// output, CodeLens and code action titles, diagnostics, completion items, webview panel and diff
// editor titles) is either the extension's own literal
// words or goes through the one helper that makes outside text inert (src/shared/plainText.ts).
// A sink fed anything else is an error; a deliberate exception carries an eslint-disable comment
// that says why.

const TEXT_SINK_PROPS = new Set(['title', 'prompt', 'placeHolder', 'message', 'detail', 'description', 'label', 'tooltip', 'validationMessage', 'text']);
const ASSIGNED_SINKS = new Set(['text', 'tooltip', 'description', 'label', 'detail', 'title', 'placeholder', 'prompt', 'validationMessage', 'documentation']);
/** Properties that take an object of text properties: a CodeLens's (or code action's) command, a completion item's label. */
const ASSIGNED_OBJECT_SINKS = new Set(['command', 'label']);
/** Constructors whose argument at the index is shown as text. */
const CONSTRUCTED_SINKS = new Map([
  ['TreeItem', [0, 'tree item label']],
  ['TestMessage', [0, 'test message']],
  ['CodeAction', [0, 'code action title']],
  ['Diagnostic', [1, 'diagnostic message']],
  ['CompletionItem', [0, 'completion item label']],
]);
/** Calls whose argument at the index is shown as text. */
const CALLED_SINKS = new Map([
  ['createTestItem', [1, 'test item label']],
  ['appendOutput', [0, 'test output']],
  ['createWebviewPanel', [1, 'webview panel title']],
]);
const MESSAGE_CALLS = /^show(Error|Warning|Information)Message$/;
const OPTION_CALLS = new Set(['showInputBox', 'showQuickPick', 'withProgress', 'report', 'button']);

const TEXT_HELPERS = new Set(['plainText', 'terminalText']);
const TEXT_TAGS = new Set(['plain']);
const MARKDOWN_HELPERS = new Set(['markdownText']);
const MARKDOWN_TAGS = new Set(['plainMarkdown']);

function calleeName(callee) {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') return callee.property.name;
  return undefined;
}

function propertyName(property) {
  if (property.type !== 'Property' || property.computed) return undefined;
  if (property.key.type === 'Identifier') return property.key.name;
  if (property.key.type === 'Literal') return String(property.key.value);
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Outside text reaches VS Code only through src/shared/plainText.ts.' },
    messages: {
      text: 'This {{sink}} renders links, commands and icons: pass literal text, a plain`…` template, or plainText(…) (src/shared/plainText.ts).',
      markdown: 'This {{sink}} renders Markdown: pass literal Markdown, a plainMarkdown`…` template, or markdownText(…) (src/shared/plainText.ts).',
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;

    const services = source.parserServices;
    const checker = services?.program?.getTypeChecker();

    /** Whether the type checker knows `node` to be a number, bigint or boolean (never text). */
    function numeric(node) {
      if (checker === undefined || services.esTreeNodeToTSNodeMap === undefined) return false;
      const type = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
      const parts = type.isUnion() ? type.types : [type];
      // NumberLike | BigIntLike | BooleanLike flags of TypeScript's TypeFlags.
      return parts.every((part) => (part.flags & (296 | 2112 | 528)) !== 0);
    }

    /** Whether `node` is inert for a sink of `kind` ('text' or 'markdown'). */
    function inert(node, kind, depth = 0) {
      if (node === null || node === undefined || depth > 8) return node === null || node === undefined;
      if (node.type !== 'Literal' && numeric(node)) return true;
      const helpers = kind === 'text' ? TEXT_HELPERS : MARKDOWN_HELPERS;
      const tags = kind === 'text' ? TEXT_TAGS : MARKDOWN_TAGS;
      switch (node.type) {
        case 'Literal':
          return true;
        case 'TemplateLiteral':
          return node.expressions.every((expression) => inert(expression, kind, depth + 1));
        case 'TaggedTemplateExpression':
          return tags.has(calleeName(node.tag));
        case 'CallExpression': {
          const name = calleeName(node.callee);
          if (helpers.has(name)) return true;
          // Numbers and dates formatted by the extension itself.
          return name === 'toLocaleString' || name === 'toFixed' || name === 'formatBytes' || name === 'formatDuration';
        }
        case 'ConditionalExpression':
          return inert(node.consequent, kind, depth + 1) && inert(node.alternate, kind, depth + 1);
        case 'LogicalExpression':
        case 'BinaryExpression':
          return inert(node.left, kind, depth + 1) && inert(node.right, kind, depth + 1);
        case 'Identifier': {
          if (node.name === 'undefined') return true;
          // A const whose value is inert is inert.
          let scope = source.getScope(node);
          while (scope !== null) {
            const variable = scope.set.get(node.name);
            if (variable !== undefined) {
              const def = variable.defs[0];
              return def !== undefined && def.type === 'Variable' && def.parent.kind === 'const' && def.node.init !== null && inert(def.node.init, kind, depth + 1);
            }
            scope = scope.upper;
          }
          return false;
        }
        case 'NewExpression':
          // A MarkdownString is checked where it is made (its argument must be inert Markdown).
          return calleeName(node.callee) === 'MarkdownString';
        case 'TSAsExpression':
        case 'TSNonNullExpression':
          return inert(node.expression, kind, depth + 1);
        default:
          return false;
      }
    }

    function check(node, kind, sink) {
      if (!inert(node, kind)) context.report({ node, messageId: kind, data: { sink } });
    }

    /** Checks the text properties of every object literal inside `node` (items built by a map, options). */
    function checkObjects(node, sink, kind = 'text') {
      const stack = [node];
      while (stack.length > 0) {
        const current = stack.pop();
        if (current === null || typeof current !== 'object') continue;
        if (current.type === 'ObjectExpression') {
          for (const property of current.properties) {
            const name = propertyName(property);
            if (name !== undefined && TEXT_SINK_PROPS.has(name)) check(property.value, kind, `${sink} ${name}`);
          }
        }
        for (const key of Object.keys(current)) {
          if (key === 'parent' || key === 'loc' || key === 'range') continue;
          const value = current[key];
          if (Array.isArray(value)) stack.push(...value);
          else if (value !== null && typeof value === 'object' && typeof value.type === 'string') stack.push(value);
        }
      }
    }

    return {
      CallExpression(node) {
        const name = calleeName(node.callee);
        if (name === undefined) return;
        if (MESSAGE_CALLS.test(name) && node.arguments.length > 0) {
          check(node.arguments[0], 'text', 'notification');
          const options = node.arguments[1];
          if (options !== undefined && options.type === 'ObjectExpression') checkObjects(options, 'dialog');
        } else if (OPTION_CALLS.has(name)) {
          for (const argument of node.arguments) {
            if (argument.type === 'ObjectExpression' || argument.type === 'ArrayExpression' || argument.type === 'CallExpression') checkObjects(argument, name);
          }
        } else if (name === 'markdown' || name === 'appendMarkdown') {
          if (node.arguments.length > 0) check(node.arguments[0], 'markdown', `${name}()`);
        } else if (CALLED_SINKS.has(name)) {
          const [index, sink] = CALLED_SINKS.get(name);
          if (node.arguments.length > index) check(node.arguments[index], 'text', sink);
        } else if (name === 'diff' && node.callee.type === 'MemberExpression' && calleeName(node.callee.object) === 'TestMessage') {
          // TestMessage.diff(message, expected, actual): the message is rendered; the two sides are a diff editor's text.
          if (node.arguments.length > 0) check(node.arguments[0], 'text', 'test message');
        } else if (name === 'executeCommand' && node.arguments[0]?.type === 'Literal' && node.arguments[0].value === 'vscode.diff') {
          if (node.arguments.length > 3) check(node.arguments[3], 'text', 'diff editor title');
        }
      },
      NewExpression(node) {
        const name = calleeName(node.callee);
        const sink = CONSTRUCTED_SINKS.get(name);
        if (sink !== undefined && node.arguments.length > sink[0]) {
          const argument = node.arguments[sink[0]];
          // A completion item's label may be an object of label, detail and description.
          if (argument.type === 'ObjectExpression') checkObjects(argument, sink[1]);
          else check(argument, 'text', sink[1]);
        }
        // A CodeLens's command (its title is rendered with icons).
        if (name === 'CodeLens' && node.arguments.length > 1) checkObjects(node.arguments[1], 'CodeLens');
        if (name === 'MarkdownString' && node.arguments.length > 0) check(node.arguments[0], 'markdown', 'MarkdownString');
      },
      AssignmentExpression(node) {
        if (node.operator !== '=' || node.left.type !== 'MemberExpression' || node.left.computed || node.left.property.type !== 'Identifier') return;
        const property = node.left.property.name;
        if (ASSIGNED_OBJECT_SINKS.has(property) && node.right.type === 'ObjectExpression') checkObjects(node.right, `.${property}`);
        else if (ASSIGNED_SINKS.has(property)) check(node.right, 'text', `.${property}`);
      },
      Property(node) {
        // VS Code's Chat renders a response's error message as Markdown.
        if (propertyName(node) === 'errorDetails' && node.value.type === 'ObjectExpression') checkObjects(node.value, 'Chat error', 'markdown');
      },
    };
  },
};

export default { rules: { 'outside-text': rule } };
