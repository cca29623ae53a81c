// The walkthrough as package.json contributes it: every step a user sees has its page or picture in
// the package, and completes on something that exists (a contributed setting, a command, or one of
// the context keys src/host/walkthrough/walkthrough.ts sets). A step whose event names nothing
// would never be checked off.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..', '..', '..');

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string; altText?: string };
  completionEvents?: string[];
}

interface Manifest {
  activationEvents: string[];
  contributes: {
    walkthroughs: { id: string; title: string; steps: Step[] }[];
    commands: { command: string }[];
    configuration: { properties: Record<string, unknown> };
  };
}

const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const walkthroughSource = readFileSync(path.join(root, 'src', 'host', 'walkthrough', 'walkthrough.ts'), 'utf8');

describe('The walkthrough in package.json', () => {
  const walkthroughs = manifest.contributes.walkthroughs;

  it('is the one the extension opens, with the five steps of a first use in order', () => {
    assert.equal(walkthroughs.length, 1);
    assert.match(walkthroughSource, new RegExp(`WALKTHROUGH_ID = '${walkthroughs[0].id.replace(/\./g, '\\.')}'`), 'the module opens this id');
    assert.deepEqual(walkthroughs[0].steps.map((s) => s.id), ['baseUrl', 'addApplication', 'apiKey', 'firstQuestion', 'queryFile']);
    assert.ok(manifest.activationEvents.includes('onStartupFinished'), 'the extension starts with VS Code, so it can open the walkthrough on the first start');
  });

  for (const step of manifest.contributes.walkthroughs[0].steps) {
    it(`step "${step.title}": its page is in the package and its completion events name real things`, () => {
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media !== undefined, 'a page or a picture');
      assert.ok(existsSync(path.join(root, media)), `${media} exists`);
      if (step.media.markdown !== undefined) assert.match(step.media.markdown, /^media\/walkthrough\/[\w.-]+\.md$/, 'pages live under media/walkthrough/ (shipped)');
      if (step.media.image !== undefined) assert.ok((step.media.altText ?? '') !== '', 'a picture has alt text');
      const events = step.completionEvents ?? [];
      assert.ok(events.length > 0, 'the step completes when done, not when clicked');
      for (const event of events) {
        const [kind, name] = [event.slice(0, event.indexOf(':')), event.slice(event.indexOf(':') + 1)];
        if (kind === 'onSettingChanged') assert.ok(name in manifest.contributes.configuration.properties, `${name} is a contributed setting`);
        else if (kind === 'onCommand') assert.ok(manifest.contributes.commands.some((c) => c.command === name), `${name} is a contributed command`);
        else if (kind === 'onContext') assert.match(walkthroughSource, new RegExp(`'${name.replace(/\./g, '\\.')}'`), `${name} is a context key the walkthrough module sets`);
        else assert.fail(`unexpected completion event ${event}`);
      }
      for (const [, command] of step.description.matchAll(/\]\(command:([\w.]+)/g)) {
        if (command.startsWith('applicationQuery.')) assert.ok(manifest.contributes.commands.some((c) => c.command === command), `the button runs ${command}, a contributed command`);
      }
    });
  }
});
