/**
 * `json schema <path>`: a schema file compiled with Ajv (JSON Schema draft-07, or 2020-12 when the
 * file's `$schema` says so), and each violation of an answer with its JSON pointer and message.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { SchemaCheck } from '../../shared/queryFile';

/** Schema files larger than this are refused (a schema is a small file; reading is bounded). */
export const SCHEMA_MAX_BYTES = 1024 * 1024;

/**
 * Compiles the text of a schema file, or says why it is not a schema (not JSON, not an object,
 * or a schema Ajv rejects). Remote `$ref`s are not fetched.
 */
export function compileJsonSchema(text: string): SchemaCheck | { readonly error: string } {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    return { error: `the schema file is not JSON (${e instanceof Error ? e.message : String(e)}).` };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { error: 'the schema file is not a JSON Schema: it must hold a JSON object.' };
  const draft = (schema as { $schema?: unknown }).$schema;
  const modern = typeof draft === 'string' && /2019-09|2020-12/.test(draft);
  const options = { allErrors: true, strict: false, validateFormats: false } as const;
  let validate: ValidateFunction;
  try {
    validate = modern ? new Ajv2020(options).compile(schema) : new Ajv(options).compile(schema);
  } catch (e) {
    return { error: `the schema file is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}` };
  }
  return {
    violations: (value) => {
      if (validate(value)) return [];
      return (validate.errors ?? []).map((error) => ({ pointer: error.instancePath, message: describe(error) }));
    },
  };
}

/** Ajv's message, with the property it is about where Ajv leaves it out. */
function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const message = error.message ?? error.keyword;
  if (typeof params.additionalProperty === 'string') return `${message} (${JSON.stringify(params.additionalProperty)})`;
  if (Array.isArray(params.allowedValues)) return `${message}: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return message;
}
