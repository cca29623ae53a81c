import * as assert from 'node:assert/strict';
import { QueryProgress, sendPrepared, type AnswerOut } from '../../../src/client/queryPipeline';
import { validateBaseUrl } from '../../../src/shared/baseUrl';
import { CONFIRM_ABOVE_CHARS, prepare } from '../../../src/shared/prepare';
import { DEFAULT_TEMPLATE } from '../../../src/shared/template';
import { startServer, type TestServer } from '../../support/loopback';

const KEY = 'sk-test-Pipeline-Wq7Zr';
const PIECES = 120;

describe('sendPrepared (the query pipeline, src/client/queryPipeline.ts)', () => {
  let server: TestServer;

  before(async () => {
    // The whole answer in one write: the client finds its pieces already buffered.
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(Array.from({ length: PIECES }, (_, i) => `data: ${JSON.stringify({ text: `piece ${i} ` })}\n\n`).join(''));
    });
  });

  after(async () => {
    await server.close();
  });

  it('lets the rest of the process run while it works through an answer that is already buffered: other tasks get their turn, and every piece arrives in order', async () => {
    const prepared = prepare({ applicationId: 'app', question: 'q' }, { applications: [{ id: 'app' }], defaultTemplate: DEFAULT_TEMPLATE, baseUrl: validateBaseUrl(server.url), confirmAboveChars: CONFIRM_ABOVE_CHARS });
    assert.ok(prepared.ok);
    // Another extension's work: a task queued again each time it runs, counted while the pieces are handled.
    let turns = 0;
    let handling = false;
    let stopped = false;
    const other = (): void => {
      if (handling) turns++;
      if (!stopped) setImmediate(other);
    };
    let text = '';
    const out: AnswerOut = {
      status: () => undefined,
      append: (piece) => {
        handling = true;
        text += piece;
        // Handling a piece takes a millisecond (masking, recording, passing on a large piece).
        const until = performance.now() + 1;
        while (performance.now() < until);
      },
    };
    setImmediate(other);
    try {
      await sendPrepared(prepared, new QueryProgress(Date.now()), out, { info: () => undefined, warn: () => undefined, error: () => undefined }, {
        apiKey: KEY, secrets: [KEY], signal: new AbortController().signal, headersTimeoutMs: 10_000, idleTimeoutMs: 10_000, surface: 'queryFile', record: false,
      });
    } finally {
      stopped = true;
    }
    assert.equal(text, Array.from({ length: PIECES }, (_, i) => `piece ${i} `).join(''));
    // 120 ms of handling in slices of 8 ms: about 15 turns for the rest (one or two if it waited for the end).
    assert.ok(turns >= 8, `other tasks ran ${turns} times while ${PIECES} pieces were handled`);
  });
});
