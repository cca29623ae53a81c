/**
 * The reference service's applications and the content they stream. Everything here is pure and
 * deterministic (same seed and request, same bytes), so tests can compute the exact answer a client
 * should end up with.
 */
import { createHash, createHmac } from 'node:crypto';

/** One application of the reference service, as the banner and the app record show it. */
export interface DemoApplication {
  id: string;
  name: string;
  description: string;
  slug: string;
  /** One line for the banner: what this application does on the wire. */
  behaviour: string;
}

function app(id: string, name: string, description: string, behaviour: string): DemoApplication {
  return { id, name, description, slug: id, behaviour };
}

/** Every application the service knows, in banner order. Ids are fixed: tests use them. */
export const APPLICATIONS: readonly DemoApplication[] = Object.freeze([
  app('demo-assistant', 'Demo Assistant', 'Answers any query with a short markdown summary of it.',
    'text/plain markdown built from your query, 1-12 chars per chunk, paced'),
  app('echo', 'Echo', 'Streams back exactly the request body it received.',
    'text/plain, the raw request body byte-exact in 7-byte chunks ("__chunkBytes": n to change)'),
  app('bulk', 'Bulk', 'Streams a large deterministic UTF-8 text.',
    'text/plain, "size" bytes (default 1 MiB) of mixed 1-4 byte UTF-8 in "chunkBytes" chunks'),
  app('sse-openai', 'OpenAI-style SSE', 'The demo answer as OpenAI chat-completion chunks.',
    'text/event-stream, data: {"choices":[{"delta":{"content":…}}]} then [DONE]'),
  app('sse-vercel', 'AI SDK UI message stream', 'The demo answer as a Vercel AI SDK UI message stream.',
    'text/event-stream, {"type":"text-delta","delta":…} events, x-vercel-ai-ui-message-stream: v1'),
  app('sse-dify', 'Dify-style SSE', 'The demo answer as Dify chat-message events.',
    'text/event-stream, {"event":"message","answer":…} then message_end'),
  app('sse-flowise', 'Flowise-style SSE', 'The demo answer as Flowise prediction events.',
    'text/event-stream, {"event":"token","data":…} between start and end'),
  app('sse-anthropic', 'Anthropic-style SSE', 'The demo answer as Anthropic Messages stream events.',
    'text/event-stream, message_start, ping, content_block_delta {"delta":{"type":"text_delta","text":…}} … message_stop'),
  app('sse-openai-responses', 'OpenAI Responses SSE', 'The demo answer as OpenAI Responses API stream events.',
    'text/event-stream, response.output_text.delta {"delta":…}, then the whole text again in the …done events, then response.completed'),
  app('sse-langserve', 'LangServe stream events', 'The demo answer as LangChain/LangServe /stream_events output.',
    'text/event-stream, event: data {"event":"on_chat_model_stream","data":{"chunk":{"content":…}}} (string or text parts), with parser/chain events repeating the text'),
  app('sse-langserve-stream', 'LangServe stream', 'The demo answer as LangServe /stream output chunks.',
    'text/event-stream, event: metadata {run_id}, event: data AIMessageChunk {"content":…}, event: end'),
  app('sse-custom-field', 'SSE in a custom field', 'The demo answer in a field no client guesses.',
    'text/event-stream, data: {"output":{"value":…}}: no text is found unless "responseField" is "output.value"'),
  app('sse-error', 'SSE with an error', 'Starts answering, then the model fails.',
    'text/event-stream, 5 deltas then "event: error" {"message":"model overloaded"}'),
  app('ndjson', 'NDJSON (Ollama-like)', 'The demo answer as newline-delimited JSON.',
    'application/x-ndjson, {"text":…} / {"response":…,"done":false} lines, CRLF and blank lines'),
  app('ndjson-bad', 'NDJSON with a bad line', 'Newline-delimited JSON with an invalid line 4.',
    'application/x-ndjson, 3 good lines, invalid JSON on line 4, then more lines'),
  app('vercel-data', 'AI SDK data stream', 'The demo answer as a Vercel AI SDK data stream.',
    'text/plain, 0:"text" lines, x-vercel-ai-data-stream: v1'),
  app('fail-401', 'Revoked key', 'Its API keys have been revoked.',
    '401 always, even with its own key'),
  app('fail-429', 'Rate limited', 'Over its rate limit.',
    '429 with Retry-After: 7'),
  app('fail-503', 'Unavailable', 'Down for maintenance.',
    '503 with Retry-After as an HTTP date 10 s ahead'),
  app('fail-500', 'Server error', 'Fails with an internal error.',
    '500 with a JSON error body'),
  app('cutoff', 'Cut off', 'The connection drops in the middle of the answer.',
    '~2 KB of the answer, then the socket is destroyed in the middle of a 3-byte character'),
  app('stall', 'Stall', 'Starts answering, then never sends another byte.',
    'a few chunks, then silence until the client gives up'),
  app('slow-headers', 'Slow headers', 'Takes very long before it starts answering.',
    'waits 30 s before sending the response headers'),
  app('html', 'Captive portal', 'Answers with an HTML sign-in page, as a captive portal would.',
    '200 text/html captive-portal page'),
  app('redirect', 'Redirect', 'Redirects the query to another origin.',
    '307 to another origin (the capture server in tests), which must not receive the key'),
  app('bad-chunk', 'Broken chunked encoding', 'The HTTP framing breaks in the middle of the answer.',
    'valid chunks, then an invalid chunk-size line'),
  app('hostile', 'Hostile markdown', 'Answers with markdown that tries to run script and load remote content.',
    'text/plain markdown with <script>, onerror, svg onload, iframe, remote images, command: and javascript: links'),
  app('hostile-401', 'Hostile 401', 'Refuses every key with an error text that looks like a command link.',
    '401 JSON whose error is HOSTILE_TEXT (also for the key check)'),
  app('hostile-500', 'Hostile 500', 'Fails with an error text that looks like a command link.',
    '500 JSON whose error is HOSTILE_TEXT (also for the key check)'),
  app('hostile-sse-error', 'Hostile SSE error', 'Starts answering, then fails with an error event that looks like a command link.',
    'text/event-stream, 3 deltas then "event: error" {"message": HOSTILE_TEXT}'),
  app('hostile-tail', 'Hostile tail', 'An answer whose last words look like a command link, then a pause before it ends.',
    'text/plain, a sentence then HOSTILE_TEXT, then 8 s of silence, then a line break'),
  app('echo-key', 'Echo key', 'Echoes the API key it was sent, in several encodings, as a careless service might.',
    'text/plain: the key whole, split across two chunks 300 ms apart, \\u-escaped, %-encoded, and JSON-escaped, among ordinary text'),
  app('echo-key-sse', 'Echo key (SSE)', 'Echoes pieces of the API key it was sent as a careless streaming service might: split across events, cut short, and as HTML character references.',
    'text/event-stream, OpenAI-style deltas: the key split across two events after 11 characters, its first 20 characters mid-sentence, its + as &#43; and all of it as numeric references'),
  app('echo-key-401', 'Echo key (401)', 'Refuses the request with an error that quotes the start of the key it was sent.',
    '401 text/plain: "Invalid API key" and the key\'s first 20 characters'),
  app('backslashes', 'Backslashes', 'An answer made of backslashes, as a hostile or broken service might send.',
    'text/plain: "size" bytes (default 48 KiB) of backslashes in 4 KiB chunks'),
  app('timed', 'Timed', 'Answers with a unique marker, then optionally a long markdown answer, and records when it wrote them.',
    'text/plain: headers, "delayMs" (default 250) of silence, a marker such as "aq-mark-7", then "size" bytes (default 0) of markdown ("shape": "sections", the default; "code": one long code block; "list": one long list; "table": one long table) in "chunkBytes" chunks, "paceMs" (default 0: full speed) apart'),
  app('judge', 'Judge (rule)', 'Grades an answer by a fixed rule, for judged-by expectations.',
    'text/plain: reads the grading prompt; PASS when the answer holds every "quoted" word of the criterion (any case), else FAIL, with the reason on the same line'),
  app('judge-malformed', 'Judge (no verdict)', 'A judge that never gives a verdict.',
    'text/plain: a sentence that starts with neither PASS nor FAIL and is not JSON'),
  app('judge-broken', 'Judge (failing)', 'A judge whose model backend fails.',
    '500 with a JSON error body'),
]);

/** The most load applications a service may add (see {@link loadApplications}). */
export const MAX_LOAD_APPLICATIONS = 99;

/**
 * `count` extra applications for load tests, `load-01`, `load-02`…: each streams like `bulk`
 * (deterministic UTF-8, `size`, `chunkBytes` and `paceMs` from the request body) under its own key.
 */
export function loadApplications(count: number): DemoApplication[] {
  if (!Number.isInteger(count) || count < 0 || count > MAX_LOAD_APPLICATIONS) {
    throw new RangeError(`loadApplications must be an integer between 0 and ${MAX_LOAD_APPLICATIONS}`);
  }
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    return app(`load-${n}`, `Load ${n}`, 'One of several identical applications for load tests.', 'like bulk: "size", "chunkBytes", "paceMs" from the body');
  });
}

/** Whether an application streams like `bulk` (bulk itself and the load applications). */
export function isBulkLike(id: string): boolean {
  return id === 'bulk' || /^load-\d{2}$/.test(id);
}

/** The application's JSON record as `GET /api/applications/{id}` returns it. */
export function applicationRecord(a: DemoApplication): { id: string; name: string; description: string; slug: string } {
  return { id: a.id, name: a.name, description: a.description, slug: a.slug };
}

/** The valid API key of an application: `aq_` + 32 url-safe characters derived from seed and id. */
export function deriveKey(seed: string, applicationId: string): string {
  const mac = createHmac('sha256', `application-query-reference:${seed}`).update(applicationId).digest('base64url');
  return `aq_${mac.slice(0, 32)}`;
}

/** A small seeded PRNG (sfc32) returning floats in [0, 1). */
export function createPrng(seedText: string): () => number {
  const d = createHash('sha256').update(seedText).digest();
  let a = d.readUInt32LE(0), b = d.readUInt32LE(4), c = d.readUInt32LE(8), n = d.readUInt32LE(12);
  return () => {
    const t = (((a + b) >>> 0) + n) >>> 0;
    n = (n + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstString(v: unknown, depth = 0): string | undefined {
  if (typeof v === 'string') {
    return v;
  }
  if (depth > 8 || typeof v !== 'object' || v === null) {
    return undefined;
  }
  for (const item of Array.isArray(v) ? v : Object.values(v)) {
    const s = firstString(item, depth + 1);
    if (s !== undefined) {
      return s;
    }
  }
  return undefined;
}

/** The question a request body carries: `query`, else `input`, else its first string value. */
export function questionOf(body: unknown): string {
  if (isRecord(body)) {
    for (const field of ['query', 'input']) {
      const v = body[field];
      if (typeof v === 'string') {
        return v;
      }
    }
  }
  return firstString(body) ?? '';
}

function languageOf(body: unknown): string {
  const v = isRecord(body) ? body.languageId : undefined;
  return typeof v === 'string' && /^[\w+#.-]{1,40}$/.test(v) ? v : 'ts';
}

function truncateChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  return longest;
}

/** The closing line of every demo answer: multibyte on purpose (2-, 3- and 4-byte UTF-8). */
export const CLOSING_LINE = '✓ done — 日本語 ok 👍';

/**
 * The markdown answer that demo-assistant (and every framed variant: SSE, NDJSON, data stream)
 * streams for a request body. A function of the body only.
 */
export function demoAnswer(body: unknown): string {
  const question = questionOf(body);
  const language = languageOf(body);
  const oneLine = question.replace(/\s+/g, ' ').trim();
  const lines = question.split(/\r?\n/);
  const words = oneLine === '' ? 0 : oneLine.split(' ').length;
  const excerpt = truncateChars(lines.slice(0, 8).join('\n'), 600);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(excerpt) + 1));
  return [
    '## Answer from the reference service',
    '',
    oneLine === ''
      ? 'Your request carried no text, so here is a general answer.'
      : `You asked: ${truncateChars(oneLine, 160)}`,
    '',
    'What the service noticed:',
    '',
    `- Your query has ${Array.from(question).length} characters on ${lines.length} line${lines.length === 1 ? '' : 's'} (${words} word${words === 1 ? '' : 's'}).`,
    `- The language is \`${language}\`.`,
    '- This answer arrives in small pieces; a faithful client joins them in order.',
    '',
    'An excerpt of what you sent:',
    '',
    `${fence}${language}`,
    excerpt,
    fence,
    '',
    CLOSING_LINE,
    '',
  ].join('\n');
}

/** Splits text into pieces of 1-12 code points, deterministically from `prngSeed`. */
export function splitIntoPieces(text: string, prngSeed: string): string[] {
  const random = createPrng(prngSeed);
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length;) {
    const n = 1 + Math.floor(random() * 12);
    pieces.push(chars.slice(i, i + n).join(''));
    i += n;
  }
  return pieces;
}

/** The PRNG seed for one request's pieces and pacing: the service seed plus the question. */
export function requestSeed(seed: string, body: unknown): string {
  return `${seed}\u0000${questionOf(body)}`;
}

/** The exact pieces (text deltas) the streaming applications send for this body and service seed. */
export function answerPieces(body: unknown, seed: string): string[] {
  return splitIntoPieces(demoAnswer(body), requestSeed(seed, body));
}

/** How many deltas `sse-error` sends before its error event. */
export const SSE_ERROR_DELTAS = 5;
/** How many valid lines `ndjson-bad` sends before its invalid line (which is line 4). */
export const NDJSON_BAD_GOOD_LINES = 3;
/** How many pieces `stall` sends before going silent. */
export const STALL_PIECES = 4;
/** The error message `sse-error` ends with. */
export const SSE_ERROR_MESSAGE = 'model overloaded';

/** The first two bytes of '語' (E8 AA 9E): the last bytes `cutoff` writes before destroying the socket. */
export const CUTOFF_TAIL: Buffer = Buffer.from('語', 'utf8').subarray(0, 2);

/** The complete text `cutoff` sends before its torn character: the demo answer grown past 2 KB. */
export function cutoffPrefix(body: unknown): string {
  let text = demoAnswer(body);
  for (let line = 1; Buffer.byteLength(text) < 2048; line++) {
    text += `Line ${line} of a long answer — it keeps going (ünïcödé, 日本語) until the connection drops.\n`;
  }
  return text + 'The connection drops in the middle of this character: ';
}

const BULK_VARIANTS: readonly string[] = [
  'ascii: the quick brown fox jumps over the lazy dog 0123456789',
  '2-byte: é ß ñ ø Ж Ω ض | 3-byte: € ✓ 日本語 한국어 | 4-byte: 😀 𝄞 🚀',
  'mixed: a€b😀cßd日e𝄞f — “quotes” ‘single’ … end',
  '4-byte run: 🎉🎉🎉🧪🧪🧪 𠜎𠜱𠝹 then 2-byte ÄÖÜäöü and 3-byte ０１２３',
];

/** Largest `size` the bulk application accepts (64 MiB). */
export const BULK_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Exactly `size` bytes of valid UTF-8: numbered lines mixing 1-, 2-, 3- and 4-byte characters.
 * The last line is cut at a character boundary and padded with '.', so the text stays valid.
 */
export function bulkBytes(size: number): Buffer {
  if (!Number.isInteger(size) || size < 0 || size > BULK_MAX_BYTES) {
    throw new RangeError(`size must be an integer between 0 and ${BULK_MAX_BYTES}`);
  }
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (let n = 0; pos < size; n++) {
    const line = `${String(n).padStart(8, '0')} ${BULK_VARIANTS[n % BULK_VARIANTS.length]}\n`;
    const len = Buffer.byteLength(line);
    if (pos + len <= size) {
      pos += out.write(line, pos, 'utf8');
      continue;
    }
    for (const ch of line) {
      const chLen = Buffer.byteLength(ch);
      if (pos + chLen > size) {
        break;
      }
      pos += out.write(ch, pos, 'utf8');
    }
    out.fill(0x2e, pos);
    pos = size;
  }
  return out;
}

/** {@link bulkBytes} decoded: the text a client of `bulk` should end up with. */
export function bulkText(size: number): string {
  return bulkBytes(size).toString('utf8');
}

/** The markdown `hostile` streams; `origin` is the service's own URL, used for remote loads it can observe. */
export function hostileMarkdown(origin: string): string {
  const probe = `${origin}/__hostile`;
  return [
    '## Hostile answer',
    '',
    'Everything below must show as text or be dropped; nothing may run or load.',
    '',
    '<script>document.body.innerHTML = "pwned"; fetch("' + probe + '/script")</script>',
    '',
    'An image with an error handler: <img src=x onerror="fetch(\'' + probe + '/onerror\')">',
    '',
    '<svg onload="fetch(\'' + probe + '/svg\')"><circle r="4"/></svg>',
    '',
    '<iframe src="' + probe + '/iframe"></iframe>',
    '',
    '<object data="' + probe + '/object"></object><embed src="' + probe + '/embed">',
    '',
    `A remote image: ![x](${probe}/image.png)`,
    '',
    `An HTML remote image: <img src="${probe}/img.png">`,
    '',
    '- [c](command:workbench.action.quit)',
    '- [j](javascript:alert(1))',
    '- [d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    `- <a href="${probe}/link" onclick="alert(1)">click me</a>`,
    '',
    `<span style="background-image: url(${probe}/css.png)">styled text</span>`,
    '',
    `<style>body { background: url(${probe}/style.png) } * { display: none }</style>`,
    '',
    `<link rel="stylesheet" href="${probe}/sheet.css"><meta http-equiv="refresh" content="0; url=${probe}/refresh">`,
    '',
    '<form action="' + probe + '/form"><input name="q" autofocus onfocus="alert(1)"></form>',
    '',
    '```html',
    '<script>alert("inside a code block: shown as text")</script>',
    '```',
    '',
    CLOSING_LINE,
    '',
  ].join('\n');
}

/** The page `html` answers with, and `GET /api/not-json`: what a captive portal or login wall sends. */
export const CAPTIVE_PORTAL_HTML = [
  '<!DOCTYPE html>',
  '<html><head><meta charset="utf-8"><title>Sign in to the network</title></head>',
  '<body><h1>Sign in to continue</h1>',
  '<p>You must accept the terms of use before you can use this network.</p>',
  '<form method="post" action="/login"><button>Accept and connect</button></form>',
  '</body></html>',
  '',
].join('\n');

/**
 * The long markdown answer of `timed`: numbered sections (heading, paragraph, list, highlighted
 * code, table, quote) until at least `size` bytes, then a last line naming the final section.
 */
export function timedMarkdown(size: number): string {
  const parts: string[] = [];
  let bytes = 0;
  let n = 0;
  while (bytes < size) {
    n++;
    const section = [
      `## Section ${n}`,
      '',
      `Paragraph ${n} with **bold**, \`inline code\`, a [link](https://example.com/${n}) and ünïcödé — 日本語 🚀, long enough to wrap.`,
      '',
      `- item ${n}.1`,
      `- item ${n}.2 with *emphasis*`,
      '',
      '```ts',
      `export function step${n}(value: number): number {`,
      `  return value * ${n} + 1; // step ${n}`,
      '}',
      '```',
      '',
      '| key | value |',
      '| --- | --- |',
      `| n | ${n} |`,
      '',
      `> Quote ${n}.`,
      '',
      '',
    ].join('\n');
    parts.push(section);
    bytes += Buffer.byteLength(section);
  }
  parts.push(`Last section: ${n}.\n`);
  return parts.join('');
}

/**
 * The `code` shape of `timed`: one TypeScript code block of at least `size` bytes (a long
 * generated file, as an answer may quote one), then a last line naming its number of functions.
 */
export function timedCode(size: number): string {
  const lines = ['Here is the file:', '', '```ts'];
  let bytes = 0;
  let n = 0;
  while (bytes < size) {
    n++;
    const part = [
      `/** Step ${n}: scales a value ("${n}" times) and logs it. */`,
      `export async function step${n}(value: number, label = 'step ${n}'): Promise<number> {`,
      `  const scaled = value * ${n} + Math.max(0, value - ${n}); // ${n}`,
      "  console.log(`${label}: ${scaled}`);",
      '  return scaled;',
      '}',
      '',
    ].join('\n');
    lines.push(part);
    bytes += Buffer.byteLength(part) + 1;
  }
  lines.push('```', '', `Functions: ${n}.`, '');
  return lines.join('\n');
}

/**
 * The `list` shape of `timed`: one bulleted list of at least `size` bytes (one item a line), then
 * a last line naming its number of items.
 */
export function timedList(size: number): string {
  const lines = ['Here is the list:', ''];
  let bytes = 0;
  let n = 0;
  while (bytes < size) {
    n++;
    const item = `- Item ${n}: scale the value by **${n}**, log it with \`step${n}()\` and go on to the next one.`;
    lines.push(item);
    bytes += Buffer.byteLength(item) + 1;
  }
  lines.push('', `Items: ${n}.`, '');
  return lines.join('\n');
}

/**
 * The `table` shape of `timed`: one table of at least `size` bytes (four columns, one row a line),
 * then a last line naming its number of rows.
 */
export function timedTable(size: number): string {
  const lines = ['Here is the table:', '', '| step | value | label | note |', '| --- | ---: | --- | --- |'];
  let bytes = 0;
  let n = 0;
  while (bytes < size) {
    n++;
    const row = `| ${n} | ${n * 7} | \`step${n}\` | scaled by *${n}* and logged |`;
    lines.push(row);
    bytes += Buffer.byteLength(row) + 1;
  }
  lines.push('', `Rows: ${n}.`, '');
  return lines.join('\n');
}

/**
 * Outside text that VS Code would turn into links and icons if it reached a notification, prompt
 * or quick pick as it is: the hostile applications send it as error text and as an answer's end.
 */
export const HOSTILE_TEXT = '[Fix it](command:workbench.action.closeAllEditors) $(alert) [Docs](https://evil.example/phish)';

/** What `echo-key` streams around `key`: each element one write, in order. */
export function echoKeyPieces(key: string): string[] {
  const half = Math.floor(key.length / 2);
  const unicode = [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const percent = [...key].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return [
    'Here is what you sent me. ',
    `Whole: ${key}. `,
    `Split: ${key.slice(0, half)}`,
    `${key.slice(half)}. `,
    `Escaped: ${unicode}. `,
    `Encoded: ${percent}. `,
    `JSON: ${JSON.stringify({ authorization: `Bearer ${key}` })}.`,
    '\nThat was all of it.\n',
  ];
}

/** The deltas `echo-key-sse` streams around `key`: each element one SSE event, in order. */
export function echoKeySsePieces(key: string): string[] {
  const references = [...key].map((c) => `&#${c.charCodeAt(0)};`).join('');
  return [
    'Your key, split: ',
    key.slice(0, 11),
    `${key.slice(11)}. `,
    `Its start, ${key.slice(0, 20)}, in a sentence. `,
    `As HTML: ${key.replace(/[+_-]/g, (c) => `&#${c.charCodeAt(0)};`)} and ${references}.`,
    '\nThat was all of it.\n',
  ];
}

/** A block of the grading prompt (`<<<NAME>>>` … `<<<NAME END>>>`, the markers maybe lengthened with `#`). */
function promptBlock(prompt: string, name: string): string | undefined {
  const m = new RegExp(`<<<${name}(#*)>>>\\n([\\s\\S]*?)\\n<<<${name}\\1 END>>>`).exec(prompt);
  return m === null ? undefined : m[2];
}

/**
 * What the `judge` application answers for a request body: it reads the grading prompt's criterion
 * and answer, and passes the answer when it holds every double-quoted word of the criterion,
 * ignoring case. Deterministic, so tests know each verdict.
 */
export function judgeVerdict(body: unknown): string {
  const prompt = questionOf(body);
  const criterion = promptBlock(prompt, 'CRITERION');
  const answer = promptBlock(prompt, 'ANSWER');
  if (criterion === undefined || answer === undefined) return 'FAIL: the request holds no grading prompt with a criterion and an answer.\n';
  const words = [...criterion.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  if (words.length === 0) return 'FAIL: the criterion names no "quoted" word to look for.\n';
  const missing = words.find((word) => !answer.toLowerCase().includes(word.toLowerCase()));
  return missing === undefined
    ? `PASS: the answer mentions ${words.map((w) => JSON.stringify(w)).join(' and ')}.\n`
    : `FAIL: the answer never mentions ${JSON.stringify(missing)}.\n`;
}

/** What `judge-malformed` answers: no verdict in either form. */
export const MALFORMED_VERDICT = 'I read the answer carefully and have some thoughts about it.\n';
