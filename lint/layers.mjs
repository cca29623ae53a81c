// Lint rule `aq/layers`: the fences between the layers of src/, checked on RESOLVED paths. Every
// relative import (import, export … from, import(), require) is resolved against the importing
// file, so no spelling of a path (`../x`, `./../x`, `../../src/x`, `..//x`) gets around a fence.
// `vscode` and Node's built-in modules are allowed per zone; every file under src/ belongs to one.
import { builtinModules } from 'node:module';
import * as path from 'node:path';

const NODE_BUILTINS = new Set(builtinModules);

/** Whether `specifier` names one of Node's built-in modules. */
function isNodeBuiltin(specifier) {
  return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0]);
}

/**
 * The zone a file lies in: the zone with the longest folder that holds it.
 * @param {{ name: string, folder: string }[]} zones (folders absolute)
 */
function zoneOf(zones, file) {
  let best;
  for (const zone of zones) {
    const inside = file === zone.folder || file.startsWith(zone.folder + path.sep) || file === zone.file;
    if (inside && (best === undefined || zone.folder.length > best.folder.length)) best = zone;
  }
  return best;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports respect the layers of src/, on resolved paths.' },
    messages: {
      noZone: '{{file}} lies in no layer of src/: add it to a zone in eslint.config.mjs.',
      crosses: '{{from}} may not import {{to}} ({{target}}){{hint}}.',
      vscode: '{{from}} may not import the vscode API{{hint}}.',
      node: '{{from}} runs where Node is not: it may not import {{specifier}}.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          zones: { type: 'array' },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const options = context.options[0] ?? {};
    const root = options.root ?? context.cwd;
    /** @type {{ name: string, folder: string, file?: string, allow: string[], typeOnly?: string[], vscode: 'none'|'type'|'value', node: boolean }[]} */
    const zones = (options.zones ?? []).map((zone) => ({ ...zone, folder: path.resolve(root, zone.path), file: path.resolve(root, zone.path) }));
    const filename = path.resolve(context.filename);
    const own = zoneOf(zones, filename);
    const relative = (file) => path.relative(root, file).split(path.sep).join('/');

    function check(node, specifier, typeOnly) {
      if (own === undefined || typeof specifier !== 'string') return;
      if (specifier === 'vscode') {
        if (own.vscode === 'value' || (own.vscode === 'type' && typeOnly)) return;
        context.report({ node, messageId: 'vscode', data: { from: own.name, hint: own.vscode === 'type' ? ' at run time (`import type` only)' : '' } });
        return;
      }
      if (isNodeBuiltin(specifier)) {
        if (!own.node) context.report({ node, messageId: 'node', data: { from: own.name, specifier } });
        return;
      }
      if (!specifier.startsWith('.') && !path.isAbsolute(specifier)) return;
      const target = path.resolve(path.dirname(filename), specifier);
      const zone = zoneOf(zones, target) ?? zoneOf(zones, `${target}.ts`);
      if (zone === undefined) {
        // Outside src/ altogether (a test helper, a script): never part of the product.
        context.report({ node, messageId: 'crosses', data: { from: own.name, to: 'a file outside the layers', target: relative(target), hint: '' } });
        return;
      }
      if (zone === own || own.allow.includes(zone.name)) return;
      if (typeOnly && (own.typeOnly ?? []).includes(zone.name)) return;
      const hint = (own.typeOnly ?? []).includes(zone.name) ? ' except as `import type`' : '';
      context.report({ node, messageId: 'crosses', data: { from: own.name, to: zone.name, target: relative(target), hint } });
    }

    const typeOnlyDeclaration = (node) =>
      node.importKind === 'type' || node.exportKind === 'type' ||
      (node.specifiers !== undefined && node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

    return {
      Program(node) {
        if (own === undefined) context.report({ node, messageId: 'noZone', data: { file: relative(filename) } });
      },
      ImportDeclaration(node) {
        check(node.source, node.source.value, typeOnlyDeclaration(node));
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node.source, node.source.value, typeOnlyDeclaration(node));
      },
      ExportAllDeclaration(node) {
        check(node.source, node.source.value, node.exportKind === 'type');
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node.source, node.source.value, false);
      },
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node.moduleReference.expression, node.moduleReference.expression.value, node.importKind === 'type');
      },
      TSImportType(node) {
        const literal = node.argument?.literal ?? node.argument;
        if (literal?.type === 'Literal') check(literal, literal.value, true);
      },
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') check(node.arguments[0], node.arguments[0].value, false);
      },
    };
  },
};

export default { rules: { layers: rule } };
